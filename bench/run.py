"""The benchmark of docs/performance.md, in one command:

    python bench/run.py [--sizes 1000,10000,100000] [--long 1000:1000,1000000:1000]
                        [--sync 10000] [--growth 5000] [--fsck 10000,100000]
                        [--base REV] [--rates] [--quick] [--workdir DIR]

For each ledger shape it builds a ledger (N items, 5N events: `--sizes` as
items ending open, taken or done; `--long N:U`, a long history of N items of
which only U are not settled; `1000000:1000` is the million-item shape, built
in one pack by `bench/packs.py`) and prints medians of whole-process `git coop`
commands beside the import floors measured in the same run. With `--base REV`
every command is also run by that version of gitcoop (`git archive REV`), on
its own copy of each ledger, alternating which goes first, so the before and
after columns come from one run. `--sync N` times a new clone's first
`git coop sync` of an N-item ledger against a plain `git fetch` of the same
ref (time and peak RSS), and the `list` that follows it; `--fsck N,...` times
a first `fsck` of an N-item ledger and one after 100 writes, with their peak
RSS; `--growth T` makes T transitions on a
packed 10,000-item ledger and measures how `.git/objects` grew, with no one
running `git gc`. `--rates` adds the in-process transition rates against a
raw pygit2 loop. The machine is shared: compare ratios within one run, not
absolute times across runs.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
import pygit2

HERE = Path(__file__).resolve().parent.parent
# pygit2 is imported as gitcoop imports it (store/git/libgit2.py: without parsing the CA
# bundle), so that saving does not flatter a command's ratio to its floor.
PYGIT2 = "from gitcoop.store.git.libgit2 import pygit2"
FLOOR_ALL = f"{PYGIT2}\nimport ruamel.yaml, filelock, typer"
PROBE = """
import sys, os
from gitcoop.cli import main as cli
cli.main(sys.argv[1:])
sys.stderr.write(f"GC {getattr(cli, 'COMMAND_GC_THRESHOLD', 700)}\\n")
site = [p for p in sys.path if p.endswith("site-packages")]
mods = sorted(n for n, m in list(sys.modules.items())
              if getattr(m, "__file__", None) and any(m.__file__.startswith(s) for s in site)
              and not n.startswith(("gitcoop", "_distutils_hack", "__editable__")))
sys.stderr.write("MODULES " + " ".join(mods) + "\\n")
"""
SCRIPT = """#!{python}
import sys
sys.path.insert(0, {root!r})
from gitcoop.cli.main import run
run()
"""
GROW = """
import sys
sys.path.insert(0, sys.argv[1])
from datetime import UTC, datetime
from gitcoop.service import ledger
from gitcoop.service.context import Context
ctx = Context(path=".", actor="bob@example.com", session="s-grow",
              now=datetime(2026, 11, 29, 10, tzinfo=UTC))
for item in sys.argv[2:]:
    ledger.act(ctx, item, "take", {})
    ledger.act(ctx, item, "done", {"summary": "grown"})
