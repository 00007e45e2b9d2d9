"""The git repository, through pygit2: discovery, blobs, commits, the ref swap.

Ref writes say what they guarantee: `swap` moves the ledger ref from the tip
that was read to a new commit, or reports that someone else wrote first. It
takes libgit2's ref lock, re-reads the ref under it, and only then writes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Any, NewType

import pygit2

from gitcoop.errors import BadLedger, NoLedger
from gitcoop.store.layout import REF

Oid = NewType("Oid", str)  # a 40-hex object id


class Repo:
    """One opened repository; all pygit2 use goes through here or the store beside it."""

    def __init__(self, raw: Any) -> None:
        self.raw = raw
        self.git_dir: str = os.path.abspath(raw.path)
        self.common_dir = _common_dir(self.git_dir)

    # -- refs ---------------------------------------------------------------

    def tip(self, ref: str = REF) -> Oid | None:
        """The commit a ref points at, or None when the ref does not exist."""
        try:
            reference = self.raw.references.get(ref)
        except pygit2.GitError as exc:
            raise BadLedger(f"{ref}: cannot be read ({exc})") from None
        if reference is None:
            return None
        target = reference.resolve().target
        return Oid(str(target))

    def swap(self, old: Oid | None, new: Oid, message: str, ref: str = REF) -> bool:
        """Compare-and-swap: move `ref` from `old` to `new`; False if it was not at `old`."""
        with self.raw.transaction() as txn:
            txn.lock_ref(ref)
            if self.tip(ref) != old:
                return False
            txn.set_target(ref, pygit2.Oid(hex=new), message=message)
        return True

    def ensure_reflog(self, ref: str = REF) -> None:
        """libgit2 logs a ref outside refs/heads only when its log file already exists."""
        path = os.path.join(self.common_dir, "logs", *ref.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.exists(path):
            with open(path, "ab"):
                pass

    # -- objects ------------------------------------------------------------

    def commit_tree(self, commit: Oid) -> Any:
        try:
            obj = self.raw[commit]
        except (KeyError, ValueError):
            raise BadLedger(f"{REF}: commit {commit} is missing from the object store") from None
        if obj.type != pygit2.enums.ObjectType.COMMIT:
            raise BadLedger(f"{REF}: points at a {obj.type_str}, not a commit")
        return obj.tree

    def commit_parents(self, commit: Oid) -> list[Oid]:
        return [Oid(str(p)) for p in self.raw[commit].parent_ids]

    def blob_bytes(self, oid: Any, path: str, cap: int) -> bytes:
        """A blob's content, its size checked before it is read."""
        kind, size = self.raw.odb.read_header(oid)
        if kind != pygit2.enums.ObjectType.BLOB:
            raise BadLedger(f"{path}: is not a blob")
        if size > cap:
            raise BadLedger(f"{path}: file is {size} bytes, over the {cap}-byte cap")
        data: bytes = self.raw[oid].data
        return data

    def write_blob(self, data: bytes) -> Any:
        return self.raw.create_blob(data)

    def tree_builder(self, tree: Any = None) -> Any:
        return self.raw.TreeBuilder(tree) if tree is not None else self.raw.TreeBuilder()

    def write_commit(
        self, tree: Any, parents: Sequence[Oid], actor: str, when: datetime, message: str
    ) -> Oid:
        signature = pygit2.Signature(actor, actor, int(when.timestamp()), 0)
        oid = self.raw.create_commit(
            None, signature, signature, message, tree, [pygit2.Oid(hex=p) for p in parents]
        )
        return Oid(str(oid))

    def merge_base(self, a: Oid, b: Oid) -> Oid | None:
        """The best common ancestor of two commits, or None for unrelated histories."""
        base = self.raw.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b))
        return Oid(str(base)) if base is not None else None

    def is_ancestor(self, ancestor: Oid, descendant: Oid) -> bool:
        if ancestor == descendant:
            return True
        return bool(self.raw.descendant_of(pygit2.Oid(hex=descendant), pygit2.Oid(hex=ancestor)))

    def read_tree(self, oid: Any) -> Any:
        return self.raw[oid]

    # -- config -------------------------------------------------------------

    def config_values(self, key: str) -> list[str]:
        """Every value of a multi-valued key (e.g. remote.origin.fetch)."""
        try:
            return [str(v) for v in self.raw.config.get_multivar(key)]
        except (KeyError, pygit2.GitError):
            return []

    def add_config_value(self, key: str, value: str) -> None:
        """Add `value` to a multi-valued key in the repository's own config."""
        try:
            self.raw.config.set_multivar(key, "^" + re.escape(value) + "$", value)
        except pygit2.GitError as exc:
            raise BadLedger(f"cannot write git config {key}: {exc}") from None

    def config_value(self, key: str) -> str | None:
        try:
            value = self.raw.config[key]
        except (KeyError, pygit2.GitError):
            return None
        return str(value)

    def has_commit(self, sha: str) -> bool:
        try:
            return bool(self.raw[sha].type == pygit2.enums.ObjectType.COMMIT)
        except (KeyError, ValueError):
            return False

    def commits_between(self, old: str, new: str) -> Iterator[Any]:
        """Commits reachable from `new` but not from `old` (git's old..new), newest first."""
        walker = self.raw.walk(pygit2.Oid(hex=new), pygit2.enums.SortMode.TOPOLOGICAL)
        walker.hide(pygit2.Oid(hex=old))
        yield from walker

    def workdir(self) -> str | None:
        """The working tree's top folder, or None in a bare repository."""
        workdir: str | None = self.raw.workdir
        return workdir

    def head_sha(self) -> str | None:
        try:
            return None if self.raw.head_is_unborn else str(self.raw.head.target)
        except pygit2.GitError:
            return None


def enable_fsync(enabled: bool) -> None:
    pygit2.settings.enable_fsync_gitdir(enabled)


def open_repo(path: str) -> Repo:
    """The repository at or above `path` (plain, bare or a linked worktree)."""
    found = pygit2.discover_repository(path)
    if found is None:
        raise NoLedger(f"not a git repository (or any parent up to /): {os.path.abspath(path)}")
    try:
        return Repo(pygit2.Repository(found))
    except pygit2.GitError as exc:
        raise NoLedger(f"cannot open the git repository at {found}: {exc}") from None


def _common_dir(git_dir: str) -> str:
    """A linked worktree's git dir names the shared one in its `commondir` file."""
    pointer = os.path.join(git_dir, "commondir")
    if os.path.exists(pointer):
        with open(pointer, encoding="utf-8") as handle:
            target = handle.read().strip()
        return os.path.normpath(os.path.join(git_dir, target))
    return git_dir


def init_repo(path: str, email: str) -> Repo:
    """A new empty repository with an identity, for the demo's throwaway repo."""
    raw = pygit2.init_repository(path, initial_head="main")
    raw.config["user.email"] = email
    raw.config["user.name"] = email.split("@")[0]
    return Repo(raw)
