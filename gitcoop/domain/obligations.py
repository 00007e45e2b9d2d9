"""What a take owes, and how reports, notes and reviews move it (DESIGN.md §5).

Due is never done: nothing here looks at a clock. Every function takes the
instant of the event that moves the obligation.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime, timedelta

from gitcoop.domain.records import Item, Obligation
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import Refused

OUTCOME_DUE = timedelta(hours=2)
LEGACY_DUE = timedelta(hours=3)
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


def bind(holder: str, session: str | None, at: datetime) -> Obligation:
    """The debt written in the same commit as a take."""
    if session:
        return Obligation("outcome", holder, session, "pending", at, at + OUTCOME_DUE)
    return Obligation(
        "legacy_binding", holder, None, "pending", at, at + LEGACY_DUE, reason=LEGACY_REASON
    )


def bind_taker(
    item: Item,
    actor: str,
    session: str | None,
    at: datetime,
    disposition: str,
    status: str = "taken",
) -> Item:
    """`item` held by `actor`, owing a fresh obligation: the take and its debt, together.

    A pending obligation it replaces is resolved with `disposition` (`takeover`,
    `retaken`) and kept as `previous_obligation`.
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
        obligation=bind(actor, session, at),
        previous_obligation=previous,
    )


def resolve(obligation: Obligation, disposition: str) -> Obligation:
    return replace(obligation, status="resolved", due=None, parked=False, disposition=disposition)


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
    report = {"status": "blocked", "reason": reason, "by": by, "at": format_instant(at)}
    return replace(obligation, latest_report=report, due=at, parked=False)


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
) -> Obligation:
    """Apply a deferring decision (defer, escalate, park, failed) to a pending obligation."""
    blocked = is_blocked(obligation)
    record = {"decision": decision, "by": by, "at": format_instant(at), "reason": reason}
    if decision in ("defer", "escalate"):
        wait = DELAY_DEFAULT if delay is None else delay
        check_delay(wait)
        if blocked:
            wait = min(wait, BLOCKED_CAP)
        return replace(
            obligation,
            due=at + wait,
            parked=False,
            escalated=decision == "escalate",
            last_review=record,
        )
    if decision == "park":
        wait = BLOCKED_CAP if blocked else PARK_FOR
        return replace(obligation, due=at + wait, parked=True, escalated=False, last_review=record)
    if decision == "failed":
        return replace(obligation, due=at + FAILED_RETRY, last_review=record)
    raise Refused(f"unknown review decision {decision!r}: use one of {', '.join(DECISIONS)}")


def reviewed(obligation: Obligation, decision: str, by: str, at: datetime) -> Obligation:
    """Record the disposing decision's review on an obligation about to be resolved."""
    record = {"decision": decision, "by": by, "at": format_instant(at), "reason": None}
    return replace(obligation, last_review=record, escalated=False)
