"""Aliases: an imported item keeps the id it had where it came from (TW-12, bd-a1b2, gh#42)."""

from __future__ import annotations

import pytest

from gitcoop.domain import admission, aliases, itemdata, rulebook
from gitcoop.domain.records import Item
from gitcoop.errors import Refused
from tests.domain.builders import ROLES, added, event


def test_an_add_with_aliases_keeps_them_and_an_item_without_has_no_key() -> None:
    item = rulebook.apply(None, event("add", kind="todo", title="T", aliases=["TW-12"]), ROLES)
    assert item.aliases == ("TW-12",)
    assert item.to_data()["aliases"] == ["TW-12"]
    assert Item.from_data(item.to_data()) == item
    assert itemdata.checked(item.to_data()) == item.to_data()
    assert "aliases" not in added().to_data()
    assert itemdata.checked(added().to_data()) == added().to_data()


@pytest.mark.parametrize(
    "alias", ["TW-12", "tw-5b0f6c3e-1c1a-4b7e-9d2a-0e9f1a2b3c4d", "bd-a1b2", "gh#42", "task-7"]
)
def test_the_forms_of_the_trackers_are_aliases(alias: str) -> None:
    assert aliases.alias_problem(alias) is None
    assert aliases.is_alias(alias)


@pytest.mark.parametrize(
    "alias", ["", "12", "td-7k2m", "gh#", "a b-1", "x-1\x1b[2J", "gh#" + "9" * 200, "ev-abcd"]
)
def test_what_is_not_an_alias_is_refused(alias: str) -> None:
    assert aliases.alias_problem(alias) is not None
    with pytest.raises(Refused):
        rulebook.apply(None, event("add", kind="todo", title="T", aliases=[alias]), ROLES)


def test_the_admission_check_refuses_a_hostile_alias() -> None:
    bad = event("add", kind="todo", title="T", aliases=["x-1\n2"])
    assert admission.event_problem(bad) is not None
    assert admission.event_problem(event("add", kind="todo", title="T", aliases=["gh#4"])) is None


def test_aliases_are_matched_without_regard_to_case() -> None:
    assert aliases.key("TW-12") == aliases.key("tw-12")
    assert aliases.key("gh#42") != aliases.key("gh#4")
