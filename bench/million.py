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

`--syncs N` adds the sync a clone makes every day, N times: a copy of the 1M ledger as the
remote, 100 writes made there (`--sync-writes`), and a clone that had synced with it before
them fetching them by `git fetch` of the ledger ref, by `git coop sync`, and by a `take`
with claims through that remote (`coop.claims`, whose push the remote checks), each from a
fresh copy of that clone (its objects hard-linked), with wall time beside CPU.
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
    parser.add_argument("--syncs", type=int, default=0, help="rounds of a sync after writes")
    parser.add_argument("--sync-writes", type=int, default=100, help="writes on the remote")
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
    if args.syncs:
        print("\n".join(["", *bench_syncs(big, versions, work, args.syncs, args.sync_writes)]))
    return 0


# -- the sync a clone makes every day ----------------------------------------------------


def bench_syncs(
    big: Path, versions: list[bench.Version], work: Path, rounds: int, writes: int
) -> list[str]:
    """A clone that synced with a copy of `big` syncs again after `writes` writes there:
    by `git fetch` of the ledger ref, by `git coop sync`, and by a claim (`take` with
    `coop.claims`), each from a fresh copy of the clone. (wall s, CPU s, peak MB) each."""
    remote, clone = synced_pair(big, work, writes)
    taking = open_ids(remote)
    tip = git_out(remote, "rev-parse", builder.REF)
    runs: dict[str, list[Run]] = {}
    fetch = ["git", "fetch", "-q", "origin", f"+{builder.REF}:refs/coop/remotes/origin/ledger"]
    for k in range(rounds):
        copy = linked_copy(clone, work / "sync-copy")
        runs.setdefault("git fetch", []).append(bench.run_measured(fetch, copy, bench.env()))
        for version in versions if k % 2 == 0 else versions[::-1]:
            copy = linked_copy(clone, work / "sync-copy")
            sync = ["git", "coop", "sync", "origin"]
            runs.setdefault(f"sync {version.name}", []).append(
                bench.run_measured(sync, copy, version.env)
            )
            copy = linked_copy(clone, work / "sync-copy")
            subprocess.run(["git", "config", "coop.claims", "origin"], cwd=copy, check=True)
            take = ["git", "coop", "take", taking.pop()]
            runs.setdefault(f"claim {version.name}", []).append(
                bench.run_measured(take, copy, version.env)
            )
            subprocess.run(["git", "update-ref", builder.REF, tip], cwd=remote, check=True)
    shutil.rmtree(work / "sync-copy", ignore_errors=True)

    def cells(name: str) -> str:
        got = runs[name]
        wall, cpu = (statistics.median(r[i] for r in got) for i in (0, 1))
        return f"{wall:.2f} s | {cpu:.2f} s | {peak(got):.0f} MB"

    lines = [
        f"A sync after {writes} writes on the remote, at 1M (median of {rounds}; peak: the "
        "largest of the process and all it ran)",
        "",
        "| command | wall | CPU | peak RSS |",
        "|---|---|---|---|",
        f"| `git fetch` of the ledger ref | {cells('git fetch')} |",
    ]
    for version in versions:
        lines.append(f"| `git coop sync`, {version.name} | {cells(f'sync {version.name}')} |")
        lines.append(f"| `take` with claims, {version.name} | {cells(f'claim {version.name}')} |")
    return lines


def synced_pair(big: Path, work: Path, writes: int) -> tuple[Path, Path]:
    """(remote, clone), made once and kept for the next run: copies of `big`, the clone
    set up with the remote and synced, then `writes` writes (takes and dones) on the
    remote."""
    remote, clone = work / "sync-remote-1M", work / "sync-clone-1M"
    if (work / f"sync-pair-{writes}.done").exists():
        return remote, clone
    for path in (remote, clone):
        shutil.rmtree(path, ignore_errors=True)
        subprocess.run(["cp", "-a", str(big), str(path)], check=True)
    setup = [
        ["git", "remote", "add", "origin", str(remote)],
        ["git", "coop", "remote", "setup", "origin"],
        ["git", "config", "coop.remoteTimeout", "1h"],
        ["git", "coop", "sync", "origin"],
    ]
    for cmd in setup:
        subprocess.run(cmd, cwd=clone, env=bench.env(), capture_output=True, check=True)
    there = {**bench.env(), "COOP_SESSION": "s-remote"}
    for item in open_ids(remote)[: writes // 2]:
        for verb in (["take", item], ["done", item, "--summary", "s"]):
            subprocess.run(
                ["git", "coop", *verb], cwd=remote, env=there, capture_output=True, check=True
            )
    (work / f"sync-pair-{writes}.done").touch()
    return remote, clone


def linked_copy(source: Path, path: Path) -> Path:
    """A copy of a repository whose files are hard links to `source`'s, but for those
    git or gitcoop change in place (reflogs, FETCH_HEAD): every other file of a
    repository is replaced whole, never written into."""
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["cp", "-al", str(source), str(path)], check=True)
    for name in ("logs", "FETCH_HEAD"):
        inside = path / ".git" / name
        if inside.is_dir():
            shutil.rmtree(inside)
            shutil.copytree(source / ".git" / name, inside)
        elif inside.exists():
            inside.unlink()
            shutil.copy2(source / ".git" / name, inside)
    return path


def git_out(path: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=path, capture_output=True, text=True, check=True
    ).stdout.strip()


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
