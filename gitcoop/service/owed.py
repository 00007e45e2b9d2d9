"""`owed`: what needs the acting person's attention now, oldest due first.

Due is not done: this only reads. Nothing here, or anywhere, changes state
because time passed. Which obligation needs whom is the domain's rule
(`obligations.pressing`, `obligations.concerns`); this gathers them, with the
acting person's takeovers and lost events (service/lost.py) until acknowledged.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from gitcoop.domain import itemdata, obligations, resolution
from gitcoop.domain.ids import ItemId, fanout, shortest_labels
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Conflict, Item, Obligation, Takeover
from gitcoop.domain.timefmt import format_instant, parse_instant
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.lost import Lost
from gitcoop.store.fast.cache_rows import Row
from gitcoop.store.fast.open_keys import Owing
from gitcoop.store.ledger.snapshot import Snapshot


@record_type
class Heading:
    """What a row of `owed` shows of its item besides the obligation: read from the
    open index's data without making the whole item (`itemdata.heading`)."""

    id: str
    title: str
    version: int
    taken_at: datetime | None
    conflicts: int  # how many the item holds

    @classmethod
    def of(cls, item: Item) -> Heading:
        return cls(item.id, item.title, item.version, item.taken_at, len(item.conflicts))

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Heading:
        """The heading of the item `data` makes, or RecordError (`itemdata.heading`)."""
        found = itemdata.heading(data)
        taken_at = parse_instant(found["taken_at"]) if found["taken_at"] else None
        return cls(found["id"], found["title"], found["version"], taken_at, found["conflicts"])


@record_type
class Owed:
    item: Heading
    label: str
    obligation: Obligation
    marks: tuple[str, ...] = ()  # why it needs attention now: due, escalated, parked, future

    def is_due(self, now: datetime) -> bool:
        return self.obligation.due is not None and self.obligation.due <= now


@record_type
class Unsettled:
    """A conflict a merge left on an item: owed to the owners, who settle it."""

    item: Item
    label: str
    conflict: Conflict


@record_type
class TakenOver:
    """A takeover of the acting person's work they have not acknowledged (`git coop ack`)."""

    item: Item
    label: str
    takeover: Takeover


@record_type
class OwedList:
    obligations: list[Owed]
    conflicts: list[Unsettled]  # shown to owners only
    takeovers: list[TakenOver]  # the acting person's own
    lost: list[Lost]  # the acting person's own events that lost on a merge, unacknowledged
    unread: int = 0  # obligations after the first `limit`, counted and not read
    unread_pressing: int = 0  # how many of them are marked

    @property
    def pressing(self) -> int:
        """How many things need attention now: what `owed --check` exits 6 on."""
        marked = sum(1 for entry in self.obligations if entry.marks) + self.unread_pressing
        return marked + len(self.conflicts) + len(self.takeovers) + len(self.lost)


MANY = 64  # items to read, from which the rows of their groups are read instead of files


