"""The queue's event verbs folded through rulebook.apply, without git."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from gitcoop.domain import rulebook
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Event, Item, Roles
from gitcoop.errors import Refused

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
ID = ItemId("it-aaaaaaaaaaaa")
ROLES = Roles(owners=("owner@x",))
counter = iter(range(1, 10_000))


def event(verb: str, actor: str = "bob@x", session: str | None = "s1", **args: Any) -> Event:
    n = next(counter)
    return Event(
        EventId(f"ev-{n:012d}"), ID, n, T0 + timedelta(minutes=n), actor, session, verb, args
    )


ADD = dict(kind="item", title="Fix toast", evidence=[{"path": "a.py", "line": 3}], order_key="k")
CITED = [{"path": "a.py", "line": 4, "quote": "toast()"}]


OTHER = ItemId("it-bbbbbbbbbbbb")
BLOCKED = {"outcome": "blocked", "reason": "no access", "status": "blocked"}  # as planned


def run(*events: Event) -> Item:
    """The events applied in turn; a duplicate verdict may name OTHER, an open draft."""
    other = rulebook.apply(None, event("add", **ADD), ROLES)
    item: Item | None = None
    for e in events:
        item = rulebook.apply(item, e, ROLES, named=lambda i: other if i == OTHER else None)
    assert item is not None
    return item


def ready() -> list[Event]:
    return [
        event("add", **ADD),
        event("verify", actor="system"),
        event("verdict", actor="system", verdict="confirmed", evidence=CITED, head="h1"),
    ]


def test_an_added_item_is_a_draft_with_no_attempts() -> None:
    item = run(event("add", **ADD))
    assert (item.status, item.attempts, item.order_key, item.version) == ("draft", 0, "k", 1)


def test_confirmed_verdict_makes_it_ready_with_cited_evidence_cached_at_head() -> None:
    item = run(*ready())
    assert item.status == "ready"
    assert [(e.path, e.line, e.head) for e in item.evidence] == [("a.py", 4, "h1")]


@pytest.mark.parametrize(
    ("word", "extra", "status"),
    [
        ("stale", {}, "stale"),
        ("duplicate", {"duplicate_of": OTHER}, "duplicate"),
        ("blocked", {"reason": "needs design"}, "blocked"),
        ("too-big", {}, "split"),
        ("unclear", {"reason": "no verdict"}, "draft"),
    ],
)
def test_discarding_verdicts(word: str, extra: dict[str, Any], status: str) -> None:
    item = run(*ready(), event("verify", actor="system"), event("verdict", verdict=word, **extra))
    assert item.status == status
    assert all(e.head is None for e in item.evidence)  # every discard drops the cache


def test_a_verdict_on_an_item_no_longer_verifying_is_refused() -> None:
    with pytest.raises(Refused, match="is ready, no longer being verified"):
        run(*ready(), event("verdict", verdict="stale"))


def test_pick_binds_the_picker_with_an_outcome_owed() -> None:
    item = run(*ready(), event("pick"))
    assert (item.status, item.taken_by, item.session) == ("in_progress", "bob@x", "s1")
    assert item.obligation is not None and item.obligation.kind == "outcome"
    assert item.obligation.pending


def test_only_ready_items_are_picked() -> None:
    with pytest.raises(Refused, match="only ready"):
        run(event("add", **ADD), event("pick"))


def test_finish_ready_counts_an_attempt_and_forgets_the_cache() -> None:
    item = run(*ready(), event("pick"), event("finish", outcome="ready", failure="tests red"))
    assert (item.status, item.attempts, item.last_failure) == ("ready", 1, "tests red")
    assert item.taken_by is None and item.evidence[0].head is None
    assert item.obligation is not None and item.obligation.disposition == "released"


def test_finish_done_needs_a_commit_and_resolves() -> None:
    with pytest.raises(Refused, match="--commit"):
        run(*ready(), event("pick"), event("finish", outcome="done"))
    item = run(*ready(), event("pick"), event("finish", outcome="done", commit="abc123"))
    assert (item.status, item.commit_sha, item.closed_by) == ("done", "abc123", "bob@x")
    assert item.obligation is not None and not item.obligation.pending


def test_finish_blocked_is_a_report_the_work_stays_bound() -> None:
    item = run(*ready(), event("pick"), event("finish", **BLOCKED))
    assert (item.status, item.taken_by, item.blocked_reason) == ("blocked", "bob@x", "no access")
    assert item.obligation is not None and item.obligation.pending
    assert item.obligation.holder == "bob@x"
    assert item.obligation.latest_report is not None
    assert item.obligation.latest_report["status"] == "blocked"
    assert item.taken_at is not None and item.obligation.due is not None
    assert item.obligation.due < item.taken_at + timedelta(hours=2)  # due now, not in 2h


def test_a_blocked_finish_records_the_state_and_an_older_one_folds_as_it_did() -> None:
    picked = run(*ready(), event("pick"))
    asked = {"outcome": "blocked", "reason": "no access"}
    assert rulebook.plan(picked, "finish", asked, "bob@x", ROLES) == ("finish", BLOCKED)
    older = rulebook.apply(picked, event("finish", **asked), ROLES)
    assert (older.status, older.blocked_reason, older.taken_by) == (
        "in_progress",
        "no access",
        "bob@x",
    )
    assert rulebook.plan(older, "finish", asked, "bob@x", ROLES) is None  # the same report


def test_a_blocked_report_is_disposed_of_by_the_holder_or_an_owner() -> None:
    blocked = run(*ready(), event("pick"), event("finish", **BLOCKED))
    done = rulebook.apply(blocked, event("finish", outcome="done", commit="abc123"), ROLES)
    assert (done.status, done.closed_by) == ("done", "bob@x")
    assert done.obligation is not None and not done.obligation.pending
    again = rulebook.apply(blocked, event("finish", **{**BLOCKED, "reason": "still"}), ROLES)
    assert (again.status, again.blocked_reason) == ("blocked", "still")
    back = rulebook.apply(blocked, event("report", status="unblocked"), ROLES)
    assert (back.status, back.taken_by, back.blocked_reason) == ("in_progress", "bob@x", None)
    owner = event("review", actor="owner@x", decision="release", reason="someone else")
    released = rulebook.apply(blocked, owner, ROLES)
    assert (released.status, released.taken_by) == ("ready", None)
    assert released.obligation is not None and not released.obligation.pending
    with pytest.raises(Refused, match="picked by bob"):
        rulebook.apply(blocked, event("finish", actor="eve@x", outcome="ready", failure="x"), ROLES)


def test_a_blocked_item_that_is_still_held_moves_only_through_its_holder() -> None:
    blocked = run(*ready(), event("pick"), event("finish", **BLOCKED))
    with pytest.raises(Refused, match="held by bob@x"):
        rulebook.apply(blocked, event("edit_item", status="ready"), ROLES)
    with pytest.raises(Refused, match="held by bob@x"):
        rulebook.apply(blocked, event("split", children=[str(OTHER), "it-cccccccccccc"]), ROLES)
    titled = rulebook.apply(blocked, event("edit_item", title="Renamed"), ROLES)
    assert (titled.status, titled.title, titled.taken_by) == ("blocked", "Renamed", "bob@x")


def test_only_the_picker_finishes() -> None:
    with pytest.raises(Refused, match="picked by bob"):
        run(*ready(), event("pick"), event("finish", actor="eve@x", outcome="closed", reason="x"))


def test_edit_sets_only_ready_blocked_closed() -> None:
    with pytest.raises(Refused, match="among"):
        run(event("add", **ADD), event("edit_item", status="in_progress"))
    item = run(event("add", **ADD), event("edit_item", status="blocked", reason="waiting"))
    assert (item.status, item.blocked_reason) == ("blocked", "waiting")
    item = run(event("add", **ADD), event("edit_item", title="Better", order_key="a"))
    assert (item.title, item.order_key, item.status) == ("Better", "a", "draft")


def test_edit_cannot_move_a_picked_item() -> None:
    with pytest.raises(Refused, match="git coop finish"):
        run(*ready(), event("pick"), event("edit_item", status="ready"))


def test_split_then_settle_closes_the_parent() -> None:
    item = run(event("add", **ADD), event("split", children=["it-1", "it-2"]), event("settle"))
    assert (item.status, item.reason) == ("closed", "all children settled")


# -- leases on verifying items -----------------------------------------------------------


def at(minutes: float, verb: str, actor: str = "system", **args: Any) -> Event:
    """An event at T0 + minutes (the module's `event` puts one minute per event)."""
    n = next(counter)
    return Event(
        EventId(f"ev-{n:012d}"), ID, n, T0 + timedelta(minutes=minutes), actor, None, verb, args
    )


def test_a_verification_holds_a_lease_that_refuses_another_until_it_ends() -> None:
    taken = at(0, "verify", lease_seconds=360)
    item = run(at(0, "add", **ADD), taken)
    assert item.lease is not None
    assert (item.lease.by, item.lease.event) == ("system", taken.id)
    assert item.lease.until == T0 + timedelta(minutes=6)
    with pytest.raises(Refused, match="being verified by system"):
        rulebook.apply(item, at(5, "verify", lease_seconds=360), ROLES)
    reclaimed = rulebook.apply(item, at(6, "verify", actor="bob@x", lease_seconds=60), ROLES)
    assert reclaimed.lease is not None and reclaimed.lease.by == "bob@x"


def test_a_verdict_of_an_earlier_verification_is_refused() -> None:
    first = at(0, "verify", lease_seconds=60)
    item = run(at(0, "add", **ADD), first, at(2, "verify", lease_seconds=60))
    late = at(3, "verdict", verdict="unclear", reason="late", lease=first.id)
    with pytest.raises(Refused, match="earlier verification"):
        rulebook.apply(item, late, ROLES)
    assert item.lease is not None
    current = at(3, "verdict", verdict="unclear", reason="r", lease=item.lease.event)
    assert rulebook.apply(item, current, ROLES).lease is None


def test_a_change_while_verifying_ends_the_lease_and_a_lease_never_touches_taken_work() -> None:
    item = run(at(0, "add", **ADD), at(0, "verify", lease_seconds=600))
    edited = rulebook.apply(item, at(1, "edit_item", actor="bob@x", title="Renamed"), ROLES)
    assert (edited.status, edited.lease) == ("verifying", None)
    assert rulebook.apply(edited, at(1, "verify"), ROLES).lease is not None
    picked = run(*ready(), event("pick"))
    assert picked.lease is None and picked.status == "in_progress"
    with pytest.raises(Refused, match="is in_progress — only draft or ready items are verified"):
        rulebook.apply(picked, at(10_000, "verify"), ROLES)  # never reaped, however late
    assert run(*ready()).lease is None


def test_a_lease_length_is_bounded() -> None:
    item = run(at(0, "add", **ADD), at(0, "verify", lease_seconds=10**9))
    assert item.lease is not None and item.lease.until == T0 + timedelta(hours=25)
    with pytest.raises(Refused, match="lease_seconds"):
        run(at(0, "add", **ADD), at(0, "verify", lease_seconds="soon"))


# -- leftovers and repeats -------------------------------------------------------------


def test_blocked_reason_goes_when_the_item_leaves_blocked_by_any_verb() -> None:
    reported = run(*ready(), event("pick"), event("finish", **BLOCKED))
    assert reported.blocked_reason == "no access"
    released = rulebook.apply(
        reported, event("release", actor="bob@x", reason="give it back"), ROLES
    )
    assert (released.status, released.blocked_reason) == ("ready", None)
    split = run(
        event("add", **ADD),
        event("edit_item", status="blocked", reason="needs design"),
        event("split", children=["it-bbbbbbbbbbbb", "it-cccccccccccc"]),
    )
    assert (split.status, split.blocked_reason) == ("split", None)


@pytest.mark.parametrize(
    ("outcome", "args"),
    [
        ("done", {"commit": "abc123"}),
        ("closed", {"reason": "won't fix"}),
        ("ready", {"failure": "tests red"}),
        ("blocked", {"reason": "no access"}),
    ],
)
def test_an_identical_finish_repeat_plans_nothing(outcome: str, args: dict[str, Any]) -> None:
    asked = {"outcome": outcome, **args}
    recorded = {**asked, "status": "blocked"} if outcome == "blocked" else asked
    item = run(*ready(), event("pick"), event("finish", **recorded))
    assert rulebook.plan(item, "finish", asked, "bob@x", ROLES) is None
    other = {**asked, **{k: "something else" for k in args}}
    planned = {**other, "status": "blocked"} if outcome == "blocked" else other
    assert rulebook.plan(item, "finish", other, "bob@x", ROLES) == ("finish", planned)
