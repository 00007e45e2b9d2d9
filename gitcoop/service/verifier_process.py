"""Running the verifier: one process group, the prompt on stdin, the tail of what it prints.

The verifier's command runs as `sh -c COMMAND` in a new session, so its whole
process group can be stopped. What it prints (stdout and stderr together) is
read as it comes and only the last `cap` bytes are kept: a transcript of any
size costs at most that much memory. The run ends when the main process
exits, even if a background child it started still holds the pipe open: the
verdict is judged on what was printed by then, and the rest of the group is
stopped. At the time cap the whole group is killed.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import IO

from gitcoop.domain.record_type import record_type

OUTPUT_CAP = 4 * 1024 * 1024
CHUNK = 64 * 1024
POLL = 0.05  # seconds between checks that the main process is still running
DRAIN_MAX = 1024 * 1024  # read after the main process exits, at most


@record_type
class Run:
    output: str
    exit_code: int | None  # None when it was stopped at the time cap or never started
    timed_out: bool


class Signalled(KeyboardInterrupt):
    """SIGINT or SIGTERM arrived while the verifier ran (`signum` names which): a
    KeyboardInterrupt, so no `except Exception` on the way stops it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


STOPPING = (signal.SIGINT, signal.SIGTERM)


@contextlib.contextmanager
def interrupts_raised() -> Iterator[None]:
    """Within: SIGINT and SIGTERM raise `Signalled`, so what is held can be given back
    (a SIGTERM would otherwise end the process where it stands). Only the main thread
    receives signals; elsewhere (a server's worker) nothing changes."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def raised(signum: int, frame: FrameType | None) -> None:
        raise Signalled(signum)

    saved = {sig: signal.signal(sig, raised) for sig in STOPPING}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


@contextlib.contextmanager
def interrupts_ignored() -> Iterator[None]:
    """Within: SIGINT and SIGTERM are ignored. Giving an item back is one short write a
    second Ctrl-C should not cut; the process is already stopping."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    saved = {sig: signal.signal(sig, signal.SIG_IGN) for sig in STOPPING}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


class Tail:
    """The last `cap` bytes of a stream, however long it runs."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()

    def add(self, chunk: bytes) -> None:
        self.data += chunk
        if len(self.data) > 2 * self.cap:
            del self.data[: -self.cap]

    def text(self) -> str:
        return bytes(self.data[-self.cap :]).decode("utf-8", errors="replace")


def run(command: str, prompt: str, cwd: str, timeout: float, cap: int = OUTPUT_CAP) -> Run:
    """Run `command` with `prompt` on stdin, for at most `timeout` seconds."""
    try:
        process = subprocess.Popen(
            ["sh", "-c", command],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return Run(f"could not start the verifier: {exc}", None, False)
    assert process.stdin is not None and process.stdout is not None
    tail = Tail(cap)
    try:
        timed_out = _pump(process, prompt.encode("utf-8"), tail, time.monotonic() + timeout)
    finally:
        _stop_group(process)
        process.stdin.close()
        process.stdout.close()
    if timed_out:
        return Run(tail.text(), None, True)
    return Run(tail.text(), process.wait(), False)


def _pump(process: subprocess.Popen[bytes], prompt: bytes, tail: Tail, deadline: float) -> bool:
    """Feed the prompt and read the output until the main process exits; True at the cap."""
    assert process.stdin is not None and process.stdout is not None
    out, into = process.stdout, process.stdin
    os.set_blocking(out.fileno(), False)
    os.set_blocking(into.fileno(), False)
    with selectors.DefaultSelector() as watch:
        watch.register(out, selectors.EVENT_READ)
        if prompt:
            watch.register(into, selectors.EVENT_WRITE)
        else:
            into.close()
        open_out = True
        while process.poll() is None:
            left = deadline - time.monotonic()
            if left <= 0:
                return True
            for key, _ in watch.select(min(left, POLL)):
                if key.fileobj is out:
                    open_out = _read(out, tail)
                    if not open_out:
                        watch.unregister(out)
                else:
                    prompt = _write(into, prompt)
                    if not prompt:
                        watch.unregister(into)
                        into.close()
            if not open_out and not prompt:
                _wait(process, deadline)
        if open_out:
            _drain(out, tail)
    return process.poll() is None


def _read(out: IO[bytes], tail: Tail) -> bool:
    """Read what is there; False at the end of the stream."""
    try:
        chunk = os.read(out.fileno(), CHUNK)
    except BlockingIOError:
        return True
    if chunk:
        tail.add(chunk)
    return bool(chunk)


def _write(into: IO[bytes], prompt: bytes) -> bytes:
    """Write what the pipe takes; the rest of the prompt, empty when done or unread."""
    try:
        written = os.write(into.fileno(), prompt[:CHUNK])
    except BlockingIOError:
        return prompt
    except (BrokenPipeError, OSError):
        return b""  # the verifier does not read its stdin: its choice
    return prompt[written:]


def _wait(process: subprocess.Popen[bytes], deadline: float) -> None:
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(max(deadline - time.monotonic(), 0))


def _drain(out: IO[bytes], tail: Tail) -> None:
    """What a background child had already printed when the main process exited."""
    read = 0
    while read < DRAIN_MAX:
        try:
            chunk = os.read(out.fileno(), CHUNK)
        except (BlockingIOError, OSError):
            return
        if not chunk:
            return
        tail.add(chunk)
        read += len(chunk)


def _stop_group(process: subprocess.Popen[bytes]) -> None:
    """Kill whatever is left of the verifier's process group, then reap the main process."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(5)
