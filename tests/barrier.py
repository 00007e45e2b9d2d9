"""Racing OS processes released together through a pipe, never by a wall clock.

Each racer runs a Python script that imports what it needs, then executes
`WAIT`: it says `ready` on stdout and blocks reading its stdin. The test
waits until every racer is ready (so interpreter start-up and imports are
not part of the race), then writes one line to each: they start within
microseconds of each other however slow the machine is, and no process
spins on a clock.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

WAIT = "import sys as _sys\nprint('ready', flush=True)\n_sys.stdin.readline()\n"

RUN_CLI = (
    "import sys\nfrom gitcoop.cli.main import main\n" + WAIT + "sys.exit(main(sys.argv[1:]))\n"
)


def start(
    script: str,
    args: Sequence[str] = (),
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.Popen[str]:
    """One racer running `script` (which must execute `WAIT` once) with `args`."""
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        env={**os.environ, **(env or {})},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def release(racers: Sequence[subprocess.Popen[str]]) -> None:
    """Wait until every racer is ready, then let them all go at once."""
    for racer in racers:
        assert racer.stdout is not None
        line = racer.stdout.readline()
        if line != "ready\n":
            _, err = racer.communicate(timeout=60)
            raise AssertionError(f"a racer never got ready: {line!r} {err}")
    for racer in racers:
        assert racer.stdin is not None
        racer.stdin.write("go\n")
        racer.stdin.flush()


def finish(
    racers: Sequence[subprocess.Popen[str]], timeout: float = 120
) -> list[tuple[int, str, str]]:
    """(exit code, stdout after `ready`, stderr) of every racer, in order."""
    done = []
    for racer in racers:
        out, err = racer.communicate(timeout=timeout)
        done.append((racer.returncode, out, err))
    return done
