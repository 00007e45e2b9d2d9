"""The rules of DESIGN.md §1 for todos and requests: one handler per verb.

Each handler takes an item and one event and returns the item after it, or
raises Refused naming the rule and what to do. `domain/rulebook.py` dispatches
to them, both when a verb is written and when events are replayed after a
merge, so a rule lives in exactly one place. `plan` turns what was asked into
the event to record (a forced take becomes `takeover`, a second close becomes
an `edit` or nothing at all, a repeated take in the same session nothing).
The verbs on what a take owes (note, report, ack, review) are in
`domain/reviews.py`; they end work through `finish`, `release` and `abandon`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any

from gitcoop.domain import fields, obligations, resolution
from gitcoop.domain.aliases import aliases_problem
from gitcoop.domain.ids import kind_of
from gitcoop.domain.queue import STATES, invalidated
from gitcoop.domain.records import (
    DEFAULT_PRIORITY,
    Event,
    Evidence,
    Item,
    Obligation,
    Roles,
    Takeover,
    replace,
)
from gitcoop.domain.timefmt import format_instant, human_instant, parse_instant
from gitcoop.errors import Refused

KINDS = ("todo", "request", "item")
CLOSED = ("done", "closed")
TERMINAL = ("done", "closed", "abandoned", "stale", "duplicate", "split")
HELD = ("taken", "in_progress")
STATUSES = tuple(dict.fromkeys(("open", "taken", "done", "closed", "abandoned", *STATES)))
AMENDABLE = ("summary", "commit")
# the orders a listing can take: `due` is an obligation's review due time, as it was
# before items had due dates of their own; `deadline` is the item's own due date
SORTS = ("created", "updated", "priority", "due", "deadline")

Handler = Callable[[Item | None, Event, Roles], Item]


def held(item: Item) -> bool:
    """Bound to a holder who owes its outcome: taken, in progress, or a queue item its
    holder reported blocked (a blocked report is not an ending; the work stays bound)."""
    return bound(item.status, item.taken_by)


def bound(status: str, taken_by: str | None) -> bool:
    """`held` from a status and a holder, as a listing's summary row has them."""
    return status in HELD or (status == "blocked" and taken_by is not None)


def plan(
    item: Item | None,
    verb: str,
    args: Mapping[str, Any],
    actor: str,
    roles: Roles,
    session: str | None = None,
) -> tuple[str, dict[str, Any]] | None:
    """The verb and arguments to record for a request, or None when nothing changes.

    `session` is the one the request is made in. A take by the holder is always
    recorded: it refreshes `taken_at` (seed 000), and a stale take is refreshed
    that way; the debt stays as it is (`_retake`).
    """
    args = dict(args)
    if item is None:
        return verb, args
    if verb == "take" and item.status in HELD and item.taken_by == actor:
        return verb, args
    if verb == "take" and item.status in HELD and args.get("force"):
        args["previous_holder"] = item.taken_by
        args["previous_taken_at"] = format_instant(item.taken_at) if item.taken_at else None
        return "takeover", args
    if verb == "report":
        return _report_plan(item, args, actor, roles)
    if verb == "ack":
        return _ack_plan(item, args, actor)
    if verb in ("done", "close") and item.status in CLOSED:
        _closing_status(item, verb)  # the kind's own verb, even for an amendment
        return _amendment(item, args)
    if verb in ("done", "close") and item.status == "abandoned":
        args["previous_status"] = "abandoned"
    return verb, args


def acknowledgeable(item: Item, actor: str) -> bool:
    """Whether an `ack` by `actor` changes anything: a takeover of their work or a
    lost event of theirs waits."""
    return any((obligations.takeovers_for(item, actor), resolution.unacknowledged(item, actor)))


