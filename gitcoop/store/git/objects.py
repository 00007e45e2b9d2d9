"""Reading git objects by id, each checked to be what the caller expects.

A missing object, or one of another kind, is BadLedger with the path it was read
for; a blob's size is checked before it is read. Bulk reads (`blobs_bytes`) read many
blobs in one loop.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any, NewType

from gitcoop.errors import BadLedger
from gitcoop.store.git.libgit2 import pygit2

Oid = NewType("Oid", str)  # a 40-hex object id

# libgit2 caches no tree over 4 KiB, and the ledger's `items` and `events`
# trees hold up to 1,024 fan-out entries (~33 KiB): every path lookup through
# them inflated the tree again (0.23 ms; cached: 0.003 ms), several times per
# transition. The cache's total size stays libgit2's default (256 MiB).
TREE_CACHE_LIMIT = 1024 * 1024

OBJECT_CACHE_DEFAULT = 256 * 1024 * 1024  # libgit2's


def version(entry: Any) -> tuple[int, str]:
    """What makes an entry of a tree this entry and no other: its mode and object id. Two
    versions of a path differ when either does (a folder made a gitlink of its own id is
    a change), as git's diff compares them."""
    return entry.filemode, str(entry.id)


def listing(tree: Any) -> dict[str, tuple[int, str]]:
    """Each entry's `version` by name."""
    return {entry.name: version(entry) for entry in tree}


def entry_at(tree: Any, path: str) -> Any:
    """`tree[path]`, or None when the tree holds nothing there.

    Not pygit2's own lookup by path, for most names: pygit2 1.21 keeps a reference to
    every path string it is given (`pgit_borrow_fsdefault` never releases what
    `PyOS_FSPath` returns), so each new path lived as long as the process: ~4 million of
    them, ~350 MB, by the end of a whole fsck of a million items, and without end in a
    server. So a name is found by bisecting its tree by position, which takes no string
    (`_named`), unless it is one of the few `name_kept` (the ledger's root names and
    fan-out folders): each of those is given to pygit2 as one string, the same object
    every time, so its lookup (in C, ~0.2 us against ~40 us in a folder of 1,024)
    keeps nothing more.

    A tree's entries are sorted as git sorts them (a folder as if its name ended in
    "/"). Only an entry of the name asked is returned; in a tree out of git's order
    (which `trees._as_git_writes` refuses in a fetched ledger) one may be missed, which
    reads as a missing file: a refusal, never another file's entry."""
    entry: Any = None
    for name in path.split("/"):
        if entry is not None:
            if type(entry) is not pygit2.Tree:
                return None
            tree = entry
        kept = _KEPT.get(name)
        if kept is None:
            entry = _named(tree, name)
        else:
            try:
                entry = tree[kept]
            except KeyError:
                entry = None
        if entry is None:
            return None
    return entry


_KEPT: dict[str, str] = {}  # names looked up by pygit2 itself: each its one string


def name_kept(names: Iterator[str] | list[str]) -> None:
    """Let `entry_at` hand these names to pygit2's own lookup, each as one string kept for
    the life of the process: a few, fixed names only (each costs its string for good)."""
    for name in names:
        _KEPT.setdefault(name, name)


def _named(tree: Any, name: str) -> Any:
    """The entry of `tree` named `name`: the first whose sort key is not below `name`,
    or one of the few after it whose names start with `name` and a character below "/"
    (which a folder named `name` sorts after)."""
    low, high = 0, len(tree)
    while low < high:
        middle = (low + high) // 2
        if _key(tree[middle]) < name:
            low = middle + 1
        else:
            high = middle
    folder = name + "/"
    while low < len(tree):
        entry = tree[low]
        if entry.name == name:
            return entry
        if _key(entry) >= folder:
            return None
        low += 1
    return None


def _key(entry: Any) -> str:
    """An entry's name as git sorts it."""
    name: str = entry.name
    return name + "/" if type(entry) is pygit2.Tree else name


