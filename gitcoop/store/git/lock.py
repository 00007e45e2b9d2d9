"""gitcoop's writer lock: a filelock in the common git dir, shared by all worktrees.

The only module that imports filelock (it costs ~45 ms, so reads never load it).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager

from gitcoop.errors import ChangedUnderWrite
from gitcoop.store.git import environment

LOCK_NAME = "coop.lock"
TURN_NAME = "coop-claims.lock"  # whose turn it is to take a claim to the remote
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
def turn(common_dir: str, wait: float) -> Iterator[bool]:
    """Take turns, among this clone's processes, at deciding claims through the remote;
    yields whether the turn was had. The turn is only a courtesy: past `wait` seconds the
    claim goes ahead without it (the remote's compare-and-swap is what decides), and a
    process that dies gives its turn back with it (an flock)."""
    from filelock import FileLock, Timeout

    held = FileLock(os.path.join(common_dir, TURN_NAME), timeout=wait)
    try:
        held.acquire(poll_interval=0.005)  # a waiting clone-mate starts when the turn ends
    except (Timeout, OSError):  # busy past the wait, or a read-only repository
        yield False
        return
    try:
        yield True
    finally:
        held.release()


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