def _ack_plan(item: Item, args: dict[str, Any], actor: str) -> tuple[str, dict[str, Any]] | None:
    """Nothing waiting writes nothing. With no takeover waiting, the lost events it
    acknowledges are named (`events`), so an owner settling them before the `ack`
    is replayed leaves it nothing to do rather than refused (a conflict of theirs)."""
    target = args.get("event")
    if target is not None:  # one lost event; someone else's is the handler's to refuse
        found = next((c for c in item.conflicts if c.event == target), None)
        waits = found is not None and (found.actor != actor or not found.acknowledged)
        return ("ack", args) if waits else None
    if obligations.takeovers_for(item, actor):
        return "ack", args
    lost = resolution.unacknowledged(item, actor)
    return ("ack", {**args, "events": [c.event for c in lost]}) if lost else None


def _report_plan(
    item: Item, args: dict[str, Any], actor: str, roles: Roles
) -> tuple[str, dict[str, Any]] | None:
    """A repeated `report done` is a second done (it only amends); an `unblocked`
    report on work that is not blocked writes nothing."""
    status = args.get("status")
    if status == "done" and item.status in CLOSED:
        # a report is the holder's: --force does not let anyone else amend through it
        rest = {k: v for k, v in args.items() if k not in ("status", "force")}
        return plan(item, "done" if item.kind == "todo" else "close", rest, actor, roles)
    ob = item.obligation
    quiet = ob is not None and ob.pending and not obligations.is_blocked(ob)
    if status == "unblocked" and item.taken_by == actor and quiet:
        return None
    return "report", args


def _amendment(item: Item, args: dict[str, Any]) -> tuple[str, dict[str, Any]] | None:
    """A second close: an `edit` of what changed (who may make it: `amend`), or nothing."""
    current = {"summary": item.result_summary, "commit": item.commit_sha}
    changes = {k: args[k] for k in AMENDABLE if args.get(k) is not None and args[k] != current[k]}
    if not changes:
        return None
    edit: dict[str, Any] = dict(changes)
    for key in changes:
        edit[f"previous_{key}"] = current[key]
    if args.get("force"):
        edit["force"] = True
    return "edit", edit


# -- helpers -----------------------------------------------------------------


def name(item: Item) -> str:
    return f"{item.kind} {item.id}"


def _since(item: Item) -> str:
    return f" (since {human_instant(item.taken_at)})" if item.taken_at else ""


def _guard_holder(item: Item, event: Event, action: str) -> None:
    """Only the taker finishes a take, unless --force."""
    if item.status in HELD and item.taken_by != event.actor and not event.arg("force"):
        raise Refused(
            f"{name(item)} is taken by {item.taken_by}{_since(item)} — only they can "
            f"{action} it; --force to {action} it anyway",
            holder=item.taken_by,
        )


def _guard_not_terminal(item: Item, action: str) -> None:
    if item.status in TERMINAL:
        closer = f" by {item.closed_by}" if item.closed_by else ""
        raise Refused(f"{name(item)} is already {item.status}{closer} — cannot {action} it")


def required(event: Event, arg: str, verb: str) -> str:
    value = event.arg(arg)
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"{verb} needs a --{arg}")
    return value


def _closing_time(item: Item, event: Event, ending: str) -> tuple[datetime, str | None]:
    """When a close is recorded: never before the take it ends (a clock behind, a late replay)."""
    taken = item.taken_at if item.status in HELD else None
    if taken is None or event.at >= taken:
        return event.at, None
    return taken, (
        f"{ending} at {human_instant(event.at)}, before the take at {human_instant(taken)}: "
        "recorded at the take's time"
    )


def _resolved_obligation(item: Item, disposition: str) -> Obligation | None:
    """`item`'s obligation resolved with `disposition`, if it is pending."""
    if item.obligation is None or not item.obligation.pending:
        return item.obligation
    return obligations.resolve(item.obligation, disposition)


# -- verbs -------------------------------------------------------------------


