"""What a take owes, and how reports, notes and reviews move it (DESIGN.md §5).

Due is never done: nothing here looks at a clock. Every function takes the
instant of the event that moves the obligation (or, for what `owed` shows,
the instant it is asked about).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from gitcoop.domain.records import Event, Item, Obligation, Roles, Takeover, replace
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import Refused

# The two doors (seed 002): a take typed inside a session, and an accept through the queue.
OUTCOME_DUE = timedelta(hours=3)  # a take inside a session
PICK_DUE = timedelta(hours=2)  # an accept through the queue (`pick`)
LEGACY_DUE = timedelta(hours=3)  # a take without a session: the chief reviews it
LEGACY_REASON = "Taken without a session reference; the chief reviews its outcome"

DELAY_MIN = timedelta(seconds=30)
DELAY_MAX = timedelta(days=30)
DELAY_DEFAULT = timedelta(seconds=300)
PARK_FOR = timedelta(days=30)
FAILED_RETRY = timedelta(minutes=15)
BLOCKED_CAP = timedelta(hours=6)

DEFERRING = ("defer", "escalate", "park", "failed")
DISPOSING = ("close", "release", "abandon")
DECISIONS = DEFERRING + DISPOSING

WORDS = {  # what each kind is, as a reader says it (the stored name stays)
    "outcome": "outcome owed",
    "legacy_binding": "review owed (taken without a session)",
}


def worded(kind: str) -> str:
    """What an obligation of this kind is, in words."""
    return WORDS.get(kind, kind.replace("_", " "))


def bind(holder: str, session: str | None, at: datetime, picked: bool = False) -> Obligation:
    """The debt written in the same commit as a take (or a pick: `picked`)."""
    sessions = (session,) if session else ()
    if picked:
        return Obligation(
            "outcome", holder, session, "pending", at, at + PICK_DUE, sessions=sessions
        )
    if session:
        return Obligation(
            "outcome", holder, session, "pending", at, at + OUTCOME_DUE, sessions=sessions
        )
    return Obligation(
        "legacy_binding", holder, None, "pending", at, at + LEGACY_DUE, reason=LEGACY_REASON
    )


def window(item: Item, obligation: Obligation) -> timedelta:
    """How long an outcome is given before it is reviewed: the door the work came through."""
    if item.kind == "item":  # queue items are only ever bound by a pick
        return PICK_DUE
    return LEGACY_DUE if obligation.kind == "legacy_binding" else OUTCOME_DUE


def bind_taker(
    item: Item,
    actor: str,
    session: str | None,
    at: datetime,
    disposition: str,
    status: str = "taken",
) -> Item:
    """`item` held by `actor`, owing a fresh obligation: the take and its debt, together.

    A pending obligation it replaces is resolved with `disposition` (a
    `takeover`) and kept as `previous_obligation`.
    """
    previous = item.previous_obligation
    if item.obligation is not None:
        previous = item.obligation
        if previous.pending:
            previous = resolve(previous, disposition)
    return replace(
        item,
        status=status,
        taken_by=actor,
        taken_at=at,
        session=session,
        reason=None,
        obligation=bind(actor, session, at, picked=item.kind == "item"),
        previous_obligation=previous,
    )


def new_session(obligation: Obligation, session: str | None) -> Obligation:
    """A re-take by the holder: the debt stays as it is; a new session is recorded on it."""
    if not session or session == obligation.session:
        return obligation
    return replace(obligation, session=session, sessions=(*obligation.sessions, session))


def resolve(obligation: Obligation, disposition: str) -> Obligation:
    return replace(obligation, status="resolved", due=None, parked=False, disposition=disposition)


def stamped(item: Item, event: Event) -> tuple[Obligation | None, Obligation | None]:
    """`item`'s obligation and previous one, each disposition `event` made recording who
    made it, when, and the event's id (the fold writes them back with the item's next
    version, in the one copy of the item an event makes there)."""
    return _stamp(item.obligation, event), _stamp(item.previous_obligation, event)


def _stamp(obligation: Obligation | None, event: Event) -> Obligation | None:
    if obligation is None or obligation.pending or obligation.resolved_event is not None:
        return obligation
    return replace(
        obligation, resolved_by=event.actor, resolved_at=event.at, resolved_event=event.id
    )


def bind_and_resolve(
    holder: str, session: str | None, at: datetime, disposition: str
) -> Obligation:
    """The fast path: an implicit take that is disposed of in the same event."""
    return resolve(bind(holder, session, at), disposition)


def fresh_evidence(obligation: Obligation, at: datetime) -> Obligation:
    """A note or a commit from the worker pulls the review forward, unless parked."""
    if obligation.parked or obligation.due is None:
        return obligation
    return replace(obligation, due=min(obligation.due, at))


def report_blocked(obligation: Obligation, by: str, reason: str, at: datetime) -> Obligation:
    """Due now, unparked: a blocker is evidence that someone needs to look, not an ending."""
    report = {"status": "blocked", "reason": reason, "by": by, "at": format_instant(at)}
    raised = obligation.for_owners
    if raised is not None and raised.get("decision") == "park":
        raised = None  # the park the owners were told of is over
    return replace(obligation, latest_report=report, due=at, parked=False, for_owners=raised)


def report_unblocked(
    obligation: Obligation, by: str, note: str | None, at: datetime, wait: timedelta
) -> Obligation:
    """The blocker cleared: the 6 h cap stops applying, due is the outcome window from now."""
    report = {"status": "unblocked", "note": note, "by": by, "at": format_instant(at)}
    return replace(obligation, latest_report=report, due=at + wait)


def is_blocked(obligation: Obligation) -> bool:
    return bool(obligation.latest_report and obligation.latest_report.get("status") == "blocked")


def check_delay(delay: timedelta) -> None:
    if not DELAY_MIN <= delay <= DELAY_MAX:
        raise Refused("a review delay must be between 30s and 30d")


def review(
    obligation: Obligation,
    decision: str,
    by: str,
    at: datetime,
    delay: timedelta | None = None,
    reason: str | None = None,
    by_owner: bool = False,
) -> Obligation:
    """Apply a deferring decision (defer, escalate, park, failed) to a pending obligation.

    An escalation, or a park by someone who is not an owner, waits for the
    owners (`for_owners`) until an owner decides: a chief's later defer keeps it.
    """
    record = {"decision": decision, "by": by, "at": format_instant(at), "reason": reason}
    if decision == "failed":  # the review itself broke: nobody decided anything
        return replace(obligation, due=at + FAILED_RETRY, last_review=record)
    told = obligation
    if by_owner:
        told = replace(obligation, escalated=False, for_owners=None)
    if decision in ("defer", "escalate"):
        wait = DELAY_DEFAULT if delay is None else delay
        check_delay(wait)
        if is_blocked(obligation):
            wait = min(wait, BLOCKED_CAP)
        escalating = decision == "escalate"
        return replace(
            told,
            due=at + wait,
            parked=False,
            escalated=told.escalated or escalating,
            for_owners=record if escalating else told.for_owners,
            last_review=record,
        )
    if decision == "park":
        wait = BLOCKED_CAP if is_blocked(obligation) else PARK_FOR
        raised = told.for_owners if by_owner else record
        return replace(told, due=at + wait, parked=True, for_owners=raised, last_review=record)
    raise Refused(f"unknown review decision {decision!r}: use one of {', '.join(DECISIONS)}")


def cap_note(obligation: Obligation, decision: str, delay: Any) -> str | None:
    """What the blocked rule did to a review decision, in a sentence; None when nothing."""
    if not is_blocked(obligation):
        return None
    why = "the latest report is blocked, and a blocked report is never parked for good"
    if decision in ("defer", "escalate"):
        wait = timedelta(seconds=delay) if isinstance(delay, int) else DELAY_DEFAULT
        return f"{decision} capped to 6h: {why}" if wait > BLOCKED_CAP else None
    if decision == "park":
        return f"the park comes due in 6h, not 30d: {why}"
    return None


def reviewed(obligation: Obligation, decision: str, by: str, at: datetime) -> Obligation:
    """Record the disposing decision's review on an obligation about to be resolved."""
    record = {"decision": decision, "by": by, "at": format_instant(at), "reason": None}
    return replace(obligation, last_review=record, escalated=False, for_owners=None)