def owed(
    ctx: Context, include_not_due: bool = False, mine: bool = False, limit: int | None = None
) -> OwedList:
    """Served from the due index of the open index (store/fast/open_keys.py). Which obligations
    show, and in what order, is decided on the index; only the items shown are read, and
    those with a conflict or a takeover notice. `mine`: only what the acting person holds
    or may review. With `limit`, only the first `limit` obligations are read, the others
    counted (`unread`)."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    actor = ctx.who(snapshot.repo)
    roles = snapshot.config.roles
    owner = roles.is_owner(actor)
    reviewer = roles.can_review(actor)
    at = format_instant(ctx.now)
    due: list[tuple[str, str, tuple[str, ...]]] = []  # (due or far, id, marks)
    noticed: list[str] = []  # items with a conflict or a takeover notice: read in full
    anyone = not mine or reviewer
    for fan in snapshot.keys(snapshot.cache):  # all a settled item could owe is there
        for entry in fan.owing:  # Owing's fields, as a plain tuple: no object made
            if entry[_CONFLICTS] or actor in entry[_NOTIFIED]:
                noticed.append(entry[_ID])
            if not entry[_PENDING] or not (anyone or entry[_HOLDER] == actor):
                continue
            marks = _marks(entry, at, owner)
            if marks or include_not_due:
                due.append((entry[_DUE] or FAR, entry[_ID], marks))
    due.sort()
    shown = due if limit is None else due[:limit]
    read = _Items(snapshot, [*noticed, *(item_id for _, item_id, _ in shown)])
    found = [Owed(*read.owing(item_id), marks) for _, item_id, marks in shown]
    unsettled: list[Unsettled] = []
    taken: list[TakenOver] = []
    lost: list[Lost] = []
    for item_id in noticed:
        item, label = read.get(item_id)
        if owner:
            unsettled += [Unsettled(item, label, c) for c in item.conflicts]
        taken += [TakenOver(item, label, t) for t in obligations.takeovers_for(item, actor)]
        lost += [Lost(item, label, c) for c in resolution.unacknowledged(item, actor)]
    unsettled.sort(key=lambda u: (u.item.id, u.conflict.event))
    taken.sort(key=lambda t: (t.takeover.at, t.item.id))
    lost.sort(key=lambda entry: (entry.item.id, entry.conflict.event))
    left = due[len(shown) :]
    return OwedList(found, unsettled, taken, lost, len(left), sum(1 for e in left if e[2]))


FAR = "~"  # after any instant's text: nothing due sorts last


_ID, _PENDING, _DUE, _SINCE, _TAKEN_AT, _FOR_OWNERS, _HOLDER, _CONFLICTS, _NOTIFIED = range(
    len(Owing._fields)
)
_DUE_ONLY = ("due",)


def _marks(entry: tuple[Any, ...], at: str, owner: bool) -> tuple[str, ...]:
    """`obligations.pressing` on the index's fields (instants compare as their text)."""
    due, since, taken_at, for_owners = (
        entry[_DUE],
        entry[_SINCE],
        entry[_TAKEN_AT],
        entry[_FOR_OWNERS],
    )
    later = (since is not None and since > at) or (taken_at is not None and taken_at > at)
    is_due = due is not None and due <= at
    if for_owners is None or not owner:
        if not later:
            return _DUE_ONLY if is_due else ()
        return ("due", "future") if is_due else ("future",)
    marks = ["due"] if is_due else []
    marks.append("parked" if for_owners == "park" else "escalated")
    if later:
        marks.append("future")
    return tuple(marks)


class _Items:
    """Items by id, each with its label: from their files when few, else from the open
    rows of their groups (a row's data is ready to use; a file must be parsed)."""

    def __init__(self, snapshot: Snapshot, wanted: list[str]) -> None:
        self.snapshot = snapshot
        self.labels: dict[str, dict[str, str]] = {}
        self.rows: dict[str, Row] = {}
        if len(set(wanted)) >= MANY:
            assert snapshot.cache is not None
            groups = {fanout(item_id)[:1] for item_id in wanted}
            view = snapshot.open_view(snapshot.cache, fans=lambda fan: fan[:1] in groups)
            self.rows = {row.item_id: row for row in view.rows}

    def owing(self, item_id: str) -> tuple[Heading, str, Obligation]:
        """What `owed` shows of an item the index says has a pending obligation: from its
        row's data when read, without making the whole item (a third of the cost)."""
        row = self.rows.get(item_id)
        if row is None:
            item, label = self.get(item_id)
            assert item.obligation is not None  # the index said it is pending
            return Heading.of(item), label, item.obligation
        data = row.data()
        assert data.get("obligation") is not None  # the index said it is pending
        return Heading.from_data(data), row.label, Obligation.from_data(data["obligation"])

    def get(self, item_id: str) -> tuple[Item, str]:
        row = self.rows.get(item_id)
        if row is not None:
            return Item.from_data(row.data()), row.label
        fan = fanout(item_id)
        if fan not in self.labels:
            self.labels[fan] = shortest_labels(self.snapshot.item_ids(fan))
        item = self.snapshot.item(ItemId(item_id))
        assert item is not None
        return item, self.labels[fan][item_id]
