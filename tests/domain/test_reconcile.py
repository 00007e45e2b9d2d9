"""Merging configs and telling people about conflicts: pure, symmetric, no git."""

from __future__ import annotations

from datetime import UTC, datetime

from gitcoop.domain import reconcile
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Conflict, Item

AT = datetime(2026, 11, 29, 10, tzinfo=UTC)


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
    assert not notice.mine and "ann@x's take of td-0000 lost to yours" in notice.text
    assert reconcile.notices(_taken_by("bob@x"), "td-0000", [lost], "carl@x") == []


def test_the_winner_is_not_given_the_losers_advice() -> None:
    reason = "todo td-0000000000aa is already taken by bob@x — --force to take it over"
    lost = Conflict(EventId("ev-000000000001"), "take", "ann@x", reason)
    [notice] = reconcile.notices(_taken_by("bob@x"), "td-0000", [lost], "bob@x")
    assert "--force" not in notice.text and "take it over" not in notice.text
    assert notice.text.startswith("ann@x's take of td-0000 lost to yours")
    assert "nothing for you to do" in notice.text


def test_the_loser_of_a_blocked_round_is_told_who_holds_it() -> None:
    item = _taken_by("bob@x")
    blocked = Item(**{**item.__dict__, "kind": "item", "status": "blocked"})
    lost = Conflict(EventId("ev-000000000001"), "pick", "ann@x", "already picked")
    [notice] = reconcile.notices(blocked, "it-0000", [lost], "ann@x")
    assert notice.text.startswith("your pick of it-0000 lost to bob@x, who took it at")
