"""A fan-out's item files read from its tree's bytes at once; shadows reading the tree
entry by entry (`Snapshot.item_ids`, `Snapshot._item_entries`), which checks each name
and mode in Python: ~0.2 ms for a fan-out of ~1,000 ids at a million items, not ~2
(docs/performance.md, "Writes at a million items, again"); held equal by
tests/store/fast/test_fan_ids.py."""

from __future__ import annotations

from gitcoop.domain.patterns import pattern
from gitcoop.store.ledger.layout import ITEM_FILE

# one entry of an item file as git writes it: its mode, its name, its 20-byte object id;
# the bytes are read as Latin-1, one character each
_ENTRY = pattern(rf"100644 {ITEM_FILE}\x00([\x00-\xff]{{20}})")
_LENGTH = 48  # every item file's entry: "100644 " 7, name 20, NUL 1, id 20


def item_files(content: bytes) -> list[tuple[str, str]] | None:
    """(item id, blob id) of each entry of a tree whose entries are all item files of mode
    100644, in its order; None for any other tree (a name or mode the layout refuses, or
    a mode such as 100664 that git reads as 100644), which is then read entry by entry.

    The entries found do not overlap and each is `_LENGTH` long, so they are every
    entry of the tree exactly when their lengths add up to its length."""
    text = content.decode("latin-1")
    found: list[tuple[str, str]] = _ENTRY.findall(text)
    if len(found) * _LENGTH != len(text):
        return None
    return [(item, oid.encode("latin-1").hex()) for item, oid in found]


def item_ids(content: bytes) -> list[str] | None:
    """The ids of `item_files`, or None as it says."""
    text = content.decode("latin-1")
    found: list[tuple[str, str]] = _ENTRY.findall(text)
    return [item for item, _ in found] if len(found) * _LENGTH == len(text) else None
