"""Conflicts on replay, and an owner's resolve event settling them: pure, no git."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gitcoop.domain import lifecycle, resolution, rulebook
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Event, Roles
from gitcoop.errors import Refused

AT = datetime(2026, 11, 29, 10, tzinfo=UTC)
ITEM = ItemId("td-0000000000aa")
ROLES = Roles(owners=("owner@x",))


def ev(n: int, clock: int, actor: str, verb: str, **args: Any) -> Event:
    return Event(
        EventId(f"ev-{n:012d}"), ITEM, clock, AT + timedelta(minutes=n), actor, None, verb, args
    )


def raced() -> list[Event]:
    """Two offline takes at the same clock; ev-...2 sorts first and wins."""
    return [
        ev(1, 1, "owner@x", "add", kind="todo", title="t"),
        ev(3, 2, "ann@x", "take"),
        ev(2, 2, "bob@x", "take"),
        ev(4, 3, "ann@x", "done", summary="mine"),
    ]


def test_the_later_take_and_the_losers_done_become_conflicts() -> None:
    item = rulebook.fold(raced(), ROLES)
    assert item is not None
    assert (item.status, item.taken_by, item.version) == ("taken", "bob@x", 2)
    assert [(c.event, c.verb) for c in item.conflicts] == [
        ("ev-000000000003", "take"),
        ("ev-000000000004", "done"),
    ]


def test_fold_does_not_depend_on_the_order_events_arrive_in() -> None:
    assert rulebook.fold(raced(), ROLES) == rulebook.fold(list(reversed(raced())), ROLES)


def test_dismiss_removes_the_conflict_and_keeps_the_winner() -> None:
    events = raced()
    args = resolution.resolve_args(events[1], "dismiss", "bob keeps it")
    item = rulebook.fold([*events, ev(5, 4, "owner@x", "resolve", **args)], ROLES)
    assert item is not None
    assert item.taken_by == "bob@x"
    assert [c.event for c in item.conflicts] == ["ev-000000000004"]


def test_apply_re_applies_the_refused_event_with_force_as_its_actor() -> None:
    events = raced()
    args = resolution.resolve_args(events[1], "apply", "ann had it first")
    item = rulebook.fold([*events, ev(5, 4, "owner@x", "resolve", **args)], ROLES)
    assert item is not None
    assert (item.taken_by, item.taken_at) == ("ann@x", events[1].at)
    assert item.obligation is not None and item.obligation.holder == "ann@x"


def test_only_an_owner_resolves() -> None:
    events = raced()
    before = rulebook.fold(events, ROLES)
    args = resolution.resolve_args(events[1], "dismiss", "mine now")
    with pytest.raises(Refused, match="only an owner"):
        rulebook.apply(before, ev(5, 4, "bob@x", "resolve", **args), ROLES)


def test_resolving_an_event_that_is_not_a_conflict_is_refused() -> None:
    events = raced()
    before = rulebook.fold(events, ROLES)
    args = resolution.resolve_args(events[2], "dismiss", "not refused")
    with pytest.raises(Refused, match="no open conflict"):
        rulebook.apply(before, ev(5, 4, "owner@x", "resolve", **args), ROLES)


# -- the loser acknowledges ---------------------------------------------------------


def test_the_loser_acknowledges_their_lost_event_and_the_conflict_stays_for_the_owners() -> None:
    events = [*raced(), ev(5, 4, "ann@x", "ack", event="ev-000000000003")]
    item = rulebook.fold(events, ROLES)
    assert item is not None
    acked = {c.event: c.acknowledged for c in item.conflicts}
    assert acked == {"ev-000000000003": True, "ev-000000000004": False}
    data = [c.to_data() for c in item.conflicts]
    assert data[0]["acknowledged"] is True and "acknowledged" not in data[1]  # old bytes kept


def test_only_the_loser_acknowledges_a_lost_event() -> None:
    item = rulebook.fold(raced(), ROLES)
    with pytest.raises(Refused, match="only the person whose event lost"):
        rulebook.apply(item, ev(5, 4, "owner@x", "ack", event="ev-000000000003"), ROLES)


def test_an_ack_of_a_conflict_already_settled_changes_nothing() -> None:
    settle = ev(5, 4, "owner@x", "resolve", event="ev-000000000003", decision="dismiss", reason="x")
    late = ev(6, 5, "ann@x", "ack", event="ev-000000000003")
    item = rulebook.fold([*raced(), settle, late], ROLES)
    assert item is not None and [c.event for c in item.conflicts] == ["ev-000000000004"]
    assert not item.conflicts[0].acknowledged


def test_an_ack_without_an_event_acknowledges_every_lost_event_of_its_actor() -> None:
    item = rulebook.fold([*raced(), ev(5, 4, "ann@x", "ack")], ROLES)
    assert item is not None
    assert [(c.actor, c.acknowledged) for c in item.conflicts] == [("ann@x", True)] * 2
    other = rulebook.fold([*raced(), ev(5, 4, "bob@x", "ack")], ROLES)
    assert other is not None and not any(c.acknowledged for c in other.conflicts)


def test_one_ack_clears_a_takeover_notice_and_marks_lost_events_alike() -> None:
    """`ack` is one verb for both things that happen to someone's work behind their back."""
    owner_takes_over = ev(5, 4, "owner@x", "take", force=True)
    over = rulebook.fold([*raced(), replace(owner_takes_over, verb="takeover")], ROLES)
    assert over is not None and [t.holder for t in over.takeovers] == ["bob@x"]
    assert lifecycle.plan(over, "ack", {}, "bob@x", ROLES) == ("ack", {})  # a takeover waits
    lost = {"events": ["ev-000000000003", "ev-000000000004"]}  # named: see the next test
    assert lifecycle.plan(over, "ack", {}, "ann@x", ROLES) == ("ack", lost)  # lost events wait
    assert lifecycle.plan(over, "ack", {}, "owner@x", ROLES) is None  # nothing waits
    both = rulebook.apply(over, ev(6, 5, "ann@x", "ack"), ROLES)
    assert all(c.acknowledged for c in both.conflicts) and over.takeovers == both.takeovers
    bobs = rulebook.apply(both, ev(7, 6, "bob@x", "ack"), ROLES)
    assert bobs.takeovers == () and bobs.conflicts == both.conflicts
    assert lifecycle.plan(bobs, "ack", {}, "ann@x", ROLES) is None  # a repeat writes nothing
    named = {"event": "ev-000000000003"}
    assert lifecycle.plan(bobs, "ack", named, "ann@x", ROLES) is None
    with pytest.raises(Refused, match="nothing to acknowledge"):
        rulebook.apply(bobs, ev(8, 7, "ann@x", "ack"), ROLES)


def test_an_ack_of_lost_events_replayed_after_an_owner_settled_them_is_no_conflict() -> None:
    """ann acks her two lost events on one clone while an owner dismisses them on another:
    whichever replays first, her ack never becomes a lost event of hers (sync would exit 8)."""
    before = rulebook.fold(raced(), ROLES)
    assert before is not None
    planned = lifecycle.plan(before, "ack", {}, "ann@x", ROLES)
    assert planned == ("ack", {"events": ["ev-000000000003", "ev-000000000004"]})
    dismiss = [
        ev(5 + n, 4 + n, "owner@x", "resolve", event=f"ev-00000000000{3 + n}", decision="dismiss")
        for n in range(2)
    ]
    dismiss = [replace(d, args={**d.args, "reason": "dup"}) for d in dismiss]
    late_ack = ev(9, 8, "ann@x", planned[0], **planned[1])
    item = rulebook.fold([*raced(), *dismiss, late_ack], ROLES)
    assert item is not None and item.conflicts == ()
