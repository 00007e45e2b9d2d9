"""A transition's write path, before and after, in one run:

    python bench/write_path.py --base REV [--size 100000] [--repeat 21] [--grow 800]
                               [--workdir DIR]

Version REV (`git archive REV`) and this checkout each get their own copy of one
N-item ledger (`bench/ledger.py`), and each runs the same `git coop take` and
`git coop done` as whole processes, interleaved and alternating which goes first,
so load on the shared machine hits both alike. fsync is on and git's gc settings
are its defaults, except `gc.autoDetach` false: whatever upkeep a write starts (a
`git gc --auto`, a repack) runs inside that write's process, and its time is
counted in the write's (the medians hide an occasional one, the means show it).

Then each version makes `--grow` transitions more in one process (take and done,
fsync on, the same settings), timed as a whole with the git processes it waited
for, and `.git/objects` is measured: what a transition costs with its upkeep
amortized, and what it leaves on disk.

Written for the question of docs/performance.md, "The pack writer, measured
again": does gitcoop's own pack writer (REV) still save more than 10 % of a take
against libgit2's loose objects and git's own `gc --auto`? Run from a checkout of
that candidate (commit fe67d6b) with `--base` a version that has the pack writer.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
from run import GROW, HERE, Samples, Version, base_version, ids_of, machine, run_timed


def prepare(path: Path) -> None:
    for key, value in (("coop.fsync", "true"), ("gc.autoDetach", "false")):
        subprocess.run(["git", "config", key, value], cwd=path, check=True)


def cells(samples: Samples) -> tuple[float, float, float, float]:
    """Median wall, median CPU, mean wall, mean CPU, in ms."""
    walls, cpus = [s[0] * 1000 for s in samples], [s[1] * 1000 for s in samples]
    return (
        statistics.median(walls),
        statistics.median(cpus),
        statistics.fmean(walls),
        statistics.fmean(cpus),
    )


def objects_on_disk(path: Path) -> tuple[int, int, int]:
    """(bytes, loose objects, packs) under .git/objects."""
    objects = path / ".git" / "objects"
    size = sum(f.stat().st_size for f in objects.rglob("*") if f.is_file())
    loose = sum(1 for d in objects.glob("[0-9a-f][0-9a-f]") for _ in d.iterdir())
    return size, loose, len(list((objects / "pack").glob("*.pack")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the version to compare with (a commit)")
    parser.add_argument("--size", type=int, default=100_000, help="items in the ledger")
    parser.add_argument("--repeat", type=int, default=21, help="takes and dones per version")
    parser.add_argument("--grow", type=int, default=800, help="transitions in one process")
    parser.add_argument("--workdir", default=None, help="where to build (default: a temp dir)")
    args = parser.parse_args()
    work = Path(args.workdir or tempfile.mkdtemp(prefix="coop-write-path-"))
    work.mkdir(parents=True, exist_ok=True)
    versions = [base_version(args.base, work), Version("after", HERE, work)]
    print("\n".join(machine()), flush=True)

    built_at = work / "ledger"
    shutil.rmtree(built_at, ignore_errors=True)
    start = time.perf_counter()
    builder.build(built_at, args.size)
    built = time.perf_counter() - start
    prepare(built_at)
    copies = {}
    for version in versions:
        copies[version.name] = work / f"ledger-{version.name}"
        shutil.rmtree(copies[version.name], ignore_errors=True)
        shutil.copytree(built_at, copies[version.name], symlinks=True)
    pool = ids_of(built_at, "open")
    need = args.repeat + args.grow // 2
    if len(pool) < need:
        raise RuntimeError(f"only {len(pool)} open items, {need} needed")
    timed_ids, grow_ids = pool[: args.repeat], pool[args.repeat : need]

    samples: dict[str, dict[str, Samples]] = {
        verb: {v.name: [] for v in versions} for verb in ("take", "done")
    }
    for k, item in enumerate(timed_ids):
        for verb, extra in (("take", []), ("done", ["--summary", "s"])):
            for version in versions if k % 2 else list(reversed(versions)):
                cmd = ["git", "coop", verb, item, *extra]
                samples[verb][version.name].append(version.timed(cmd, copies[version.name]))

    names = [v.name for v in versions]
    lines = [
        f"### `take` and `done` at {args.size:,} items (built in {built:.1f} s), "
        f"{args.repeat} runs each",
        "",
        "Wall time, then CPU time of the process and all it ran, in ms; the saving is "
        f"what {names[0]} takes off {names[1]}'s time.",
        "",
        "| command | version | median wall | median CPU | mean wall | mean CPU |",
        "|---|---|---|---|---|---|",
    ]
    for verb, got in samples.items():
        found = {name: cells(got[name]) for name in names}
        for name in names:
            shown = " | ".join(f"{x:.1f}" for x in found[name])
            lines.append(f"| `{verb}` | {name} | {shown} |")
        before, after = found[names[0]], found[names[1]]
        pairs = zip(before, after, strict=True)
        saving = " | ".join(f"{(a - b) / a * 100:+.1f} %" for b, a in pairs)
        lines.append(f"| `{verb}` | saving | {saving} |")
    lines.append("")
    print("\n".join(lines), flush=True)

    lines = [
        f"### {2 * len(grow_ids)} transitions more in one process per version "
        "(take and done, fsync on)",
        "",
        "| version | wall per transition | CPU per transition | `.git/objects` before "
        "| after | growth per transition | loose objects after | packs after |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for version in versions:
        path = copies[version.name]
        size_before, _, _ = objects_on_disk(path)
        wall, cpu = run_timed(
            [sys.executable, "-c", GROW, str(version.root), *grow_ids], path, version.env
        )
        size, loose, packs = objects_on_disk(path)
        count = 2 * len(grow_ids)
        lines.append(
            f"| {version.name} | {wall / count * 1000:.1f} ms | {cpu / count * 1000:.1f} ms "
            f"| {size_before / 1e6:.1f} MB | {size / 1e6:.1f} MB "
            f"| {(size - size_before) / count / 1e3:.1f} KB | {loose} | {packs} |"
        )
    lines.append("")
    print("\n".join(lines), flush=True)
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
