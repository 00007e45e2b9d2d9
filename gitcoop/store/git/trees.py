"""Raw trees and the changes between two commits' trees.

`changes` compares two commits' folders level by level from the raw tree
objects, opening only the folders whose ids differ, and refuses a tree whose
entries are not as git writes them (`_as_git_writes`); `deltas` asks libgit2's
own diff the same question.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any, NamedTuple

from gitcoop.domain.patterns import pattern
from gitcoop.errors import BadLedger
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.objects import Objects, Oid, entry_at, listing

TreeEntries = dict[str, tuple[int, str]]  # a tree's entries: name -> (mode, object id)


class Delta(NamedTuple):
    """One path that differs between two commits' trees (content is never read); a
    tuple, as a first sync makes one for every event file it brings."""

    status: str  # added | deleted | modified | typechange | other
    path: str
    oid: str = ""  # the blob on the newer side ("" when deleted)
    mode: int = 0  # its mode on the newer side


# a Delta made from a tuple of its four fields without a Python call (a first sync makes
# one for each event file it brings)
_added_delta = partial(tuple.__new__, Delta)

# Entries of recently compared trees kept, small and large apart (~10 MB each): a
# fan-out or an item folder is compared again when the next commit that touches it
# is, often a thousand commits later; the events tree by the very next commit.
ENTRIES_KEPT = 100_000

SMALL_TREE = 256

COMPARED_LEVELS = 8  # a ledger's events/ holds three (fan-out, item, event file)

# One tree entry as git writes it: octal mode, space, name, NUL, a 20-byte object id.
NOT_AS_GIT_WRITES = (
    "not as git writes them (in git's order, each name once, no / in a name, each mode spelt as "
    "git spells it) — a ledger gitcoop takes reads the same entry by entry and by path"
)

# each entry of a raw tree as git reads it: (mode, name, id)
_TREE_PARTS = pattern(rb"([0-7]+) ([^\0]+)\0(.{20})", re.S)

# each mode as git spells it, and what it reads as
GIT_MODES = {mode: int(mode, 8) for mode in (b"40000", b"100644", b"100755", b"120000", b"160000")}

TREE = 0o040000


Parts = tuple[tuple[bytes, ...], tuple[bytes, ...], tuple[bytes, ...]]


def entry_parts(data: bytes) -> Parts | None:
    """A raw tree's (modes, names, ids), read as git reads them from its start; None when
    they do not cover every byte of it (a tree git could not read). The entries found are
    disjoint, so they cover the tree exactly when their lengths add up to its length."""
    found = _TREE_PARTS.findall(data)
    modes, names, ids = zip(*found, strict=True) if found else ((), (), ())
    if sum(map(len, modes)) + sum(map(len, names)) + 22 * len(found) != len(data):
        return None
    return modes, names, ids


def _kind(mode: int) -> int:
    """A folder, a file (of any permissions), a link or a submodule."""
    return mode & 0o170000


def _as_git_writes(modes: Sequence[bytes], names: Sequence[bytes]) -> bool:
    """Whether a tree's entries are in git's order, no name twice, none holding a `/`, and
    each mode spelt as git spells it.

    libgit2 finds a path in a tree by binary search in git's order, which sorts a
    folder's name as if it ended in `/`, so a tree out of that order reads one way entry
    by entry and another by path; and it reads a mode such as `644` or `0` as a file's,
    where git reads it as a submodule's (whose object no fetch brings) and writes a
    zero-padded one back unpadded (so the entry's bytes change). git's check of fetched
    objects refuses such trees, and objects a plain fetch brought skip that check. So a
    tree that passes reads the same entry by entry and by path, whatever its names (a
    folder `td` before a file `td-1.yaml` is in byte order, not in git's)."""
    keys = names
    if _FOLDER in modes:  # git's order differs from byte order only for a folder's name
        keys = [n + b"/" if m == _FOLDER else n for m, n in zip(modes, names, strict=True)]
    return (
        set(modes) <= GIT_MODES.keys()
        and len(set(names)) == len(names)  # no name twice, as a file and a folder neither
        and sorted(keys) == list(keys)
        and b"/" not in b"\0".join(names)
    )


_FOLDER = b"40000"


class Trees(Objects):
    """Trees read and compared (a part of `Repo`, store/git/repo.py)."""

    # recently compared trees, oldest first: the small (fan-outs, item folders) and the
    # large (the events tree itself, needed again only by the next commit)
    _trees: dict[str, TreeEntries]
    _large_trees: dict[str, TreeEntries]
    _kept: dict[bool, int]  # entries held: small, large

    def deltas(self, old: Oid | None, new: Oid, under: str) -> list[Delta]:
        """Paths in the root folder `under` that differ from commit `old` to `new`.

        Trees are compared by object id; no blob is read.
        """
        new_tree = self._subtree_or_none(new, under)
        old_tree = self._subtree_or_none(old, under) if old is not None else None
        if old_tree is None and new_tree is None:
            return []
        if old_tree is None:
            diff = new_tree.diff_to_tree(swap=True)
        elif new_tree is None:
            diff = old_tree.diff_to_tree()
        else:
            diff = old_tree.diff_to_tree(new_tree)
        names = {
            pygit2.enums.DeltaStatus.ADDED: "added",
            pygit2.enums.DeltaStatus.DELETED: "deleted",
            pygit2.enums.DeltaStatus.MODIFIED: "modified",
            pygit2.enums.DeltaStatus.TYPECHANGE: "typechange",
        }
        try:
            deltas = [
                Delta(
                    names.get(d.status, "other"),
                    f"{under}/{d.new_file.path or d.old_file.path}",
                    "" if d.status == pygit2.enums.DeltaStatus.DELETED else str(d.new_file.id),
                    d.new_file.mode,
                )
                for d in diff.deltas
            ]
        except (pygit2.GitError, OSError, KeyError) as exc:
            raise BadLedger(f"{under}: cannot compare {old} with {new} ({exc})") from None
        return deltas

    def changes(
        self,
        old: Oid | None,
        new: Oid,
        under: str,
        only: Callable[[str], bool] | None = None,
        empty: bool = False,
    ) -> list[Delta]:
        """What `deltas` finds, read level by level from the raw tree objects: only
        folders whose ids differ are opened, and each tree is parsed once while it
        is recent (a walk reads each commit's tree as a child, then as a parent).
        With `empty`, a new empty folder is named too, as added with its tree mode
        (libgit2 names none: it holds no file).

        libgit2's tree diff flattens both trees (~10 ms for a ledger of 3,000
        items against ~0.2 ms here), and a fetched history is compared commit by
        commit (docs/performance.md).
        """
        before = self._subtree_id(old, under) if old is not None else None
        found: list[Delta] = []
        self._compare(
            before, self._subtree_id(new, under), under, found, COMPARED_LEVELS, only, empty
        )
        return found

    def changes_in(
        self, old: Oid | None, new: Oid, under: str, folder: str, empty: bool = False
    ) -> list[Delta]:
        """`changes(old, new, under, folder.__eq__, empty)`, opening only that folder: a
        check that reads one fan-out folder at a time lists each level once, not the
        level above it each time."""
        path = f"{under}/{folder}"
        entries = [self._entry_at(commit, path) for commit in (old, new)]
        if any(entry is not None and entry.filemode != 0o040000 for entry in entries):
            return self.changes(old, new, under, folder.__eq__, empty)  # not a folder
        ids = [str(entry.id) if entry is not None else None for entry in entries]
        if ids[1] is None:
            return self.changes(old, new, under, folder.__eq__, empty)  # gone: named so
        found: list[Delta] = []
        if ids[0] is None:  # as `_compare` names a folder only the new tree holds
            self._came((TREE, ids[1]), path, found, COMPARED_LEVELS, empty)
        else:
            self._compare(ids[0], ids[1], path, found, COMPARED_LEVELS - 1, None, empty)
        return found

    def _entry_at(self, commit: Oid | None, path: str) -> Any:
        if commit is None:
            return None
        return entry_at(self.commit_tree(commit), path)

    def _subtree_id(self, commit: Oid, name: str) -> str | None:
        try:
            entry = self.commit_tree(commit)[name]
        except KeyError:
            return None
        return str(entry.id) if entry.filemode == 0o040000 else None

    def _compare(
        self,
        old: str | None,
        new: str | None,
        path: str,
        found: list[Delta],
        levels: int,
        only: Callable[[str], bool] | None = None,
        empty: bool = False,
    ) -> None:
        """Changed paths between two trees, the way libgit2's diff names them: a file
        whose kind changes (a file, a link, a folder) is deleted and added. Below
        `levels` folders, a changed folder is named itself (no ledger goes that deep)."""
        if old == new:
            return  # one tree: nothing changed below it
        before, after = self._raw_entries(old, path), self._raw_entries(new, path)
        if not before:  # all of it added (every folder of a first sync's first commit)
            self._added(after, path, found, levels, only, empty)
            return
        gone = dict(before.items() - after.items())
        came = dict(after.items() - before.items())
        if not gone:  # entries added only (what a fetched commit mostly does)
            self._added(came, path, found, levels, only, empty)
            return
        names = gone.keys() | came.keys()
        for name in sorted(names if only is None else filter(only, names)):
            was, now = gone.get(name), came.get(name)
            here = f"{path}/{name}"
            if was is None:  # added (what a fetched commit mostly does)
                self._came(came[name], here, found, levels, empty)
                continue
            if now is not None and _kind(was[0]) == _kind(now[0]) != TREE:
                found.append(Delta("modified", here, now[1], now[0]))
                continue
            if _kind(was[0]) != TREE:
                found.append(Delta("deleted", here))
            folders = [
                entry[1] if entry and _kind(entry[0]) == TREE else None for entry in (was, now)
            ]
            if folders != [None, None] and levels <= 0:
                status = "deleted" if now is None else "modified"
                found.append(Delta(status, here, now[1] if now else "", now[0] if now else 0))
            elif folders[0] is None and now is not None and folders[1] is not None:
                self._came(now, here, found, levels, empty)  # a file became a folder
            elif folders != [None, None]:
                self._compare(folders[0], folders[1], here, found, levels - 1, None, empty)
            if now is not None and _kind(now[0]) != TREE:
                found.append(Delta("added", here, now[1], now[0]))

    def _added(
        self,
        came: TreeEntries,
        path: str,
        found: list[Delta],
        levels: int,
        only: Callable[[str], bool] | None,
        empty: bool = False,
    ) -> None:
        """`_compare` of a tree with nothing: every file in it added, as libgit2 names them."""
        add, made = found.append, _added_delta
        for name in sorted(came if only is None else filter(only, came)):
            entry = came[name]
            if entry[0] & 0o170000 != TREE or levels <= 0:  # `_came` of a file, in line
                add(made(("added", f"{path}/{name}", entry[1], entry[0])))
            else:
                self._came(entry, f"{path}/{name}", found, levels, empty)

    def _came(
        self, entry: tuple[int, str], here: str, found: list[Delta], levels: int, empty: bool
    ) -> None:
        """An entry only the newer tree has: a file added, or a folder of files added (an
        empty one named itself, with `empty`)."""
        mode, oid = entry
        if mode & 0o170000 != TREE or levels <= 0:
            found.append(Delta("added", here, oid, mode))
            return
        entries = self._raw_entries(oid, here)
        if entries or not empty:
            self._added(entries, here, found, levels - 1, None, empty)
        else:
            found.append(Delta("added", here, oid, mode))

    def _raw_entries(self, oid: str | None, path: str) -> TreeEntries:
        """A tree's entries (name: (mode, id)), parsed from its raw bytes as git parses
        them, and refused unless they are as git writes them (`_as_git_writes`)."""
        if oid is None:
            return {}
        cached = self._trees.get(oid) or self._large_trees.get(oid)
        if cached is not None:
            return cached
        kind, data = self._read_or_missing(oid, path)
        if kind != pygit2.enums.ObjectType.TREE:
            raise BadLedger(f"{path}: has tree mode but is not a tree")
        parts = entry_parts(data)
        if parts is None:
            raise BadLedger(f"{path}: a tree object git could not read")
        modes, names, ids = parts
        if not _as_git_writes(modes, names):
            raise BadLedger(f"{path}: a tree whose entries are {NOT_AS_GIT_WRITES}")
        # a name that is not UTF-8 keeps its bytes as escapes, which no layout rule accepts
        found = dict(
            zip(
                [name.decode("utf-8", "surrogateescape") for name in names],
                zip(map(GIT_MODES.__getitem__, modes), map(bytes.hex, ids), strict=True),
                strict=True,
            )
        )
        large = len(found) > SMALL_TREE
        kept = self._large_trees if large else self._trees
        kept[oid] = found
        self._kept[large] += len(found)
        while self._kept[large] > ENTRIES_KEPT and len(kept) > 1:  # the oldest go first
            self._kept[large] -= len(kept.pop(next(iter(kept))))
        return found

    def check_written(self, oid: Any, path: str) -> None:
        """BadLedger unless the tree `oid`'s entries are as git writes them (see
        `_as_git_writes`): what a fetched ledger's listings are read through. The tree is
        read as `changes` reads it, and kept with the trees it compared."""
        self.written(oid, path)

    def listed(self, oid: Any, path: str) -> TreeEntries:
        """`written`'s entries, or, for a tree not as git writes it, its entries as libgit2
        reads them: a tree checked (or reported) where it was read first."""
        try:
            return self.written(oid, path)
        except BadLedger:
            return listing(self.tree(oid, path))

    def written(self, oid: Any, path: str) -> TreeEntries:
        """The entries (name: (mode, id)) of the tree `oid`, refused as `check_written`
        refuses it: how a check lists what it reads, each tree parsed once while it is
        recent. Shared with later reads: not to be changed."""
        return self._raw_entries(str(oid), path)

    def _subtree_or_none(self, commit: Oid, name: str) -> Any:
        root = self.commit_tree(commit)
        try:
            entry = root[name]
        except KeyError:
            return None
        return self.tree(entry.id, name) if entry.filemode == 0o040000 else None
