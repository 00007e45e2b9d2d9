"""Writing several queue events in one commit, and closing a split parent with them.

A step is one event to record on one item. Steps apply in order through the
domain (`rulebook.apply`); when a step settles the last open child of a
split item, a `settle` event closing the parent joins the same commit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from gitcoop.domain import ids, rulebook
from gitcoop.domain.ids import ItemId
from gitcoop.domain.queue import settled
from gitcoop.domain.records import Event, Item
from gitcoop.errors import ChangedUnderWrite, Refused
from gitcoop.service.context import Context, fsync_wanted, require_ledger
from gitcoop.service.ledger import new_event
from gitcoop.store import transaction
from gitcoop.store.snapshot import Snapshot
from gitcoop.store.transaction import Change

SYSTEM = "system"  # the actor of the loop's own writes: verdicts and settles


@dataclass(frozen=True)
class Step:
    item: ItemId
    verb: str
    args: dict[str, Any] = field(default_factory=dict)
    expect: int | None = None  # the version the item must still be at


@dataclass(frozen=True)
class Written:
    items: dict[ItemId, Item]  # every item this commit changed, after it
    labels: dict[ItemId, str]
    snapshot: Snapshot


Plan = Callable[[Snapshot], list[Step]]


def fixed(*steps: Step) -> Plan:
    """A plan that does not depend on what is read."""
    return lambda snapshot: list(steps)


def write(ctx: Context, plan: Plan, actor: str | None = None) -> Written:
    """Record the planned steps as one commit; nothing is written when the plan is empty."""
    repo = ctx.repo()
    who = actor or ctx.who(repo)
    done: dict[str, dict[ItemId, Item]] = {"items": {}}

    def decide(snapshot: Snapshot) -> Change | None:
        require_ledger(snapshot)
        steps = plan(snapshot)
        if not steps:
            done["items"] = {}
            return None
        config = snapshot.config
        state: dict[ItemId, Item] = {}
        events: list[Event] = []
        for step in steps:
            events.append(_apply(ctx, snapshot, state, step, who, config.clock + len(events) + 1))
        for step in _settles(snapshot, state):
            clock = config.clock + len(events) + 1
            events.append(_apply(ctx, snapshot, state, step, SYSTEM, clock))
        done["items"] = dict(state)
        first = events[0].item
        label = snapshot.label(first) if snapshot.item(first) else ids.shortest_unique(first, [])
        return Change(
            message=f"{events[0].verb} {label} by {who}",
            actor=who,
            at=ctx.now,
            items=state,
            events=events,
            config=replace(config, clock=config.clock + len(events)),
        )

    outcome = transaction.write(repo, decide, fsync_wanted(repo))
    names = {i: outcome.snapshot.label(i) for i in done["items"]}
    return Written(done["items"], names, outcome.snapshot)


def _apply(
    ctx: Context, snapshot: Snapshot, state: dict[ItemId, Item], step: Step, actor: str, clock: int
) -> Event:
    item = state.get(step.item) or snapshot.item(step.item)
    label = snapshot.label(step.item) if item is not None else step.item
    if step.expect is not None and (item is None or item.version != step.expect):
        found = item.version if item else "missing"
        raise ChangedUnderWrite(
            f"{label} is at version {found}, not {step.expect} — re-read it and retry"
        )
    event = new_event(ctx, step.item, actor, step.verb, step.args, clock, actor != SYSTEM)
    try:
        state[step.item] = rulebook.apply(item, event, snapshot.config.roles)
    except Refused as refusal:
        raise Refused(refusal.message.replace(step.item, label)) from None
    return event


def _settles(snapshot: Snapshot, state: dict[ItemId, Item]) -> list[Step]:
    """`settle` steps for split parents whose children are now all settled."""
    parents = {i.parent_id for i in state.values() if i.parent_id and settled(i)}
    found: list[Step] = []
    for parent_id in sorted(p for p in parents if p):
        parent = state.get(ItemId(parent_id)) or snapshot.item(ItemId(parent_id))
        if parent is None or parent.status != "split":
            continue
        children = {i.id: i for i in snapshot.items() if i.parent_id == parent_id}
        children.update({k: v for k, v in state.items() if v.parent_id == parent_id})
        if children and all(settled(c) for c in children.values()):
            found.append(Step(ItemId(parent_id), "settle", {"reason": "all children settled"}))
    return found
