"""Shadows doing the work in one process; gains a second core (docs/performance.md, "Two cores
for a large rebuild": ~42 us of CPU an item in each of two processes against 79 us in one);
held equal by tests/store/fast/test_split.py and the suite's run under `COOP_REFERENCE=1`.

Two ways to put a large piece of work on more than one core, and nothing else
needs to know how:

- `halves(work)`: work done in Python (a read cache rebuilt from every item
  file), which one process does on one core only. `work(1)` runs in a forked
  child and `work(0)` here, and both results come back; the child's is
  marshalled through a pipe, so it may only hold plain data. The child only
  reads the repository and writes files the cache replaces atomically; it never
  takes a lock or moves a ref, and it ends with `os._exit` (no interpreter
  teardown, no flush of this process's buffered output). It ends with this
  process, whatever ends it; and when this process's half stops (SIGTERM,
  Ctrl-C, an error), the child is stopped (by SIGTERM, so that it leaves no
  file half written), not waited for. Cores are those this process may run
  on (its affinity), not the machine's. Nothing is forked
  where it cannot help or is not safe: one core, no `os.fork`, or a process
  running threads (the MCP server). Then, or when the child fails for any
  reason but the `BadLedger` that `work` reports, `work(1)` runs here.
- `shares(items, work, smallest)`: work done by other programs (git checking
  signatures), which threads can wait for side by side: the items in one share
  per core, each at least `smallest` long (below that, starting the program
  costs more than the share), `work` of each run at once, the results in order.

Under `COOP_REFERENCE=1` both run everything in this process, one after another.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import signal
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from gitcoop.domain import progress
from gitcoop.errors import BadLedger
from gitcoop.store.fast import reference

PR_SET_PDEATHSIG = 1  # prctl(2): the signal a child gets when its parent ends

Item = TypeVar("Item")
Result = TypeVar("Result")


def halves(work: Callable[[int], Any]) -> tuple[Any, Any]:
    """(work(0), work(1)), the second in a child process when that is possible.

    A BadLedger raised by either half is raised here (this process's first); the
    child's result must be marshal-able.
    """
    if reference() or not _can_fork():
        return work(0), work(1)
    readable, writable = os.pipe()

    def child() -> None:
        os.close(readable)  # so that a write fails, not waits, once this process is gone
        _report(work, writable)

    pid = _fork(child)
    os.close(writable)
    if pid is None:
        os.close(readable)
        return work(0), work(1)
    pipe = os.fdopen(readable, "rb")
    try:
        mine = work(0)
        raw = pipe.read()
    except BaseException:  # SIGTERM, Ctrl-C, a refusal here: the other half is not wanted
        pipe.close()
        _end(pid)
        raise
    pipe.close()
    os.waitpid(pid, 0)
    try:
        kind, value = marshal.loads(raw)
    except (ValueError, EOFError, TypeError):
        kind, value = "lost", None  # the child died before it could say: do its half here
    if kind == "refused":
        raise BadLedger(str(value))
    return mine, value if kind == "done" else work(1)


def shares(
    items: Sequence[Item], work: Callable[[list[Item]], Result], smallest: int
) -> list[Result]:
    """`work` of each share of `items` (one per core, each at least `smallest` long),
    run side by side in threads: for work that waits on another program. An exception
    from any share is raised here."""
    everything = list(items)
    count = max(1, min(_cores(), len(everything) // max(1, smallest)))
    if reference() or count == 1:
        return [work(everything)]
    size = -(-len(everything) // count)
    parts = [everything[at : at + size] for at in range(0, len(everything), size)]
    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        return list(pool.map(work, parts))


def _can_fork() -> bool:
    threads = sys.modules.get("threading")
    if threads is not None and threads.active_count() > 1:
        return False
    return hasattr(os, "fork") and _cores() >= 2


def _cores() -> int:
    """The cores this process may run on (a process pinned to one, `taskset -c 0`, has one,
    whatever the machine has)."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _fork(work: Callable[[], None]) -> int | None:
    """Run `work` in a child process; its pid, or None when it cannot be started. The
    child ends when this process does, however it ends (`_ends_with`)."""
    parent = os.getpid()
    try:
        pid = os.fork()
    except OSError:
        return None
    if pid:
        return pid
    code = 1
    try:
        signal.signal(signal.SIGTERM, _stopped)  # whatever it was: `_end` asks with it
        _ends_with(parent)
        progress.silence()  # the parent alone tells how far the work has come
        work()
        code = 0
    finally:
        os._exit(code)


def _ends_with(parent: int) -> None:
    """Have the kernel end this child when its parent ends, even by SIGKILL (Linux's
    PR_SET_PDEATHSIG), rather than leave it working for nobody; and end it now if the
    parent has ended already."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes  # only a child loads it

            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:
        os._exit(1)


def _stopped(number: int, _frame: object) -> None:
    """SIGTERM in a child: leave through the `finally` blocks (a file being written is
    removed, not left half made), then `os._exit`."""
    raise SystemExit(128 + number)


def _end(pid: int) -> None:
    """Stop a child whose half is not wanted (SIGTERM: it leaves through its `finally`
    blocks), and reap it."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGTERM)
    with contextlib.suppress(OSError):
        os.waitpid(pid, 0)


def _report(work: Callable[[int], Any], writable: int) -> None:
    try:
        answer: tuple[str, Any] = ("done", work(1))
    except BadLedger as refused:
        answer = ("refused", refused.message)
    payload = marshal.dumps(answer)
    with os.fdopen(writable, "wb") as pipe:
        pipe.write(payload)
