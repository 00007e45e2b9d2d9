"""Finding the few items that mention a string, without parsing every item file.

A hook must stay fast on a ledger of 10,000 items: reading raw blobs and
parsing only those that contain the string costs a fraction of loading them
all. The writer's YAML never wraps or escapes plain ASCII values (its width
is unbounded), so an sha or an e-mail address appears in the bytes verbatim.
"""

from __future__ import annotations

from collections.abc import Iterator

from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Item
from gitcoop.errors import BadLedger
from gitcoop.store.layout import ITEM_FILE_RE, ITEMS, MODE_BLOB
from gitcoop.store.snapshot import Snapshot


def items_containing(snapshot: Snapshot, needle: str) -> Iterator[Item]:
    """Items whose file contains `needle`; the caller checks the field it meant."""
    raw = needle.encode("utf-8")
    for fan, tree in snapshot.fanouts(ITEMS):
        for entry in tree:
            path = f"{ITEMS}/{fan}/{entry.name}"
            if not ITEM_FILE_RE.match(entry.name) or entry.filemode != MODE_BLOB:
                raise BadLedger(f"{path}: not an allowed item file")
            if raw in snapshot.repo.blob_bytes(entry.id, path, snapshot.cap):
                item = snapshot.item(ItemId(entry.name[:-5]))
                if item is not None:
                    yield item
