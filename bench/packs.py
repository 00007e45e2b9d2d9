"""The bench ledger's commits written as one pack directly, without `git fast-import`.

`git fast-import` finds each path's folder by reading the folder's entries one by
one: every event file of a million-item ledger passed the 1,024 fan-outs of
`events/` and the ~1,000 item folders of its own fan-out, billions of name
comparisons (a 100,000-item ledger took 33 s of its CPU, a million more than
20 minutes). Here the trees are kept as maps (fan-out -> name -> object id), and
each commit writes only the objects it changes: the blobs, the folders of the
items it touches, their fan-outs' trees, `items/`, `events/`, the root and the
commit, into one pack written as it goes (blobs compressed at zlib's fastest
level, no deltas), then its index (version 2, as `store/fast/packwrite.py` writes).
The commits are exactly those `ledger.files` describes; `git fsck` accepts the
result (tests/store/fast/test_bench_packs.py).
"""

from __future__ import annotations

import gc
import hashlib
import os
import struct
import zlib
from collections.abc import Iterable, Iterator
from pathlib import Path

from gitcoop.store.fast.packwrite import _header, _index  # the store's own pack format

COMMIT, TREE, BLOB = 1, 2, 3
_KIND = {COMMIT: b"commit", TREE: b"tree", BLOB: b"blob"}


class PackOut:
    """One pack written as objects come, and its index when it is done."""

    def __init__(self, folder: Path) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.folder = folder
        self.temp = folder / f"tmp-bench-{os.getpid()}.pack"
        self.out = open(self.temp, "wb")  # noqa: SIM115 — closed in `finish`
        self.out.write(b"PACK" + struct.pack(">II", 2, 0))  # the count is set at the end
        self.offset = 12
        self.rows: list[tuple[bytes, int, int]] = []  # (id, CRC-32, offset)
        self.seen: set[bytes] = set()

    def add(self, kind: int, content: bytes) -> bytes:
        """Write one object (once); its 20-byte id."""
        oid = hashlib.sha1(b"%s %d\0%s" % (_KIND[kind], len(content), content)).digest()
        if oid in self.seen:
            return oid
        self.seen.add(oid)
        entry = _header(kind, len(content)) + zlib.compress(content, 1 if kind != TREE else 0)
        self.out.write(entry)
        self.rows.append((oid, zlib.crc32(entry), self.offset))
        self.offset += len(entry)
        return oid

    def finish(self) -> str:
        """Set the count, add the checksum, write the index; the pack's name."""
        self.out.close()
        with open(self.temp, "r+b") as pack:
            pack.seek(8)
            pack.write(struct.pack(">I", len(self.rows)))
            pack.seek(0)
            digest = hashlib.sha1()
            while chunk := pack.read(1 << 24):
                digest.update(chunk)
            checksum = digest.digest()
            pack.seek(0, os.SEEK_END)
            pack.write(checksum)
        name = f"pack-{checksum.hex()}"
        index = self.folder / f"{name}.idx"
        index.write_bytes(_index(self.rows, checksum))
        os.replace(self.temp, self.folder / f"{name}.pack")
        return name


def _tree(entries: Iterable[tuple[bytes, bytes, bool]]) -> bytes:
    """A tree's content from (name, id, is a folder), in git's order (a folder sorts as
    if its name ended in `/`)."""
    ordered = sorted(entries, key=lambda e: e[0] + b"/" if e[2] else e[0])
    return b"".join(
        (b"40000 " if folder else b"100644 ") + name + b"\0" + oid for name, oid, folder in ordered
    )


class Ledger:
    """The ledger's trees as maps, changed commit by commit."""

    def __init__(self, pack: PackOut) -> None:
        self.pack = pack
        self.items: dict[bytes, dict[bytes, bytes]] = {}  # fan-out -> file name -> blob
        self.folders: dict[bytes, dict[bytes, bytes]] = {}  # fan-out -> item -> folder tree
        self.events: dict[tuple[bytes, bytes], dict[bytes, bytes]] = {}  # folder -> files
        self.item_trees: dict[bytes, bytes] = {}  # fan-out -> its tree in items/
        self.event_trees: dict[bytes, bytes] = {}  # fan-out -> its tree in events/
        self.parent: bytes | None = None

    def commit(
        self, files: Iterator[tuple[bytes, bytes]], coop: bytes, header: bytes, message: bytes
    ) -> bytes:
        add = self.pack.add
        changed_items: set[bytes] = set()
        changed_folders: set[tuple[bytes, bytes]] = set()
        for path, data in files:
            oid = add(BLOB, data)
            parts = path.split(b"/")
            if parts[0] == b"items":
                self.items.setdefault(parts[1], {})[parts[2]] = oid
                changed_items.add(parts[1])
            else:
                key = (parts[1], parts[2])
                self.events.setdefault(key, {})[parts[3]] = oid
                changed_folders.add(key)
        changed_fans: set[bytes] = set()
        for key in changed_folders:
            content = _tree((n, o, False) for n, o in self.events[key].items())
            self.folders.setdefault(key[0], {})[key[1]] = add(TREE, content)
            changed_fans.add(key[0])
        for fan in changed_items:
            content = _tree((n, o, False) for n, o in self.items[fan].items())
            self.item_trees[fan] = add(TREE, content)
        for fan in changed_fans:
            content = _tree((n, o, True) for n, o in self.folders[fan].items())
            self.event_trees[fan] = add(TREE, content)
        items = add(TREE, _tree((f, o, True) for f, o in self.item_trees.items()))
        events = add(TREE, _tree((f, o, True) for f, o in self.event_trees.items()))
        config = add(BLOB, coop)
        root = _tree(
            [(b"coop.yaml", config, False), (b"items", items, True), (b"events", events, True)]
        )
        text = b"tree %s\n" % add(TREE, root).hex().encode()
        if self.parent is not None:
            text += b"parent %s\n" % self.parent.hex().encode()
        self.parent = add(COMMIT, text + header + b"\n" + message)
        return self.parent


def without_collector() -> None:
    """Millions of small maps and tuples that live until the end: no cycle collection."""
    gc.disable()