"""
NOW = "2026-11-29T10:00:00Z"


def env(bin_dir: Path | None = None) -> dict[str, str]:
    """The environment of a `git coop` run: this interpreter's bin dir (or a version's) first."""
    first = str(bin_dir or Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": first + os.pathsep + os.environ.get("PATH", ""),
        "COOP_ACTOR": builder.WORKER,
        "COOP_SESSION": "s-bench",
        "COOP_NOW": NOW,
    }


class Version:
    """One gitcoop: its source tree, and a `git-coop` script of its own on PATH."""

    def __init__(self, name: str, root: Path, work: Path) -> None:
        self.name = name
        self.root = root
        bin_dir = work / f"bin-{name}"
        bin_dir.mkdir(parents=True, exist_ok=True)
        script = bin_dir / "git-coop"
        script.write_text(SCRIPT.format(python=sys.executable, root=str(root)))
        script.chmod(0o755)
        # an install has its bytecode compiled; an editable checkout would compile on every run
        compileall.compile_dir(root / "gitcoop", quiet=1)
        self.env = env(bin_dir)

    def timed(
        self, cmd: list[str], cwd: Path, before: Callable[[], None] | None = None
    ) -> tuple[float, float]:
        """(wall, CPU) seconds of one process and everything it ran."""
        if before is not None:
            before()
        return run_timed(cmd, cwd, self.env)


def run_timed(cmd: list[str], cwd: Path, environment: dict[str, str]) -> tuple[float, float]:
    os.sync()  # no run pays for the writeback of the one before (a cold list writes a lot)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=environment, capture_output=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed: {done.stderr.decode()}")
    cpu = after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime
    return elapsed, cpu


def run_measured(
    cmd: list[str], cwd: Path, environment: dict[str, str]
) -> tuple[float, float, float]:
    """(wall, CPU) seconds and peak RSS (MB) of one process and everything it ran: its own
    rusage from wait4, so the peak is this run's, not the largest of the bench's."""
    os.sync()
    start = time.perf_counter()
    process = subprocess.Popen(
        cmd, cwd=cwd, env=environment, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    assert process.stderr is not None
    err = process.stderr.read()
    _, status, used = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    elapsed = time.perf_counter() - start
    if process.returncode not in (0, 1):  # fsck exits 1 on breaches, reported by the caller
        raise RuntimeError(f"{' '.join(cmd)} failed: {err.decode()}")
    return elapsed, used.ru_utime + used.ru_stime, used.ru_maxrss / 1024


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


Samples = list[tuple[float, float]]  # (wall, CPU) seconds


def medians(samples: Samples) -> tuple[float, float]:
    """Median wall and median CPU time, in ms."""
    return median_ms([s[0] for s in samples]), median_ms([s[1] for s in samples])


def floor_of(args: list[str], cwd: Path) -> tuple[str, str]:
    """The third-party modules a command's process loads, and code importing just them,
    in a process whose cycle collector is set as the command's is (cli/main.py)."""
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
    threshold = [x.split()[1] for x in done.stderr.splitlines() if x.startswith("GC ")]
    collector = f"import gc\ngc.set_threshold({threshold[-1] if threshold else 700}, 10, 10)\n"
    first = f"{PYGIT2}\n" if "pygit2" in tops else ""
    load = f"import importlib\nfor m in {modules!r}:\n    importlib.import_module(m)"
    code = f"{collector}{first}{load}"
    return ",".join(tops), code


def timed(cmd: list[str], cwd: Path) -> tuple[float, float]:
    """A process of this checkout's environment (the import floors): (wall, CPU) seconds."""
    return run_timed(cmd, cwd, env())


def ids_of(path: Path, status: str) -> list[str]:
    done = subprocess.run(
        ["git", "coop", "list", "--json", "--status", status],
        cwd=path,
        env=env(),
        capture_output=True,
        text=True,
        check=True,
    )
    found = [entry["id"] for entry in json.loads(done.stdout)]
    random.Random(3).shuffle(found)
    return found


def drop_cache(path: Path) -> Callable[[], None]:
    return lambda: shutil.rmtree(path / ".git" / "coop-cache", ignore_errors=True)


# -- one ledger shape -------------------------------------------------------------------


