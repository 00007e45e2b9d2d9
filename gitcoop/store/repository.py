"""The git repository, through pygit2: discovery, blobs, commits, the ref swap.

Ref writes say what they guarantee: `swap` moves the ledger ref from the tip
that was read to a new commit, or reports that someone else wrote first. It
takes libgit2's ref lock, re-reads the ref under it, and only then writes.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple, NewType

from gitcoop.domain.frozen import frozen
from gitcoop.domain.patterns import lazy
from gitcoop.errors import BadLedger, ChangedUnderWrite, NoLedger, UnsupportedRepository, UsageError
from gitcoop.store.fast import memory
from gitcoop.store.git import environment
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.ledger.codec import MAX_BYTES
from gitcoop.store.ledger.layout import REF

if TYPE_CHECKING:  # a write loads it (zlib, hashlib)
    from gitcoop.store.fast import packwrite

Oid = NewType("Oid", str)  # a 40-hex object id
TreeEntries = dict[str, tuple[int, str]]  # a tree's entries: name -> (mode, object id)
Sign = Callable[[bytes], str]  # a commit's bytes -> its armoured signature

MAX_FILE_BYTES_KEY = "coop.maxFileBytes"


STALE_AFTER = 5.0  # seconds; git holds a ref lock for milliseconds


def stderr_notice(message: str) -> None:
    print(f"gitcoop: {message}", file=sys.stderr)


class RefLocked(ChangedUnderWrite):
    """git's own lock on the ref (`<ref>.lock`) is held: by a live git process or a dead one."""


@frozen
class Backoff:
    """Bounded retries of transient failures: `attempts` tries, pauses doubling from `first`."""

    attempts: int = 4
    first: float = 0.02
    sleep: Callable[[float], None] = time.sleep

    def pauses(self) -> Iterator[None]:
        """Yields once per attempt, pausing between attempts (not before the first)."""
        delay = self.first
        for attempt in range(self.attempts):
            if attempt:
                self.sleep(delay)
                delay *= 2
            yield


WRITE_RETRIES = Backoff(attempts=8, first=0.005)  # a prune loop can strike a few times running


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


@frozen
class CommitInfo:
    """What the inbound check needs of one commit: its id, parents and author's email."""

    oid: Oid
    parents: tuple[Oid, ...]
    author: str


