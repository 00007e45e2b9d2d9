"""`owed`: what needs the acting person's attention now, oldest due first.

Due is not done: this only reads. Nothing here, or anywhere, changes state
because time passed. Which obligation needs whom is the domain's rule
(`obligations.pressing`, `obligations.concerns`); this gathers them, with the
acting person's takeovers and lost events (service/lost.py) until acknowledged.
"""

from __future__ import annotations

from datetime import datetime

from gitcoop.domain import obligations, resolution
from gitcoop.domain.frozen import frozen
from gitcoop.domain.records import Conflict, Item, Obligation, Takeover
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.lost import Lost


@frozen
class Owed:
    item: Item
    label: str
    obligation: Obligation
    marks: tuple[str, ...] = ()  # why it needs attention now: due, escalated, parked, future

    def is_due(self, now: datetime) -> bool:
        return self.obligation.due is not None and self.obligation.due <= now


@frozen
class Unsettled:
    """A conflict a merge left on an item: owed to the owners, who settle it."""

    item: Item
    label: str
    conflict: Conflict


@frozen
class TakenOver:
    """A takeover of the acting person's work they have not acknowledged (`git coop ack`)."""

    item: Item
    label: str
    takeover: Takeover


@frozen
class OwedList:
    obligations: list[Owed]
    conflicts: list[Unsettled]  # shown to owners only
    takeovers: list[TakenOver]  # the acting person's own
    lost: list[Lost]  # the acting person's own events that lost on a merge, unacknowledged

    @property
    def pressing(self) -> int:
        """How many things need attention now: what `owed --check` exits 6 on."""
        marked = sum(1 for entry in self.obligations if entry.marks)
        return marked + len(self.conflicts) + len(self.takeovers) + len(self.lost)


def owed(ctx: Context, include_not_due: bool = False, mine: bool = False) -> OwedList:
    """Served from the read cache: only items that owe something, or concern the
    acting person, are built. `mine`: only what they hold or may review."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    actor = ctx.who(snapshot.repo)
    roles = snapshot.config.roles
    owner = roles.is_owner(actor)
    found: list[Owed] = []
    unsettled: list[Unsettled] = []
    taken: list[TakenOver] = []
    lost: list[Lost] = []
    for row in snapshot.open_view(snapshot.cache).rows:  # all a settled item could owe is there
        brief = row.summary
        if not (brief.obligation_status == "pending" or brief.conflicts or actor in brief.notified):
            continue
        item = Item.from_data(row.data())
        if owner:
            unsettled += [Unsettled(item, row.label, c) for c in item.conflicts]
        taken += [TakenOver(item, row.label, t) for t in obligations.takeovers_for(item, actor)]
        lost += [Lost(item, row.label, c) for c in resolution.unacknowledged(item, actor)]
        if not item.owes or (mine and not obligations.concerns(item, actor, roles)):
            continue
        marks = obligations.pressing(item, ctx.now, actor, roles)
        if marks or include_not_due:
            assert item.obligation is not None
            found.append(Owed(item, row.label, item.obligation, marks))
    far = datetime.max.replace(tzinfo=ctx.now.tzinfo)
    found.sort(key=lambda e: (e.obligation.due or far, e.item.id))
    unsettled.sort(key=lambda u: (u.item.id, u.conflict.event))
    taken.sort(key=lambda t: (t.takeover.at, t.item.id))
    lost.sort(key=lambda entry: (entry.item.id, entry.conflict.event))
    return OwedList(found, unsettled, taken, lost)
