"""Merging configs and telling people about conflicts: pure, symmetric, no git."""

from __future__ import annotations

from datetime import UTC, datetime

from gitcoop.domain import reconcile
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Conflict, Item, LedgerConfig, Roles

AT = datetime(2026, 11, 29, 10, tzinfo=UTC)


def test_merge_config_unites_roles_and_takes_the_max_clock_whichever_side_merges() -> None:
    a = LedgerConfig(roles=Roles(owners=("zed@x",)), settings={"k": 1, "a": "x"}, clock=7)
    b = LedgerConfig(roles=Roles(owners=("amy@x",), chiefs=("c@x",)), settings={"k": 2}, clock=9)
    merged = reconcile.merge_config(a, b)
    assert merged == reconcile.merge_config(b, a)
    assert merged.roles == Roles(owners=("amy@x", "zed@x"), chiefs=("c@x",))
    assert merged.clock == 9
    assert dict(merged.settings) == {"a": "x", "k": 2}


def test_equal_roles_keep_their_order() -> None:
    roles = Roles(owners=("zed@x", "amy@x"))
    assert reconcile.merge_roles(roles, roles) == roles
    assert reconcile.same_roles(roles, Roles(owners=("amy@x", "zed@x")))
    assert not reconcile.same_roles(roles, Roles(owners=("amy@x",)))


def _taken_by(actor: str) -> Item:
    return Item(
        id=ItemId("td-0000000000aa"), kind="todo", title="t", status="taken",
        created_at=AT, created_by="a@x", taken_by=actor, taken_at=AT,
    )  # fmt: skip


def test_the_loser_is_told_who_won_and_when() -> None:
    lost = Conflict(EventId("ev-000000000001"), "take", "ann@x", "already taken")
    [notice] = reconcile.notices(_taken_by("bob@x"), "td-0000", [lost], "ann@x")
    assert notice.mine
    assert notice.text.startswith("your take of td-0000 lost to bob@x, who took it at 2026-11-29")


def test_the_winner_is_told_too_and_bystanders_are_not() -> None:
    lost = Conflict(EventId("ev-000000000001"), "take", "ann@x", "already taken")
    [notice] = reconcile.notices(_taken_by("bob@x"), "td-0000", [lost], "bob@x")
    assert not notice.mine and "ann@x's take of td-0000 lost to you" in notice.text
    assert reconcile.notices(_taken_by("bob@x"), "td-0000", [lost], "carl@x") == []
