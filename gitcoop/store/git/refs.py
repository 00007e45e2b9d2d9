"""Refs, and the compare-and-swap that moves one.

Ref writes say what they guarantee: `swap` moves a ref from the tip that was read
to a new commit, or reports that someone else wrote first. It takes libgit2's
ref lock, re-reads the ref under it, and only then writes. A ref is read again
when libgit2 says it is missing but the files on disk hold it, and git's own
lock file on it, left by a dead writer, can be told stale and removed.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable, Iterator
from typing import Any

from gitcoop.domain.record_type import record_type
from gitcoop.errors import BadLedger, ChangedUnderWrite
from gitcoop.store.git import environment
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.objects import Oid

STALE_AFTER = 5.0  # seconds; git holds a ref lock for milliseconds


class RefLocked(ChangedUnderWrite):
    """git's own lock on the ref (`<ref>.lock`) is held: by a live git process or a dead one."""


@record_type
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


class Refs:
    """Reading and moving refs (a part of `Repo`, store/git/repo.py). A method whose
    `ref` is left out means the repository's `main_ref`."""

    raw: Any
    common_dir: str
    backoff: Backoff
    main_ref: str

    def tip(self, ref: str | None = None) -> Oid | None:
        """The commit a ref points at, or None only when the ref really does not exist.

        A transient I/O error can surface from libgit2 as "not found", so a missing
        ref is re-checked against the files on disk, and read errors are retried.
        """
        ref = self.main_ref if ref is None else ref
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

    def swap(self, old: Oid | None, new: Oid, message: str, ref: str | None = None) -> bool:
        """Compare-and-swap: move `ref` from `old` to `new`; False if it was not at `old`.

        RefLocked when git's lock on the ref cannot be taken (the caller decides
        whether the lock is stale); the ref is then untouched.
        """
        ref = self.main_ref if ref is None else ref
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
        assert ref != self.main_ref, "the main ref only moves by compare-and-swap"
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
        assert ref != self.main_ref, "the main ref only moves by compare-and-swap"
        with contextlib.suppress(KeyError, pygit2.GitError):
            self.raw.references.delete(ref)

    def ref_lock_path(self, ref: str | None = None) -> str:
        ref = self.main_ref if ref is None else ref
        return os.path.join(self.common_dir, *ref.split("/")) + ".lock"

    def ref_lock_age(self, now: float, ref: str | None = None) -> float | None:
        """Seconds since git's lock file on `ref` was last touched; None when there is none."""
        try:
            return now - os.stat(self.ref_lock_path(ref)).st_mtime
        except FileNotFoundError:
            return None

    def clear_stale_ref_lock(
        self,
        now: float,
        notice: Callable[[str], None],
        stale_after: float = STALE_AFTER,
    ) -> bool:
        """Remove the ref's `.lock` a dead writer left (older than `stale_after` seconds),
        with a one-line notice; True when it was stale. Call only under gitcoop's lock:
        while it is held, no other gitcoop writer can own git's lock on the ref."""
        age = self.ref_lock_age(now)
        if age is None or age < stale_after:
            return False
        if self.remove_ref_lock():
            notice(
                f"removed a stale {self.ref_lock_path()} ({age:.0f}s old, left by an "
                "interrupted writer)"
            )
        return True

    def remove_ref_lock(self, ref: str | None = None) -> bool:
        try:
            os.unlink(self.ref_lock_path(ref))
        except FileNotFoundError:
            return False
        return True

    def ensure_reflog(self, ref: str | None = None) -> None:
        """libgit2 logs a ref outside refs/heads only when its log file already exists."""
        ref = self.main_ref if ref is None else ref
        path = os.path.join(self.common_dir, "logs", *ref.split("/"))
        if os.path.exists(path):
            return
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "ab"):
                pass
        except OSError as exc:
            raise environment.failure(exc, f"creating {path}") or exc from None

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

    def head_sha(self) -> str | None:
        try:
            return None if self.raw.head_is_unborn else str(self.raw.head.target)
        except pygit2.GitError:
            return None