class Repo:
    """One opened repository; all pygit2 use goes through here or the store beside it."""

    def __init__(
        self, raw: Any, backoff: Backoff | None = None, overrides: dict[str, str] | None = None
    ) -> None:
        self.raw = raw
        self.git_dir: str = os.path.abspath(raw.path)
        self.common_dir = _common_dir(self.git_dir)
        self.backoff = backoff or Backoff()
        self.overrides = overrides or {}  # `git -c` values: they win over every config file
        # recently compared trees, oldest first: the small (fan-outs, item folders) and the
        # large (the events tree itself, needed again only by the next commit)
        self._trees: dict[str, TreeEntries] = {}
        self._large_trees: dict[str, TreeEntries] = {}
        self._kept = {False: 0, True: 0}  # entries held: small, large
        self._backend: Any = None  # the object store's first backend, once bulk reads use it
        self._max_file_bytes: int | None = None
        self._batch: list[Any] | None = None  # objects written inside `one_pack`
        self._keeps: list[str] = []  # of the packs written whose objects no ref names yet

    def __del__(self) -> None:
        """Close the pack files libgit2 holds open for this repository. pygit2's
        Repository is in a reference cycle (its branches, references, remotes), so only
        the cyclic collector frees it; a long-lived process (the MCP server, the tests)
        ran out of file descriptors, one for each pack of each repository it had opened.
        libgit2 reopens what a later read needs."""
        with contextlib.suppress(Exception):
            self.raw.free()

    # -- refs ---------------------------------------------------------------

    def tip(self, ref: str = REF) -> Oid | None:
        """The commit a ref points at, or None only when the ref really does not exist.

        A transient I/O error can surface from libgit2 as "not found", so a missing
        ref is re-checked against the files on disk, and read errors are retried.
        """
        problem = "it is missing from libgit2's view but present on disk"
        for _ in self.backoff.pauses():
            try:
                reference = self.raw.references.get(ref)
                if reference is not None:
                    return Oid(str(reference.resolve().target))
            except (pygit2.GitError, OSError) as exc:
                problem = str(exc) or type(exc).__name__
                continue
            if not self._ref_on_disk(ref):
                return None
        raise BadLedger(
            f"{ref}: cannot be read after {self.backoff.attempts} attempts ({problem}) — "
            "check the disk and run: git fsck"
        )

    def ref_age(self, ref: str) -> float | None:
        """Seconds since `ref` was last written here; None when that cannot be told (a
        packed ref, or none)."""
        try:
            written = os.stat(os.path.join(self.common_dir, *ref.split("/"))).st_mtime
        except OSError:
            return None
        return max(0.0, time.time() - written)

    def _ref_on_disk(self, ref: str) -> bool:
        if os.path.exists(os.path.join(self.common_dir, *ref.split("/"))):
            return True
        try:
            with open(os.path.join(self.common_dir, "packed-refs"), "rb") as packed:
                wanted = b" " + ref.encode() + b"\n"
                return any(line.endswith(wanted) for line in packed)
        except FileNotFoundError:
            return False

    def swap(self, old: Oid | None, new: Oid, message: str, ref: str = REF) -> bool:
        """Compare-and-swap: move `ref` from `old` to `new`; False if it was not at `old`.

        RefLocked when git's lock on the ref cannot be taken (the caller decides
        whether the lock is stale); the ref is then untouched.
        """
        try:
            with self.raw.transaction() as txn:
                try:
                    txn.lock_ref(ref)
                except (pygit2.GitError, OSError) as exc:
                    failed = environment.failure(exc, f"locking {ref}")
                    if failed is not None:
                        raise failed from None
                    raise RefLocked(f"cannot lock {ref}: {exc}") from None
                if self.tip(ref) != old:
                    return False
                txn.set_target(ref, pygit2.Oid(hex=new), message=message)
        except RefLocked:
            raise
        except (pygit2.GitError, OSError) as exc:
            failed = environment.failure(exc, f"moving {ref}")
            if failed is not None:
                raise failed from None
            if "lock" in str(exc):
                raise RefLocked(f"cannot lock {ref}: {exc}") from None
            raise ChangedUnderWrite(
                f"moving {ref} failed ({exc}) — nothing was recorded; retry"
            ) from None
        return True

    def note_ref(self, ref: str, new: Oid, message: str) -> None:
        """Point the bookkeeping `ref` at `new`, unless another process holds it right now
        (never the ledger's: that one moves by compare-and-swap only)."""
        assert ref != REF, "the ledger's ref only moves by compare-and-swap"
        with contextlib.suppress(pygit2.GitError, OSError):
            self.raw.create_reference_direct(ref, pygit2.Oid(hex=new), True, message=message)

    def noted(self, ref: str, message: str) -> Oid | None:
        """What the bookkeeping `ref` names, when the newest entry of its reflog is a
        `note_ref` with `message` that set it there (not a fetch, nor a hand's move
        since); else None."""
        try:
            reference = self.raw.references[ref]
            target = str(reference.resolve().target)
            newest = next(iter(reference.log()), None)
        except (KeyError, StopIteration, pygit2.GitError, ValueError):
            return None
        if newest is None or newest.message != message or str(newest.oid_new) != target:
            return None
        return Oid(target)

    def refs_under(self, prefix: str) -> list[tuple[str, Oid]]:
        """Every direct ref whose name starts with `prefix`, and the object it names."""
        found = []
        for name in self.raw.references:
            if name.startswith(prefix):
                with contextlib.suppress(KeyError, pygit2.GitError, ValueError):
                    found.append((name, Oid(str(self.raw.references[name].resolve().target))))
        return found

    def delete_ref(self, ref: str) -> None:
        """Remove `ref` when it exists (local bookkeeping refs only; never the ledger's)."""
        assert ref != REF, "the ledger's ref only moves by compare-and-swap"
        with contextlib.suppress(KeyError, pygit2.GitError):
            self.raw.references.delete(ref)

    def commit_author(self, commit: Oid) -> str | None:
        """The email of a commit's author, when the commit is here."""
        try:
            return _email(self._commit(commit))
        except BadLedger:
            return None

    def ref_lock_path(self, ref: str = REF) -> str:
        return os.path.join(self.common_dir, *ref.split("/")) + ".lock"

    def ref_lock_age(self, now: float, ref: str = REF) -> float | None:
        """Seconds since git's lock file on `ref` was last touched; None when there is none."""
        try:
            return now - os.stat(self.ref_lock_path(ref)).st_mtime
        except FileNotFoundError:
            return None

    def clear_stale_ref_lock(
        self,
        now: float,
        stale_after: float = STALE_AFTER,
        notice: Callable[[str], None] | None = None,
    ) -> bool:
        """Remove the ref's `.lock` a dead writer left (older than `stale_after` seconds),
        with a one-line notice; True when it was stale. Call only under gitcoop's lock:
        while it is held, no other gitcoop writer can own git's lock on the ref."""
        age = self.ref_lock_age(now)
        if age is None or age < stale_after:
            return False
        if self.remove_ref_lock():
            (notice or stderr_notice)(
                f"removed a stale {self.ref_lock_path()} ({age:.0f}s old, left by an "
                "interrupted writer)"
            )
        return True

    def remove_ref_lock(self, ref: str = REF) -> bool:
        try:
            os.unlink(self.ref_lock_path(ref))
        except FileNotFoundError:
            return False
        return True

    def commit_sha(self, text: str) -> str | None:
        """The full sha a revision names here (HEAD, a branch, a short sha), or None."""
        try:
            obj = self.raw.revparse_single(text)
            commit = obj.peel(pygit2.Commit)
        except (KeyError, ValueError, pygit2.GitError):
            return None
        return str(commit.id)

    def kind_named(self, text: str) -> str | None:
        """What a revision names here (commit, tree, blob, tag), or None when nothing."""
        try:
            return str(self.raw.revparse_single(text).type_str)
        except (KeyError, ValueError, pygit2.GitError):
            return None

    def remote_names(self) -> list[str]:
        """The configured git remotes, sorted."""
        try:
            return sorted(str(name) for name in self.raw.remotes.names())
        except pygit2.GitError:
            return []

    def fetched_ledgers(self) -> list[str]:
        """Remotes whose ledger has been fetched into refs/coop/remotes/<remote>/ledger."""
        prefix, suffix = "refs/coop/remotes/", "/ledger"
        names = [r for r in self.raw.references if r.startswith(prefix) and r.endswith(suffix)]
        return sorted(r[len(prefix) : -len(suffix)] for r in names)

    def ensure_reflog(self, ref: str = REF) -> None:
        """libgit2 logs a ref outside refs/heads only when its log file already exists."""
        path = os.path.join(self.common_dir, "logs", *ref.split("/"))
        if os.path.exists(path):
            return
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "ab"):
                pass
        except OSError as exc:
            raise environment.failure(exc, f"creating {path}") or exc from None

    # -- objects ------------------------------------------------------------

    def commit_tree(self, commit: Oid) -> Any:
        obj = self._commit(commit)
        try:
            return obj.tree
        except (KeyError, pygit2.GitError):
            raise BadLedger(f"{REF}: the tree of commit {commit} is missing") from None

    def _commit(self, commit: Oid) -> Any:
        try:
            obj = self.raw[commit]
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(f"{REF}: commit {commit} is missing from the object store") from None
        if obj.type != pygit2.enums.ObjectType.COMMIT:
            raise BadLedger(f"{REF}: points at a {obj.type_str}, not a commit")
        return obj

    def commit_summary(self, commit: Oid) -> tuple[str, datetime, str, str, str, bool]:
        """(sha, when, author's email, subject, rest of the message, is a merge) of a
        commit: what the board's activity view shows of each ledger commit."""
        obj = self._commit(commit)
        offset = timezone(timedelta(minutes=obj.author.offset))
        at = datetime.fromtimestamp(obj.author.time, UTC).astimezone(offset)
        message = obj.message or ""
        subject, _, body = message.partition("\n")
        merge = len(obj.parent_ids) > 1
        return str(obj.id), at, _email(obj), subject, body.strip(), merge

    def blob_at(self, commit: Oid, path: str) -> str | None:
        """The id of the file at `path` in `commit`'s tree; None when it holds none there."""
        try:
            entry = self.commit_tree(commit)[path]
        except KeyError:
            return None
        return str(entry.id) if entry.filemode != 0o040000 else None

    def kind_of(self, oid: Oid) -> str:
        """What git calls the object `oid` names: commit, tree, blob or tag."""
        try:
            return str(self.raw[oid].type_str)
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(f"object {oid} is missing from the object store") from None

    def commit_parents(self, commit: Oid) -> list[Oid]:
        return [Oid(str(p)) for p in self._commit(commit).parent_ids]

    def first_parents(self, tip: Oid) -> Iterator[Oid]:
        """`tip` and its first parent's first parent, and so on, to the root."""
        at: Oid | None = tip
        while at is not None:
            yield at
            parents = self._commit(at).parent_ids
            at = Oid(str(parents[0])) if parents else None

    def history(self, tip: Oid, limit: int | None = None) -> list[Oid]:
        """Commits reachable from `tip`, newest first (topological), at most `limit`."""
        found: list[Oid] = []
        walker = self.raw.walk(pygit2.Oid(hex=tip), pygit2.enums.SortMode.TOPOLOGICAL)
        for commit in walker:
            if limit is not None and len(found) >= limit:
                break
            found.append(Oid(str(commit.id)))
        return found

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

    def _entry_at(self, commit: Oid | None, path: str) -> Any:
        if commit is None:
            return None
        try:
            return self.commit_tree(commit)[path]
        except KeyError:
            return None

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
            elif folders[0] is None and now is not None:  # a file became a folder
                self._came(now, here, found, levels, empty)
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
        try:
            kind, data = self._object_reads()[1](oid)
        except (KeyError, ValueError, pygit2.GitError):
            kind, data = self._read_or_missing(oid, path)
        if kind != pygit2.enums.ObjectType.TREE:
            raise BadLedger(f"{path}: has tree mode but is not a tree")
        parts = _TREE_PARTS.findall(data)
        modes, names, ids = zip(*parts, strict=True) if parts else ((), (), ())
        # every byte in an entry, as git reads it: the entries found are disjoint, so they
        # cover the tree exactly when their lengths add up to its length
        if sum(map(len, modes)) + sum(map(len, names)) + 22 * len(parts) != len(data):
            raise BadLedger(f"{path}: a tree object git could not read")
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

    def _object_reads(self) -> tuple[Callable[[str], Any], Callable[[str], Any]]:
        """The header and object reads of bulk reads: the object store's, or, while a
        first sync checks what it fetched (`fetched_reads`), those of its first backend
        (the pack files). A backend's read gives the kind as a plain number where the
        object store's makes an enum of it in Python, and keeps no copy in libgit2's
        cache (the trees this class parses are kept here): ~60% of reading a small
        tree, ~25% of a small blob. It neither re-hashes what it reads (the object store
        does not either, inside `fetched_reads`) nor finds what another backend holds (a
        loose object, an alternate's pack), so a caller reads what it missed, or what
        failed, through the object store, which says what is wrong."""
        odb = self.raw.odb
        if not _fetched["on"]:
            return odb.read_header, odb.read
        if self._backend is None:
            self._backend = next(iter(odb.backends))
        return self._backend.read_header, self._backend.read

    def _read_or_missing(self, oid: str, path: str) -> tuple[int, bytes]:
        try:
            found: tuple[int, bytes] = self.raw.odb.read(oid)
        except (KeyError, ValueError, pygit2.GitError):
            raise BadLedger(f"{path}: object {oid} is missing from the object store") from None
        return found

    def check_written(self, oid: Any, path: str) -> None:
        """BadLedger unless the tree `oid`'s entries are as git writes them (see
        `_as_git_writes`): what a fetched ledger's listings are read through. The tree is
        read as `changes` reads it, and kept with the trees it compared."""
        self._raw_entries(str(oid), path)

    def _subtree_or_none(self, commit: Oid, name: str) -> Any:
        root = self.commit_tree(commit)
        try:
            entry = root[name]
        except KeyError:
            return None
        return self.tree(entry.id, name) if entry.filemode == 0o040000 else None

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
                f"{path}: file is {size} bytes, over the {cap}-byte cap "
                f"(git config {MAX_FILE_BYTES_KEY} raises it)"
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
        (header, read), blob = self._object_reads(), pygit2.enums.ObjectType.BLOB
        found = []
        for oid, path in wanted:
            try:
                kind, size = header(oid)
                if kind == blob and size <= cap:
                    found.append(read(oid)[1])
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

    def write_blob(self, data: bytes) -> Any:
        return self._writing(lambda: self.raw.create_blob(data))

    def tree_builder(self, tree: Any = None) -> Any:
        return self.raw.TreeBuilder(tree) if tree is not None else self.raw.TreeBuilder()

    def write_tree(self, builder: Any) -> Any:
        """The tree a `tree_builder` holds, written as an object."""
        return self._writing(builder.write)

    def write_commit(
        self,
        tree: Any,
        parents: Sequence[Oid],
        actor: str,
        when: datetime,
        message: str,
        sign: Sign | None = None,
    ) -> Oid:
        """A commit object by `actor`; with `sign`, signed in git's own format (gpgsig).

        The signature is made before anything is written, so a failure to sign
        leaves no commit behind.
        """
        signature = pygit2.Signature(actor, actor, int(when.timestamp()), 0)
        parent_ids = [pygit2.Oid(hex=p) for p in parents]
        if sign is None:
            oid = self._writing(
                lambda: self.raw.create_commit(
                    None, signature, signature, message, tree, parent_ids
                )
            )
            return Oid(str(oid))
        content = self.raw.create_commit_string(signature, signature, message, tree, parent_ids)
        armoured = sign(content.encode("utf-8"))
        oid = self._writing(lambda: self.raw.create_commit_with_signature(content, armoured))
        return Oid(str(oid))

    def commit_content(
        self,
        tree: bytes,
        beside: Any,
        parents: Sequence[Oid],
        actor: str,
        when: datetime,
        message: str,
    ) -> bytes:
        """The bytes of the unsigned commit of tree `tree` (a 20-byte id, of a `Pack` not
        yet written) that `write_commit` would write. libgit2 formats a commit only of a
        tree it can read, so it formats one of `beside` (a tree in the store; None: the
        empty tree, which libgit2 always has), and the first line, which names the
        tree, is then changed."""
        signature = pygit2.Signature(actor, actor, int(when.timestamp()), 0)
        parent_ids = [pygit2.Oid(hex=p) for p in parents]
        known = beside.id if beside is not None else pygit2.Oid(hex=EMPTY_TREE)
        made: str = self.raw.create_commit_string(signature, signature, message, known, parent_ids)
        first = f"tree {known}\n"
        if not made.startswith(first):
            raise ValueError("libgit2 wrote a commit that does not start with its tree")
        return f"tree {tree.hex()}\n".encode() + made[len(first) :].encode("utf-8")

    def write_pack(self, pack: packwrite.Pack) -> None:
        """The objects of `pack` into the object store, as one pack (store/fast/packwrite.py);
        synced when fsync is on. A full disk or a read-only repository is EnvironmentFailed."""
        if not pack.objects:
            return
        folder = os.path.join(self.common_dir, "objects", "pack")
        # again when a plain `git prune` took a temporary file away (it removes every tmp_)
        from gitcoop.store.fast import packwrite  # zlib, hashlib: no read needs them

        self._writing(lambda: packwrite.write(pack, folder, _fsync["on"], self._keeps) and None)

    def unkeep(self) -> None:
        """Let a repack have the packs `write_pack` made: call once the ref names their
        objects, or once they are given up (store/fast/packwrite.py says why they are kept)."""
        if self._keeps:
            from gitcoop.store.fast import packwrite

            packwrite.unkeep(self._keeps)

    @contextmanager
    def one_pack(self) -> Iterator[None]:
        """Objects written inside go into one pack: written loose without fsync, then
        packed together (libgit2 syncs the pack and its index once, when fsync is on),
        and their loose copies removed. A merge writes a few objects for every item it
        replays; an fsync for each was most of a large merge's time. The pack is kept
        until `unkeep`, as `write_pack`'s are."""
        synced, self._batch = _fsync["on"], []
        enable_fsync(False)
        try:
            yield
            written = list(dict.fromkeys(str(oid) for oid in self._batch))
        finally:
            self._batch = None
            enable_fsync(synced)
        if not written:
            return
        builder = pygit2.PackBuilder(self.raw)
        try:
            for oid in written:
                builder.add(pygit2.Oid(hex=oid))
        except KeyError:  # a `git prune --expire=now` took them while they were loose
            raise _pruned() from None
        import tempfile  # it loads `random`: only a merge needs it

        from gitcoop.store.fast import packwrite

        objects = os.path.join(self.common_dir, "objects")
        built = ""
        try:  # built beside the packs, where no prune looks, then moved in, kept
            built = tempfile.mkdtemp(prefix=packwrite.INCOMING, dir=objects)
            try:
                self._writing(lambda: builder.write(built))
            except KeyError:
                raise _pruned() from None
            packwrite.adopt(built, os.path.join(objects, "pack"), _fsync["on"], self._keeps)
        except OSError as exc:
            failed = environment.failure(exc, "writing to the object store")
            if failed is not None:
                raise failed from None
            raise
        finally:
            if built:
                shutil.rmtree(built, ignore_errors=True)
        loose = os.path.join(self.common_dir, "objects")
        for oid in written:  # now in the pack (git's prune-packed does the same)
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(loose, oid[:2], oid[2:]))

    def _writing(self, write: Callable[[], Any]) -> Any:
        """One object write: again when a concurrent prune took its folder away
        (docs/hardening.md); a full disk or a read-only repository is EnvironmentFailed."""
        problem = ""
        for _ in WRITE_RETRIES.pauses():
            try:
                written = write()
                if self._batch is not None and written is not None:
                    self._batch.append(written)
                return written
            except (pygit2.GitError, OSError) as exc:
                failed = environment.failure(exc, "writing to the object store")
                if failed is not None:
                    raise failed from None
                if not environment.transient(exc):
                    raise
                problem = str(exc)
        raise ChangedUnderWrite(
            f"writing to the object store kept failing ({problem}) — is a git gc or prune "
            "running in a loop? nothing was recorded; retry"
        )

    def merge_base(self, a: Oid, b: Oid) -> Oid | None:
        """The best common ancestor of two commits, or None for unrelated histories."""
        base = self.raw.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b))
        return Oid(str(base)) if base is not None else None

    def ahead_behind(self, local: Oid, upstream: Oid) -> tuple[int, int]:
        """Commits `local` has that `upstream` lacks, and the other way round."""
        ahead, behind = self.raw.ahead_behind(pygit2.Oid(hex=local), pygit2.Oid(hex=upstream))
        return int(ahead), int(behind)

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
        except (pygit2.GitError, OSError) as exc:
            failed = environment.failure(exc, f"writing git config {key}")
            raise failed or BadLedger(f"cannot write git config {key}: {exc}") from None

    def set_config_value(self, key: str, value: str) -> None:
        """Set a single-valued key in the repository's own config."""
        try:
            self.raw.config[key] = value
        except pygit2.GitError as exc:
            raise BadLedger(f"cannot write git config {key}: {exc}") from None

    def unset_config_value(self, key: str) -> None:
        try:
            del self.raw.config[key]
        except KeyError:
            pass
        except pygit2.GitError as exc:
            raise BadLedger(f"cannot write git config {key}: {exc}") from None

    def remove_config_value(self, key: str, value: str) -> bool:
        """Remove `value` from a key in the repository's own config; False when absent."""
        if value not in self.config_values(key):
            return False
        try:
            self.raw.config.delete_multivar(key, "^" + re.escape(value) + "$")
        except pygit2.GitError as exc:
            raise BadLedger(f"cannot write git config {key}: {exc}") from None
        return True

    def config_value(self, key: str) -> str | None:
        """A key's value: from `git -c` first, as git does, then the config files."""
        given = self.overrides.get(config_key(key))
        if given is not None:
            return given
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

    def ancestors(self, commit: Oid) -> frozenset[str]:
        """The ids of `commit` and every commit in its history."""
        try:
            return frozenset(str(c.id) for c in self.raw.walk(pygit2.Oid(hex=commit)))
        except (pygit2.GitError, KeyError, ValueError) as exc:
            raise BadLedger(f"commit {commit[:12]}: cannot walk its history ({exc})") from None

    def commits_since(self, tip: Oid, known: Oid | None) -> list[CommitInfo]:
        """Commits reachable from `tip` but not from `known`, parents before children."""
        walker = self.raw.walk(
            pygit2.Oid(hex=tip), pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
        )
        if known is not None:
            walker.hide(pygit2.Oid(hex=known))
        found: list[CommitInfo] = []
        try:
            for commit in walker:
                parents = tuple(Oid(str(p)) for p in commit.parent_ids)
                found.append(CommitInfo(Oid(str(commit.id)), parents, _email(commit)))
        except (pygit2.GitError, KeyError, ValueError) as exc:
            raise BadLedger(f"{REF}: the history of {tip} cannot be walked ({exc})") from None
        if known is not None and any(not info.parents for info in found):
            # the walk stops hiding by commit dates, and commits dated in the past (an
            # offline clone's COOP_NOW=1970) make it list some of `known`'s own history,
            # down to the root every related ledger shares: filter by its whole history
            held = self.ancestors(known)
            found = [info for info in found if info.oid not in held]
        return found

    def commits_between(self, old: str, new: str) -> Iterator[Any]:
        """Commits reachable from `new` but not from `old` (git's old..new), newest first."""
        walker = self.raw.walk(pygit2.Oid(hex=new), pygit2.enums.SortMode.TOPOLOGICAL)
        walker.hide(pygit2.Oid(hex=old))
        yield from walker

    def workdir(self) -> str | None:
        """The working tree's top folder, or None in a bare repository."""
        workdir: str | None = self.raw.workdir
        return workdir

    def config_int(self, key: str, default: int) -> int:
        """An integer as git reads it (`7k` is 7168); ValueError when git would refuse it."""
        try:
            return int(self.raw.config.get_int(key))
        except KeyError:
            return default
        except pygit2.GitError as exc:
            raise ValueError(f"git config {key}: {exc}") from None

    def config_bool(self, key: str, default: bool) -> bool:
        """A boolean as git reads it (true/yes/on/1); ValueError when git would refuse it."""
        try:
            return bool(self.raw.config.get_bool(key))
        except KeyError:
            return default
        except pygit2.GitError as exc:
            raise ValueError(f"git config {key}: {exc}") from None

    def config_number(self, key: str, default: float) -> float:
        """A non-negative number from git config, or `default` when unset."""
        value = self.config_value(key)
        if value is None:
            return default
        try:
            number = float(value)
        except ValueError:
            number = -1.0
        if number < 0:
            raise UsageError(f"git config {key} is {value!r}; it must be a non-negative number")
        return number

    @property
    def max_file_bytes(self) -> int:
        """The per-file cap on ledger blobs: git config coop.maxFileBytes, else 1 MiB.

        Local git config only: a ledger fetched from elsewhere cannot loosen it.
        """
        if self._max_file_bytes is None:
            self._max_file_bytes = int(self.config_number(MAX_FILE_BYTES_KEY, MAX_BYTES))
        return self._max_file_bytes

    def head_sha(self) -> str | None:
        try:
            return None if self.raw.head_is_unborn else str(self.raw.head.target)
        except pygit2.GitError:
            return None


