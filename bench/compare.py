"""Two versions of gitcoop timed side by side, in one run, on the same ledger:

    python bench/compare.py REV [--items 10000] [--runs 9]

REV (a commit, branch or tag) is checked out into a temporary worktree and
compared with this checkout. Both run with the same interpreter and the same
installed libraries, each through a `git-coop` script of its own on PATH (so
the hooks call their own version too), with compiled bytecode as an install
has it. Each round times `take`, `show`, a text `list` and `list --json`
(warm but for the one item the take changed), `done` and a commit whose
`Coop-Done` trailer the post-commit hook records, on a fresh open todo each
time, and the two versions alternate which goes first. On a shared machine the ratio
of the medians is the figure to read, not the times.
"""

from __future__ import annotations

import argparse
import compileall
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder

HERE = Path(__file__).resolve().parent.parent
CASES = ("take", "show", "list", "list --json", "done", "Coop-Done commit")
SCRIPT = """#!{python}
import sys
sys.path.insert(0, {root!r})
from gitcoop.cli.main import run
run()
"""  # a Python script, so hooks installed by a version that names its script run that version


class Side:
    """One version of gitcoop: its source tree, its `git-coop` script, its copy of the ledger."""

    def __init__(self, name: str, root: Path, work: Path, ledger: Path) -> None:
        self.name = name
        self.root = root
        bin_dir = work / f"bin-{name}"
        bin_dir.mkdir()
        script = bin_dir / "git-coop"
        script.write_text(SCRIPT.format(root=str(root), python=sys.executable))
        script.chmod(0o755)
        compileall.compile_dir(root / "gitcoop", quiet=1)
        self.env = {
            **os.environ,
            "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            "COOP_ACTOR": builder.WORKER,
            "COOP_SESSION": "s-bench",
            "COOP_NOW": "2026-11-29T10:00:00Z",
        }
        self.repo = work / f"ledger-{name}"
        shutil.copytree(ledger, self.repo, symlinks=True)
        self.run("coop", "hooks", "install")
        self.wall: dict[str, list[float]] = {name: [] for name in CASES}
        self.cpu: dict[str, list[float]] = {name: [] for name in CASES}

    def run(self, *args: str, case: str | None = None) -> None:
        """Run one git command; for a case, keep its wall time and its processes' CPU time."""
        os.sync()  # no run pays for the writeback of the one before
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            ["git", *args], cwd=self.repo, env=self.env, capture_output=True, check=False
        )
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise RuntimeError(f"{self.name}: git {' '.join(args)}: {done.stderr.decode()}")
        if case is not None:
            self.wall[case].append(elapsed)
            cpu = after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime
            self.cpu[case].append(cpu)

    def round(self, take: str, trailer: str, n: int) -> None:
        self.run("coop", "take", take, case="take")
        self.run("coop", "show", take, case="show")
        self.run("coop", "list", case="list")
        self.run("coop", "list", "--json", case="list --json")
        self.run("coop", "done", take, "--summary", "s", case="done")
        (self.repo / "work.txt").write_text(f"{n}\n")
        self.run("add", "work.txt")
        message = f"Finish {n}\n\nCoop-Done: {trailer}"
        self.run("commit", "-q", "-m", message, case="Coop-Done commit")


def open_ids(path: Path) -> list[str]:
    import json

    done = subprocess.run(
        [sys.executable, "-c", "from gitcoop.cli.main import main; main()", "list", "--json"],
        cwd=path,
        capture_output=True,
        text=True,
        check=True,
    )
    return [item["id"] for item in json.loads(done.stdout) if item["status"] == "open"]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rev", help="the version to compare this checkout with")
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="coop-compare-"))
    before = work / "before"
    subprocess.run(
        ["git", "worktree", "add", "-q", "--detach", str(before), args.rev], cwd=HERE, check=True
    )
    try:
        ledger = work / "ledger"
        builder.build(ledger, args.items)
        subprocess.run(["git", "config", "gc.auto", "0"], cwd=ledger, check=True)
        ids = open_ids(ledger)[: 2 * args.runs + 2]
        sides = [Side(args.rev, before, work, ledger), Side("this checkout", HERE, work, ledger)]
        for n in range(args.runs + 1):
            take, trailer = ids[2 * n], ids[2 * n + 1]
            for side in sides if n % 2 else reversed(sides):
                side.round(take, trailer, n)
        print(f"{args.items:,} items; medians of {args.runs} alternating runs (the first,")
        print("which warms the page cache, left out); CPU is the time of every process it ran")
        print()
        print(f"| command | {sides[0].name} | this checkout | ratio | CPU ratio |")
        print("|---|---|---|---|---|")
        for name in CASES:
            old, new = (statistics.median(s.wall[name][1:]) * 1000 for s in sides)
            old_cpu, new_cpu = (statistics.median(s.cpu[name][1:]) for s in sides)
            print(
                f"| `{name}` | {old:.0f} ms | {new:.0f} ms | {new / old:.2f}x "
                f"| {new_cpu / old_cpu:.2f}x |"
            )
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(before)], cwd=HERE, check=False)
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
