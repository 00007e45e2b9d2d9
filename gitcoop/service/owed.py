"""`owed`: what needs the acting person's attention now, oldest due first.

Due is not done: this only reads. Nothing here, or anywhere, changes state
because time passed. Which obligation needs whom is the domain's rule
(`obligations.pressing`, `obligations.concerns`); this gathers them, with the
acting person's takeovers and lost events (service/lost.py) until acknowledged.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from gitcoop.domain import obligations, resolution
from gitcoop.domain.frozen import frozen
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Conflict, Item, Obligation, Takeover
from gitcoop.domain.timefmt import format_instant
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.lost import Lost
from gitcoop.store.keys import Owing


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
    """Served from the due index of the open index (store/keys.py): only the items that
    may owe something now, or concern the acting person, are read, each from its file.
    `mine`: only what they hold or may review."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    actor = ctx.who(snapshot.repo)
    roles = snapshot.config.roles
    owner = roles.is_owner(actor)
    found: list[Owed] = []
    unsettled: list[Unsettled] = []
    taken: list[TakenOver] = []
    lost: list[Lost] = []
    may = _candidates(include_not_due, mine, actor, owner, roles.can_review(actor), ctx.now)
    for fan in snapshot.keys(snapshot.cache):  # all a settled item could owe is there
        for entry in fan.owing:
            if not may(Owing._make(entry)):
                continue
            item_id = ItemId(entry[0])
            item = snapshot.item(item_id)
            assert item is not None
            label = snapshot.label(item_id)
            if owner:
                unsettled += [Unsettled(item, label, c) for c in item.conflicts]
            taken += [TakenOver(item, label, t) for t in obligations.takeovers_for(item, actor)]
            lost += [Lost(item, label, c) for c in resolution.unacknowledged(item, actor)]
            if not item.owes or (mine and not obligations.concerns(item, actor, roles)):
                continue
            marks = obligations.pressing(item, ctx.now, actor, roles)
            if marks or include_not_due:
                assert item.obligation is not None
                found.append(Owed(item, label, item.obligation, marks))
    far = datetime.max.replace(tzinfo=ctx.now.tzinfo)
    found.sort(key=lambda e: (e.obligation.due or far, e.item.id))
    unsettled.sort(key=lambda u: (u.item.id, u.conflict.event))
    taken.sort(key=lambda t: (t.takeover.at, t.item.id))
    lost.sort(key=lambda entry: (entry.item.id, entry.conflict.event))
    return OwedList(found, unsettled, taken, lost)


def _candidates(
    include_not_due: bool, mine: bool, actor: str, owner: bool, reviewer: bool, now: datetime
) -> Callable[[Owing], bool]:
    """Whether an item of the due index may show in `owed`: a superset of what the loop
    above keeps, decided on the index's fields (instants compare as their text)."""
    at = format_instant(now)

    def may(entry: Owing) -> bool:
        if entry.conflicts or actor in entry.notified:  # a conflict, a takeover notice
            return True
        if not entry.pending or (mine and entry.holder != actor and not reviewer):
            return False
        return (
            include_not_due
            or (entry.due is not None and entry.due <= at)
            or (entry.for_owners and owner)
            or (entry.since is not None and entry.since > at)
            or (entry.taken_at is not None and entry.taken_at > at)
        )

    return may