# Entries of recently compared trees kept, small and large apart (~10 MB each): a
# fan-out or an item folder is compared again when the next commit that touches it
# is, often a thousand commits later; the events tree by the very next commit.
ENTRIES_KEPT = 100_000
SMALL_TREE = 256
COMPARED_LEVELS = 8  # a ledger's events/ holds three (fan-out, item, event file)
# One tree entry as git writes it: octal mode, space, name, NUL, a 20-byte object id.
NOT_AS_GIT_WRITES = (
    "not as git writes them (sorted, each name once, no / in a name, each mode spelt as "
    "git spells it) — a ledger gitcoop takes reads the same entry by entry and by path"
)
# each entry of a raw tree as git reads it: (mode, name, id)
_TREE_PARTS = lazy(rb"([0-7]+) ([^\0]+)\0(.{20})", re.S)
# each mode as git spells it, and what it reads as
GIT_MODES = {mode: int(mode, 8) for mode in (b"40000", b"100644", b"100755", b"120000", b"160000")}


TREE = 0o040000
EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _kind(mode: int) -> int:
    """A folder, a file (of any permissions), a link or a submodule."""
    return mode & 0o170000


def _as_git_writes(modes: Sequence[bytes], names: Sequence[bytes]) -> bool:
    """Whether a tree's entries are sorted by name, no name twice, none holding a `/`, and
    each mode spelt as git spells it.

    libgit2 finds a path in a tree by binary search, so a tree out of order reads one way
    entry by entry and another by path; and it reads a mode such as `644` or `0` as a
    file's, where git reads it as a submodule's (whose object no fetch brings) and writes
    a zero-padded one back unpadded (so the entry's bytes change). git's check of fetched
    objects refuses such trees, and objects a plain fetch brought skip that check. Git
    sorts a folder's name as if it ended in `/`; that differs from plain byte order only
    where one name is a prefix of another, and no two names the ledger's layout allows in
    one folder are (each level's names have one length), so a tree sorted by bytes but
    not in git's order is refused for its names anyway."""
    return (
        set(modes) <= GIT_MODES.keys()
        and sorted(set(names)) == list(names)  # in order, and none twice
        and b"/" not in b"\0".join(names)
    )


