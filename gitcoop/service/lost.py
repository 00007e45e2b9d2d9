"""What a merge's replay refused: told to the people it touches, and kept in view.

A merge replays every touched item's events through the rules; an event the
rules refuse stays in the log and is named in the item's `conflicts`
(DESIGN.md §6). The person whose own event lost must stop working on an item
they no longer hold, so they are told at the merge that found it (`sync`
exits 8), and `owed` and `list --mine` keep showing it until they
acknowledge it (`git coop ack ID`, the `ack` event that also acknowledges
takeovers).
"""

from __future__ import annotations

from dataclasses import replace

from gitcoop.domain import reconcile, resolution
from gitcoop.domain.ids import ItemId
from gitcoop.domain.reconcile import Notice
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Conflict, Item
from gitcoop.errors import NotFound
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.queries import ListFilter
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store.fast.cache_rows import Row, conflicted
from gitcoop.store.fast.read_cache import ItemCache
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Oid, Repo


def merge_notices(
    repo: Repo,
    start: Oid | None,
    tip: Oid | None,
    actor: str,
    rows: tuple[Row, ...] | None = None,
) -> list[Notice]:
    """The conflicts that appeared between `start` and `tip` and touch `actor`.

    Every item with a conflict is in the open index, which the merge has just filled
    (and may hand over its rows with conflicts as `rows`), so only those items are
    read, not every item the merge brought.
    """
    if tip is None or tip == start:
        return []
    after = Snapshot(repo, tip)
    if rows is None:
        rows = conflicted(after.open_view(ItemCache(repo.common_dir)).rows)
    by_id = {r.item_id: r for r in rows}
    if not by_id:
        return []
    before = Snapshot(repo, start) if start else None
    found: list[Notice] = []
    for item_id in sorted(by_id):
        if before is not None and before.item_blob(ItemId(item_id)) == after.item_blob(
            ItemId(item_id)
        ):
            continue  # the merge left this item's file as it was: nothing new to tell
        row = by_id[item_id]
        item = Item.from_data(row.data())
        old = before.item(ItemId(item_id)) if before else None
        seen = {c.event for c in old.conflicts} if old else set()
        new = [c for c in item.conflicts if c.event not in seen]
        if new:
            found += reconcile.notices(item, row.label, new, actor)
    return found


@record_type
class Lost:
    """One of the acting person's own events that lost on replay, not yet acknowledged."""

    item: Item
    label: str
    conflict: Conflict


def lost_by(ctx: Context, actor: str | None = None) -> list[Lost]:
    """Every unacknowledged lost event of `actor` (default: who is acting), by item id."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    who = actor or ctx.who(snapshot.repo)
    found: list[Lost] = []
    for row in snapshot.open_view(snapshot.cache).rows:  # every item with a conflict is there
        if not row.summary.conflicts:
            continue
        item = Item.from_data(row.data())
        found += [Lost(item, row.label, c) for c in resolution.unacknowledged(item, who)]
    found.sort(key=lambda lost: (lost.item.id, lost.conflict.event))
    return found


def mine(ctx: Context, where: ListFilter) -> ListFilter:
    """`list --mine` also shows where the acting person's event lost unacknowledged."""
    lost = frozenset(lost.item.id for lost in lost_by(ctx))
    return replace(where, mine=True, lost=lost)


def acknowledge(ctx: Context, ref: str, event_ref: str | None = None) -> Shown:
    """`ack`: the acting person has seen what happened to their work on one item.

    Without `event_ref`, one `ack` event for everything waiting for them there:
    takeovers of their work and their lost events (nothing waiting: nothing is
    written, as for any repeat). With it, only the lost event it names (any
    unique prefix of its id); the conflict stays for the owners to settle.
    """
    if event_ref is None:
        return write(ctx, [Intent(ref, "ack", {}, expect=ctx.expect_version)]).first()
    snapshot = read_ledger(ctx)
    item_id = snapshot.resolve(ref)
    item = snapshot.item(item_id)
    assert item is not None
    wanted = event_ref.strip().lower()
    wanted = wanted if wanted.startswith("ev-") else f"ev-{wanted}"
    named = [c.event for c in item.conflicts if c.event.startswith(wanted)]
    if not named:
        raise NotFound(
            f"{snapshot.label(item_id)} has no lost event matching {event_ref!r} — "
            "git coop list --mine shows yours"
        )
    intents = [Intent(item_id, "ack", {"event": e}) for e in named]
    intents[0] = replace(intents[0], expect=ctx.expect_version)  # the version before them all
    return write(ctx, intents).first()