def bench_shape(
    label: str, build: Callable[[Path], None], versions: list[Version], work: Path, repeat: int
) -> tuple[list[str], dict[str, dict[str, float]]]:
    """Every command on one shape, by every version; (table lines, {command: {version: ms}})."""
    built_at = work / f"ledger-{label}"
    shutil.rmtree(built_at, ignore_errors=True)
    start = time.perf_counter()
    build(built_at)
    built = time.perf_counter() - start
    subprocess.run(["git", "config", "coop.fsync", "true"], cwd=built_at, check=True)
    subprocess.run(["git", "config", "gc.auto", "0"], cwd=built_at, check=True)  # no gc mid-run
    copies = {}
    for version in versions:
        copies[version.name] = work / f"ledger-{label}-{version.name}"
        shutil.rmtree(copies[version.name], ignore_errors=True)
        shutil.copytree(built_at, copies[version.name], symlinks=True)
    take_ids = ids_of(built_at, "open")[:repeat]
    if len(take_ids) < repeat:
        raise RuntimeError(f"{label}: only {len(take_ids)} open items")
    commands: dict[str, list[list[str]]] = {
        "take": [["git", "coop", "take", i] for i in take_ids],
        "done": [["git", "coop", "done", i, "--summary", "s"] for i in take_ids],
        "list --json (cold)": [["git", "coop", "list", "--json"]] * repeat,
        "list --json (warm)": [["git", "coop", "list", "--json"]] * repeat,
        "list (warm, text)": [["git", "coop", "list"]] * repeat,
        "owed": [["git", "coop", "owed"]] * repeat,
        "ready": [["git", "coop", "ready"]] * repeat,
        "show": [["git", "coop", "show", i] for i in take_ids],
        "status": [["git", "coop", "status"]] * repeat,
        "list --grep": [["git", "coop", "list", "--grep", "flaky"]] * repeat,
    }
    floors = {name: floor_of(runs[0][2:], built_at) for name, runs in commands.items()}
    floors["done"] = floors["take"]
    samples: dict[str, dict[str, Samples]] = {
        name: {v.name: [] for v in versions} for name in commands
    }
    floor_samples: dict[str, Samples] = {name: [] for name in [*commands, "all"]}
    for k in range(repeat):  # interleaved, so load on the shared machine hits every column alike
        floor_samples["all"].append(timed([sys.executable, "-c", FLOOR_ALL], built_at))
        for name, runs in commands.items():
            for version in versions if k % 2 else list(reversed(versions)):
                path = copies[version.name]
                before = drop_cache(path) if "cold" in name else None
                samples[name][version.name].append(version.timed(runs[k], path, before))
            floor_samples[name].append(timed([sys.executable, "-c", floors[name][1]], built_at))
    wall_all, cpu_all = medians(floor_samples["all"])
    lines = [f"### {label} (built in {built:.1f} s)", ""]
    shown = FLOOR_ALL.replace("\n", "; ")
    lines += [f"Import floor `{shown}`: {wall_all:.0f} ms (CPU {cpu_all:.0f} ms)", ""]
    lines += [
        "Each cell: median wall time, then median CPU time of the process and all it ran "
        "(the steadier figure on this shared machine).",
        "",
    ]
    names = [v.name for v in versions]
    ratio_head = "after ÷ before | " if len(versions) > 1 else ""
    lines += [
        f"| command | {' | '.join(names)} | {ratio_head}its import floor "
        f"| {' | '.join(f'{n} ÷ floor' for n in names)} | modules |",
        "|---|" + "---|" * (len(versions) * 2 + (len(versions) > 1) + 2),
    ]
    found: dict[str, dict[str, float]] = {}
    for name in commands:
        got = {v: medians(samples[name][v]) for v in names}
        floor = medians(floor_samples[name])
        found[name] = {v: got[v][0] for v in names}
        found[name].update({f"{v} cpu": got[v][1] for v in names})
        found[name]["floor"], found[name]["floor cpu"] = floor
        cells = [f"{got[v][0]:.0f} ms ({got[v][1]:.0f})" for v in names]
        if len(versions) > 1:
            cells.append(_ratios(got[names[-1]], got[names[0]]))
        cells.append(f"{floor[0]:.0f} ms ({floor[1]:.0f})")
        cells += [_ratios(got[v], floor) for v in names]
        lines.append(f"| `{name}` | {' | '.join(cells)} | {floors[name][0]} |")
    lines.append("")
    return lines, found


def _ratios(top: tuple[float, float], bottom: tuple[float, float]) -> str:
    return f"{top[0] / bottom[0]:.2f}x ({top[1] / bottom[1]:.2f}x)"


# -- a new clone's first sync -----------------------------------------------------------