def _pruned() -> ChangedUnderWrite:
    return ChangedUnderWrite(
        "objects this merge had just written were removed under it — is a "
        "`git prune --expire=now` running? nothing was recorded; retry"
    )


def _email(commit: Any) -> str:
    """The author's email as written (undecodable bytes stay visible as escapes)."""
    raw: bytes = commit.author.raw_email
    return raw.decode("utf-8", errors="backslashreplace")


_fsync = {"on": False}  # libgit2's own default, until a write says otherwise


def enable_fsync(enabled: bool) -> None:
    pygit2.settings.enable_fsync_gitdir(enabled)
    _fsync["on"] = enabled


@contextmanager
def fetched_reads(fetched: bool) -> Iterator[None]:
    """Inside, with `fetched`, objects are read without hashing each again to compare it
    with its id: libgit2 does by default (with collision detection, ~2.5% of the check
    of a first sync), git's own reads do not, and `git index-pack` computed the id of
    every object a fetch brought from its content moments before."""
    if not fetched:
        yield
        return
    pygit2.settings.enable_strict_hash_verification(False)
    _fetched["on"] = True
    try:
        yield
    finally:
        _fetched["on"] = False
        pygit2.settings.enable_strict_hash_verification(True)


_fetched = {"on": False}  # inside `fetched_reads(True)`


