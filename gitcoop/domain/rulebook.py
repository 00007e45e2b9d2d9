"""The fold: which rule an event goes to, and an item as the replay of its events.

This module sits above the rules it dispatches to (`lifecycle` for todos and
requests, `reviews` for what a take owes, `queue_verbs` for the queue,
`edits` for what people shape on any item, `dependencies` for links,
`resolution` for settling conflicts, `roles` and `settings` for the ledger's
own events), so none of them imports another's handlers. `apply` is used
both when a verb is written and when events are replayed after a merge; a
rule lives in its verb's handler and nowhere else. `apply` also stamps every
disposition an event makes with that event (who, when, its id).

One rule reads a second item: a duplicate verdict stands only if the item it
names is open at the verdict's place in the order (`verdict.as_applied`).
So an item's fold is the replay of its own events and of those of the items
its duplicate verdicts name (and theirs, `fold_items`), all in the one
order of events (`fold_together`): a function of the set of events, the same
on every clone whichever merged, and never a cycle of duplicates.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from typing import TYPE_CHECKING, Any

from gitcoop.domain import (
    dependencies,
    edits,
    lifecycle,
    obligations,
    queue_verbs,
    resolution,
    reviews,
    verdict,
)
from gitcoop.domain.ids import ItemId
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import (
    Conflict,
    Event,
    Item,
    LedgerConfig,
    RecordError,
    Roles,
    replace,
)
from gitcoop.domain.roles import LEDGER_ID, apply_roles
from gitcoop.domain.settings import SETTINGS, SettingError
from gitcoop.errors import Refused

if TYPE_CHECKING:  # the key registry loads only when a `keys` event is folded
    from gitcoop.domain.keys import Keys

Handler = Callable[[Item | None, Event, Roles], Item]
# another item as it stands at the event applied: what a duplicate verdict is judged against
Named = Callable[[ItemId], Item | None]
EventsOf = Callable[[ItemId], Sequence[Event]]  # the events of another item


def nothing_named(item_id: ItemId) -> Item | None:
    """No other item is known: a duplicate verdict applied so is unclear."""
    return None


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
_KNOWN = frozenset(VERBS)


def apply(item: Item | None, event: Event, roles: Roles, named: Named = nothing_named) -> Item:
    """The item after `event`, or Refused naming the rule and what to do; `named` gives
    the item a duplicate verdict names, as it stands at this event."""
    if event.verb not in _KNOWN:
        raise Refused(f"unknown verb {event.verb!r} in event {event.id}")
    if item is None and event.verb != "add":
        raise Refused(f"{event.item} does not exist yet; {event.verb} needs an added item")
    try:
        after = queue_verbs.tidy(item, event, _dispatch(item, event, roles, named))
    except RecordError as bad:  # an argument of the wrong shape: refused like any rule
        raise Refused(f"event {event.id}: {bad}") from None
    current, previous = obligations.stamped(after, event)  # tidy reads no obligation
    return replace(
        after,
        version=(item.version if item else 0) + 1,
        obligation=current,
        previous_obligation=previous,
    )


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


def _dispatch(item: Item | None, event: Event, roles: Roles, named: Named) -> Item:
    if event.verb == "verdict":
        return HANDLERS["verdict"](item, _judged(event, named), roles)
    if event.verb != "resolve":
        return HANDLERS[event.verb](item, event, roles)
    settled, original = resolution.settle(item, event, roles)
    if original is None:
        return settled
    if original.verb not in HANDLERS:
        raise Refused(f"resolve --apply of {original.id} carries no event to re-apply")
    return HANDLERS[original.verb](settled, _judged(original, named), roles)


def _judged(event: Event, named: Named) -> Event:
    """A verdict as it applies: a duplicate against the item it names, as it stands now."""
    if event.verb != "verdict":
        return event
    target = verdict.names(event.args)
    return verdict.as_applied(event, named(target) if target is not None else None)


_NAMING = ("verdict", "resolve")  # the verbs whose events may name another item


def names(event: Event) -> ItemId | None:
    """The item a duplicate verdict names (also one an owner's `resolve --apply` re-applies):
    its state decides the verdict, so a fold reads its events too."""
    args: Any = event.args
    if event.verb == "resolve":
        replay = event.arg("replay") if event.arg("decision") == "apply" else None
        if not isinstance(replay, Mapping) or replay.get("verb") != "verdict":
            return None
        args = replay.get("args")
    elif event.verb != "verdict":
        return None
    return verdict.names(args) if isinstance(args, Mapping) else None


def kept_out_reason(event: Event) -> str:
    """Why an event was kept out of the fold: the same words on every clone."""
    return (
        f"kept out: its commit was not signed by a key registered to {event.actor} "
        "(require_signed) — an owner settles it: resolve --apply or --dismiss"
    )


def fold(
    events: Sequence[Event],
    roles: Roles,
    kept_out: Collection[str] = frozenset(),
    events_of: EventsOf | None = None,
) -> Item | None:
    """One item's events replayed in (clock, at, id) order; refused events become conflicts,
    and so do `kept_out` ones (unsigned under the owners' policy), which are never applied.

    `events_of` gives another item's events: those of the items the duplicate verdicts
    name are replayed alongside (`fold_items`). Without it no other item is known, and a
    duplicate verdict is unclear.
    """
    if not events:
        return None
    own = events[0].item
    if events_of is None or not any(e.verb in _NAMING for e in events):
        return fold_together({own: events}, roles, kept_out)[own]

    def of(item_id: ItemId) -> Sequence[Event]:
        if item_id == own:
            return events
        return events_of(item_id) if events_of is not None else ()

    return dict(fold_items([own], of, roles, kept_out))[own]


def of_no_item(events: Sequence[Event], kept_out: Collection[str]) -> bool:
    """Whether events held where no item file is make a broken ledger: unless the first
    of them is an `add` kept out. A kept-out `add` makes no item, and what came after it
    (a signed note on the item of an unsigned add) folds to none."""
    if not events:
        return False
    first = min(events, key=lambda e: e.order)
    return not (first.verb == "add" and first.id in kept_out)


def fold_items(
    item_ids: Iterable[ItemId],
    events_of: EventsOf,
    roles: Roles,
    kept_out: Collection[str] = frozenset(),
) -> Iterator[tuple[ItemId, Item | None]]:
    """Each item of `item_ids` with the fold of its events (read by `events_of`), one group
    at a time: an item alone, or the items duplicate verdicts link, replayed together in
    the one order of events with every item they name (so each verdict sees the item it
    names as it stood then). Each item comes out as if folded on its own; each group is
    replayed once, so a long chain of duplicates costs its length, not its square, and
    only one group's items are held at a time.
    """
    wanted = list(dict.fromkeys(item_ids))
    together = {item_id: events_of(item_id) for item_id in wanted}
    links = _linked(together, events_of)
    asked = set(wanted)
    for group in _groups(wanted, links):
        folded = fold_together({i: together[i] for i in group}, roles, kept_out)
        yield from ((i, folded[i]) for i in group if i in asked)


def _linked(
    together: dict[ItemId, Sequence[Event]], events_of: EventsOf
) -> dict[ItemId, set[ItemId]]:
    """Which items duplicate verdicts link, either way; every item named is read into
    `together`, and every item those name, and so on."""
    links: dict[ItemId, set[ItemId]] = {}
    waiting = list(together)
    while waiting:
        item_id = waiting.pop()
        for event in together[item_id]:
            named = names(event) if event.verb in _NAMING else None
            if named is None:
                continue
            links.setdefault(item_id, set()).add(named)
            links.setdefault(named, set()).add(item_id)
            if named not in together:
                together[named] = events_of(named)
                waiting.append(named)
    return links


def _groups(wanted: list[ItemId], links: Mapping[ItemId, set[ItemId]]) -> Iterator[list[ItemId]]:
    """The wanted items, each with every item linked to it, in the order of their first
    wanted item: an item no verdict links is a group of its own."""
    seen: set[ItemId] = set()
    for start in wanted:
        if start in seen:
            continue
        seen.add(start)
        group, waiting = [], [start]
        while waiting:
            item_id = waiting.pop()
            group.append(item_id)
            fresh = links.get(item_id, set()) - seen
            seen |= fresh
            waiting += sorted(fresh)
        yield sorted(group)


def fold_together(
    events: Mapping[ItemId, Sequence[Event]], roles: Roles, kept_out: Collection[str] = frozenset()
) -> dict[ItemId, Item | None]:
    """Several items' events replayed in the one order of events, (clock, at, id), each
    applied to its own item; a duplicate verdict sees the item it names as it stands
    at that point. The result depends only on the events, not on how they are listed."""
    if len(events) == 1:  # the common case, kept as cheap as a fold was before
        [(only, listed)] = events.items()
        return {only: _fold_alone(listed, roles, kept_out)}
    pairs = ((item_id, e) for item_id, listed in events.items() for e in listed)
    ordered = sorted(pairs, key=lambda pair: (pair[1].order, pair[0]))
    items: dict[ItemId, Item | None] = dict.fromkeys(events)
    early: dict[ItemId, list[Conflict]] = {}  # refused before the item exists
    named = items.get
    for item_id, event in ordered:
        item = items[item_id]
        try:
            if event.id in kept_out:
                raise _KeptOut(kept_out_reason(event))
            after = apply(item, event, roles, named)
        except Refused as refusal:
            items[item_id] = _refused(item, event, refusal, early.setdefault(item_id, []))
            continue
        waited = early.pop(item_id, None) if early else None
        items[item_id] = replace(after, conflicts=(*waited, *after.conflicts)) if waited else after
    return items


def _fold_alone(events: Sequence[Event], roles: Roles, kept_out: Collection[str]) -> Item | None:
    """`fold_together` of one item: no other item is known (a duplicate of itself is
    unclear without one), so it needs no table of items."""
    item: Item | None = None
    early: list[Conflict] = []
    for event in sorted(events, key=lambda e: e.order):
        try:
            if event.id in kept_out:
                raise _KeptOut(kept_out_reason(event))
            after = apply(item, event, roles)
        except Refused as refusal:
            item = _refused(item, event, refusal, early)
            continue
        if early:
            after = replace(after, conflicts=(*early, *after.conflicts))
            early = []
        item = after
    return item


def _refused(
    item: Item | None, event: Event, refusal: Refused, early: list[Conflict]
) -> Item | None:
    """A refused event becomes a conflict on its item, visible to later events (so a
    `resolve` can settle it); before the item exists, it waits in `early`."""
    out = isinstance(refusal, _KeptOut)
    conflict = Conflict(event.id, event.verb, event.actor, refusal.message, kept_out=out)
    if item is None:
        early.append(conflict)
        return None
    return replace(item, conflicts=(*item.conflicts, conflict))


# -- the ledger's own events: roles, settings and keys ------------------------------


@record_type
class LedgerState:
    """What the ledger's own events fold to: coop.yaml's roles and settings, and the keys
    (which coop.yaml does not copy: only signing and its checks read them)."""

    roles: Roles = field(default_factory=Roles)
    settings: Mapping[str, Any] = field(default_factory=dict)
    keys: Keys = field(default_factory=lambda: _keys().Keys())

    @property
    def requires_signing(self) -> bool:
        return self.settings.get("require_signed") is True


def turns_signing_on(event: Event) -> bool:
    """Whether a ledger event is a `config require_signed true` (the owners' signing
    policy turned on), counted or not."""
    if event.verb != "config" or event.arg("key") != "require_signed":
        return False
    try:
        return SETTINGS["require_signed"].check(event.arg("value")) is True
    except SettingError:
        return False


def apply_ledger(state: LedgerState, event: Event) -> LedgerState:
    """The state after one `roles`, `config` or `keys` event, or Refused."""
    if event.verb == "roles":
        return replace(state, roles=apply_roles(state.roles, event))
    if event.verb == "config":
        return replace(state, settings=apply_setting(state.settings, state.roles, event))
    if event.verb == "keys":
        return replace(state, keys=_keys().apply_keys(state.keys, state.roles, event))
    raise Refused(f"unknown verb {event.verb!r} for the ledger in event {event.id}")


def _keys() -> Any:
    from gitcoop.domain import keys  # base64, hashlib: no take or listing needs them

    return keys


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


def state_of(config: LedgerConfig, ledger_events: Callable[[], Sequence[Event]]) -> LedgerState:
    """The ledger's own state at a commit: coop.yaml holds it whole from format 2; format 1
    kept no keys, so they are the fold of the ledger's events less those it kept out."""
    if config.format >= 2:
        keys = _keys().Keys(
            registered=dict(config.keys.get("registered", {})),
            proposed=dict(config.keys.get("proposed", {})),
        )
    else:
        keys = fold_ledger(list(ledger_events()), config.kept_out)[0].keys
    return LedgerState(config.roles, config.settings, keys)


def config_of(state: LedgerState, clock: int, conflicts: Sequence[Conflict] = ()) -> LedgerConfig:
    """coop.yaml (the format this gitcoop writes) holding `state` at `clock`, and the
    ledger's own events refused where they joined."""
    keys = state.keys
    return LedgerConfig(
        roles=state.roles,
        settings={k: state.settings[k] for k in sorted(state.settings)},
        clock=clock,
        keys={"registered": dict(keys.registered), "proposed": dict(keys.proposed)},
        conflicts=tuple(conflicts),
    )


@record_type
class Joined:
    """A commit's state as it joins its first parent's: every item the added events
    touched (None: no item, its add refused or not yet there), the ledger's own state, and
    the ledger events refused, with the reason."""

    items: dict[ItemId, Item | None]
    ledger: LedgerState
    refused: list[tuple[Event, str]]  # the ledger's own events refused in this join
    conflicts: tuple[Conflict, ...] = ()  # the ledger's conflicts after it


def join(
    before: Named,
    ledger: LedgerState,
    events: Iterable[Event],
    unsigned: Mapping[str, str] | None = None,
    ledger_conflicts: Sequence[Conflict] = (),
) -> Joined:
    """The state after `events` join a commit's state (docs/hardening.md, H1 and H2).

    `before` gives an item as the first parent holds it, `ledger` that parent's own
    state. The events are applied one by one in (clock, at, id) order, each by the
    rules to the state as it stands then; one `unsigned` names (with the reason) is
    refused without being applied: its writer's commit was not signed by a key the
    first parent registers to its actor. Every refusal is a conflict on its item (for
    a change of roles, settings or keys, the ledger's own, after `ledger_conflicts`).
    """
    unsigned = unsigned or {}
    items: dict[ItemId, Item | None] = {}
    early: dict[ItemId, list[Conflict]] = {}  # refused before the item exists
    refused: list[tuple[Event, str]] = []
    conflicts = list(ledger_conflicts)

    def current(item_id: ItemId) -> Item | None:
        return items[item_id] if item_id in items else before(item_id)

    for event in sorted(events, key=lambda e: e.order):
        try:
            if event.id in unsigned:
                raise _KeptOut(unsigned[event.id])
            if event.item == LEDGER_ID:
                ledger = apply_ledger(ledger, event)
                continue
            item = current(event.item)
            after = apply(item, event, ledger.roles, current)
        except Refused as refusal:
            if event.item == LEDGER_ID:
                refused.append((event, refusal.message))
                out = isinstance(refusal, _KeptOut)
                conflicts.append(
                    Conflict(event.id, event.verb, event.actor, refusal.message, kept_out=out)
                )
            else:
                item = current(event.item)
                items[event.item] = _refused(item, event, refusal, early.setdefault(event.item, []))
            continue
        waited = early.pop(event.item, None) if early else None
        items[event.item] = (
            replace(after, conflicts=(*waited, *after.conflicts)) if waited else after
        )
    return Joined(items, ledger, refused, tuple(conflicts))