def bench_sync(
    n: int, versions: list[Version], work: Path, rounds: int
) -> tuple[list[str], dict[str, float]]:
    """A new clone syncs an n-item ledger: against `git fetch` of the same ref, in time and
    in peak RSS."""
    source = work / f"sync-source-{n}"
    shutil.rmtree(source, ignore_errors=True)
    builder.build(source, n, links=n // 100)
    remote = work / f"sync-remote-{n}.git"
    shutil.rmtree(remote, ignore_errors=True)
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    subprocess.run(["git", "push", "-q", str(remote), f"{builder.REF}:{builder.REF}"], cwd=source)
    times: dict[str, Samples] = {"git fetch": []}
    peaks: dict[str, list[float]] = {"git fetch": []}
    for version in versions:
        times[f"sync {version.name}"], peaks[f"sync {version.name}"] = [], []
        times[f"list after {version.name}"] = []
    for k in range(rounds):
        fetcher = fresh_clone(work / "fetch-only", remote)
        ref = f"+{builder.REF}:refs/coop/remotes/origin/ledger"
        fetch_cmd = ["git", "fetch", "-q", "origin", ref]
        wall, cpu, rss = run_measured(fetch_cmd, fetcher, versions[0].env)
        times["git fetch"].append((wall, cpu))
        peaks["git fetch"].append(rss)
        for version in versions if k % 2 else list(reversed(versions)):
            clone = fresh_clone(work / f"sync-{version.name}", remote)
            subprocess.run(
                ["git", "coop", "remote", "setup", "origin"],
                cwd=clone,
                env=version.env,
                capture_output=True,
                check=True,
            )
            # a loaded machine's fetch of 100,000 items can outlast the default minute
            subprocess.run(["git", "config", "coop.remoteTimeout", "900"], cwd=clone, check=True)
            wall, cpu, rss = run_measured(["git", "coop", "sync", "origin"], clone, version.env)
            times[f"sync {version.name}"].append((wall, cpu))
            peaks[f"sync {version.name}"].append(rss)
            times[f"list after {version.name}"].append(
                version.timed(["git", "coop", "list", "--json"], clone)
            )
    fetch = medians(times["git fetch"])
    fetch_rss = statistics.median(peaks["git fetch"])
    lines = [
        f"### A new clone's first sync: {n:,} items, {5 * n + n // 100:,} events, "
        f"median of {rounds}",
        "",
        f"`git fetch` of the same ref into a new clone: {fetch[0]:.0f} ms (CPU {fetch[1]:.0f} "
        f"ms), peak RSS {fetch_rss:.0f} MB",
        "",
        "| version | `git coop sync` | ÷ `git fetch` | peak RSS | ÷ `git fetch` "
        "| the `list --json` after it |",
        "|---|---|---|---|---|---|",
    ]
    found = {"fetch": fetch[0], "fetch cpu": fetch[1], "fetch rss": fetch_rss}
    for version in versions:
        sync = medians(times[f"sync {version.name}"])
        rss = statistics.median(peaks[f"sync {version.name}"])
        after = medians(times[f"list after {version.name}"])
        found[version.name], found[f"{version.name} cpu"] = sync
        found[f"{version.name} rss"] = rss
        lines.append(
            f"| {version.name} | {sync[0]:.0f} ms ({sync[1]:.0f}) | {_ratios(sync, fetch)} "
            f"| {rss:.0f} MB | {rss / fetch_rss:.2f}x | {after[0]:.0f} ms ({after[1]:.0f}) |"
        )
    lines.append("")
    return lines, found


# -- fsck: a whole check, and one after 100 writes ----------------------------------------


def bench_fsck(
    n: int, versions: list[Version], work: Path, rounds: int, writes: int = 100
) -> list[str]:
    """fsck of an n-item ledger checked for the first time (every commit), then after
    `writes` writes on a checked ledger: time and peak RSS."""
    source = work / f"fsck-source-{n}"
    shutil.rmtree(source, ignore_errors=True)
    builder.build(source, n, links=n // 100)
    subprocess.run(["git", "config", "coop.fsync", "false"], cwd=source, check=True)
    first: dict[str, list[tuple[float, float, float]]] = {v.name: [] for v in versions}
    later: dict[str, list[tuple[float, float, float]]] = {v.name: [] for v in versions}
    opened = ids_of(source, "open")[: writes // 2]
    for k in range(rounds):
        for version in versions if k % 2 else list(reversed(versions)):
            copy = work / f"fsck-{n}-{version.name}"
            shutil.rmtree(copy, ignore_errors=True)
            shutil.copytree(source, copy, symlinks=True)
            fsck = ["git", "coop", "fsck", "--json"]
            first[version.name].append(run_measured(fsck, copy, version.env))
            for item in opened:  # a take and a done each: `writes` commits
                for verb in (["take", item], ["done", item, "--summary", "s"]):
                    subprocess.run(
                        ["git", "coop", *verb], cwd=copy, env=version.env, capture_output=True
                    )
            later[version.name].append(run_measured(fsck, copy, version.env))
    lines = [
        f"### fsck: {n:,} items, {5 * n + n // 100:,} events, median of {rounds}",
        "",
        "Each cell: median wall time (CPU time), peak RSS. The first `fsck` of a ledger "
        f"checks every commit; the second follows {writes} writes.",
        "",
        "| version | first `fsck` | peak RSS | `fsck` after " + f"{writes} writes | peak RSS |",
        "|---|---|---|---|---|",
    ]
    for version in versions:
        cells = []
        for runs in (first[version.name], later[version.name]):
            wall = statistics.median(r[0] for r in runs) * 1000
            cpu = statistics.median(r[1] for r in runs) * 1000
            rss = statistics.median(r[2] for r in runs)
            cells += [f"{wall:.0f} ms ({cpu:.0f})", f"{rss:.0f} MB"]
        lines.append(f"| {version.name} | {' | '.join(cells)} |")
    lines.append("")
    return lines


def fresh_clone(path: Path, remote: Path) -> Path:
    shutil.rmtree(path, ignore_errors=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    for args in (
        ["remote", "add", "origin", str(remote)],
        ["config", "user.email", builder.WORKER],
        ["config", "user.name", "bob"],
    ):
        subprocess.run(["git", "-C", str(path), *args], check=True)
    return path


# -- growth over many transitions -------------------------------------------------------


def bench_growth(
    transitions: int, versions: list[Version], work: Path
) -> tuple[list[str], dict[str, float]]:
    """`transitions` take/done transitions on a packed 10,000-item ledger, no manual gc."""
    built_at = work / "growth-ledger"
    shutil.rmtree(built_at, ignore_errors=True)
    builder.build(built_at, 10_000)
    subprocess.run(["git", "gc", "-q"], cwd=built_at, check=True)
    subprocess.run(["git", "config", "coop.fsync", "false"], cwd=built_at, check=True)
    items = ids_of(built_at, "open")[: transitions // 2]
    lines = [
        f"### `.git/objects` over {2 * len(items):,} transitions on a packed 10,000-item ledger",
        "",
        "No `git gc` run by hand; git's defaults (gc.auto 6700, gc.autoDetach true).",
        "",
        "| version | before | after | growth per transition |",
        "|---|---|---|---|",
    ]
    found = {}
    for version in versions:
        path = work / f"growth-{version.name}"
        shutil.rmtree(path, ignore_errors=True)
        shutil.copytree(built_at, path, symlinks=True)
        before = objects_size(path)
        subprocess.run(
            [sys.executable, "-c", GROW, str(version.root), *items],
            cwd=path,
            env=version.env,
            check=True,
        )
        settle(path)
        after = objects_size(path)
        per = (after - before) / (2 * len(items))
        found[version.name] = per
        sizes = f"{before / 1e6:.1f} MB | {after / 1e6:.1f} MB"
        lines.append(f"| {version.name} | {sizes} | {per / 1e3:.1f} KB |")
    lines.append("")
    return lines, found


def objects_size(path: Path) -> int:
    return sum(f.stat().st_size for f in (path / ".git" / "objects").rglob("*") if f.is_file())


def settle(path: Path, longest: float = 600.0) -> None:
    """Wait for a detached `git gc --auto` to finish (it holds .git/gc.pid while it runs)."""
    waited = 0.0
    quiet = 0
    while waited < longest and quiet < 3:
        quiet = 0 if (path / ".git" / "gc.pid").exists() else quiet + 1
        time.sleep(1.0)
        waited += 1.0


# -- in-process rates (issues 2 and 8) --------------------------------------------------


def rates_lines(label: str, work: Path, transitions: int) -> list[str]:
    """take+done in-process against a raw pygit2 loop of the same object writes."""
    from raw_loop import in_process_seconds, raw_seconds

    path = work / f"ledger-{label}"
    pool = ids_of(path, "open")
    lines = ["| in-process, take+done | gitcoop | raw pygit2 loop | ratio |", "|---|---|---|---|"]
    for fsync in (False, True):
        share, pool = pool[: 2 * transitions], pool[2 * transitions :]
        half = len(share) // 2
        if half == 0:
            return [f"(too few open items in {label} for the in-process rates)", ""]
        os.sync()
        mine = in_process_seconds(path, share[:half], fsync)
        theirs = raw_seconds(path, share[half:], fsync)
        rate, raw = half * 2 / mine, half * 2 / theirs
        lines.append(
            f"| fsync {'on' if fsync else 'off'} | {rate:.0f}/s | {raw:.0f}/s | {rate / raw:.2f}x |"
        )
    return [*lines, ""]


# -- the targets of issue 21 ------------------------------------------------------------


def targets(
    shapes: dict[str, dict[str, dict[str, float]]],
    sync: dict[str, float] | None,
    growth: dict[str, float] | None,
    name: str,
) -> list[str]:
    """Each target of issues 21 and 43, on wall time and on CPU time (in parentheses)."""
    lines = ["### Targets (issues 21 and 43), from the figures above", ""]
    lines += ["| figure | target | measured: wall (CPU) | met? |", "|---|---|---|---|"]

    def row(figure: str, target: str, values: tuple[float, float], limit: float, unit: str) -> None:
        shown = " ".join(
            (f"{v:.2f}x" if unit == "x" else f"{v:.1f} {unit}")
            if i == 0
            else (f"({v:.2f}x)" if unit == "x" else f"({v:.1f} {unit})")
            for i, v in enumerate(values)
        )
        met = {True: "yes", False: "no"}
        verdict = met[values[0] <= limit]
        if (values[1] <= limit) != (values[0] <= limit):
            verdict += f" (CPU: {met[values[1] <= limit]})"
        lines.append(f"| {figure} | {target} | {shown} | {verdict} |")

    def pair(figures: dict[str, float], key: str = name) -> tuple[float, float]:
        return figures[key], figures[f"{key} cpu"]

    small, huge = shapes.get("long-1000"), shapes.get("long-1000000")
    if small and huge:  # issue 43: a million items, 1k of them open
        for command in (
            "show",
            "status",
            "owed",
            "ready",
            "list (warm, text)",
            "list --json (warm)",
            "list --grep",
        ):
            a, b = pair(huge[command]), pair(small[command])
            figure = f"`{command}`, 1M items / 1k unsettled ÷ 1k items"
            row(figure, "≤ 1.3x", (a[0] / b[0], a[1] / b[1]), 1.3, "x")
        for command in ("take", "done"):
            a, b = pair(huge[command]), pair(huge[command], "floor")
            row(
                f"`{command}` ÷ its import floor, 1M items",
                "≤ 1.1x",
                (a[0] / b[0], a[1] / b[1]),
                1.1,
                "x",
            )
    today, busy = shapes.get("1000"), shapes.get("100000")
    if today and busy:  # issue 43: 100k items, 60k of them open
        for command in ("show", "status", "owed"):
            a, b = pair(busy[command]), pair(today[command])
            figure = f"`{command}`, 100k items / 60k open ÷ 1k items"
            row(figure, "≤ 1.3x", (a[0] / b[0], a[1] / b[1]), 1.3, "x")
    large = shapes.get("long-100000")
    if small and large:
        for command in ("list (warm, text)", "list --json (warm)", "owed", "ready"):
            a, b = pair(large[command]), pair(small[command])
            figure = f"`{command}`, 100k items / 1k unsettled ÷ 1k items"
            row(figure, "≤ 1.3x", (a[0] / b[0], a[1] / b[1]), 1.3, "x")
    for label, figures in shapes.items():
        a, b = pair(figures["list (warm, text)"]), pair(figures["list --json (warm)"])
        row(f"text `list` ÷ `list --json`, {label}", "≤ 1.1x", (a[0] / b[0], a[1] / b[1]), 1.1, "x")
    for label in ("long-100000", "100000"):
        if label in shapes:
            wall, cpu = pair(shapes[label]["list --json (cold)"])
            row(f"cold `list --json`, {label}", "≤ 8 s", (wall / 1000, cpu / 1000), 8.0, "s")
    if sync:
        a, b = pair(sync), pair(sync, "fetch")
        row("first `sync` of a new clone ÷ `git fetch`", "≤ 3x", (a[0] / b[0], a[1] / b[1]), 3, "x")
        peak = sync[f"{name} rss"] / sync["fetch rss"]
        row("first `sync`'s peak RSS ÷ `git fetch`'s", "≤ 2x", (peak, peak), 2, "x")
    if growth:
        per = growth[name] / 1000
        row("`.git/objects` per transition", "≤ 5 KB", (per, per), 5.0, "KB")
    for label in ("long-100000", "100000"):
        if label in shapes:
            a, b = pair(shapes[label]["take"]), pair(shapes[label]["take"], "floor")
            figure = f"`take` ÷ its import floor, {label}"
            row(figure, "≤ 1.1x", (a[0] / b[0], a[1] / b[1]), 1.1, "x")
    return [*lines, ""]


def machine() -> list[str]:
    nproc = subprocess.run(["nproc"], capture_output=True, text=True).stdout.strip()
    git_version = subprocess.run(["git", "--version"], capture_output=True, text=True).stdout
    load = os.getloadavg()
    return [
        f"Machine: {nproc} cores; Python {sys.version.split()[0]}; pygit2 {pygit2.__version__} "
        f"(libgit2 {pygit2.LIBGIT2_VERSION}); {git_version.strip()}; load average at the "
        f"start {load[0]:.1f}",
        "",
    ]


def base_version(rev: str, work: Path) -> Version:
    root = work / "base"
    shutil.rmtree(root, ignore_errors=True)
    root.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", rev], cwd=HERE, capture_output=True, check=True)
    subprocess.run(["tar", "-x", "-C", str(root)], input=archive.stdout, check=True)
    return Version(f"before ({rev})", root, work)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000", help="item counts, today's shape")
    parser.add_argument("--long", default="", help="N:U shapes: N items, U of them unsettled")
    parser.add_argument("--sync", type=int, default=0, help="a new clone's first sync of N items")
    parser.add_argument("--growth", type=int, default=0, help="transitions for the growth test")
    parser.add_argument("--fsck", default="", help="item counts: fsck whole, then after writes")
    parser.add_argument("--base", default=None, help="also run this version (a commit)")
    parser.add_argument("--rates", action="store_true", help="in-process rates, raw pygit2 loop")
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--workdir", default=None, help="where to build (default: a temp dir)")
    args = parser.parse_args()
    repeat = 3 if args.quick else 7
    work = Path(args.workdir or tempfile.mkdtemp(prefix="coop-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    versions = [base_version(args.base, work)] if args.base else []
    versions.append(Version("after", HERE, work))
    print("\n".join(machine()), flush=True)
    shapes: dict[str, dict[str, dict[str, float]]] = {}
    plan: list[tuple[str, Callable[[Path], None]]] = []
    for n in (int(s) for s in args.sizes.split(",") if s):
        plan.append((str(n), lambda p, n=n: builder.build(p, n) and None))
    for spec in (s for s in args.long.split(",") if s):
        n, unsettled = (int(x) for x in spec.split(":"))
        plan.append((f"long-{n}", lambda p, n=n, u=unsettled: builder.build(p, n, unsettled=u)))
    for label, build in plan:
        lines, shapes[label] = bench_shape(label, build, versions, work, repeat)
        if args.rates and not label.startswith("long-"):
            lines += rates_lines(label, work, 40 if args.quick else 80)
        print("\n".join(lines), flush=True)
    sync = growth = None
    if args.sync:
        lines, sync = bench_sync(args.sync, versions, work, 3 if args.quick else 5)
        print("\n".join(lines), flush=True)
    if args.growth:
        lines, growth = bench_growth(args.growth, versions, work)
        print("\n".join(lines), flush=True)
    for n in (int(s) for s in args.fsck.split(",") if s):
        print("\n".join(bench_fsck(n, versions, work, 1 if args.quick else 3)), flush=True)
    print("\n".join(targets(shapes, sync, growth, versions[-1].name)), flush=True)
    if not args.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
