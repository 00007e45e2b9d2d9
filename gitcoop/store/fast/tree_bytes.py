"""A tree's entries read from its bytes at once; shadows reading the tree entry by entry
through pygit2 (`objects.listing`; `Snapshot.item_ids` and `_item_entries`, which check
each item file's name and mode in Python), where each entry is an object and its mode an
enum: a fan-out of ~1,000 ids at a million items listed in ~0.2 ms, not ~2; a first
sync's listings of every folder it checks in a fifth of their time (docs/performance.md,
"What a write still did per fan-out entry"); held equal by
tests/store/fast/test_tree_bytes.py."""

from __future__ import annotations

from typing import Any

from gitcoop.domain.patterns import pattern
from gitcoop.store import fast
from gitcoop.store.git.objects import listing as listed
from gitcoop.store.git.trees import GIT_MODES, entry_parts
from gitcoop.store.ledger.layout import ITEM_FILE

# one entry of an item file as git writes it: its mode, its name, its 20-byte object id;
# the bytes are read as Latin-1, one character each
_ITEM = pattern(rf"100644 {ITEM_FILE}\x00([\x00-\xff]{{20}})")
_ITEM_LENGTH = 48  # every item file's entry: "100644 " 7, name 20, NUL 1, id 20


def listing(tree: Any) -> dict[str, tuple[int, str]]:
    """`objects.listing(tree)`: each entry's (mode, object id) by name."""
    if fast.reference():
        return listed(tree)
    parts = entry_parts(tree.read_raw())
    if parts is None:
        return listed(tree)
    modes, names, ids = parts
    try:  # each mode as git spells it (pygit2 reads another, 100664, as 100644)
        numbers = list(map(GIT_MODES.__getitem__, modes))
        # no name holds a NUL: decoded as one text, each name is decoded as it is alone
        text = b"\0".join(names).decode("utf-8").split("\0") if names else []
    except (KeyError, UnicodeDecodeError):  # as pygit2 reads them
        return listed(tree)
    return dict(zip(text, zip(numbers, map(bytes.hex, ids), strict=True), strict=True))


def item_files(content: bytes) -> list[tuple[str, str]] | None:
    """(item id, blob id) of each entry of a tree whose entries are all item files of mode
    100644, in its order; None for any other tree (a name or mode the layout refuses, or
    a mode such as 100664 that git reads as 100644), which is then read entry by entry."""
    found = _items(content)
    return None if found is None else [(item, oid.encode("latin-1").hex()) for item, oid in found]


def item_ids(content: bytes) -> list[str] | None:
    """The ids of `item_files`, or None as it says (no blob id spelt out)."""
    found = _items(content)
    return None if found is None else [item for item, _ in found]


def _items(content: bytes) -> list[tuple[str, str]] | None:
    """(item id, its 20-byte id as Latin-1) of each entry, or None. The entries found do
    not overlap and each is `_ITEM_LENGTH` long, so they are every entry of the tree
    exactly when their lengths add up to its length."""
    text = content.decode("latin-1")
    found: list[tuple[str, str]] = _ITEM.findall(text)
    return found if len(found) * _ITEM_LENGTH == len(text) else None
