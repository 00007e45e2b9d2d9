"""Ledger surgery for tests: raw object writes that bypass every check gitcoop makes.

Trees are written byte by byte, so they can hold what libgit2's tree builder
refuses (`..`, `.git`, `a/b`) and any mode; the ref is then moved with git.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2

from gitcoop.store.git import environment
from gitcoop.store.repository import WRITE_RETRIES

REF = "refs/coop/ledger"
BLOB, TREE, EXEC, LINK, GITLINK = 0o100644, 0o040000, 0o100755, 0o120000, 0o160000


class Surgery(pygit2.Repository):
    """A repository whose object writes try again when a folder vanished under them.

    A gitcoop write may start `git repack -d` in the background (store/ledger/upkeep.py),
    which removes the loose-object folders it empties, so a write here can lose its
    folder between libgit2 making it and renaming the object in; the store's own
    writes try again for the same reason (store/git/environment.py).
    """

    def create_blob(self, data: bytes) -> pygit2.Oid:
        return _again(super().create_blob, data)

    def create_commit(self, *args: Any) -> pygit2.Oid:
        return _again(super().create_commit, *args)

    def write(self, kind: int, data: bytes) -> pygit2.Oid:
        return _again(super().write, kind, data)


def _again(write: Callable[..., pygit2.Oid], *args: Any) -> pygit2.Oid:
    for _ in WRITE_RETRIES.pauses():
        try:
            return write(*args)
        except (pygit2.GitError, OSError) as exc:
            if not environment.transient(exc):
                raise
    return write(*args)


def open_raw(path: Path) -> Surgery:
    # fsync is a process-wide libgit2 setting; surgery needs no durability (every
    # gitcoop write sets it again for itself)
    pygit2.settings.enable_fsync_gitdir(False)
    return Surgery(str(path))


def write_tree(raw: Surgery, entries: dict[str, tuple[int, pygit2.Oid]]) -> pygit2.Oid:
    """A tree object with exactly these entries, sorted the way git sorts them."""

    def raw_name(name: str) -> bytes:  # a lone surrogate, as a hostile name may hold, too
        return name.encode("utf-8", "surrogatepass")

    def key(name: str) -> bytes:
        return raw_name(name + "/" if entries[name][0] == TREE else name)

    data = b"".join(
        b"%o %s\0" % (entries[name][0], raw_name(name)) + entries[name][1].raw
        for name in sorted(entries, key=key)
    )
    return raw.write(pygit2.enums.ObjectType.TREE, data)


Entry = tuple[bytes, bytes, pygit2.Oid]  # mode, name, object id, as a tree holds them


def raw_entries(raw: pygit2.Repository, oid: pygit2.Oid) -> list[Entry]:
    """A tree's entries as its bytes hold them, in their order."""
    data, found, at = raw.odb.read(oid)[1], [], 0
    while at < len(data):
        space = data.index(b" ", at)
        nul = data.index(b"\0", space)
        found.append(
            (data[at:space], data[space + 1 : nul], pygit2.Oid(raw=data[nul + 1 : nul + 21]))
        )
        at = nul + 21
    return found


def raw_tree(raw: pygit2.Repository, listed: list[Entry]) -> pygit2.Oid:
    """A tree object of exactly these entries, in this order (no check, as a peer may)."""
    data = b"".join(m + b" " + n + b"\0" + o.raw for m, n, o in listed)
    return raw.write(pygit2.enums.ObjectType.TREE, data)


def rewrite(
    raw: pygit2.Repository,
    oid: pygit2.Oid,
    parts: list[str],
    change: Callable[[list[Entry]], list[Entry]],
) -> pygit2.Oid:
    """The tree `oid` with its subtree at `parts` replaced by `change` of its entries."""
    if not parts:
        return raw_tree(raw, change(raw_entries(raw, oid)))
    return raw_tree(
        raw,
        [
            (m, n, rewrite(raw, o, parts[1:], change) if n == parts[0].encode() else o)
            for m, n, o in raw_entries(raw, oid)
        ],
    )


def _entries(
    raw: pygit2.Repository, tree_id: pygit2.Oid | None
) -> dict[str, tuple[int, pygit2.Oid]]:
    if tree_id is None:
        return {}
    return {e.name: (e.filemode, e.id) for e in raw[tree_id]}


def replaced(
    raw: pygit2.Repository,
    tree_id: pygit2.Oid | None,
    parts: list[str],
    leaf: tuple[int, pygit2.Oid] | None,
) -> pygit2.Oid:
    entries = _entries(raw, tree_id)
    name = parts[0]
    if len(parts) == 1:
        if leaf is None:
            entries.pop(name, None)
        else:
            entries[name] = leaf
    else:
        below = entries.get(name)
        child = below[1] if below is not None and below[0] == TREE else None
        entries[name] = (TREE, replaced(raw, child, parts[1:], leaf))
    return write_tree(raw, entries)


def tip(path: Path) -> str:
    return subprocess.run(
        ["git", "rev-parse", REF], cwd=path, capture_output=True, text=True, check=True
    ).stdout.strip()


def commit_tree(path: Path, tree: pygit2.Oid, message: str = "surgery") -> str:
    """Commit `tree` on top of the ledger's tip and move the ref there."""
    raw = open_raw(path)
    old = tip(path)
    sig = pygit2.Signature("mallory", "mallory@example.com", 1_800_000_000, 0)
    commit = raw.create_commit(None, sig, sig, message, tree, [pygit2.Oid(hex=old)])
    subprocess.run(["git", "update-ref", REF, str(commit), old], cwd=path, check=True)
    return str(commit)


def put(
    path: Path,
    parts: list[str],
    data: bytes | None = None,
    mode: int = BLOB,
    oid: pygit2.Oid | None = None,
) -> str:
    """Set (or with neither data nor oid, delete) the entry at `parts` in a new tip commit.

    `parts` are tree entry names, so one of them may itself contain a slash.
    """
    raw = open_raw(path)
    root = raw.revparse_single(REF).tree.id
    if oid is None and data is not None:
        oid = raw.create_blob(data)
    leaf = None if oid is None else (mode, oid)
    return commit_tree(path, replaced(raw, root, parts, leaf))


def read(path: Path, file: str) -> bytes:
    raw = open_raw(path)
    blob = raw.revparse_single(REF).tree[file]
    return bytes(raw[blob.id].data)


def nested_trees(path: Path, depth: int) -> pygit2.Oid:
    """A chain of `depth` trees, each holding the next under the name `d`."""
    raw = open_raw(path)
    tree = write_tree(raw, {"leaf.yaml": (BLOB, raw.create_blob(b"a: 1\n"))})
    for _ in range(depth):
        tree = write_tree(raw, {"d": (TREE, tree)})
    return tree
