"""`ready` against a warm `list` on a ledger with links, in one command:

    python bench/ready_bench.py [--items 10000] [--links 5000] [--repeat 9] [--workdir DIR]

Builds a ledger of N items (5N events) of which L wait on an earlier item (a
`dep` event each), warms the read cache, then times whole-process
`git coop list --json` and `git coop ready --json` (and their text forms),
interleaved so load on the shared machine hits both alike, and prints a table
of medians with the ratio to the warm `list` (issue 18: at most 1.3x). It also
prints the third-party modules each process loaded: `ready` loads what `list`
does, and neither loads the MCP SDK.
"""

from __future__ import annotations

import argparse
import compileall
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
from run import env, floor_of, machine

TARGET = 1.3


def timed(cmd: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode()}")
    return elapsed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--links", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    compileall.compile_dir(Path(__file__).resolve().parent.parent / "gitcoop", quiet=1)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="coop-ready-bench-"))
    path = workdir / f"ledger-{args.items}-{args.links}"
    shutil.rmtree(path, ignore_errors=True)
    start = time.perf_counter()
    builder.build(path, args.items, links=args.links)
    built = time.perf_counter() - start
    commands = {
        "list --json (warm)": ["git", "coop", "list", "--json"],
        "ready --json": ["git", "coop", "ready", "--json"],
        "list (warm, text)": ["git", "coop", "list"],
        "ready (text)": ["git", "coop", "ready"],
    }
    for cmd in commands.values():  # warm the read cache (and the page cache)
        timed(cmd, path)
    listed = json.loads(
        subprocess.run(commands["ready --json"], cwd=path, env=env(), capture_output=True).stdout
    )
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for k in range(args.repeat):
        names = list(commands) if k % 2 == 0 else list(commands)[::-1]
        for name in names:
            samples[name].append(timed(commands[name], path))
    median = {name: statistics.median(s) * 1000 for name, s in samples.items()}
    base = {"json": median["list --json (warm)"], "text": median["list (warm, text)"]}
    lines = [
        *machine(),
        f"Ledger: {args.items:,} items, {5 * args.items + args.links:,} events, "
        f"{args.links:,} links (built in {built:.1f} s); `ready` lists {len(listed):,} items",
        "",
        "| command | median | ratio to warm `list` (same form) | modules |",
        "|---|---|---|---|",
    ]
    for name, cmd in commands.items():
        form = "json" if "json" in name else "text"
        modules = floor_of(cmd[2:], path)[0]
        ratio = median[name] / base[form]
        lines.append(f"| `{name}` | {median[name]:.0f} ms | {ratio:.2f}x | {modules} |")
    worst = max(
        median[n] / base["json" if "json" in n else "text"] for n in commands if "ready" in n
    )
    verdict = "met" if worst <= TARGET else "NOT met"
    lines += ["", f"`ready` within {TARGET}x a warm `list`: {verdict} ({worst:.2f}x)"]
    print("\n".join(lines))
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
