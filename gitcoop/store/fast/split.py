"""Splitting a large read between this process and one child, to use a second core.

A new clone's first read of the ledger (checking a fetched ledger, building
the read cache) parses every item and event: pure Python work that one core
does at a few hundred items per 100 ms. `halves(work)` runs `work(1)` in a
forked child and `work(0)` here, and returns both results; the child's comes
back marshalled through a pipe, so it may only hold plain data. The child
only reads the repository and writes files the cache replaces atomically; it
never takes a lock or moves a ref, and it ends with `os._exit` (no
interpreter teardown, no flush of this process's buffered output).

Nothing is forked where it cannot help or is not safe: one core, no
`os.fork`, or a process running threads (the MCP server). Then, or when the
child fails for any reason but the one `work` reports, `work(1)` runs here.
"""

from __future__ import annotations

import marshal
import os
import sys
from collections.abc import Callable
from typing import Any

from gitcoop.domain import progress
from gitcoop.errors import BadLedger


def can_fork() -> bool:
    threads = sys.modules.get("threading")
    if threads is not None and threads.active_count() > 1:
        return False
    return hasattr(os, "fork") and (os.cpu_count() or 1) >= 2


def fork(work: Callable[[], None]) -> int | None:
    """Run `work` in a child process; its pid, or None when it cannot be started."""
    if not can_fork():
        return None
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid:
        return pid
    code = 1
    try:
        progress.silence()  # the parent alone tells how far the work has come
        work()
        code = 0
    finally:
        os._exit(code)


def halves(work: Callable[[int], Any], split: bool = True) -> tuple[Any, Any]:
    """(work(0), work(1)), the second in a child process when `split` and possible.

    A BadLedger raised by either half is raised here (this process's first); the
    child's result must be marshal-able.
    """
    if not split or not can_fork():
        return work(0), work(1)
    readable, writable = os.pipe()
    pid = fork(lambda: _report(work, writable))
    os.close(writable)
    if pid is None:
        os.close(readable)
        return work(0), work(1)
    try:
        mine = work(0)
    finally:
        with os.fdopen(readable, "rb") as pipe:
            raw = pipe.read()
        os.waitpid(pid, 0)
    try:
        kind, value = marshal.loads(raw)
    except (ValueError, EOFError, TypeError):
        kind, value = "lost", None  # the child died before it could say: do its half here
    if kind == "refused":
        raise BadLedger(str(value))
    return mine, value if kind == "done" else work(1)


def _report(work: Callable[[int], Any], writable: int) -> None:
    try:
        answer: tuple[str, Any] = ("done", work(1))
    except BadLedger as refused:
        answer = ("refused", refused.message)
    payload = marshal.dumps(answer)
    with os.fdopen(writable, "wb") as pipe:
        pipe.write(payload)
