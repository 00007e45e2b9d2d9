"""Shadows libgit2's loose object writes; gains a take's fsyncs, 24 down to 7, and its
roll-ups keep the repository small ("A fifth run: a transition as one pack" and "The pack
writer, measured again"); held equal by tests/store/fast/test_packwrite.py, and
`COOP_REFERENCE=1` writes the same objects loose (`ledger/repo.write_pack`).

One transition's objects written as one pack, in git's own pack format.

A transition writes about ten objects: a blob or two, the trees on the way
from them to the root (two of them, `items/` and `events/`, list up to 1,024
folders), and a commit. Written loose by libgit2, with fsync on, each is two
fsyncs (the file, then its folder): 20 of the 24 a `take` made, a third of
its time beyond the imports it needs. Here they are kept in memory, hashed as
git hashes them, and written as one pack and its index: three fsyncs (the
pack, the index, the folder), in the order git itself makes them visible
(the pack before the index that names it, so no reader finds an index
without its pack). The packs this leaves are rolled together by a geometric
repack (`upkeep`), as git's own maintenance does with the packs fetches leave.

Trees are changed, not rebuilt: a tree is its base's entries as read, with
the named ones replaced or added in git's order (a folder sorts as if its
name ended in `/`). Trees are stored without compression: most of their
bytes are object ids, which zlib cannot make smaller (a 1,024-entry tree is
29.7 KB stored, 24.3 KB compressed, and compressing it costs 0.8 ms); blobs
and commits are compressed at zlib's fastest level, as git writes loose
objects. Both are plain zlib streams that every git reads.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import struct
import zlib
from collections.abc import Callable, Mapping

from gitcoop.domain.patterns import pattern
from gitcoop.store.git import environment

COMMIT, TREE, BLOB = 1, 2, 3  # pack object types
_KIND = {COMMIT: b"commit", TREE: b"tree", BLOB: b"blob"}
_LEVEL = {COMMIT: 1, TREE: 0, BLOB: 1}
MODE_TREE = 0o040000
_ENTRY = pattern(rb"(([0-7]+) ([^\0]+)\0.{20})", re.S)  # (entry, mode, name), as read
_USUAL_MODES = frozenset((b"40000", b"100644", b"100755", b"120000", b"160000"))
Entry = tuple[int, bytes]  # (mode, 20-byte object id)


class Pack:
    """The objects of one write, in memory until `write` puts them on disk as a pack."""

    def __init__(self) -> None:
        self.objects: dict[bytes, tuple[int, bytes]] = {}  # id -> (type, content)

    def add(self, kind: int, content: bytes) -> bytes:
        """The object's 20-byte id (git's SHA-1 of its header and content)."""
        digest = hashlib.sha1(b"%s %d\0" % (_KIND[kind], len(content)))
        digest.update(content)
        oid = digest.digest()
        self.objects.setdefault(oid, (kind, content))
        return oid

    def blob(self, content: bytes) -> bytes:
        return self.add(BLOB, content)

    def tree(self, base: bytes, changes: Mapping[str, Entry]) -> bytes:
        """A tree: the entries of `base` (a tree's content, b"" for none) with `changes`."""
        return self.add(TREE, changed_tree(base, changes))


def changed_tree(base: bytes, changes: Mapping[str, Entry]) -> bytes:
    """The content of tree `base` with each named entry set to (mode, id), in git's order.

    A name the base lists twice is kept once, and a base out of git's order comes
    out in it, as libgit2's tree builder writes them."""
    found = _ENTRY.findall(base)
    if sum(len(entry) for entry, _, _ in found) != len(base):
        raise ValueError("a tree git could not read")  # the tip was checked: never expected
    entries = {name: (entry, mode == b"40000") for entry, mode, name in found}
    if not _USUAL_MODES.issuperset(mode for _, mode, _ in found):
        entries = {name: _as_written(entry, mode, name) for entry, mode, name in found}
    fresh = len(entries) != len(found)
    for text, (mode, oid) in changes.items():
        name = text.encode("utf-8")
        if name in (b"", b".", b"..") or b"/" in name or b"\0" in name or len(oid) != 20:
            raise ValueError(f"not a tree entry: {text!r}")
        fresh = fresh or name not in entries
        entries[name] = (b"%o %s\0%s" % (mode, name, oid), mode == MODE_TREE)
    keys = [name + b"/" if folder else name for name, (_, folder) in entries.items()]
    if fresh or keys != sorted(keys):
        order = sorted(zip(keys, entries.values(), strict=True))
        return b"".join(entry for _, (entry, _) in order)
    return b"".join(entry for entry, _ in entries.values())


def _as_written(entry: bytes, mode: bytes, name: bytes) -> tuple[bytes, bool]:
    """An entry of an unusual mode (040000, 100664) as libgit2 writes it again: the mode
    in octal without padding, a folder by its type bits."""
    number = int(mode, 8)
    return b"%o %s\0%s" % (number, name, entry[-20:]), number & 0o170000 == MODE_TREE


def signed(content: bytes, signature: str) -> bytes:
    """A commit's bytes with `signature` in its `gpgsig` header, laid out as libgit2's
    `git_commit_create_with_signature` lays it out: after the last header line, each
    line of the signature after the first indented by one space."""
    end = content.index(b"\n\n") + 1
    field = signature.encode("utf-8").replace(b"\n", b"\n ")
    return content[:end] + b"gpgsig " + field + b"\n" + content[end:]


def write(pack: Pack, folder: str, fsync: bool, keeps: list[str]) -> str:
    """Write `pack` into `folder` (objects/pack) as pack-SHA.pack and .idx; the SHA.

    The pack is kept (pack-SHA.keep, made before the pack is, and added to `keeps`)
    until the caller has moved the ref that names its objects and removes the keep
    (`unkeep`): until then
    its objects are unreachable, and a `git repack -A -d` running meanwhile would
    delete the pack and make its objects loose, where a concurrent `git prune` that
    still knew the pack takes them for packed copies and deletes them too (seen in a
    gc loop beside writes, tests/hostile/test_environment.py). `git receive-pack`
    keeps what a push brings in the same way until it has updated the refs."""
    rows: list[tuple[bytes, int, int]] = []  # (id, crc32, offset)
    parts = [b"PACK", struct.pack(">II", 2, len(pack.objects))]
    offset = 12
    for oid, (kind, content) in pack.objects.items():
        entry = _header(kind, len(content)) + zlib.compress(content, _LEVEL[kind])
        rows.append((oid, zlib.crc32(entry), offset))
        parts.append(entry)
        offset += len(entry)
    data = b"".join(parts)
    checksum = hashlib.sha1(data).digest()
    name = checksum.hex()
    _ensure(folder, fsync)
    base = os.path.join(folder, f"pack-{name}")
    _install(
        base,
        lambda: _place(f"{base}.pack", (data, checksum), fsync),
        lambda: _place(f"{base}.idx", (_index(rows, checksum),), fsync),
        fsync,
        keeps,
    )
    return name


def _install(
    base: str, pack: Callable[[], bool], index: Callable[[], bool], fsync: bool, keeps: list[str]
) -> None:
    """Keep `base`.pack, place it (`pack`: True when it was not there), then its index,
    then sync their folder. Nothing half-placed stays: no pack without its index."""
    made = len(keeps)
    _keep(f"{base}.keep", keeps)
    placed = False
    try:
        placed = pack()
        index()
    except BaseException:
        if placed:
            _remove(f"{base}.pack")
        unkeep(keeps, made)  # this write's keep only
        raise
    if fsync:  # both are whole and kept: a failure here leaves them to the caller's unkeep
        _sync_folder(os.path.dirname(base))


def _ensure(folder: str, fsync: bool) -> None:
    """objects/pack, made (and its making synced) when a repository has none."""
    if os.path.isdir(folder):
        return
    os.makedirs(folder, exist_ok=True)
    if fsync:
        _sync_folder(os.path.dirname(folder))


def adopt(built: str, folder: str, fsync: bool, keeps: list[str]) -> str:
    """Move the one pack libgit2 built in folder `built` into `folder`, kept (as `write`
    does); its SHA. libgit2 synced both files when fsync is on."""
    (pack,) = [n for n in os.listdir(built) if n.endswith(".pack")]
    stem = pack[: -len(".pack")]
    base = os.path.join(folder, stem)
    _install(
        base,
        lambda: _adopt(os.path.join(built, pack), f"{base}.pack"),
        lambda: _adopt(os.path.join(built, f"{stem}.idx"), f"{base}.idx"),
        fsync,
        keeps,
    )
    return stem[len("pack-") :]


def _adopt(source: str, final: str) -> bool:
    """Give `source` the name `final`; False (`source` left) when a file has it already:
    by that name, a pack or an index with the same bytes."""
    if os.path.exists(final):
        return False
    os.replace(source, final)
    return True


def _sync_folder(folder: str) -> None:
    handle = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


ELSEWHERE_STALE = 7 * 86400.0  # seconds: a keep another host made, left for its writer
INCOMING = "coop-incoming-"  # in objects/: a pack or index being written (a merge's: a folder)
KEEP_TEXT = b"gitcoop: kept until refs/coop/ledger names its objects"
_KEEPER = pattern(re.escape(KEEP_TEXT) + rb" \(pid (\d+) on (.*)\)\n\Z")


def _keep(path: str, keeps: list[str]) -> None:
    """Keep a pack, unless a keep is there already: that one is not this write's (and
    the pack, named by its content, is the same)."""
    try:
        handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o444)
    except FileExistsError:
        return
    keeps.append(path)
    try:
        os.write(handle, b"%s (pid %d on %s)\n" % (KEEP_TEXT, os.getpid(), _host()))
    finally:
        os.close(handle)


