"""The fold: which rule an event goes to, and an item as the replay of its events.

This module sits above the rules it dispatches to (`lifecycle` for todos and
requests, `reviews` for what a take owes, `queue_verbs` for the queue,
`edits` for what people shape on any item, `dependencies` for links,
`resolution` for settling conflicts, `roles` and `settings` for the ledger's
own events), so none of them imports another's handlers. `apply` is used
both when a verb is written and when events are replayed after a merge; a
rule lives in its verb's handler and nowhere else. `apply` also stamps every
disposition an event makes with that event (who, when, its id).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from gitcoop.domain import (
    dependencies,
    edits,
    lifecycle,
    obligations,
    queue_verbs,
    resolution,
    reviews,
)
from gitcoop.domain.keys import Keys, apply_keys
from gitcoop.domain.records import Conflict, Event, Item, RecordError, Roles, replace
from gitcoop.domain.roles import apply_roles
from gitcoop.domain.settings import SETTINGS, SettingError
from gitcoop.errors import Refused

Handler = Callable[[Item | None, Event, Roles], Item]


class _KeptOut(Refused):
    """An event the fold does not apply: its commit broke the owners' signing policy."""


HANDLERS: dict[str, Handler] = {
    **lifecycle.HANDLERS,
    **reviews.HANDLERS,
    **queue_verbs.HANDLERS,
    **edits.HANDLERS,
    **dependencies.HANDLERS,
}
VERBS = (*HANDLERS, "resolve")


def apply(item: Item | None, event: Event, roles: Roles) -> Item:
    """The item after `event`, or Refused naming the rule and what to do."""
    if event.verb not in VERBS:
        raise Refused(f"unknown verb {event.verb!r} in event {event.id}")
    if item is None and event.verb != "add":
        raise Refused(f"{event.item} does not exist yet; {event.verb} needs an added item")
    try:
        after = queue_verbs.tidy(
            item, event, obligations.stamped(_dispatch(item, event, roles), event)
        )
    except RecordError as bad:  # an argument of the wrong shape: refused like any rule
        raise Refused(f"event {event.id}: {bad}") from None
    return replace(after, version=(item.version if item else 0) + 1)


def plan(
    item: Item | None,
    verb: str,
    args: Mapping[str, Any],
    actor: str,
    roles: Roles,
    session: str | None = None,
) -> tuple[str, dict[str, Any]] | None:
    """The verb and arguments to record for a request, or None when nothing changes."""
    if verb in queue_verbs.HANDLERS:
        planned = queue_verbs.plan(item, verb, args)
    elif verb == "edit":
        planned = edits.plan(item, args)
    elif verb == "dep":
        planned = dependencies.plan(item, args)
    else:
        return lifecycle.plan(item, verb, args, actor, roles, session)
    return None if planned is None else (verb, planned)


def _dispatch(item: Item | None, event: Event, roles: Roles) -> Item:
    if event.verb != "resolve":
        return HANDLERS[event.verb](item, event, roles)
    settled, original = resolution.settle(item, event, roles)
    if original is None:
        return settled
    if original.verb not in HANDLERS:
        raise Refused(f"resolve --apply of {original.id} carries no event to re-apply")
    return HANDLERS[original.verb](settled, original, roles)


def kept_out_reason(event: Event) -> str:
    """Why an event was kept out of the fold: the same words on every clone."""
    return (
        f"kept out: its commit was not signed by a key registered to {event.actor} "
        "(require_signed) — an owner settles it: resolve --apply or --dismiss"
    )


def fold(events: list[Event], roles: Roles, kept_out: Collection[str] = frozenset()) -> Item | None:
    """Replay events in (clock, at, id) order; refused events become conflicts, and so do
    `kept_out` ones (unsigned under the owners' policy), which are never applied."""
    item: Item | None = None
    early: list[Conflict] = []  # refused before the item exists
    for event in sorted(events, key=lambda e: e.order):
        try:
            if event.id in kept_out:
                raise _KeptOut(kept_out_reason(event))
            item = apply(item, event, roles)
        except Refused as refusal:
            out = isinstance(refusal, _KeptOut)
            conflict = Conflict(event.id, event.verb, event.actor, refusal.message, kept_out=out)
            if item is None:
                early.append(conflict)
            else:  # visible to later events, so a `resolve` can settle it
                item = replace(item, conflicts=(*item.conflicts, conflict))
            continue
        if early:
            item = replace(item, conflicts=(*early, *item.conflicts))
            early = []
    return item


# -- the ledger's own events: roles, settings and keys ------------------------------


@dataclass(frozen=True)
class LedgerState:
    """What the ledger's own events fold to: coop.yaml's roles and settings, and the keys
    (which coop.yaml does not copy: only signing and its checks read them)."""

    roles: Roles = field(default_factory=Roles)
    settings: Mapping[str, Any] = field(default_factory=dict)
    keys: Keys = field(default_factory=Keys)

    @property
    def requires_signing(self) -> bool:
        return self.settings.get("require_signed") is True


def apply_ledger(state: LedgerState, event: Event) -> LedgerState:
    """The state after one `roles`, `config` or `keys` event, or Refused."""
    if event.verb == "roles":
        return replace(state, roles=apply_roles(state.roles, event))
    if event.verb == "config":
        return replace(state, settings=apply_setting(state.settings, state.roles, event))
    if event.verb == "keys":
        return replace(state, keys=apply_keys(state.keys, state.roles, event))
    raise Refused(f"unknown verb {event.verb!r} for the ledger in event {event.id}")


def apply_setting(settings: Mapping[str, Any], roles: Roles, event: Event) -> dict[str, Any]:
    """The settings after one `config` event (an owner's), or Refused."""
    name, given = event.arg("key"), event.arg("value")
    if name not in SETTINGS:
        raise Refused(f"unknown setting {name!r}: the settings are {', '.join(sorted(SETTINGS))}")
    if roles.owners and not roles.is_owner(event.actor):
        raise Refused(
            f"{event.actor} is not an owner — only owners ({', '.join(roles.owners)}) "
            "change settings"
        )
    try:
        new = None if given is None else SETTINGS[name].check(given)
    except SettingError as bad:
        raise Refused(str(bad)) from None
    changed = {k: v for k, v in settings.items() if k != name}
    if new is not None:
        changed[name] = new
    return {k: changed[k] for k in sorted(changed)}


def fold_ledger(
    events: list[Event], kept_out: Collection[str] = frozenset()
) -> tuple[LedgerState, list[tuple[Event, str]]]:
    """Replay the ledger's own events in order; refused ones (and `kept_out` ones) are
    returned with the reason."""
    state = LedgerState()
    refused: list[tuple[Event, str]] = []
    for event in sorted(events, key=lambda e: e.order):
        try:
            if event.id in kept_out:
                raise _KeptOut(kept_out_reason(event))
            state = apply_ledger(state, event)
        except Refused as refusal:
            refused.append((event, refusal.message))
    return state, refused
