"""The verbs on what a take owes: note, report and ack (the worker's), review (a reviewer's).

Handlers like `lifecycle`'s, dispatched by `domain/rulebook.py`; a report or
review that ends the work goes through the lifecycle's own transitions.
"""

from __future__ import annotations

from datetime import timedelta

from gitcoop.domain import lifecycle, obligations, related, resolution
from gitcoop.domain.lifecycle import Handler
from gitcoop.domain.records import Event, Item, Obligation, Roles, replace
from gitcoop.domain.timefmt import human_instant
from gitcoop.errors import Refused


def _note(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    lifecycle.required(event, "text", "note")
    item = related.with_related(item, event)
    obligation = item.obligation
    if obligation is not None and obligation.pending and event.actor == obligation.holder:
        return replace(item, obligation=obligations.fresh_evidence(obligation, event.at))
    return item


def _report(item: Item | None, event: Event, roles: Roles) -> Item:
    """The holder's own report; nobody reports for them, --force or not."""
    assert item is not None
    status = event.arg("status")
    if not lifecycle.held(item) or item.obligation is None or not item.obligation.pending:
        raise Refused(f"{lifecycle.name(item)} is {item.status} — only taken work owes a report")
    if event.actor != item.taken_by:
        raise Refused(
            f"{lifecycle.name(item)} is taken by {item.taken_by} — only the holder reports on "
            f"it, --force or not; an owner or chief decides instead: git coop review {item.id} "
            "DECISION",
            holder=item.taken_by,
        )
    if status == "done":
        return lifecycle.finish(item, event, roles, "done" if item.kind == "todo" else "close")
    if status == "released":
        return lifecycle.release(item, event, roles)
    if status == "abandoned":
        return lifecycle.abandon(item, event, roles)
    if status == "blocked":
        reason = lifecycle.required(event, "reason", "a blocked report")
        blocked = obligations.report_blocked(item.obligation, event.actor, reason, event.at)
        return replace(item, obligation=blocked, reason=reason)
    if status == "unblocked":
        return _unblocked(item, event)
    raise Refused(f"unknown report {status!r}: use done, released, abandoned, blocked or unblocked")


def _unblocked(item: Item, event: Event) -> Item:
    ob = item.obligation
    assert ob is not None
    if not obligations.is_blocked(ob):
        raise Refused(
            f"{lifecycle.name(item)} is not blocked — there is no blocked report to clear"
        )
    wait = obligations.window(item, ob)
    note = event.arg("note")
    cleared = obligations.report_unblocked(ob, event.actor, note, event.at, wait)
    status = "in_progress" if item.status == "blocked" else item.status  # back to work
    return replace(item, status=status, obligation=cleared, reason=None, blocked_reason=None)


def _ack(item: Item | None, event: Event, roles: Roles) -> Item:
    """The actor has seen what happened to their work: a takeover of it, or their
    events that lost on a merge (`domain/resolution.py`). With an `event`
    argument, only that lost event; with `events`, only those (what `plan`
    records when no takeover waits); without either, everything waiting."""
    assert item is not None
    target, named = event.arg("event"), event.arg("events")
    if target is not None:
        return resolution.acknowledge(item, event.actor, target)
    if isinstance(named, list):
        for lost in named:
            item = resolution.acknowledge(item, event.actor, lost)
        return item
    if not lifecycle.acknowledgeable(item, event.actor):
        raise Refused(
            f"{lifecycle.name(item)}: nothing to acknowledge — no takeover of "
            f"{event.actor}'s work and no lost event of theirs on it is waiting"
        )
    item = resolution.acknowledge(item, event.actor, None)
    return replace(item, takeovers=tuple(t for t in item.takeovers if t.holder != event.actor))


def _review(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    decision = event.arg("decision")
    if not roles.can_review(event.actor):
        raise Refused(
            f"{event.actor} cannot review {item.id} — reviews are by the owners "
            f"({', '.join(roles.owners) or 'none'}) or chiefs ({', '.join(roles.chiefs) or 'none'})"
        )
    obligation = item.obligation
    if obligation is None or not obligation.pending:
        raise Refused(
            f"{lifecycle.name(item)} owes nothing — there is no pending obligation to review"
        )
    _guard_park(item, obligation, event, roles)
    if decision in obligations.DEFERRING:
        wait = _delay(event.arg("delay_seconds"))
        owner = roles.is_owner(event.actor)
        moved = obligations.review(
            obligation, decision, event.actor, event.at, wait, event.arg("reason"), owner
        )
        return replace(item, obligation=moved)
    if decision not in obligations.DISPOSING:
        raise Refused(
            f"unknown review decision {decision!r}: use one of {', '.join(obligations.DECISIONS)}"
        )
    noted = replace(
        item, obligation=obligations.reviewed(obligation, decision, event.actor, event.at)
    )
    if decision == "release":
        return lifecycle.release(noted, event, roles, privileged=True)
    if decision == "abandon":
        return lifecycle.abandon(noted, event, roles, privileged=True)
    return lifecycle.finish(noted, event, roles, "done" if item.kind == "todo" else "close", True)


def _delay(seconds: object) -> timedelta | None:
    """A review's delay, checked before it becomes a timedelta (10**20 seconds is none)."""
    if seconds is None:
        return None
    low, high = obligations.DELAY_MIN.total_seconds(), obligations.DELAY_MAX.total_seconds()
    if not isinstance(seconds, int) or isinstance(seconds, bool) or not low <= seconds <= high:
        raise Refused("a review delay must be between 30s and 30d")
    return timedelta(seconds=seconds)


def _guard_park(item: Item, obligation: Obligation, event: Event, roles: Roles) -> None:
    """A park is left to the owners and the worker until it runs out (then it is owed again)."""
    holding = obligation.due is None or event.at < obligation.due
    if not obligation.parked or not holding or roles.is_owner(event.actor):
        return
    until = f" until {human_instant(obligation.due)}" if obligation.due else ""
    raise Refused(
        f"{lifecycle.name(item)} is parked{until} — a park is left to the owners "
        f"({', '.join(roles.owners) or 'none'}) and the holder {item.taken_by}: an owner "
        "decides, or the holder's blocked report unparks it"
    )


HANDLERS: dict[str, Handler] = {
    "note": _note,
    "report": _report,
    "review": _review,
    "ack": _ack,
}
