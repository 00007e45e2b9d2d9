"""How long the gitcoop hooks add to `git commit` on a ledger of 10,000 items.

    python bench/hook_bench.py [--items 10000] [--runs 5]

The ledger is built directly as trees (one item file and one event file per
item, each a real item written by the codec with its id substituted), so
building it takes seconds, not the hours 10,000 separate writes would take.
Then each case runs `git commit` several times and the median is shown: no
hooks, hooks with no trailer, with a Coop-Done trailer, and `--amend`
(post-rewrite scans the ledger for the old sha). Wall time, and the CPU time
of every process the commit ran (steadier on a shared machine).

The hooks are installed with `git coop hooks install` from the interpreter's
own bin dir, so running this file with another version's interpreter (or
PYTHONPATH) measures that version's hooks.
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import gitcoop
from gitcoop.domain import ids
from gitcoop.domain.ids import fanout
from gitcoop.domain.records import Event, Item
from gitcoop.service import ledger
from gitcoop.service.context import Context
from gitcoop.store.ledger import codec
from gitcoop.store.ledger.layout import COOP_FILE, EVENTS, ITEMS, MODE_BLOB, MODE_TREE, event_name
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import enable_fsync, open_repo

NOW = datetime(2026, 11, 29, 10, tzinfo=UTC)


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, check=True, env=env
    )
    return done.stdout


def build_ledger(path: Path, count: int, bits: random.Random) -> None:
    ctx = Context(path=str(path), actor="alice@example.com", now=NOW, bits=bits.getrandbits)
    ledger.init(ctx)
    enable_fsync(False)  # building only; the timed writes fsync as usual
    repo = open_repo(str(path))
    base = Snapshot(repo, repo.tip())
    template = Item(
        id=ids.ItemId("td-000000000000"),
        kind="todo",
        title="bench item",
        status="open",
        created_at=NOW,
        created_by="alice@example.com",
    )
    item_yaml = codec.dump(template.to_data())
    event = Event(
        id=ids.EventId("ev-000000000000"),
        item=template.id,
        clock=1,
        at=NOW,
        actor="alice@example.com",
        session=None,
        verb="add",
        args={"kind": "todo", "title": "bench item"},
    )
    event_yaml = codec.dump(event.to_data())
    items: dict[str, dict[str, object]] = {}
    events: dict[str, dict[str, object]] = {}
    for _ in range(count):
        item_id = ids.mint_item_id("todo", bits.getrandbits)
        event_id = ids.mint_event_id(bits.getrandbits)
        blob = repo.write_blob(item_yaml.replace(template.id.encode(), item_id.encode()))
        items.setdefault(fanout(item_id), {})[f"{item_id}.yaml"] = blob
        data = event_yaml.replace(template.id.encode(), item_id.encode())
        data = data.replace(event.id.encode(), event_id.encode())
        one = repo.tree_builder()
        one.insert(
            event_name(Event(event_id, item_id, 1, NOW, "a", None, "add")),
            repo.write_blob(data),
            MODE_BLOB,
        )
        events.setdefault(fanout(item_id), {})[item_id] = one.write()
    root = repo.tree_builder(base.tree)
    for top, groups, mode in ((ITEMS, items, MODE_BLOB), (EVENTS, events, MODE_TREE)):
        fans = repo.tree_builder()
        for fan, entries in groups.items():
            builder = repo.tree_builder()
            for name, oid in entries.items():
                builder.insert(name, oid, mode)
            fans.insert(fan, builder.write(), MODE_TREE)
        root.insert(top, fans.write(), MODE_TREE)
    root.insert(COOP_FILE, base.tree[COOP_FILE].id, MODE_BLOB)
    assert base.commit is not None
    commit = repo.write_commit(
        root.write(), [base.commit], "alice@example.com", NOW, f"bench: {count} items"
    )
    assert repo.swap(base.commit, commit, "bench")
    git(path, "repack", "-adq")  # as a lived-in repository would be; no auto gc mid-run
    git(path, "config", "gc.auto", "0")


def timed_commits(repo: Path, runs: int, message: str, amend: bool = False) -> tuple[float, float]:
    """The median wall time and the median CPU time of the processes, of `runs` commits."""
    samples, cpu = [], []
    for run in range(runs):
        (repo / "work.txt").write_text(f"{time.perf_counter()} {run}\n")
        git(repo, "add", "work.txt")
        args = (
            ["commit", "-q", "--amend", "--no-edit"] if amend else ["commit", "-q", "-m", message]
        )
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        git(repo, *args)
        samples.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime + after.ru_stime - used.ru_utime - used.ru_stime)
    return statistics.median(samples), statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    options = parser.parse_args()
    # as an install has it: without bytecode (PYTHONDONTWRITEBYTECODE=1 and an edited
    # checkout) every hook process would compile gitcoop's modules first
    compileall.compile_dir(str(Path(gitcoop.__file__).parent), quiet=1)
    os.environ["PATH"] = str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]
    os.environ.setdefault("COOP_NOW", "2026-11-29T10:00:00Z")
    bits = random.Random(1)
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as folder:
        repo = Path(folder) / "repo"
        repo.mkdir()
        git(repo, "init", "-q", "-b", "main")
        git(repo, "config", "user.email", "alice@example.com")
        git(repo, "config", "user.name", "alice")
        started = time.perf_counter()
        build_ledger(repo, options.items, bits)
        built = time.perf_counter() - started
        ctx = Context(path=str(repo), actor="alice@example.com", now=NOW, bits=bits.getrandbits)
        rows = [("no hooks", timed_commits(repo, options.runs, "plain"))]
        git(repo, "coop", "hooks", "install")
        rows.append(("hooks, no trailer", timed_commits(repo, options.runs, "plain")))
        trailer_times = []
        for _ in range(options.runs):
            todo = ledger.add(ctx, "todo", "bench target").item.id
            trailer_times.append(timed_commits(repo, 1, f"Finish\n\nCoop-Done: {todo}"))
        rows.append(
            (
                "hooks, Coop-Done trailer",
                (
                    statistics.median(t[0] for t in trailer_times),
                    statistics.median(t[1] for t in trailer_times),
                ),
            )
        )
        rows.append(("hooks, commit --amend", timed_commits(repo, options.runs, "", amend=True)))
    base, base_cpu = rows[0][1]
    print(f"ledger: {options.items} items, built in {built:.1f}s; median of {options.runs} runs")
    print(f"{'case':<28}{'commit':>10}{'added':>10}{'CPU':>10}{'added':>10}")
    for name, (seconds, cpu) in rows:
        print(
            f"{name:<28}{seconds * 1000:>8.0f}ms{(seconds - base) * 1000:>8.0f}ms"
            f"{cpu * 1000:>8.0f}ms{(cpu - base_cpu) * 1000:>8.0f}ms"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
