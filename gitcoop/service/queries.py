"""The reading verbs: list, show, log. They never take the writer lock."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

from gitcoop.domain import ids
from gitcoop.domain.dependencies import SETTLED
from gitcoop.domain.ids import ItemId
from gitcoop.domain.lifecycle import HELD, TERMINAL, bound
from gitcoop.domain.readiness import overdue
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Item
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.timefmt import format_instant
from gitcoop.service import dependencies
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.dependencies import Links
from gitcoop.service.writer import Shown
from gitcoop.store.fast.cache_rows import Row as Row  # the rows the interfaces render
from gitcoop.store.fast.cache_rows import Summary as Summary
from gitcoop.store.fast.cache_rows import Tally
from gitcoop.store.ledger.snapshot import Snapshot

STALE_AFTER = timedelta(hours=2)  # a take this old is shown as stale: only a view, never a change
_ID, _STATUS, _CREATED_AT, _CONFLICTS, _NOTIFIED = (
    Summary._fields.index(name) for name in ("id", "status", "created_at", "conflicts", "notified")
)


@record_type
class Listing:
    shown: list[Shown]
    settled: dict[str, int]  # status -> count of settled items left out


@record_type
class ListFilter:
    """What `list` narrows to; every field left at its default matches everything."""

    kind: str | None = None
    status: str | None = None
    holder: str | None = None  # who holds the item now (taken or in progress)
    tag: str | None = None
    owed: bool = False  # a pending obligation that is due
    stale: bool = False  # held for longer than STALE_AFTER
    mine: bool = False  # held by the acting person, or a takeover of their work to acknowledge,
    lost: frozenset[str] = frozenset()  # ...or where their event lost unacknowledged (service/lost)
    grep: str | None = None  # in the title, body or notes, case-folded (service/search)
    since: str | None = None  # changed at or after this instant (its fixed-width text)
    due_before: str | None = None  # its own due date at or before this instant
    overdue: bool = False  # unsettled, its own due date passed


@record_type
class Rows:
    listed: list[Row]  # each with its short id, data and --json text
    settled: dict[str, int]  # status -> count of settled items left out
    viewer: str | None = None  # the acting person, when the filter asked who that is
    more: int = 0  # matching items the limit left out
    unsearched: bool = False  # settled work was left out of a `--grep` (see list_rows)


@record_type
class LogEntry:
    event: Event
    label: str
    refused: str | None  # the reason, when the fold refused this event


def labels(snapshot: Snapshot) -> dict[ItemId, str]:
    """Every item's shortest unique label, against every other id in the ledger."""
    return {ItemId(i): label for i, label in ids.shortest_labels(snapshot.item_ids()).items()}


def list_items(
    ctx: Context, include_settled: bool = False, where: ListFilter | None = None
) -> Listing:
    """Open and taken work (all of it with `include_settled`), oldest first."""
    rows = list_rows(ctx, include_settled, where)
    shown = [Shown(Item.from_data(r.data()), r.label, wrote=False) for r in rows.listed]
    return Listing(shown, rows.settled)