def _add(item: Item | None, event: Event, roles: Roles) -> Item:
    if item is not None:
        raise Refused(f"{event.item} already exists")
    kind = event.arg("kind")
    if kind not in KINDS or kind_of(event.item) != kind:
        raise Refused(f"add needs a kind matching the id: one of {', '.join(KINDS)}")
    title = required(event, "title", "add")
    evidence = tuple(Evidence.from_data(e) for e in event.arg("evidence") or [])
    priority = event.arg("priority")
    due = event.arg("due")
    for problem in (
        fields.tags_problem(event.arg("tags")) if event.arg("tags") is not None else None,
        fields.priority_problem(priority) if priority is not None else None,
        fields.due_problem(due) if due is not None else None,
        aliases_problem(event.arg("aliases")) if event.arg("aliases") is not None else None,
    ):
        if problem:
            raise Refused(problem)
    legacy = event.arg("tag")  # one tag, as events were written before items had several
    tags = event.arg("tags") or ([legacy] if isinstance(legacy, str) and legacy else [])
    return Item(
        id=event.item,
        kind=kind,
        title=title,
        status="draft" if kind == "item" else "open",
        created_at=event.at,
        created_by=event.actor,
        body=event.arg("body"),
        tags=fields.retagged(tags, (), ()),
        priority=DEFAULT_PRIORITY if priority is None else priority,
        due=parse_instant(due) if due is not None else None,
        source=event.arg("source") if kind == "item" else None,
        evidence=evidence,
        order_key=event.arg("order_key") if kind == "item" else None,
        parent_id=event.arg("parent_id") if kind == "item" else None,
        aliases=tuple(event.arg("aliases") or ()),
    )


