"""records.replace: dataclasses.replace for plain records, without running __init__ again."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings

from gitcoop.domain.records import Item, Roles, replace
from tests.domain.test_itemdata import items


@settings(max_examples=30, deadline=None)
@given(items, items)
def test_replace_gives_what_dataclasses_replace_gives(item: Item, other: Item) -> None:
    changes = {"status": other.status, "links": other.links, "obligation": other.obligation}
    fast, slow = replace(item, **changes), dataclasses.replace(item, **changes)
    assert fast == slow and type(fast) is Item
    assert fast.to_data() == slow.to_data()
    assert item == replace(item)  # the original is untouched, and nothing is shared that changes


def test_a_change_naming_no_field_is_refused_as_dataclasses_refuses_it() -> None:
    with pytest.raises(TypeError):
        replace(Roles(), nobody=("x",))
    with pytest.raises(TypeError):  # beside a field it names, too
        replace(Roles(), owners=("a",), nobody=("x",))


def test_records_stay_frozen_after_replace() -> None:
    changed = replace(Roles(owners=("a",)), chiefs=("b",))
    assert changed == Roles(("a",), ("b",))
    with pytest.raises(dataclasses.FrozenInstanceError):
        changed.owners = ()  # type: ignore[misc]
