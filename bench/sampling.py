"""What the one-purpose benchmarks share: a fresh ledger, and whole-process
commands timed interleaved, so load on the shared machine hits them all alike."""

from __future__ import annotations

import compileall
import shutil
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from run import env


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode()}")
    return elapsed


def fresh_ledger(
    workdir: str | None, prefix: str, name: str, build: Callable[[Path], object]
) -> tuple[Path, Path, float]:
    """(the work directory, a ledger built afresh in it, seconds the build took), with
    gitcoop's bytecode compiled as an install has it."""
    compileall.compile_dir(Path(__file__).resolve().parent.parent / "gitcoop", quiet=1)
    where = Path(workdir or tempfile.mkdtemp(prefix=prefix))
    path = where / name
    shutil.rmtree(path, ignore_errors=True)
    start = time.perf_counter()
    build(path)
    return where, path, time.perf_counter() - start


def medians(commands: dict[str, list[str]], path: Path, repeat: int) -> dict[str, float]:
    """Each command's median in ms over `repeat` rounds, after one warming run of each,
    the order reversed every other round."""
    for cmd in commands.values():  # warm the read cache (and the page cache)
        timed(cmd, path)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for k in range(repeat):
        names = list(commands) if k % 2 == 0 else list(commands)[::-1]
        for name in names:
            samples[name].append(timed(commands[name], path))
    return {name: statistics.median(s) * 1000 for name, s in samples.items()}
