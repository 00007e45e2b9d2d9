"""Writes and peak memory at a million items (docs/performance.md, issue 43), without
`bench/run.py`'s whole matrix:

    python bench/million.py [--workdir /tmp/m1] [--base REV] [--repeat 11] [--cold 2]

Builds (once: kept in the work dir for the next run) the `--long 1000000:1000` ledger
and a `--long 10000:1000` one, then, in one run, alternating: `take ID` and `done ID
--summary s` on open items at 10k and at 1M against their import floor (`run.floor_of`),
the reading commands at 1M with their peak RSS, and `--cold` cold `list --json` runs
(the read cache deleted first), each followed by three warm ones. With `--base REV` each
command is also run by that version (`run.base_version`), alternating which goes first.
Figures are CPU time of the process and all it ran (medians) and peak RSS (the largest).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
import run as bench

Run = tuple[float, float, float]  # wall s, CPU s, peak MB
READS: dict[str, Callable[[str], list[str]]] = {
    "list --json": lambda _: ["list", "--json"],
    "list": lambda _: ["list"],
    "status": lambda _: ["status"],
    "owed": lambda _: ["owed"],
    "ready": lambda _: ["ready"],
    "show ID": lambda item: ["show", item],
}


def built(path: Path, n: int) -> Path:
    if not (path / ".git").exists():
        start = time.process_time()
        builder.build(path, n, unsettled=1000)
        for key, value in (("coop.fsync", "true"), ("gc.auto", "0")):
            subprocess.run(["git", "config", key, value], cwd=path, check=True)
        print(f"built {n} items in {time.process_time() - start:.0f} s of CPU", flush=True)
    return path


def open_ids(path: Path) -> list[str]:
    done = subprocess.run(
        ["git", "coop", "list", "--json", "--status", "open"],
        cwd=path,
        env=bench.env(),
        capture_output=True,
        text=True,
        check=True,
    )
    found = [entry["id"] for entry in json.loads(done.stdout)]
    random.Random(time.time_ns()).shuffle(found)  # items a run before has not taken
    return found


def cpu_ms(runs: list[Run]) -> float:
    return statistics.median(r[1] for r in runs) * 1000


def peak(runs: list[Run]) -> float:
    return max(r[2] for r in runs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workdir", default="/tmp/coop-million")
    parser.add_argument("--base", default=None, help="also run this version (a commit)")
    parser.add_argument("--repeat", type=int, default=11)
    parser.add_argument("--cold", type=int, default=2, help="cold list runs per version")
    args = parser.parse_args()
    work = Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    ledgers = {"10k": built(work / "ledger-10k", 10_000), "1M": built(work / "ledger-1M", 10**6)}
    versions = [bench.base_version(args.base, work)] if args.base else []
    versions.append(bench.Version("after", bench.HERE, work))
    print("\n".join(bench.machine()), flush=True)
    big = ledgers["1M"]
    if not (big / ".git" / "coop-cache").exists():
        bench.run_measured(["git", "coop", "list", "--json"], big, bench.env())
    writes: dict[tuple[str, str, str], list[Run]] = {}
    reads: dict[tuple[str, str], list[Run]] = {}
    floor: list[Run] = []
    free = {size: open_ids(path) for size, path in ledgers.items()}
    shown = free["1M"].pop()
    _, floor_code = bench.floor_of(["take", free["1M"][0]], big)
    for k in range(args.repeat):
        order = versions if k % 2 == 0 else versions[::-1]
        for verb in ("take", "done"):
            for size, path in ledgers.items():
                for version in order:
                    item = free[size][2 * k + versions.index(version)]
                    cmd = ["git", "coop", verb, item] + (
                        ["--summary", "s"] if verb == "done" else []
                    )
                    writes.setdefault((verb, size, version.name), []).append(
                        bench.run_measured(cmd, path, version.env)
                    )
            floor.append(bench.run_measured([sys.executable, "-c", floor_code], big, bench.env()))
        for name, args_of in READS.items():
            for version in order:
                cmd = ["git", "coop", *args_of(shown)]
                reads.setdefault((name, version.name), []).append(
                    bench.run_measured(cmd, big, version.env)
                )
    cold: dict[tuple[str, str], list[Run]] = {}
    for k in range(args.cold):
        for version in versions if k % 2 == 0 else versions[::-1]:
            shutil.rmtree(big / ".git" / "coop-cache", ignore_errors=True)
            runs = [bench.run_measured(["git", "coop", "list", "--json"], big, version.env)]
            cold.setdefault(("cold", version.name), []).extend(runs)
            for _ in range(3):
                runs = [bench.run_measured(["git", "coop", "list", "--json"], big, version.env)]
                cold.setdefault(("warm", version.name), []).extend(runs)
    report(versions, writes, reads, cold, floor)
    return 0


def report(
    versions: list[bench.Version],
    writes: dict[tuple[str, str, str], list[Run]],
    reads: dict[tuple[str, str], list[Run]],
    cold: dict[tuple[str, str], list[Run]],
    floor: list[Run],
) -> None:
    load = os.getloadavg()
    names = [v.name for v in versions]
    floor_ms = cpu_ms(floor)
    print(f"Import floor of take/done: {floor_ms:.0f} ms of CPU; load at the end {load[0]:.1f}")
    print("\n| command | " + " | ".join(f"{n}: CPU ms (÷ floor), peak MB" for n in names) + " |")
    print("|---|" + "---|" * len(names))
    for verb in ("take", "done"):
        for size in ("10k", "1M"):
            cells = [writes[verb, size, n] for n in names]
            shown = [f"{cpu_ms(c):.0f} ({cpu_ms(c) / floor_ms:.2f}x), {peak(c):.0f}" for c in cells]
            print(f"| `{verb}` at {size} | " + " | ".join(shown) + " |")
    for name in READS:
        cells = [reads[name, n] for n in names]
        print(
            f"| `{name}` at 1M | "
            + " | ".join(f"{cpu_ms(c):.0f}, {peak(c):.0f}" for c in cells)
            + " |"
        )
    for kind in ("cold", "warm"):
        cells = [cold.get((kind, n), []) for n in names]
        shown = [f"{cpu_ms(c):.0f}, {peak(c):.0f}" if c else "-" for c in cells]
        print(f"| {kind} `list --json` at 1M | " + " | ".join(shown) + " |")


if __name__ == "__main__":
    sys.exit(main())
