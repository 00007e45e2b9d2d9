"""`list --grep`, `--since` and `--sort updated` against a warm `list`, in one command:

    python bench/search_bench.py [--items 10000] [--repeat 9] [--workdir DIR]

Builds a ledger of N items (5N events; a fifth of the items carry a note),
warms the read cache and the index of events (`store/fast/activity.py`) with one
run of each command, then times whole-process commands, interleaved so load
on the shared machine hits all alike, and prints a table of medians with the
ratio to the warm `list` of the same form (issue 19: a warm `list --grep`
within 1.3x).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
from run import env, machine
from sampling import fresh_ledger, medians, timed

TARGET = 1.3
COMMANDS = {
    "list --json (warm)": ["list", "--json"],
    "list --grep flaky --json": ["list", "--grep", "flaky", "--json"],
    "list --grep 'the cause' --json": ["list", "--grep", "the cause", "--json"],
    "list --grep nowhere --json": ["list", "--grep", "nowhere", "--json"],
    "list --since 1d --json": ["list", "--since", "1d", "--json"],
    "list --sort updated --json": ["list", "--sort", "updated", "--json"],
    "list (warm, text)": ["list"],
    "list --grep flaky (text)": ["list", "--grep", "flaky"],
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=9)
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    workdir, path, built = fresh_ledger(
        args.workdir,
        "coop-search-bench-",
        f"ledger-{args.items}",
        lambda at: builder.build(at, args.items),
    )
    commands = {name: ["git", "coop", *words] for name, words in COMMANDS.items()}
    cold = timed(commands["list --grep nowhere --json"], path)  # builds the index of events
    median = medians(commands, path, args.repeat)
    base = {"json": median["list --json (warm)"], "text": median["list (warm, text)"]}
    counts = {name: _count(cmd, path) for name, cmd in commands.items() if name.endswith("--json")}
    lines = [
        *machine(),
        f"Ledger: {args.items:,} items, {5 * args.items:,} events (built in {built:.1f} s); "
        f"the first `--grep` (the index of events built, the item rows warm): {cold:.1f} s",
        "",
        "| command | median | ratio to warm `list` (same form) | items listed |",
        "|---|---|---|---|",
    ]
    for name in commands:
        form = "json" if "json" in name else "text"
        listed = f"{counts[name]:,}" if name in counts else ""
        ratio = median[name] / base[form]
        lines.append(f"| `{name}` | {median[name]:.0f} ms | {ratio:.2f}x | {listed} |")
    greps = [n for n in commands if "--grep" in n]
    worst = max(median[n] / base["json" if "json" in n else "text"] for n in greps)
    verdict = "met" if worst <= TARGET else "NOT met"
    lines += ["", f"`list --grep` within {TARGET}x a warm `list`: {verdict} ({worst:.2f}x)"]
    print("\n".join(lines))
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


def _count(cmd: list[str], path: Path) -> int:
    import json

    done = subprocess.run(cmd, cwd=path, env=env(), capture_output=True, check=True)
    return len(json.loads(done.stdout))


if __name__ == "__main__":
    sys.exit(main())
