"""Settling a merge conflict: an owner re-applies a refused event or dismisses it;
the person whose event lost acknowledges it.

The `resolve` event names the refused event and, for `apply`, carries a copy
of what that event asked (verb, actor, session, at, arguments), because a
handler sees one item and one event, never the rest of the log. `settle`
removes the conflict and, for `apply`, returns the refused event to run again
through its own verb's rule, with `force`, as its original actor; the rule
book (`domain/rulebook.py`) does that, so this module needs no other verb.
"""

from __future__ import annotations

from typing import Any

from gitcoop.domain.records import Conflict, Event, Item, Roles, replace
from gitcoop.domain.timefmt import format_instant, parse_instant
from gitcoop.errors import Refused

DECISIONS = ("apply", "dismiss")
NOT_REAPPLIED = ("add", "resolve")


def resolve_args(refused: Event, decision: str, reason: str) -> dict[str, Any]:
    """The arguments of a `resolve` event settling `refused`."""
    return {
        "event": refused.id,
        "decision": decision,
        "reason": reason,
        "replay": {
            "verb": refused.verb,
            "actor": refused.actor,
            "session": refused.session,
            "at": format_instant(refused.at),
            "args": dict(refused.args),
        },
    }


def settle(item: Item | None, event: Event, roles: Roles) -> tuple[Item, Event | None]:
    """The item without the settled conflict, and the event to re-apply (None: dismissed)."""
    assert item is not None
    target = event.arg("event")
    decision = event.arg("decision")
    reason = event.arg("reason")
    if not roles.is_owner(event.actor):
        raise Refused(
            f"{event.actor} cannot resolve conflicts on {item.id} — only an owner "
            f"({', '.join(roles.owners) or 'none'}) settles them"
        )
    if decision not in DECISIONS:
        raise Refused(f"unknown resolution {decision!r}: use --apply or --dismiss")
    if not isinstance(reason, str) or not reason.strip():
        raise Refused("resolve needs a --reason")
    remaining = tuple(c for c in item.conflicts if c.event != target)
    if len(remaining) == len(item.conflicts):
        raise Refused(f"{item.id} has no open conflict for event {target}")
    settled = replace(item, conflicts=remaining)
    if decision == "dismiss":
        return settled, None
    return settled, _original(event)


def _original(event: Event) -> Event:
    """The refused event as it was asked, forced, to be applied again."""
    replay = event.arg("replay")
    if not isinstance(replay, dict) or not isinstance(replay.get("verb"), str):
        raise Refused(f"resolve --apply of {event.arg('event')} carries no event to re-apply")
    if replay["verb"] in NOT_REAPPLIED:
        raise Refused(f"a refused {replay['verb']} cannot be re-applied — dismiss it instead")
    try:
        at = parse_instant(str(replay.get("at")))
    except ValueError:
        raise Refused(f"resolve --apply of {event.arg('event')} has no valid time") from None
    args = replay.get("args")
    return Event(
        id=event.arg("event"),
        item=event.item,
        clock=event.clock,
        at=at,
        actor=str(replay.get("actor")),
        session=replay.get("session"),
        verb=replay["verb"],
        args={**(args if isinstance(args, dict) else {}), "force": True},
    )


def unacknowledged(item: Item, actor: str) -> tuple[Conflict, ...]:
    """The conflicts of `item` that are `actor`'s own lost events they have not acknowledged."""
    return tuple(
        c for c in item.conflicts if c.actor == actor and not c.acknowledged and not c.kept_out
    )


def acknowledge(item: Item, actor: str, target: str | None) -> Item:
    """`actor` says they know their event lost; the conflict stays for the owners.

    With `target`, that one lost event: only its own actor may acknowledge it.
    Without, every lost event of `actor` on the item. A conflict an owner
    settled before the acknowledgement was replayed leaves nothing to
    acknowledge, and nothing changes. Part of the `ack` verb
    (`domain/reviews.py`), which also clears takeover notices.
    """
    if target is not None:
        found = next((c for c in item.conflicts if c.event == target), None)
        if found is not None and found.actor != actor:
            raise Refused(
                f"{actor} cannot acknowledge {found.actor}'s lost {found.verb} on "
                f"{item.id} — only the person whose event lost acknowledges it"
            )

    def marked(conflict: Conflict) -> Conflict:
        ours = conflict.actor == actor and target in (None, conflict.event)
        return replace(conflict, acknowledged=True) if ours else conflict

    return replace(item, conflicts=tuple(marked(c) for c in item.conflicts))