# libgit2 caches no tree over 4 KiB, and the ledger's `items` and `events`
# trees hold up to 1,024 fan-out entries (~33 KiB): every path lookup through
# them inflated the tree again (0.23 ms; cached: 0.003 ms), several times per
# transition. The cache's total size stays libgit2's default (256 MiB).
TREE_CACHE_LIMIT = 1024 * 1024
OBJECT_CACHE_DEFAULT = 256 * 1024 * 1024  # libgit2's
# libgit2 keeps every pack file it has read open, without a limit by default; a process
# that syncs again and again (the MCP server) made packs faster than it closed any and
# ran out of file descriptors. Past this many, the least recently used is closed.
PACK_FILES_OPEN = 128


def library_versions() -> dict[str, str]:
    """pygit2's and libgit2's versions (for `git coop version`)."""
    return {"pygit2": str(pygit2.__version__), "libgit2": str(pygit2.LIBGIT2_VERSION)}  # type: ignore[attr-defined]


def open_repo(path: str, git_parameters: str = "") -> Repo:
    """The repository at or above `path` (plain, bare or a linked worktree).

    `git_parameters` is GIT_CONFIG_PARAMETERS as git exports it for `git -c
    key=value coop ...`; libgit2 does not read it, so its values are kept here.
    """
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, TREE_CACHE_LIMIT)
    if pygit2.settings.mwindow_file_limit == 0:  # libgit2's default: every pack stays open
        pygit2.settings.mwindow_file_limit = PACK_FILES_OPEN
    found = pygit2.discover_repository(path)
    if found is None:
        raise NoLedger(f"not a git repository (or any parent up to /): {os.path.abspath(path)}")
    try:
        raw = pygit2.Repository(found)
    except pygit2.GitError as exc:
        refuse_object_format(object_format(found))
        raise NoLedger(f"cannot open the git repository at {found}: {exc}") from None
    refuse_object_format(_config_format(raw.config))  # a libgit2 built to open SHA-256
    repo = Repo(raw, overrides=config_parameters(git_parameters))
    memory.keep(repo)  # its caches are freed by the process's end, not one by one
    return repo


