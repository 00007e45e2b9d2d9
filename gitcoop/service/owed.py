"""`owed`: the pending obligations that are due, oldest due first.

Due is not done: this only reads. Nothing here, or anywhere, changes state
because time passed.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from gitcoop.domain.records import Item, Obligation
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.queries import labels


@dataclass(frozen=True)
class Owed:
    item: Item
    label: str
    obligation: Obligation

    def is_due(self, now: datetime) -> bool:
        return self.obligation.due is not None and self.obligation.due <= now


def owed(ctx: Context, include_not_due: bool = False) -> list[Owed]:
    snapshot = read_ledger(ctx)
    names = labels(snapshot, snapshot.item_ids())
    found = []
    for item in snapshot.items():
        obligation = item.obligation
        if obligation is None or not obligation.pending:
            continue
        entry = Owed(item, names[item.id], obligation)
        if include_not_due or entry.is_due(ctx.now):
            found.append(entry)
    far = datetime.max.replace(tzinfo=ctx.now.tzinfo)
    found.sort(key=lambda e: (e.obligation.due or far, e.item.id))
    return found