def list_rows(
    ctx: Context,
    include_settled: bool = False,
    where: ListFilter | None = None,
    sort: str = "created",
    limit: int | None = None,
) -> Rows:
    """`list_items` as cached rows: no YAML parsing, no items built.

    Settled items are counted, not listed, unless asked for by `include_settled`
    or by naming a status (or, with `mine`, a takeover of the viewer's work waits on them).
    Oldest first, or in `sort` order (service/search.ordered); at most `limit` of them.
    Only `include_settled`, a settled status and `since` read the settled items' rows;
    a plain listing reads the open index, where settled items are only counted, and a
    plain `grep` searches only the items in view (settled ones are neither searched
    nor counted: `unsearched` says so).
    """
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    where = where or ListFilter()
    viewer = ctx.who(snapshot.repo) if where.mine else None
    keep = _matcher(where, ctx.now, viewer)
    searched = where.grep is not None or where.since is not None
    hide_settled = not include_settled and where.status is None
    settled: dict[str, int] = defaultdict(int)
    if _every(where, include_settled):
        found = snapshot.rows(snapshot.cache)
    else:  # a plain `--grep` searches the work in view: settled text only with --all
        view = snapshot.open_view(snapshot.cache)
        found = view.rows
        for tally in view.settled if hide_settled and where.grep is None else ():
            if _counts(where, tally):
                settled[tally.status] += tally.number
    narrow = None
    if searched:
        from gitcoop.service import search  # its index is read only for a search

        narrow = search.narrowing(snapshot, where.grep, where.since, found)
    listed: list[tuple[str, str, Row]] = []
    for row in found:
        brief = row.brief  # the Summary's plain tuple: no object per row on a plain listing
        if keep is not _everything and not keep(Summary._make(brief)):
            continue
        if narrow is not None and not narrow(row):
            continue
        status = brief[_STATUS]
        shown_anyway = brief[_CONFLICTS] or (viewer is not None and viewer in brief[_NOTIFIED])
        if hide_settled and status in TERMINAL and not shown_anyway:
            settled[status] += 1
            continue
        listed.append((brief[_CREATED_AT], brief[_ID], row))
    listed.sort(key=lambda entry: entry[:2])
    rows = [row for _, _, row in listed]
    if sort != "created":
        from gitcoop.service.search import ordered

        rows = ordered(snapshot, rows, sort)
    more = 0 if limit is None else max(0, len(rows) - limit)
    unsearched = where.grep is not None and not _every(where, include_settled)
    return Rows(rows if limit is None else rows[:limit], dict(settled), viewer, more, unsearched)


def _every(where: ListFilter, include_settled: bool) -> bool:
    """Whether a search reads every item, settled ones too."""
    return include_settled or where.status in SETTLED or where.since is not None


def _counts(where: ListFilter, tally: Tally) -> bool:
    """Whether settled items outside the open index match the filter (they hold nothing,
    owe nothing and concern nobody: only the kind and tag filters can match them)."""
    if where.holder is not None or where.owed or where.stale or where.mine:
        return False
    if where.due_before is not None or where.overdue:  # settled work is never due
        return False
    if where.kind is not None and tally.kind != where.kind:
        return False
    return where.tag is None or where.tag in tally.tags


def _matcher(where: ListFilter, now: datetime, viewer: str | None) -> Callable[[Summary], bool]:
    """A test on an item's summary; instants compare as their fixed-width text."""
    due_by = format_instant(now)
    taken_before = format_instant(now - STALE_AFTER)
    checks: list[Callable[[Summary], bool]] = []
    if where.kind is not None:
        checks.append(lambda s: s.kind == where.kind)
    if where.status is not None:
        checks.append(lambda s: s.status == where.status)
    if where.holder is not None:  # a prefix of who holds it: --holder bob
        holder = where.holder.casefold()
        checks.append(
            lambda s: (
                bound(s.status, s.taken_by) and (s.taken_by or "").casefold().startswith(holder)
            )
        )
    if where.tag is not None:
        checks.append(lambda s: where.tag in s.tags)
    if where.owed:
        checks.append(lambda s: s.obligation_status == "pending" and _due(s, due_by))
    if where.due_before is not None:
        due_before = where.due_before
        checks.append(lambda s: s.due is not None and s.due <= due_before)
    if where.overdue:
        checks.append(lambda s: s.status not in TERMINAL and overdue(s.due, due_by))
    if where.stale:
        checks.append(lambda s: s.status in HELD and (s.taken_at or due_by) <= taken_before)
    if viewer is not None:
        checks.append(lambda s: _mine(s, viewer, where.lost))
    if not checks:
        return _everything
    if len(checks) == 1:
        return checks[0]
    return lambda s: all(check(s) for check in checks)


