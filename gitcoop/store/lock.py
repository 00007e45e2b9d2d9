"""gitcoop's writer lock: a filelock in the common git dir, shared by all worktrees.

The only module that imports filelock (it costs ~45 ms, so reads never load it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from gitcoop.errors import ChangedUnderWrite
from gitcoop.store import environment

LOCK_NAME = "coop.lock"
DEFAULT_TIMEOUT = 30.0


class LockBusy(ChangedUnderWrite):
    """Another process holds gitcoop's lock past the bounded wait."""


def lock_path(common_dir: str) -> str:
    return os.path.join(common_dir, LOCK_NAME)


def load() -> None:
    """Import filelock now (while a fetch runs), not when the lock is first taken."""
    import filelock  # noqa: F401


@contextmanager
def writer_lock(common_dir: str, timeout: float = DEFAULT_TIMEOUT) -> Iterator[None]:
    with file_lock(lock_path(common_dir), timeout):
        yield


@contextmanager
def file_lock(path: str, timeout: float) -> Iterator[None]:
    """Hold the filelock at `path`; LockBusy after `timeout` seconds."""
    from filelock import FileLock, Timeout

    lock = FileLock(path, timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise LockBusy(
            f"the ledger lock {path} is still held by another gitcoop process after "
            f"{timeout:g}s — wait for it to finish, or stop it (git config coop.lockTimeout "
            "sets the wait)"
        ) from None
    except OSError as exc:  # a read-only repository, a full disk (caught after Timeout, one too)
        failed = environment.failure(exc, f"taking the ledger lock {path}")
        if failed is None:
            raise
        raise failed from None
    try:
        yield
    finally:
        lock.release()