FORMAT_KEY = "extensions.objectformat"
FORMAT_NAMES = {"sha256": "SHA-256"}


def object_format(git_dir: str) -> str | None:
    """extensions.objectFormat of the repository whose git dir is `git_dir` (in its common
    dir's config: a linked worktree's git dir names it in `commondir`), read without
    opening the repository, which is what fails when the format is not SHA-1."""
    common = git_dir
    named = os.path.join(git_dir, "commondir")
    with contextlib.suppress(OSError), open(named, encoding="utf-8") as handle:
        common = os.path.join(git_dir, handle.read().strip())
    config = os.path.join(common, "config")
    if not os.path.isfile(config):
        return None
    try:
        return _config_format(pygit2.Config(config))
    except pygit2.GitError:
        return None


def _config_format(config: Any) -> str | None:
    try:
        return str(config[FORMAT_KEY]).strip().lower()
    except (KeyError, ValueError, pygit2.GitError):
        return None


def refuse_object_format(found: str | None) -> None:
    """UnsupportedRepository unless the object format is SHA-1 (git's default, and all
    libgit2 as pygit2 ships it opens). One line, from every command, and the hooks
    journal what they are asked (docs/architecture.md, "SHA-256 repositories")."""
    if found is None or found == "sha1":
        return
    name = FORMAT_NAMES.get(found, found)
    raise UnsupportedRepository(
        f"this repository uses the {name} object format, which gitcoop does not support "
        "yet: libgit2, which gitcoop reads and writes git objects with, opens SHA-1 "
        "repositories only — use gitcoop in a SHA-1 repository (docs/architecture.md, "
        f"{name} repositories)",
        details={"object_format": found},
    )


