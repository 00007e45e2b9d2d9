"""Every row of the review table of DESIGN.md §5, and the blocked caps, on a fixed clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gitcoop.domain import lifecycle, obligations, rulebook
from gitcoop.domain.obligations import LEGACY_REASON
from gitcoop.domain.records import Takeover
from gitcoop.errors import Refused
from tests.domain.builders import ALICE, BOB, CAROL, ROLES, T0, added, event, request, run

H = timedelta(hours=1)


def taken(session: str | None = "s1"):  # type: ignore[no-untyped-def]
    return run(added(), event("take", actor=BOB, session=session))


def test_take_in_a_session_owes_an_outcome_in_three_hours() -> None:
    ob = taken().obligation
    assert ob is not None
    assert (ob.kind, ob.session, ob.status, ob.holder, ob.due) == (
        "outcome",
        "s1",
        "pending",
        BOB,
        T0 + 3 * H,
    )


def test_take_without_a_session_owes_a_legacy_review_in_three_hours() -> None:
    ob = taken(session=None).obligation
    assert ob is not None
    assert (ob.kind, ob.due, ob.reason) == ("legacy_binding", T0 + 3 * H, LEGACY_REASON)


def test_takeover_resolves_nothing_silently_the_new_holder_owes() -> None:
    item = run(taken(), event("takeover", actor=CAROL, minutes=30, session="s2"))
    ob = item.obligation
    assert ob is not None and ob.pending
    assert (ob.holder, ob.session, ob.due) == (CAROL, "s2", T0 + timedelta(minutes=210))


@pytest.mark.parametrize(
    ("decision", "after", "due", "parked", "escalated"),
    [
        ("defer", None, T0 + H + timedelta(minutes=5), False, False),
        ("defer", 1800, T0 + H + timedelta(minutes=30), False, False),
        ("escalate", 7200, T0 + 3 * H, False, True),
        ("park", None, T0 + H + timedelta(days=30), True, False),
        ("failed", None, T0 + H + timedelta(minutes=15), False, False),
    ],
)
def test_deferring_decisions(
    decision: str, after: int | None, due: object, parked: bool, escalated: bool
) -> None:
    args = {"decision": decision} | ({"delay_seconds": after} if after else {})
    item = run(taken(), event("review", actor=CAROL, minutes=60, **args))
    ob = item.obligation
    assert ob is not None and ob.pending
    assert (ob.due, ob.parked, ob.escalated) == (due, parked, escalated)
    assert ob.last_review is not None and ob.last_review["by"] == CAROL


@pytest.mark.parametrize(
    ("decision", "status", "disposition"),
    [
        ("close", "done", "done"),
        ("release", "open", "released"),
        ("abandon", "abandoned", "abandoned"),
    ],
)
def test_disposing_decisions_resolve(decision: str, status: str, disposition: str) -> None:
    item = run(taken(), event("review", actor=ALICE, decision=decision, reason="settled"))
    assert item.status == status
    assert item.obligation is not None
    assert (item.obligation.status, item.obligation.disposition) == ("resolved", disposition)


@pytest.mark.parametrize(
    ("decision", "after", "due", "parked"),
    [
        ("defer", 86400, T0 + 7 * H, False),
        ("escalate", 86400, T0 + 7 * H, False),
        ("defer", 600, T0 + H + timedelta(minutes=10), False),
        ("park", None, T0 + 7 * H, True),
    ],
)
def test_blocked_caps_defer_escalate_and_park_at_six_hours(
    decision: str, after: int | None, due: object, parked: bool
) -> None:
    blocked = run(taken(), event("report", actor=BOB, status="blocked", reason="creds"))
    args = {"decision": decision} | ({"delay_seconds": after} if after else {})
    item = run(blocked, event("review", actor=CAROL, minutes=60, **args))
    ob = item.obligation
    assert ob is not None
    assert (ob.due, ob.parked) == (due, parked)


def test_blocked_report_makes_it_due_now_unparks_and_keeps_the_work_bound() -> None:
    parked = run(taken(), event("review", actor=CAROL, decision="park"))
    item = run(parked, event("report", actor=BOB, minutes=20, status="blocked", reason="creds"))
    ob = item.obligation
    assert ob is not None
    assert (item.status, item.taken_by) == ("taken", BOB)
    assert (ob.status, ob.due, ob.parked) == ("pending", T0 + timedelta(minutes=20), False)
    assert ob.latest_report is not None and ob.latest_report["reason"] == "creds"


def test_holders_note_pulls_due_forward_unless_parked() -> None:
    item = run(taken(), event("note", actor=BOB, minutes=30, text="found it"))
    assert item.obligation is not None and item.obligation.due == T0 + timedelta(minutes=30)
    parked = run(taken(), event("review", actor=CAROL, decision="park"))
    noted = run(parked, event("note", actor=BOB, minutes=30, text="found it"))
    assert noted.obligation == parked.obligation


def test_someone_elses_note_is_not_the_workers_evidence() -> None:
    item = run(taken(), event("note", actor=CAROL, minutes=30, text="ping"))
    assert item.obligation is not None and item.obligation.due == T0 + 3 * H


@pytest.mark.parametrize(
    ("status", "end"), [("done", "done"), ("released", "open"), ("abandoned", "abandoned")]
)
def test_report_of_a_disposition_resolves_and_transitions(status: str, end: str) -> None:
    item = run(taken(), event("report", actor=BOB, status=status, reason="why"))
    assert item.status == end
    assert item.obligation is not None and item.obligation.status == "resolved"


def test_only_the_holder_reports() -> None:
    with pytest.raises(Refused, match="only the holder"):
        rulebook.apply(taken(), event("report", actor=CAROL, status="done"), ROLES)


def test_review_by_someone_without_a_role_names_the_roles() -> None:
    with pytest.raises(Refused) as refusal:
        rulebook.apply(taken(), event("review", actor="dave@x", decision="defer"), ROLES)
    assert "owners (alice@example.com)" in refusal.value.message
    assert "chiefs (carol@example.com)" in refusal.value.message


def test_review_delay_outside_thirty_seconds_to_thirty_days_refuses() -> None:
    for seconds in (29, 30 * 86400 + 1):
        with pytest.raises(Refused, match="between 30s and 30d"):
            rulebook.apply(
                taken(),
                event("review", actor=CAROL, decision="defer", delay_seconds=seconds),
                ROLES,
            )


def test_nothing_owed_means_nothing_to_review() -> None:
    done = run(added(), event("done"))
    with pytest.raises(Refused, match="owes nothing"):
        rulebook.apply(done, event("review", actor=ALICE, decision="defer"), ROLES)


def test_no_state_is_taken_with_nothing_owed() -> None:
    """Every path into `taken` leaves a pending obligation held by the taker."""
    paths = [
        [event("take", actor=BOB)],
        [event("take", actor=BOB), event("takeover", actor=CAROL)],
        [event("take", actor=BOB), event("release", actor=BOB, reason="r"), event("take")],
        [event("take", actor=BOB), event("take", actor=BOB, minutes=9)],
    ]
    for path in paths:
        item = run(added(), *path)
        assert item.status == "taken"
        assert item.obligation is not None and item.obligation.pending
        assert item.obligation.holder == item.taken_by


def test_takeover_resolves_the_previous_holders_obligation_as_takeover() -> None:
    item = run(taken(), event("takeover", actor=CAROL, minutes=30, session="s2"))
    previous = item.previous_obligation
    assert previous is not None
    assert (previous.holder, previous.status, previous.disposition) == (
        BOB,
        "resolved",
        "takeover",
    )
    assert item.obligation is not None and item.obligation.holder == CAROL


# -- a re-take never wipes a debt (#1) --------------------------------------------


def test_a_retake_in_a_new_session_keeps_the_debt_and_records_the_session() -> None:
    item = run(
        taken("s1"),
        event("report", actor=BOB, minutes=30, status="blocked", reason="creds"),
        event("review", actor=CAROL, minutes=40, decision="escalate", delay_seconds=3600),
    )
    before = item.obligation
    assert before is not None
    again = run(item, event("take", actor=BOB, minutes=100, session="s2"))
    ob = again.obligation
    assert ob is not None and ob.pending
    assert (ob.kind, ob.since, ob.due, ob.escalated) == (
        "outcome",
        T0,
        T0 + timedelta(minutes=100),
        True,
    )
    assert (ob.latest_report, ob.last_review, ob.for_owners) == (
        before.latest_report,
        before.last_review,
        before.for_owners,
    )
    assert (ob.session, ob.sessions) == ("s2", ("s1", "s2"))
    assert (again.session, again.taken_at) == ("s2", T0 + timedelta(minutes=100))
    assert again.previous_obligation is None  # nothing was replaced


def test_a_retake_of_a_legacy_take_keeps_the_legacy_review_and_its_due() -> None:
    again = run(taken(session=None), event("take", actor=BOB, minutes=240, session="s9"))
    ob = again.obligation
    assert ob is not None
    assert (ob.kind, ob.due, ob.session, ob.sessions) == (
        "legacy_binding",
        T0 + 3 * H,
        "s9",
        ("s9",),
    )


def test_a_repeated_take_in_the_same_session_plans_a_refresh() -> None:
    item = taken("s1")
    assert lifecycle.plan(item, "take", {}, BOB, ROLES, "s1") == ("take", {})
    assert lifecycle.plan(item, "take", {}, BOB, ROLES, "s2") == ("take", {})
    legacy = taken(session=None)
    assert lifecycle.plan(legacy, "take", {}, BOB, ROLES, None) == ("take", {})
    later = request(legacy, "take", actor=BOB, minutes=90)
    assert later is not None and later.taken_at == T0 + 90 * (H / 60)
    assert later.obligation == legacy.obligation  # its kind, due and report stay
    assert request(legacy, "take", actor=BOB, session="s3") is not None


# -- only a disposition resolves (#2) ------------------------------------------------


def test_a_takeover_is_a_disposition_naming_the_new_holder_and_its_event() -> None:
    over = event("takeover", actor=CAROL, minutes=30, session="s2", previous_holder=BOB)
    item = run(taken(), over)
    previous = item.previous_obligation
    assert previous is not None
    assert (previous.disposition, previous.resolved_by, previous.resolved_at) == (
        "takeover",
        CAROL,
        T0 + timedelta(minutes=30),
    )
    assert previous.resolved_event == over.id
    assert item.takeovers == (Takeover(BOB, CAROL, T0 + timedelta(minutes=30), over.id),)


def test_every_disposition_records_the_event_that_made_it() -> None:
    done = event("done", actor=BOB, minutes=5)
    item = run(taken(), done)
    ob = item.obligation
    assert ob is not None
    assert (ob.disposition, ob.resolved_by, ob.resolved_event) == ("done", BOB, done.id)
    fast = event("done", actor=CAROL)
    quick = run(added(), fast).obligation
    assert quick is not None and quick.resolved_event == fast.id


def test_only_the_previous_holder_acknowledges_a_takeover_and_only_once() -> None:
    item = run(taken(), event("takeover", actor=CAROL, minutes=30))
    with pytest.raises(Refused, match="nothing to acknowledge"):
        rulebook.apply(item, event("ack", actor=CAROL), ROLES)
    acked = run(item, event("ack", actor=BOB, minutes=40))
    assert acked.takeovers == ()
    assert acked.version == item.version + 1
    assert lifecycle.plan(acked, "ack", {}, BOB, ROLES) is None  # a repeat writes nothing


def test_a_takeover_notice_outlives_later_takes_until_acknowledged() -> None:
    item = run(
        taken(),
        event("takeover", actor=CAROL, minutes=30),
        event("release", actor=CAROL, minutes=40, reason="not mine"),
        event("take", actor=ALICE, minutes=50),
    )
    assert [t.holder for t in item.takeovers] == [BOB]
    assert obligations.takeovers_for(item, BOB) == item.takeovers
    assert obligations.takeovers_for(item, CAROL) == ()


# -- due times follow the two doors (#4) -------------------------------------------------


def test_a_pick_through_the_queue_owes_an_outcome_in_two_hours() -> None:
    from dataclasses import replace

    from gitcoop.domain.ids import ItemId

    queue_item = ItemId("it-7k2m9x4q1c8v")
    drafted = run(None, event("add", item=queue_item, kind="item", title="Fix it"))
    picked = run(replace(drafted, status="ready"), event("pick", actor=BOB, item=queue_item))
    ob = picked.obligation
    assert ob is not None
    assert (ob.kind, ob.due) == ("outcome", T0 + 2 * H)
    in_session = run(
        replace(drafted, status="ready"), event("pick", actor=BOB, item=queue_item, session="q")
    )
    assert in_session.obligation is not None and in_session.obligation.due == T0 + 2 * H


# -- a park is left to the owner and the worker (#5) -------------------------------------


@pytest.mark.parametrize(
    "decision", ["defer", "escalate", "park", "failed", "close", "release", "abandon"]
)
def test_a_chief_cannot_decide_on_a_parked_obligation_while_the_park_holds(
    decision: str,
) -> None:
    parked = run(taken(), event("review", actor=CAROL, decision="park"))
    review = event("review", actor=CAROL, minutes=60, decision=decision, reason="r")
    with pytest.raises(Refused) as refusal:
        rulebook.apply(parked, review, ROLES)
    assert "parked" in refusal.value.message
    assert ALICE in refusal.value.message and BOB in refusal.value.message
    by_owner = rulebook.apply(
        parked, event("review", actor=ALICE, decision=decision, reason="r"), ROLES
    )
    assert by_owner.version == parked.version + 1


def test_a_park_that_ran_out_is_owed_to_the_chief_again() -> None:
    parked = run(taken(), event("review", actor=CAROL, decision="park"))
    later = event("review", actor=CAROL, minutes=30 * 24 * 60, decision="defer")
    moved = run(parked, later).obligation
    assert moved is not None and not moved.parked


def test_only_the_holders_blocked_report_unparks_for_the_chief() -> None:
    parked = run(taken(), event("review", actor=CAROL, decision="park"))
    with pytest.raises(Refused, match="only the holder"):
        rulebook.apply(
            parked, event("report", actor=CAROL, status="blocked", reason="x", force=True), ROLES
        )
    unparked = run(parked, event("report", actor=BOB, minutes=5, status="blocked", reason="x"))
    assert unparked.obligation is not None and not unparked.obligation.parked
    deferred = run(unparked, event("review", actor=CAROL, minutes=6, decision="defer"))
    assert deferred.obligation is not None and deferred.obligation.pending


def test_a_forced_report_by_someone_else_is_refused_naming_the_holder() -> None:
    with pytest.raises(Refused) as refusal:
        rulebook.apply(taken(), event("report", actor=ALICE, status="done", force=True), ROLES)
    assert "bob@example.com" in refusal.value.message and "holder" in refusal.value.message


# -- escalate and park reach the owners at once (#6) --------------------------------------


def test_a_chiefs_escalation_waits_for_the_owners_and_a_defer_keeps_it() -> None:
    escalated = run(
        taken(), event("review", actor=CAROL, decision="escalate", reason="stuck for a day")
    )
    ob = escalated.obligation
    assert ob is not None and ob.for_owners is not None
    assert (ob.for_owners["decision"], ob.for_owners["by"], ob.for_owners["reason"]) == (
        "escalate",
        CAROL,
        "stuck for a day",
    )
    assert obligations.pressing(escalated, T0, ALICE, ROLES) == ("escalated",)  # not yet due
    assert obligations.pressing(escalated, T0, CAROL, ROLES) == ()
    deferred = run(escalated, event("review", actor=CAROL, minutes=1, decision="defer"))
    assert deferred.obligation is not None
    assert deferred.obligation.escalated and deferred.obligation.for_owners == ob.for_owners
    by_owner = run(deferred, event("review", actor=ALICE, minutes=2, decision="defer"))
    assert by_owner.obligation is not None
    assert (by_owner.obligation.escalated, by_owner.obligation.for_owners) == (False, None)


def test_a_chiefs_park_is_shown_to_the_owners_an_owners_own_is_not() -> None:
    parked = run(taken(), event("review", actor=CAROL, decision="park", reason="waits on legal"))
    assert obligations.pressing(parked, T0 + H, ALICE, ROLES) == ("parked",)
    own = run(taken(), event("review", actor=ALICE, decision="park"))
    assert obligations.pressing(own, T0 + H, ALICE, ROLES) == ()


def test_pressing_says_due_and_flags_a_take_dated_in_the_future() -> None:
    item = taken()
    assert obligations.pressing(item, T0 + 3 * H, BOB, ROLES) == ("due",)
    assert obligations.pressing(item, T0 - H, BOB, ROLES) == ("future",)
    assert obligations.concerns(item, BOB, ROLES) and obligations.concerns(item, CAROL, ROLES)
    assert not obligations.concerns(item, "dave@example.com", ROLES)


# -- a blocked report can be cleared (#7) ------------------------------------------------


def test_an_unblocked_report_ends_the_cap_and_the_due_returns_to_the_window() -> None:
    blocked = run(taken(), event("report", actor=BOB, minutes=10, status="blocked", reason="x"))
    cleared = run(blocked, event("report", actor=BOB, minutes=60, status="unblocked", note="ok"))
    ob = cleared.obligation
    assert ob is not None and not obligations.is_blocked(ob)
    assert ob.due == T0 + timedelta(minutes=60) + 3 * H
    assert ob.latest_report is not None and ob.latest_report["note"] == "ok"
    deferred = run(
        cleared, event("review", actor=CAROL, minutes=70, decision="defer", delay_seconds=86400)
    )
    assert deferred.obligation is not None
    assert deferred.obligation.due == T0 + timedelta(minutes=70) + timedelta(days=1)


def test_unblocked_is_the_holders_and_only_ends_a_blocked_state() -> None:
    blocked = run(taken(), event("report", actor=BOB, status="blocked", reason="x"))
    with pytest.raises(Refused, match="only the holder"):
        rulebook.apply(blocked, event("report", actor=CAROL, status="unblocked"), ROLES)
    with pytest.raises(Refused, match="not blocked"):
        rulebook.apply(taken(), event("report", actor=BOB, status="unblocked"), ROLES)
    assert lifecycle.plan(taken(), "report", {"status": "unblocked"}, BOB, ROLES) is None


# -- reviews are version-checked (#8) -------------------------------------------------------


def test_everything_that_moves_an_obligation_counts_a_version() -> None:
    item = taken()
    steps = [
        event("note", actor=BOB, minutes=1, text="progress"),
        event("report", actor=BOB, minutes=2, status="blocked", reason="x"),
        event("report", actor=BOB, minutes=3, status="unblocked"),
        event("review", actor=CAROL, minutes=4, decision="defer"),
    ]
    for step in steps:
        after = rulebook.apply(item, step, ROLES)
        assert after.version == item.version + 1, step.verb
        item = after


# -- killed mutants: each rule of the review table and of `owed`, at its edges ---------


@pytest.mark.parametrize(
    ("delay", "allowed"),
    [
        (timedelta(seconds=29), False),
        (timedelta(seconds=30), True),
        (timedelta(days=30), True),
        (timedelta(days=30, seconds=1), False),
    ],
)
def test_a_review_delay_is_thirty_seconds_to_thirty_days_both_included(
    delay: timedelta, allowed: bool
) -> None:
    if allowed:
        obligations.check_delay(delay)
        return
    with pytest.raises(Refused, match="a review delay must be between 30s and 30d"):
        obligations.check_delay(delay)


def test_the_fast_path_without_a_session_owes_and_resolves_a_legacy_review() -> None:
    done = run(added(), event("done", actor=BOB, summary="s"))
    assert done.obligation is not None
    assert (done.obligation.kind, done.obligation.status) == ("legacy_binding", "resolved")


def test_a_retake_without_a_session_leaves_the_sessions_as_they_were() -> None:
    ob = taken().obligation
    assert ob is not None
    assert obligations.new_session(ob, None) == ob
    assert obligations.new_session(ob, "s1") == ob
    assert obligations.new_session(ob, "s2").sessions == ("s1", "s2")


def test_a_disposition_keeps_the_stamp_of_the_event_that_made_it() -> None:
    done = run(taken(), event("done", actor=BOB, summary="first"))
    assert done.obligation is not None
    stamp = (done.obligation.resolved_by, done.obligation.resolved_event)
    later = run(done, event("note", actor=ALICE, text="later"), event("edit", summary="second"))
    assert later.obligation is not None
    assert (later.obligation.resolved_by, later.obligation.resolved_event) == stamp


def test_a_blocked_report_ends_a_park_for_the_owners_but_keeps_an_escalation() -> None:
    ob = taken().obligation
    assert ob is not None
    escalated = obligations.review(ob, "escalate", CAROL, T0, timedelta(hours=1))
    parked = obligations.review(ob, "park", CAROL, T0)
    still = obligations.report_blocked(escalated, BOB, "waits", T0 + H)
    assert still.for_owners is not None and still.for_owners["decision"] == "escalate"
    assert obligations.report_blocked(parked, BOB, "waits", T0 + H).for_owners is None


def test_a_chiefs_review_keeps_what_waits_for_the_owners_and_an_owners_clears_it() -> None:
    ob = taken().obligation
    assert ob is not None
    escalated = obligations.review(ob, "escalate", CAROL, T0, timedelta(hours=1))
    deferred = obligations.review(escalated, "defer", CAROL, T0 + H)  # not said to be an owner
    assert deferred.escalated and deferred.for_owners == escalated.for_owners
    owners = obligations.review(escalated, "defer", ALICE, T0 + H, by_owner=True)
    assert (owners.escalated, owners.for_owners) == (False, None)


def test_a_disposing_review_clears_the_escalation() -> None:
    ob = taken().obligation
    assert ob is not None
    escalated = obligations.review(ob, "escalate", CAROL, T0, timedelta(hours=1))
    closing = obligations.reviewed(escalated, "close", ALICE, T0 + H)
    assert (closing.escalated, closing.for_owners) == (False, None)


@pytest.mark.parametrize(
    ("decision", "delay", "note"),
    [
        ("defer", 7 * 3600, "defer capped to 6h: "),
        ("escalate", 7 * 3600, "escalate capped to 6h: "),
        ("defer", 6 * 3600, None),  # six hours is the cap itself: nothing capped
        ("defer", None, None),  # the default, five minutes
        ("park", None, "the park comes due in 6h, not 30d: "),
        ("failed", None, None),
    ],
)
def test_the_blocked_cap_is_said_only_when_it_changed_the_decision(
    decision: str, delay: int | None, note: str | None
) -> None:
    blocked = run(taken(), event("report", actor=BOB, status="blocked", reason="waits"))
    assert blocked.obligation is not None
    said = obligations.cap_note(blocked.obligation, decision, delay)
    assert (said[: len(note)] if said and note else said) == note
    ob = taken().obligation
    assert ob is not None and obligations.cap_note(ob, decision, delay) is None  # not blocked


def test_owed_marks_nothing_on_work_that_owes_nothing() -> None:
    assert obligations.pressing(added(), T0 + 10 * H, ALICE, ROLES) == ()


def test_a_retake_dated_after_now_is_marked_future_though_the_debt_is_older() -> None:
    retaken = run(taken(), event("take", actor=BOB, session="s1", minutes=300))
    assert retaken.obligation is not None and retaken.obligation.since == T0
    assert "future" in obligations.pressing(retaken, T0 + H, BOB, ROLES)


def test_a_disposition_ends_a_park() -> None:
    ob = taken().obligation
    assert ob is not None
    parked = obligations.review(ob, "park", ALICE, T0, by_owner=True)
    assert parked.parked
    closed = obligations.resolve(parked, "done")
    assert (closed.status, closed.parked, closed.due) == ("resolved", False, None)