class Objects:
    """Reads of commits, trees and blobs by id (a part of `Repo`, store/git/repo.py)."""

    raw: Any
    main_ref: str  # named in what is reported of a commit that cannot be read
    cap_setting: str  # the git config key that raises the cap blob reads are given ("": none)

    def commit_tree(self, commit: Oid) -> Any:
        obj = self._commit(commit)
        try:
            return obj.tree
        except (KeyError, pygit2.GitError):
            raise BadLedger(f"{self.main_ref}: the tree of commit {commit} is missing") from None

    def _commit(self, commit: Oid) -> Any:
        try:
            obj = self.raw[commit]
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(
                f"{self.main_ref}: commit {commit} is missing from the object store"
            ) from None
        if obj.type != pygit2.enums.ObjectType.COMMIT:
            raise BadLedger(f"{self.main_ref}: points at a {obj.type_str}, not a commit")
        return obj

    def has_commit(self, sha: str) -> bool:
        try:
            return bool(self.raw[sha].type == pygit2.enums.ObjectType.COMMIT)
        except (KeyError, ValueError):
            return False

    def kind_of(self, oid: Oid) -> str:
        """What git calls the object `oid` names: commit, tree, blob or tag."""
        try:
            return str(self.raw[oid].type_str)
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(f"object {oid} is missing from the object store") from None

    def blob_at(self, commit: Oid, path: str) -> str | None:
        """The id of the file at `path` in `commit`'s tree; None when it holds none there."""
        entry = entry_at(self.commit_tree(commit), path)
        return str(entry.id) if entry is not None and type(entry) is not pygit2.Tree else None

    def read_tree(self, oid: Any) -> Any:
        return self.raw[oid]

    def tree(self, oid: Any, path: str) -> Any:
        """The tree object `oid`; BadLedger when it is missing or is not a tree."""
        try:
            obj = self.raw[oid]
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(f"{path}: object {oid} is missing from the object store") from None
        if obj.type != pygit2.enums.ObjectType.TREE:
            raise BadLedger(f"{path}: has tree mode but is a {obj.type_str}")
        return obj

    def blob_bytes(self, oid: Any, path: str, cap: int) -> bytes:
        """A blob's content, its size checked before it is read."""
        try:
            kind, size = self.raw.odb.read_header(oid)
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(f"{path}: object {oid} is missing from the object store") from None
        if kind != pygit2.enums.ObjectType.BLOB:
            raise BadLedger(f"{path}: is not a blob")
        if size > cap:
            raise BadLedger(
                f"{path}: file is {size} bytes, over the {cap}-byte cap"
                + (f" (git config {self.cap_setting} raises it)" if self.cap_setting else "")
            )
        try:
            data: bytes = self.raw.odb.read(oid)[1]  # ~half the cost of building a Blob object
        except (KeyError, ValueError, pygit2.GitError) as exc:
            raise BadLedger(
                f"{path}: object {oid} cannot be read ({exc}) — run: git fsck"
            ) from None
        return data

    def blobs_bytes(self, wanted: list[tuple[Any, str]], cap: int) -> list[bytes]:
        """`blob_bytes` of many (object id, path)s, in one loop (a first sync reads every
        event file: the calls and lookups of one read each were a tenth of reading)."""
        odb, blob = self.raw.odb, pygit2.enums.ObjectType.BLOB
        found = []
        for oid, path in wanted:
            try:
                kind, size = odb.read_header(oid)
                if kind == blob and size <= cap:
                    found.append(odb.read(oid)[1])
                    continue
            except (KeyError, ValueError, pygit2.GitError):
                pass
            found.append(self.blob_bytes(oid, path, cap))  # which says what is wrong
        return found

    @staticmethod
    def blob_id(data: bytes) -> str:
        """The id `data` has as a blob, computed, not written: git's SHA-1 of it, by the
        standard library's (half of libgit2's time for an item file, which checks for
        collision attacks as it hashes; the object it is compared with came through git's
        own check, which refuses one half of such a pair)."""
        from hashlib import sha1  # (~2.5 ms to load: only the check of a fetched tip hashes)

        digest = sha1(b"blob %d\0" % len(data))
        digest.update(data)
        return digest.hexdigest()

    @staticmethod
    @contextlib.contextmanager
    def objects_cached(most: int) -> Iterator[None]:
        """Hold at most `most` bytes of parsed objects in libgit2's cache meanwhile (its
        default, 256 MB, fills with the trees of a history read folder by folder)."""
        pygit2.settings.cache_max_size(most)
        try:
            yield
        finally:
            pygit2.settings.cache_max_size(OBJECT_CACHE_DEFAULT)

    def _read_or_missing(self, oid: str, path: str) -> tuple[int, bytes]:
        try:
            found: tuple[int, bytes] = self.raw.odb.read(oid)
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(f"{path}: object {oid} is missing from the object store") from None
        return found
