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
import json
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
from run import env, floor_of, machine
from sampling import fresh_ledger, medians

TARGET = 1.3


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--links", type=int, default=5_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    workdir, path, built = fresh_ledger(
        args.workdir,
        "coop-ready-bench-",
        f"ledger-{args.items}-{args.links}",
        lambda at: builder.build(at, args.items, links=args.links),
    )
    commands = {
        "list --json (warm)": ["git", "coop", "list", "--json"],
        "ready --json": ["git", "coop", "ready", "--json"],
        "list (warm, text)": ["git", "coop", "list"],
        "ready (text)": ["git", "coop", "ready"],
    }
    median = medians(commands, path, args.repeat)
    listed = json.loads(
        subprocess.run(commands["ready --json"], cwd=path, env=env(), capture_output=True).stdout
    )
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