def _host() -> bytes:
    return os.uname().nodename.encode("utf-8", "replace")


def keeper(text: bytes) -> tuple[int, bytes] | None:
    """The (pid, host) of the gitcoop write that made a keep with `text`; None: not one."""
    found = _KEEPER.match(text)
    return None if found is None else (int(found.group(1)), found.group(2))


def kept_by_the_living(pid: int, host: bytes, age: float = 0.0) -> bool:
    """Whether the writer that made a keep `age` seconds ago may still be at work: a
    process of that pid runs on this host, or the keep was made on another host, which
    cannot be asked, under a week ago."""
    if host != _host():
        return age < ELSEWHERE_STALE
    return environment.process_runs(pid)


def unkeep(paths: list[str], start: int = 0) -> None:
    """Remove the keeps `write` made (from `start` on), once their objects are named or
    given up; one that cannot go only keeps its pack from repacks."""
    for path in paths[start:]:
        _remove(path)
    del paths[start:]


def _header(kind: int, size: int) -> bytes:
    """A pack entry's type and size: 4 bits of size, then 7 a byte, low bits first."""
    out = bytearray()
    byte = (kind << 4) | (size & 0x0F)
    size >>= 4
    while size:
        out.append(byte | 0x80)
        byte = size & 0x7F
        size >>= 7
    out.append(byte)
    return bytes(out)


