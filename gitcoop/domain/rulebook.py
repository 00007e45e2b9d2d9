"""The fold: which rule an event goes to, and an item as the replay of its events.

This module sits above the rules it dispatches to (`lifecycle` for todos and
requests, `queue_verbs` for the queue, `resolution` for settling conflicts),
so none of them imports another's handlers. `apply` is used both when a verb
is written and when events are replayed after a merge; a rule lives in its
verb's handler and nowhere else.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from gitcoop.domain import lifecycle, queue_verbs, resolution
from gitcoop.domain.records import Conflict, Event, Item, Roles
from gitcoop.errors import Refused

Handler = Callable[[Item | None, Event, Roles], Item]

HANDLERS: dict[str, Handler] = {**lifecycle.HANDLERS, **queue_verbs.HANDLERS}
VERBS = (*HANDLERS, "resolve")


def apply(item: Item | None, event: Event, roles: Roles) -> Item:
    """The item after `event`, or Refused naming the rule and what to do."""
    if event.verb not in VERBS:
        raise Refused(f"unknown verb {event.verb!r} in event {event.id}")
    if item is None and event.verb != "add":
        raise Refused(f"{event.item} does not exist yet; {event.verb} needs an added item")
    after = _dispatch(item, event, roles)
    return replace(after, version=(item.version if item else 0) + 1)


def _dispatch(item: Item | None, event: Event, roles: Roles) -> Item:
    if event.verb != "resolve":
        return HANDLERS[event.verb](item, event, roles)
    settled, original = resolution.settle(item, event, roles)
    if original is None:
        return settled
    if original.verb not in HANDLERS:
        raise Refused(f"resolve --apply of {original.id} carries no event to re-apply")
    return HANDLERS[original.verb](settled, original, roles)


def fold(events: list[Event], roles: Roles) -> Item | None:
    """Replay events in (clock, id) order; refused events become conflicts."""
    item: Item | None = None
    early: list[Conflict] = []  # refused before the item exists
    for event in sorted(events, key=lambda e: e.order):
        try:
            item = apply(item, event, roles)
        except Refused as refusal:
            conflict = Conflict(event.id, event.verb, event.actor, refusal.message)
            if item is None:
                early.append(conflict)
            else:  # visible to later events, so a `resolve` can settle it
                item = replace(item, conflicts=(*item.conflicts, conflict))
            continue
        if early:
            item = replace(item, conflicts=(*early, *item.conflicts))
            early = []
    return item
