"""A tree's entries read from its bytes at once; shadows reading the tree entry by entry
through pygit2 (`objects.listing`; `Snapshot.item_ids` and `_item_entries`, which check
each item file's name and mode in Python), where each entry is an object and its mode an
enum: a fan-out of ~1,000 ids at a million items listed in ~0.2 ms, not ~2; a first
sync's listings of every folder it checks in a fifth of their time (docs/performance.md,
"What a write still did per fan-out entry"); held equal by
tests/store/fast/test_tree_bytes.py."""

from __future__ import annotations

import re
from typing import Any

from gitcoop.domain.patterns import pattern
from gitcoop.store import fast
from gitcoop.store.git.objects import listing as listed
from gitcoop.store.ledger.layout import ITEM_FILE

# one entry of an item file as git writes it: its mode, its name, its 20-byte object id;
# the bytes are read as Latin-1, one character each
_ITEM = pattern(rf"100644 {ITEM_FILE}\x00([\x00-\xff]{{20}})")
_ITEM_LENGTH = 48  # every item file's entry: "100644 " 7, name 20, NUL 1, id 20

# any entry as git reads one: (mode, name, id)
_ENTRY = pattern(rb"([0-7]+) ([^\0]+)\0(.{20})", re.S)
# each mode as git spells it, and the number pygit2 gives for it (any other spelling is
# read entry by entry: pygit2 reads 100664 as 100644)
_MODES = {mode: int(mode, 8) for mode in (b"40000", b"100644", b"100755", b"120000", b"160000")}


def listing(tree: Any) -> dict[str, tuple[int, str]]:
    """`objects.listing(tree)`: each entry's (mode, object id) by name."""
    if fast.reference():
        return listed(tree)
    data = tree.read_raw()
    parts = _ENTRY.findall(data)
    modes, names, ids = zip(*parts, strict=True) if parts else ((), (), ())
    # the entries found do not overlap: they are every byte of the tree, parsed as git
    # parses it from the start, exactly when their lengths add up to its length
    if sum(map(len, modes)) + sum(map(len, names)) + 22 * len(parts) != len(data):
        return listed(tree)
    try:
        numbers = list(map(_MODES.__getitem__, modes))
        # no name holds a NUL: decoded as one text, each name is decoded as it is alone
        text = b"\0".join(names).decode("utf-8").split("\0") if names else []
    except (KeyError, UnicodeDecodeError):  # as pygit2 reads them
        return listed(tree)
    return dict(zip(text, zip(numbers, map(bytes.hex, ids), strict=True), strict=True))


def item_files(content: bytes) -> list[tuple[str, str]] | None:
    """(item id, blob id) of each entry of a tree whose entries are all item files of mode
    100644, in its order; None for any other tree (a name or mode the layout refuses, or
    a mode such as 100664 that git reads as 100644), which is then read entry by entry.

    The entries found do not overlap and each is `_ITEM_LENGTH` long, so they are every
    entry of the tree exactly when their lengths add up to its length."""
    text = content.decode("latin-1")
    found: list[tuple[str, str]] = _ITEM.findall(text)
    if len(found) * _ITEM_LENGTH != len(text):
        return None
    return [(item, oid.encode("latin-1").hex()) for item, oid in found]


def item_ids(content: bytes) -> list[str] | None:
    """The ids of `item_files`, or None as it says."""
    text = content.decode("latin-1")
    found: list[tuple[str, str]] = _ITEM.findall(text)
    return [item for item, _ in found] if len(found) * _ITEM_LENGTH == len(text) else None
