"""The benchmark of docs/performance.md, in one command:

    python bench/run.py [--sizes 1000,10000,100000] [--quick] [--workdir DIR]

For each size it builds a ledger (N items, 5N events), then prints medians of
whole-process `git coop` commands beside the import floors measured in the
same run, in-process transitions per second beside a raw pygit2 loop doing
the same object writes with no rules or YAML (fsync on and off), and the
ledger's size after `git gc`. The machine is shared: compare ratios within
one run, not absolute times across runs.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
import pygit2

from gitcoop.service import ledger as service
from gitcoop.service.context import Context
from gitcoop.store.cache import cache_dir
from gitcoop.store.layout import REF

FLOOR_ALL = "import pygit2, ruamel.yaml, filelock, typer"
PROBE = """
import sys, os
from gitcoop.cli.main import main
main(sys.argv[1:])
site = [p for p in sys.path if p.endswith("site-packages")]
mods = sorted(n for n, m in list(sys.modules.items())
              if getattr(m, "__file__", None) and any(m.__file__.startswith(s) for s in site)
              and not n.startswith(("gitcoop", "_distutils_hack", "__editable__")))
sys.stderr.write("MODULES " + " ".join(mods) + "\\n")
"""


def env() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "COOP_ACTOR": builder.WORKER,
        "COOP_SESSION": "s-bench",
        "COOP_NOW": "2026-11-29T10:00:00Z",
    }


def timed(cmd: list[str], cwd: Path, before: object = None) -> float:
    if callable(before):
        before()
    os.sync()  # no run pays for the writeback of the one before (a cold list writes ~2 KB/item)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env(), capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode()}")
    return elapsed


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def floor_of(args: list[str], cwd: Path) -> tuple[str, float]:
    """The third-party modules a command's process loads, and the time to import just them."""
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        check=False,
    )
    line = [x for x in done.stderr.splitlines() if x.startswith("MODULES ")]
    modules = line[-1].split()[1:] if line else []
    tops = sorted({m.split(".")[0] for m in modules})
    code = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)"
    return ",".join(tops), code


def open_ids(path: Path, count: int) -> list[str]:
    done = subprocess.run(
        ["git", "coop", "list", "--json", "--status", "open"],
        cwd=path,
        env=env(),
        capture_output=True,
        text=True,
        check=True,
    )
    import json

    found = [entry["id"] for entry in json.loads(done.stdout)]
    random.Random(3).shuffle(found)
    if len(found) < count:
        raise RuntimeError(f"only {len(found)} open items, {count} needed")
    return found[:count]


def has_command(path: Path, name: str) -> bool:
    done = subprocess.run(
        ["git", "coop", name, "--help"], cwd=path, env=env(), capture_output=True, check=False
    )
    return done.returncode == 0


def in_process_seconds(path: Path, items: list[str], fsync: bool) -> float:
    """take + done through the service layer (every rule, YAML, lock, CAS)."""
    subprocess.run(
        ["git", "config", "coop.fsync", "true" if fsync else "false"], cwd=path, check=True
    )
    ctx = Context(
        path=str(path),
        actor=builder.WORKER,
        session="s-bench",
        now=datetime(2026, 11, 29, 10, tzinfo=UTC),
    )
    start = time.perf_counter()
    for item in items:
        service.act(ctx, item, "take", {})
        service.act(ctx, item, "done", {"summary": "benchmarked"})
    return time.perf_counter() - start