def _take(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    if item.kind == "item":
        raise Refused(f"{name(item)} is a queue item — queue items are picked: git coop pick")
    if item.status in TERMINAL:
        raise Refused(f"{name(item)} is {item.status} — terminal rows are never re-taken")
    if item.status in HELD and item.taken_by == event.actor:
        return _retake(item, event)
    if item.status not in HELD:
        return _bind(item, event, "takeover")
    if not event.arg("force"):
        raise Refused(
            f"{name(item)} is already taken by {item.taken_by}{_since(item)} — "
            "--force to take it over",
            holder=item.taken_by,
        )
    assert item.taken_by is not None
    notice = Takeover(item.taken_by, event.actor, event.at, event.id)
    return replace(_bind(item, event, "takeover"), takeovers=(*item.takeovers, notice))


def _retake(item: Item, event: Event) -> Item:
    """The holder takes again: `taken_at` moves, a new session is recorded; the debt stays."""
    if item.obligation is None or not item.obligation.pending:
        return _bind(item, event, "takeover")  # held with nothing owed: never left that way
    session = event.session or item.session
    obligation = obligations.new_session(item.obligation, event.session)
    return replace(item, taken_at=event.at, session=session, obligation=obligation)


def _bind(item: Item, event: Event, disposition: str) -> Item:
    return obligations.bind_taker(item, event.actor, event.session, event.at, disposition)


def _takeover(item: Item | None, event: Event, roles: Roles) -> Item:
    return _take(item, replace(event, args={**event.args, "force": True}), roles)


def _closing_status(item: Item, verb: str) -> str:
    """todo -> done, request -> closed; a picked queue item -> closed."""
    if item.kind == "todo" and verb == "close":
        raise Refused(f"{name(item)} is a todo — todos are finished with: git coop done")
    if item.kind == "request" and verb == "done":
        raise Refused(f"{name(item)} is a request — requests are finished with: git coop close")
    ends_a_round = item.status in CLOSED or (held(item) and verb == "close")
    if item.kind == "item" and not ends_a_round:
        raise Refused(
            f"{name(item)} is a queue item ({item.status}) — a picked one ends with "
            "git coop finish ID done --commit SHA or a Coop-Close trailer; "
            "git coop edit ID --state closed drops it"
        )
    if item.kind == "item" and item.status in CLOSED:  # an amendment keeps the ending
        return item.status
    return "done" if verb == "done" else "closed"


def finish(item: Item, event: Event, roles: Roles, verb: str, privileged: bool = False) -> Item:
    status = _closing_status(item, verb)
    if item.status in CLOSED:
        raise Refused(
            f"{name(item)} is already {item.status} by {item.closed_by} — the first close is "
            "the record"
        )
    if item.status == "abandoned":
        if not (event.arg("force") and roles.is_owner(event.actor)):
            raise Refused(
                f"{name(item)} was abandoned — only an owner with --force can record it "
                f"{status} after all"
            )
    elif item.status in TERMINAL:
        _guard_not_terminal(item, verb)
    elif not privileged:
        _guard_holder(item, event, verb)
    if held(item) and item.obligation is not None:
        bound: dict[str, Any] = {"obligation": _resolved_obligation(item, status)}
    else:  # the fast path: an implicit take, disposed of in the same event
        bound = {
            "taken_by": event.actor,
            "taken_at": event.at,
            "session": event.session,
            "obligation": obligations.bind_and_resolve(
                event.actor, event.session, event.at, status
            ),
            "previous_obligation": item.obligation or item.previous_obligation,
        }
    closed_at, note = _closing_time(item, event, status)
    return replace(  # one copy of the item
        item,
        status=status,
        closed_by=event.actor,
        closed_at=closed_at,
        closed_note=note,
        result_summary=event.arg("summary"),
        commit_sha=event.arg("commit"),
        reason=event.arg("reason"),
        **bound,
    )


def _done(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    return finish(item, event, roles, "done")


def _close(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    return finish(item, event, roles, "close")


def release(item: Item | None, event: Event, roles: Roles, privileged: bool = False) -> Item:
    assert item is not None
    reason = required(event, "reason", "release")
    if not held(item):
        raise Refused(f"{name(item)} is {item.status}, not taken — nothing to release")
    foreign = item.taken_by != event.actor and not privileged
    if foreign and not (event.arg("force") and roles.can_review(event.actor)):
        raise Refused(
            f"{name(item)} is taken by {item.taken_by}{_since(item)} — releasing someone "
            "else's take needs --force and the owner or chief role",
            holder=item.taken_by,
        )
    unbound = {"taken_by": None, "taken_at": None, "session": None, "reason": reason}
    obligation = _resolved_obligation(item, "released")  # one copy of the item, not three
    if item.kind == "item":  # back to the queue: a discard, so its evidence cache goes
        evidence = invalidated(item.evidence)
        return replace(item, status="ready", obligation=obligation, evidence=evidence, **unbound)
    return replace(item, status="open", obligation=obligation, **unbound)


def abandon(item: Item | None, event: Event, roles: Roles, privileged: bool = False) -> Item:
    assert item is not None
    reason = required(event, "reason", "abandon")
    if item.kind != "todo":
        raise Refused(f"{name(item)} is a {item.kind} — only todos are abandoned; close it instead")
    _guard_not_terminal(item, "abandon")
    if not privileged:
        _guard_holder(item, event, "abandon")
    closed_at, note = _closing_time(item, event, "abandoned")
    return replace(
        item,
        obligation=_resolved_obligation(item, "abandoned"),
        status="abandoned",
        closed_by=event.actor,
        closed_at=closed_at,
        closed_note=note,
        reason=reason,
    )


def amend(item: Item, event: Event, roles: Roles) -> Item:
    """An amendment of a close: by its closer, the holder at the close, an owner, or --force.

    An `edit` event carrying `summary` or `commit` is one (domain/edits.py)."""
    if item.status not in CLOSED:
        raise Refused(f"{name(item)} is {item.status} — only a closed item's record is amended")
    amenders = (item.closed_by, item.taken_by)
    if event.actor not in amenders and not event.arg("force") and not roles.is_owner(event.actor):
        held = f", {item.taken_by} (who held it)" if item.taken_by != item.closed_by else ""
        raise Refused(
            f"{name(item)} is already {item.status} by {item.closed_by} — the first close is "
            f"the record; only its closer{held} or an owner can amend it, or use --force"
        )
    changed = item
    if event.arg("summary") is not None:
        changed = replace(changed, result_summary=event.arg("summary"))
    if event.arg("commit") is not None:
        changed = replace(changed, commit_sha=event.arg("commit"))
    return changed


HANDLERS: dict[str, Handler] = {
    "add": _add,
    "take": _take,
    "takeover": _takeover,
    "release": release,
    "done": _done,
    "close": _close,
    "abandon": abandon,
}