def config_key(key: str) -> str:
    """git's spelling of a key for comparing: section and name are case-insensitive."""
    section, _, rest = key.partition(".")
    middle, dot, name = rest.rpartition(".")
    return f"{section.lower()}.{middle}{dot}{name.lower()}"


def config_parameters(text: str) -> dict[str, str]:
    """GIT_CONFIG_PARAMETERS as a dict: `'key'='value'` entries (git 2.31 on) or `'key=value'`.

    Each part is single-quoted by git, a quote inside written `'\\''` and a `!`
    written `'\\!'`; `'key'=` alone means true. git checked the text before it
    ran us; anything unreadable ends the parse, keeping what came before.
    """
    found: dict[str, str] = {}
    at = 0
    while at < len(text):
        if text[at].isspace():
            at += 1
            continue
        word, at = _dequoted(text, at)
        if word is None:
            break
        value: str | None
        if text[at : at + 1] == "=":  # 'key'='value' or 'key'=
            key, at = word, at + 1
            value, at = _dequoted(text, at) if text[at : at + 1] == "'" else (None, at)
        else:  # 'key=value' or 'key'
            key, sep, rest = word.partition("=")
            value = rest if sep else None
        found[config_key(key)] = "true" if value is None else value
    return found


def _dequoted(text: str, at: int) -> tuple[str | None, int]:
    """The single-quoted word starting at `at`, and where it ends (None: not quoted)."""
    if text[at : at + 1] != "'":
        return None, at
    parts: list[str] = []
    at += 1
    while True:
        end = text.find("'", at)
        if end < 0:
            return None, len(text)
        parts.append(text[at:end])
        at = end + 1
        if text[at : at + 1] == "\\" and text[at + 2 : at + 3] == "'":
            parts.append(text[at + 1])  # '\'' is a quote, '\!' an exclamation mark
            at += 3
            continue
        return "".join(parts), at


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
