"""What a merge's replay refused, told to the people it touches (DESIGN.md §6).

A merge replays every touched item's events through the rules; an event the
rules refuse stays in the log and is named in the item's `conflicts`. The
person whose own event lost is told at the merge that found it: `sync` exits
8, and a write shared through the remote that decides claims prints it
(service/claims.py). What stays unacknowledged is kept in view, and
acknowledged, by service/lost.py; this module only reads, so the sharing code
that merges stays beneath the writer.
"""

from __future__ import annotations

from gitcoop.domain import reconcile
from gitcoop.domain.ids import ItemId
from gitcoop.domain.reconcile import Notice
from gitcoop.domain.records import Item
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
