"""`owed`: the pending obligations that are due, oldest due first.

Due is not done: this only reads. Nothing here, or anywhere, changes state
because time passed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from gitcoop.domain.records import Conflict, Item, Obligation
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.lost import Lost, lost_by


@dataclass(frozen=True)
class Owed:
    item: Item
    label: str
    obligation: Obligation

    def is_due(self, now: datetime) -> bool:
        return self.obligation.due is not None and self.obligation.due <= now


@dataclass(frozen=True)
class Unsettled:
    """A conflict a merge left on an item: owed to the owners, who settle it."""

    item: Item
    label: str
    conflict: Conflict


@dataclass(frozen=True)
class OwedList:
    obligations: list[Owed]
    conflicts: list[Unsettled]  # shown to owners only
    lost: list[Lost] = field(default_factory=list)  # --mine: the actor's own lost events


def owed_mine(ctx: Context, include_not_due: bool = False) -> OwedList:
    """`owed --mine`: what the acting person holds, and their lost events until acknowledged."""
    everything = owed(ctx, include_not_due)
    who = ctx.who(ctx.repo())
    held = [e for e in everything.obligations if e.obligation.holder == who]
    return OwedList(held, everything.conflicts, lost_by(ctx, who))


def owed(ctx: Context, include_not_due: bool = False) -> OwedList:
    """Served from the read cache: only items that owe something are built."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    found = []
    unsettled = []
    owner = ctx.who(snapshot.repo) in snapshot.config.roles.owners
    for row in snapshot.rows(snapshot.cache):
        brief = row.summary
        if brief.obligation_status != "pending" and not (owner and brief.conflicted):
            continue
        item = Item.from_data(row.data())
        label = row.label
        if owner:
            unsettled += [Unsettled(item, label, c) for c in item.conflicts]
        obligation = item.obligation
        if obligation is None or not obligation.pending:
            continue
        entry = Owed(item, label, obligation)
        if include_not_due or entry.is_due(ctx.now):
            found.append(entry)
    far = datetime.max.replace(tzinfo=ctx.now.tzinfo)
    found.sort(key=lambda e: (e.obligation.due or far, e.item.id))
    unsettled.sort(key=lambda u: (u.item.id, u.conflict.event))
    return OwedList(found, unsettled)
