"""The rules of DESIGN.md §1 for todos and requests: one handler per verb.

Each handler takes an item and one event and returns the item after it, or
raises Refused naming the rule and what to do. `domain/rulebook.py` dispatches
to them, both when a verb is written and when events are replayed after a
merge, so a rule lives in exactly one place. `plan` turns what was asked into
the event to record (a forced take becomes `takeover`, a second close becomes
an `edit` or nothing at all).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from datetime import timedelta
from typing import Any

from gitcoop.domain import obligations
from gitcoop.domain.ids import kind_of
from gitcoop.domain.queue import invalidated
from gitcoop.domain.records import Event, Evidence, Item, Roles
from gitcoop.domain.timefmt import format_instant, human_instant
from gitcoop.errors import Refused

KINDS = ("todo", "request", "item")
CLOSED = ("done", "closed")
TERMINAL = ("done", "closed", "abandoned", "stale", "duplicate", "split")
HELD = ("taken", "in_progress")
AMENDABLE = ("summary", "commit")

Handler = Callable[[Item | None, Event, Roles], Item]


def plan(
    item: Item | None, verb: str, args: Mapping[str, Any], actor: str, roles: Roles
) -> tuple[str, dict[str, Any]] | None:
    """The verb and arguments to record for a request, or None when nothing changes."""
    args = dict(args)
    if item is None:
        return verb, args
    if verb == "take" and item.status in HELD and item.taken_by != actor and args.get("force"):
        args["previous_holder"] = item.taken_by
        args["previous_taken_at"] = format_instant(item.taken_at) if item.taken_at else None
        return "takeover", args
    if verb in ("done", "close") and item.status in CLOSED:
        _closing_status(item, verb)  # the kind's own verb, even for an amendment
        return _amendment(item, args, actor, roles)
    if verb in ("done", "close") and item.status == "abandoned":
        args["previous_status"] = "abandoned"
    return verb, args


def _amendment(
    item: Item, args: dict[str, Any], actor: str, roles: Roles
) -> tuple[str, dict[str, Any]] | None:
    current = {"summary": item.result_summary, "commit": item.commit_sha}
    changes = {k: args[k] for k in AMENDABLE if args.get(k) is not None and args[k] != current[k]}
    if not changes:
        return None
    if actor != item.closed_by and not args.get("force") and not roles.is_owner(actor):
        raise Refused(
            f"{_name(item)} is already {item.status} by {item.closed_by} — the first close is "
            "the record; only its closer or an owner can amend it, or use --force"
        )
    edit: dict[str, Any] = dict(changes)
    for key in changes:
        edit[f"previous_{key}"] = current[key]
    return "edit", edit


# -- helpers -----------------------------------------------------------------


def _name(item: Item) -> str:
    return f"{item.kind} {item.id}"


def _since(item: Item) -> str:
    return f" (since {human_instant(item.taken_at)})" if item.taken_at else ""


def _guard_holder(item: Item, event: Event, action: str) -> None:
    """Only the taker finishes a take, unless --force."""
    if item.status in HELD and item.taken_by != event.actor and not event.arg("force"):
        raise Refused(
            f"{_name(item)} is taken by {item.taken_by}{_since(item)} — only they can "
            f"{action} it; --force to {action} it anyway"
        )


def _guard_not_terminal(item: Item, action: str) -> None:
    if item.status in TERMINAL:
        closer = f" by {item.closed_by}" if item.closed_by else ""
        raise Refused(f"{_name(item)} is already {item.status}{closer} — cannot {action} it")


def _require(event: Event, arg: str, verb: str) -> str:
    value = event.arg(arg)
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"{verb} needs a --{arg}")
    return value


def _unbound(item: Item) -> Item:
    return replace(item, taken_by=None, taken_at=None, session=None)


def _resolved(item: Item, disposition: str) -> Item:
    if item.obligation is None or not item.obligation.pending:
        return item
    return replace(item, obligation=obligations.resolve(item.obligation, disposition))


# -- verbs -------------------------------------------------------------------


def _add(item: Item | None, event: Event, roles: Roles) -> Item:
    if item is not None:
        raise Refused(f"{event.item} already exists")
    kind = event.arg("kind")
    if kind not in KINDS or kind_of(event.item) != kind:
        raise Refused(f"add needs a kind matching the id: one of {', '.join(KINDS)}")
    title = _require(event, "title", "add")
    evidence = tuple(Evidence.from_data(e) for e in event.arg("evidence") or [])
    return Item(
        id=event.item,
        kind=kind,
        title=title,
        status="draft" if kind == "item" else "open",
        created_at=event.at,
        created_by=event.actor,
        body=event.arg("body"),
        tag=event.arg("tag"),
        source=event.arg("source") if kind == "item" else None,
        evidence=evidence,
        order_key=event.arg("order_key") if kind == "item" else None,
        parent_id=event.arg("parent_id") if kind == "item" else None,
    )


def _take(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    if item.kind == "item":
        raise Refused(f"{_name(item)} is a queue item — queue items are picked: git coop pick")
    if item.status in TERMINAL:
        raise Refused(f"{_name(item)} is {item.status} — terminal rows are never re-taken")
    if item.status in HELD and item.taken_by == event.actor:
        if not event.session or event.session == item.session:
            return replace(item, taken_at=event.at)
        # the holder now works inside a session: the debt moves to it
        return _bind(item, event, "retaken")
    if item.status in HELD and not event.arg("force"):
        raise Refused(
            f"{_name(item)} is already taken by {item.taken_by}{_since(item)} — "
            "--force to take it over"
        )
    return _bind(item, event, "takeover")


def _bind(item: Item, event: Event, disposition: str) -> Item:
    return obligations.bind_taker(item, event.actor, event.session, event.at, disposition)


def _takeover(item: Item | None, event: Event, roles: Roles) -> Item:
    return _take(item, replace(event, args={**event.args, "force": True}), roles)


def _closing_status(item: Item, verb: str) -> str:
    """todo -> done, request -> closed; a picked queue item -> closed."""
    if item.kind == "todo" and verb == "close":
        raise Refused(f"{_name(item)} is a todo — todos are finished with: git coop done")
    if item.kind == "request" and verb == "done":
        raise Refused(f"{_name(item)} is a request — requests are finished with: git coop close")
    ends_a_round = item.status in CLOSED or (item.status in HELD and verb == "close")
    if item.kind == "item" and not ends_a_round:
        raise Refused(
            f"{_name(item)} is a queue item ({item.status}) — a picked one ends with "
            "git coop finish ID done --commit SHA or a Coop-Close trailer; "
            "git coop edit ID --state closed drops it"
        )
    if item.kind == "item" and item.status in CLOSED:  # an amendment keeps the ending
        return item.status
    return "done" if verb == "done" else "closed"


def _finish(item: Item, event: Event, roles: Roles, verb: str, privileged: bool = False) -> Item:
    status = _closing_status(item, verb)
    if item.status in CLOSED:
        raise Refused(
            f"{_name(item)} is already {item.status} by {item.closed_by} — the first close is "
            "the record"
        )
    if item.status == "abandoned":
        if not (event.arg("force") and roles.is_owner(event.actor)):
            raise Refused(
                f"{_name(item)} was abandoned — only an owner with --force can record it "
                f"{status} after all"
            )
    elif item.status in TERMINAL:
        _guard_not_terminal(item, verb)
    elif not privileged:
        _guard_holder(item, event, verb)
    if item.status in HELD and item.obligation is not None:
        bound = _resolved(item, status)
    else:
        obligation = obligations.bind_and_resolve(event.actor, event.session, event.at, status)
        bound = replace(
            item,
            taken_by=event.actor,
            taken_at=event.at,
            session=event.session,
            obligation=obligation,
            previous_obligation=item.obligation or item.previous_obligation,
        )
    return replace(
        bound,
        status=status,
        closed_by=event.actor,
        closed_at=event.at,
        result_summary=event.arg("summary"),
        commit_sha=event.arg("commit"),
        reason=event.arg("reason"),
    )


def _done(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    return _finish(item, event, roles, "done")


def _close(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    return _finish(item, event, roles, "close")


def _release(item: Item | None, event: Event, roles: Roles, privileged: bool = False) -> Item:
    assert item is not None
    reason = _require(event, "reason", "release")
    if item.status not in HELD:
        raise Refused(f"{_name(item)} is {item.status}, not taken — nothing to release")
    foreign = item.taken_by != event.actor and not privileged
    if foreign and not (event.arg("force") and roles.can_review(event.actor)):
        raise Refused(
            f"{_name(item)} is taken by {item.taken_by}{_since(item)} — releasing someone "
            "else's take needs --force and the owner or chief role"
        )
    released = _unbound(_resolved(item, "released"))
    if item.kind == "item":  # back to the queue: a discard, so its evidence cache goes
        return replace(released, status="ready", reason=reason, evidence=invalidated(item.evidence))
    return replace(released, status="open", reason=reason)


def _abandon(item: Item | None, event: Event, roles: Roles, privileged: bool = False) -> Item:
    assert item is not None
    reason = _require(event, "reason", "abandon")
    if item.kind != "todo":
        raise Refused(
            f"{_name(item)} is a {item.kind} — only todos are abandoned; close it instead"
        )
    _guard_not_terminal(item, "abandon")
    if not privileged:
        _guard_holder(item, event, "abandon")
    abandoned = _resolved(item, "abandoned")
    return replace(
        abandoned, status="abandoned", closed_by=event.actor, closed_at=event.at, reason=reason
    )


def _edit(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    if item.status not in CLOSED:
        raise Refused(f"{_name(item)} is {item.status} — only a closed item's record is amended")
    changed = item
    if event.arg("summary") is not None:
        changed = replace(changed, result_summary=event.arg("summary"))
    if event.arg("commit") is not None:
        changed = replace(changed, commit_sha=event.arg("commit"))
    return changed


def _note(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    _require(event, "text", "note")
    obligation = item.obligation
    if obligation is not None and obligation.pending and event.actor == obligation.holder:
        return replace(item, obligation=obligations.fresh_evidence(obligation, event.at))
    return item


def _report(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    status = event.arg("status")
    if item.status not in HELD or item.obligation is None or not item.obligation.pending:
        raise Refused(f"{_name(item)} is {item.status} — only taken work owes a report")
    if event.actor != item.taken_by and not event.arg("force"):
        raise Refused(f"{_name(item)} is taken by {item.taken_by} — only the holder reports on it")
    if status == "done":
        return _finish(item, event, roles, "done" if item.kind == "todo" else "close")
    if status == "released":
        return _release(item, event, roles)
    if status == "abandoned":
        return _abandon(item, event, roles)
    if status == "blocked":
        reason = _require(event, "reason", "a blocked report")
        blocked = obligations.report_blocked(item.obligation, event.actor, reason, event.at)
        return replace(item, obligation=blocked, reason=reason)
    raise Refused(f"unknown report {status!r}: use done, released, abandoned or blocked")


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
        raise Refused(f"{_name(item)} owes nothing — there is no pending obligation to review")
    if decision in obligations.DEFERRING:
        wait = _delay(event.arg("delay_seconds"))
        moved = obligations.review(
            obligation, decision, event.actor, event.at, wait, event.arg("reason")
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
        return _release(noted, event, roles, privileged=True)
    if decision == "abandon":
        return _abandon(noted, event, roles, privileged=True)
    return _finish(noted, event, roles, "done" if item.kind == "todo" else "close", True)


def _delay(seconds: Any) -> timedelta | None:
    """A review's delay, checked before it becomes a timedelta (10**20 seconds is none)."""
    if seconds is None:
        return None
    low, high = obligations.DELAY_MIN.total_seconds(), obligations.DELAY_MAX.total_seconds()
    if not isinstance(seconds, int) or isinstance(seconds, bool) or not low <= seconds <= high:
        raise Refused("a review delay must be between 30s and 30d")
    return timedelta(seconds=seconds)


HANDLERS: dict[str, Handler] = {
    "add": _add,
    "take": _take,
    "takeover": _takeover,
    "release": _release,
    "done": _done,
    "close": _close,
    "abandon": _abandon,
    "edit": _edit,
    "note": _note,
    "report": _report,
    "review": _review,
}