# -- what `owed` shows, and to whom ------------------------------------------------------


def pressing(item: Item, now: datetime, actor: str, roles: Roles) -> tuple[str, ...]:
    """Why `item`'s pending obligation needs `actor`'s attention at `now`: due, escalated,
    parked (an escalation or park waiting for the owners, shown to owners at once), and
    future (taken at a time after now: a clock ahead, or a date made up)."""
    ob = item.obligation
    if ob is None or not ob.pending:
        return ()
    marks = []
    if ob.due is not None and ob.due <= now:
        marks.append("due")
    if ob.for_owners is not None and roles.is_owner(actor):
        marks.append("parked" if ob.for_owners.get("decision") == "park" else "escalated")
    if ob.since > now or (item.taken_at is not None and item.taken_at > now):
        marks.append("future")
    return tuple(marks)


def concerns(item: Item, actor: str, roles: Roles) -> bool:
    """Whether `actor` holds what `item` owes or may review it: `owed --mine`."""
    ob = item.obligation
    return (ob is not None and ob.holder == actor) or roles.can_review(actor)


def takeovers_for(item: Item, actor: str) -> tuple[Takeover, ...]:
    """The takeovers of `actor`'s work on `item` they have not acknowledged yet."""
    return tuple(t for t in item.takeovers if t.holder == actor)