def _mine(summary: Summary, viewer: str, lost: frozenset[str]) -> bool:
    """Held by the viewer, a takeover of their work to acknowledge, or their lost event."""
    held = bound(summary.status, summary.taken_by) and summary.taken_by == viewer
    return held or viewer in summary.notified or summary.id in lost


def _everything(summary: Summary) -> bool:
    return True


def _due(summary: Summary, due_by: str) -> bool:
    return summary.obligation_due is not None and summary.obligation_due <= due_by


@record_type
class Note:
    """A note on an item (`git coop note`), from its event."""

    at: datetime
    actor: str
    text: str
    event: str

    def to_data(self) -> dict[str, str]:
        return {
            "at": format_instant(self.at),
            "by": self.actor,
            "text": self.text,
            "event": self.event,
        }


@record_type
class Detail:
    """What `show` prints: the item, its notes (oldest first) and both ends of its links."""

    shown: Shown
    notes: list[Note]
    links: Links


def detail(ctx: Context, ref: str) -> Detail:
    snapshot = read_ledger(ctx)
    item_id = snapshot.resolve(ref)
    item = snapshot.item(item_id)
    assert item is not None
    events = snapshot.events(item_id)
    # a refused note is not the item's note (unless an owner re-applied it)
    refused = {
        event
        for event, why in _refusals({item_id: item}, events).items()
        if not why.startswith("settled: re-applied")
    }
    notes = [
        Note(e.at, e.actor, str(e.arg("text")), e.id)
        for e in events
        if e.verb == "note" and isinstance(e.arg("text"), str) and e.id not in refused
    ]
    shown = Shown(item, snapshot.label(item_id), wrote=False)
    return Detail(shown, notes, dependencies.links(snapshot, item))


def show(ctx: Context, ref: str) -> Shown:
    """One item, from its file: one fan-out tree and one blob are read."""
    snapshot = read_ledger(ctx)
    item_id = snapshot.resolve(ref)
    item = snapshot.item(item_id)
    assert item is not None
    return Shown(item, snapshot.label(item_id), wrote=False)


def log(ctx: Context, ref: str | None = None) -> list[LogEntry]:
    """Events oldest first, each with whether the fold accepted it."""
    snapshot = read_ledger(ctx)
    if ref is not None:
        item_id = snapshot.resolve(ref)
        events = snapshot.events(item_id)
        names = {item_id: snapshot.label(item_id)}
    else:
        events = snapshot.all_events()
        names = labels(snapshot)
        names[LEDGER_ID] = "ledger"
    held = {i: snapshot.item(i) for i in {e.item for e in events} if i != LEDGER_ID}
    refusals = _refusals(held, events)
    for event in events:  # a folder of no item: its add was refused where it joined (H2)
        if event.item != LEDGER_ID and held[event.item] is None and event.id not in refusals:
            refusals[event.id] = (
                "its item's add was refused where it joined"
                if event.verb == "add"
                else "no item holds it: its item's add was refused where it joined"
            )
    if any(e.item == LEDGER_ID for e in events):  # the ledger's own refused changes
        refusals.update({c.event: c.reason for c in snapshot.config.conflicts})
    return [LogEntry(e, names.get(e.item, e.item), refusals.get(e.id)) for e in events]


def _refusals(items: Mapping[ItemId, Item | None], events: list[Event]) -> dict[str, str]:
    """Why each refused event of these items was refused: a conflict they hold, or one an
    owner settled (a settled conflict was still refused where it joined)."""
    refusals: dict[str, str] = {}
    for item in items.values():
        for conflict in item.conflicts if item else ():
            refusals[conflict.event] = conflict.reason
    for settling in (e for e in events if e.verb == "resolve"):
        how = "re-applied" if settling.arg("decision") == "apply" else "dismissed"
        refusals[settling.arg("event")] = (
            f"settled: {how} by {settling.actor} ({settling.arg('reason')})"
        )
    return refusals