def raw_seconds(path: Path, items: list[str], fsync: bool) -> float:
    """The floor this design allows: the same blobs, trees, commit and ref swap, no rules."""
    pygit2.settings.enable_fsync_gitdir(fsync)
    repo = pygit2.Repository(str(path / ".git"))
    signature = pygit2.Signature("bench", builder.WORKER, 1767225600, 0)
    rng = random.Random(5)
    start = time.perf_counter()
    for n in range(2 * len(items)):
        item = items[n // 2]
        fan = item[3:5]
        tip = repo.references[REF].target
        root = repo[tip].tree
        # same sizes as gitcoop writes, still valid YAML (a trailing comment makes each new)
        noise = b"# %d\n" % rng.getrandbits(64)
        item_blob = repo.create_blob(repo[root[f"items/{fan}/{item}.yaml"].id].data + noise)
        event_blob = repo.create_blob(noise * 12)  # an event file is ~250 B
        config_blob = repo.create_blob(repo[root["coop.yaml"].id].data + noise)
        items_fan = repo.TreeBuilder(root[f"items/{fan}"])
        items_fan.insert(f"{item}.yaml", item_blob, pygit2.GIT_FILEMODE_BLOB)
        items_top = repo.TreeBuilder(root["items"])
        items_top.insert(fan, items_fan.write(), pygit2.GIT_FILEMODE_TREE)
        folder = repo.TreeBuilder(root[f"events/{fan}/{item}"])
        folder.insert(f"{n:012d}-ev-bench{n:07d}.yaml", event_blob, pygit2.GIT_FILEMODE_BLOB)
        events_fan = repo.TreeBuilder(root[f"events/{fan}"])
        events_fan.insert(item, folder.write(), pygit2.GIT_FILEMODE_TREE)
        events_top = repo.TreeBuilder(root["events"])
        events_top.insert(fan, events_fan.write(), pygit2.GIT_FILEMODE_TREE)
        top = repo.TreeBuilder(root)
        top.insert("coop.yaml", config_blob, pygit2.GIT_FILEMODE_BLOB)
        top.insert("items", items_top.write(), pygit2.GIT_FILEMODE_TREE)
        top.insert("events", events_top.write(), pygit2.GIT_FILEMODE_TREE)
        commit = repo.create_commit(None, signature, signature, "raw", top.write(), [tip])
        with repo.transaction() as txn:
            txn.lock_ref(REF)
            if repo.references[REF].target != tip:
                raise RuntimeError("raw loop lost its swap")
            txn.set_target(REF, commit, message="raw")
    return time.perf_counter() - start


def rates(path: Path, pool: list[str], fsync: bool, rounds: int = 4) -> tuple[float, float]:
    """Transitions/s of gitcoop and of the raw loop, in alternating rounds after a
    warm-up of each, so that the page cache and load favour neither."""
    chunk = len(pool) // (2 * rounds + 2)
    chunks = [pool[k * chunk : (k + 1) * chunk] for k in range(2 * rounds + 2)]
    os.sync()
    in_process_seconds(path, chunks[0], fsync)
    raw_seconds(path, chunks[1], fsync)
    mine = theirs = 0.0
    for k in range(rounds):
        ours, raw = chunks[2 + 2 * k], chunks[3 + 2 * k]
        if k % 2:
            theirs += raw_seconds(path, raw, fsync)
            mine += in_process_seconds(path, ours, fsync)
        else:
            mine += in_process_seconds(path, ours, fsync)
            theirs += raw_seconds(path, raw, fsync)
    transitions = 2 * chunk * rounds
    return transitions / mine, transitions / theirs


def size_after_gc(path: Path) -> float:
    subprocess.run(["git", "gc", "-q"], cwd=path, check=True)
    total = sum(f.stat().st_size for f in (path / ".git" / "objects").rglob("*") if f.is_file())
    return total / 1e6


def bench_size(n: int, workdir: Path, repeat: int, transitions: int) -> list[str]:
    path = workdir / f"ledger-{n}"
    shutil.rmtree(path, ignore_errors=True)
    start = time.perf_counter()
    builder.build(path, n)
    built = time.perf_counter() - start
    lines = [f"## {n:,} items, {builder.EVENTS_PER_ITEM * n:,} events (built in {built:.1f} s)", ""]
    git_coop = ["git", "coop"]
    cache = Path(cache_dir(str(path / ".git")))

    def drop_cache() -> None:
        shutil.rmtree(cache, ignore_errors=True)

    needed = 2 * transitions + 2 * transitions + repeat
    pool = open_ids(path, needed)
    take_ids, pool = pool[:repeat], pool[repeat:]
    subprocess.run(["git", "config", "coop.fsync", "true"], cwd=path, check=True)

    floors: dict[str, tuple[str, str]] = {}
    rows: list[tuple[str, float, str]] = []
    samples: dict[str, list[float]] = {}
    floor_samples: dict[str, list[float]] = {"all": []}
    commands: dict[str, list[list[str]]] = {
        "take": [[*git_coop, "take", i] for i in take_ids],
        "done": [[*git_coop, "done", i, "--summary", "s"] for i in take_ids],
        "list --json (cold)": [[*git_coop, "list", "--json"]] * repeat,
        "list --json (warm)": [[*git_coop, "list", "--json"]] * repeat,
        "show": [[*git_coop, "show", i] for i in take_ids],
    }
    if has_command(path, "owed"):
        commands["owed"] = [[*git_coop, "owed"]] * repeat
    else:
        lines.append("`owed`: not on this branch yet — skipped.")
    for name, runs in commands.items():
        floors[name] = floor_of(runs[0][2:], path) if name != "done" else floors["take"]
    for name in commands:
        samples[name] = []
        floor_samples[name] = []
    # interleave the runs so that load on the shared machine hits every column alike
    for k in range(repeat):
        floor_samples["all"].append(timed([sys.executable, "-c", FLOOR_ALL], path))
        for name, runs in commands.items():
            before = drop_cache if "cold" in name else None
            samples[name].append(timed(runs[k], path, before))
            floor_samples[name].append(timed([sys.executable, "-c", floors[name][1]], path))
    floor_all = median_ms(floor_samples["all"])
    lines += [
        f"Import floor `{FLOOR_ALL}`: {floor_all:.0f} ms",
        "",
        "| command | median | its import floor | ratio | ratio to full floor | modules |",
        "|---|---|---|---|---|---|",
    ]
    for name in commands:
        cmd_ms = median_ms(samples[name])
        floor_ms = median_ms(floor_samples[name])
        rows.append((name, cmd_ms, floors[name][0]))
        lines.append(
            f"| `{name}` | {cmd_ms:.0f} ms | {floor_ms:.0f} ms | {cmd_ms / floor_ms:.2f}x "
            f"| {cmd_ms / floor_all:.2f}x | {floors[name][0]} |"
        )
    lines += [
        "",
        "| in-process, take+done | gitcoop | raw pygit2 loop | ratio |",
        "|---|---|---|---|",
    ]
    for fsync in (False, True):
        share, pool = pool[: 2 * transitions], pool[2 * transitions :]
        rate, raw = rates(path, share, fsync)
        lines.append(
            f"| fsync {'on' if fsync else 'off'} | {rate:.0f}/s | {raw:.0f}/s | {rate / raw:.2f}x |"
        )
    lines += ["", f"Ledger size after `git gc`: {size_after_gc(path):.1f} MB", ""]
    return lines


def machine() -> list[str]:
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    return [
        f"Machine: {nproc} cores; Python {sys.version.split()[0]}; pygit2 {pygit2.__version__} "
        f"(libgit2 {pygit2.LIBGIT2_VERSION}); {git_version.strip()}",
        "",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated item counts")
    parser.add_argument("--quick", action="store_true", help="fewer repeats and transitions")
    parser.add_argument("--workdir", default=None, help="where to build (default: a temp dir)")
    args = parser.parse_args()
    repeat, transitions = (3, 40) if args.quick else (7, 80)
    import tempfile

    # an installed package has its bytecode compiled (pip does it); an editable
    # checkout under PYTHONDONTWRITEBYTECODE=1 would compile every module on
    # every run (~35 ms), which no user pays
    compileall.compile_dir(Path(__file__).resolve().parent.parent / "gitcoop", quiet=1)
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="coop-bench-"))
    workdir.mkdir(parents=True, exist_ok=True)
    out = machine()
    print("\n".join(out), flush=True)
    for n in (int(s) for s in args.sizes.split(",")):
        lines = bench_size(n, workdir, repeat, transitions)
        print("\n".join(lines), flush=True)
    if not args.workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
