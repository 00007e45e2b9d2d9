"""Every row of the review table of DESIGN.md §5, and the blocked caps, on a fixed clock."""

from __future__ import annotations

from datetime import timedelta

import pytest

from gitcoop.domain import rulebook
from gitcoop.domain.obligations import LEGACY_REASON
from gitcoop.errors import Refused
from tests.domain.builders import ALICE, BOB, CAROL, ROLES, T0, added, event, run

H = timedelta(hours=1)


def taken(session: str | None = "s1"):  # type: ignore[no-untyped-def]
    return run(added(), event("take", actor=BOB, session=session))


def test_take_in_a_session_owes_an_outcome_in_two_hours() -> None:
    ob = taken().obligation
    assert ob is not None
    assert (ob.kind, ob.session, ob.status, ob.holder, ob.due) == (
        "outcome",
        "s1",
        "pending",
        BOB,
        T0 + 2 * H,
    )


def test_take_without_a_session_owes_a_legacy_review_in_three_hours() -> None:
    ob = taken(session=None).obligation
    assert ob is not None
    assert (ob.kind, ob.due, ob.reason) == ("legacy_binding", T0 + 3 * H, LEGACY_REASON)


def test_takeover_resolves_nothing_silently_the_new_holder_owes() -> None:
    item = run(taken(), event("takeover", actor=CAROL, minutes=30, session="s2"))
    ob = item.obligation
    assert ob is not None and ob.pending
    assert (ob.holder, ob.session, ob.due) == (CAROL, "s2", T0 + timedelta(minutes=150))


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
    assert item.obligation is not None and item.obligation.due == T0 + 2 * H


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


def test_retaking_inside_a_new_session_moves_the_debt_to_it() -> None:
    legacy = taken(session=None)
    again = run(legacy, event("take", actor=BOB, minutes=240, session="s9"))
    ob = again.obligation
    assert ob is not None
    assert (ob.kind, ob.session, ob.due) == ("outcome", "s9", T0 + timedelta(hours=6))
    assert again.session == "s9"
    assert again.previous_obligation is not None
    assert again.previous_obligation.disposition == "retaken"
    same = run(again, event("take", actor=BOB, minutes=250, session="s9"))
    assert same.obligation == ob  # the same session: only taken_at moves