def _index(rows: list[tuple[bytes, int, int]], checksum: bytes) -> bytes:
    """A version 2 pack index: fan-out, sorted ids, CRC-32s, offsets, both checksums."""
    rows.sort()
    fan = [0] * 256
    for oid, _, _ in rows:
        fan[oid[0]] += 1
    total = 0
    for i, count in enumerate(fan):
        total += count
        fan[i] = total
    large: list[int] = []  # offsets past 2 GiB, in a table of their own
    small = []
    for _, _, offset in rows:
        if offset < 0x80000000:
            small.append(offset)
        else:
            small.append(0x80000000 | len(large))
            large.append(offset)
    body = b"".join(
        (
            b"\377tOc",
            struct.pack(">I", 2),
            struct.pack(">256I", *fan),
            b"".join(oid for oid, _, _ in rows),
            struct.pack(f">{len(rows)}I", *(crc for _, crc, _ in rows)),
            struct.pack(f">{len(rows)}I", *small),
            struct.pack(f">{len(large)}Q", *large),
            checksum,
        )
    )
    return body + hashlib.sha1(body).digest()


def _place(final: str, chunks: tuple[bytes, ...], fsync: bool) -> bool:
    """Write a file under a temporary name, synced, and give it its name (read-only, as
    git's packs are); False when a file was there by that name (with the same bytes:
    the name is their checksum)."""
    folder, name = os.path.split(final)
    suffix = name.rsplit(".", 1)[-1]  # not ending .idx or .pack: no scanner takes it for one
    # beside the folder (objects/), where no prune looks: `git prune` removes every tmp_
    # file in objects/pack, and in a loop of them a write kept losing its own
    temporary = os.path.join(
        os.path.dirname(folder), f"{INCOMING}{suffix}-{os.getpid()}-{name[5:13]}"
    )
    handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o444)
    try:
        try:
            for chunk in chunks:
                view = memoryview(chunk)
                while view:
                    view = view[os.write(handle, view) :]
            if fsync:
                os.fsync(handle)
        finally:
            os.close(handle)
        if not _adopt(temporary, final):
            os.unlink(temporary)
            return False
        return True
    except BaseException:
        _remove(temporary)
        raise


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)
