"""Merge benchmark: two clones diverged by 1,000 events each over 200 items.

Builds the ledgers directly through the transaction layer (fast, no process
per event), then times:
  - the merge alone (store.merge.plan + the ref swap, in this process)
  - a whole `git coop sync` process (start-up, fetch, merge, push)

and, for a first sync (a clone with no ledger fetching a large one whose
history is one commit per transition), the whole `git coop sync` process and
the check and fast-forward alone.

Run: python bench/merge_bench.py [--items 200] [--events 1000] [--first-sync 10000]
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gitcoop.domain import ids, rulebook
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Event, LedgerConfig, Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.store.ledger import merge, transaction
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.transaction import Change
from gitcoop.store.repository import open_repo

START = datetime(2026, 11, 29, 10, tzinfo=UTC)


def children_cpu() -> float:
    """CPU seconds of every finished child process (and theirs): load on a shared machine
    stretches wall time, not this."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def make_clone(root: Path, name: str, url: str) -> Path:
    path = root / name
    git(root, "init", "-q", str(path))
    git(path, "config", "user.email", f"{name}@example.com")
    git(path, "config", "coop.fsync", "false")
    git(path, "remote", "add", "origin", url)
    return path


def write_events(
    path: Path, actor: str, count: int, items: list[ItemId] | None, seed: int, batch: int = 50
) -> list[ItemId]:
    """`count` events, `batch` per commit; adds `count` todos when items is None."""
    repo = open_repo(str(path))
    rng = random.Random(seed)
    made: list[ItemId] = []
    for start in range(0, count, batch):

        def decide(snapshot: Snapshot, start: int = start) -> Change:
            config = snapshot.config if snapshot.commit else LedgerConfig(Roles((actor,)), clock=1)
            clock = config.clock
            touched: dict[ItemId, list[Event]] = {}
            if snapshot.commit is None:  # what `init` writes: the first owner, as an event
                owner = {"action": "add", "role": "owner", "who": actor}
                first = Event(ids.mint_event_id(rng.getrandbits), LEDGER_ID, 1, START, actor, None,
                              "roles", owner).named_by_content()  # fmt: skip
                touched[LEDGER_ID] = [first]
            for n in range(start, min(start + batch, count)):
                clock += 1
                at = START + timedelta(seconds=n)
                if items is None:
                    item_id = ids.mint_item_id("todo", rng.getrandbits)
                    made.append(item_id)
                    args = {"kind": "todo", "title": f"todo {n}"}
                    verb = "add"
                else:
                    item_id = items[n % len(items)]
                    verb, args = "note", {"text": f"{actor} note {n}"}
                event = Event(
                    ids.mint_event_id(rng.getrandbits), item_id, clock, at, actor, None, verb, args
                ).named_by_content()  # format 2: an event's id is the hash of its content
                touched.setdefault(item_id, []).append(event)
            changed = {}
            for item_id, new in touched.items():
                if item_id == LEDGER_ID:
                    continue
                folded = rulebook.fold([*snapshot.events(item_id), *new], config.roles)
                assert folded is not None
                changed[item_id] = folded
            events = [e for group in touched.values() for e in group]
            return Change(
                f"bench {actor}", actor, START, changed, events, replace(config, clock=clock)
            )

        transaction.write(repo, decide, fsync=False)
    return made


def first_sync(items: int) -> list[tuple[str, str]]:
    """A clone with no ledger syncs one of `items` todos, each added in its own commit."""
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "--bare", "remote.git")
        url = (root / "remote.git").as_uri()
        a, b = make_clone(root, "alice", url), make_clone(root, "bob", url)
        started = time.perf_counter()
        write_events(a, "alice@example.com", items, None, 1, batch=1)
        built = time.perf_counter() - started
        coop = [sys.executable, "-c", "from gitcoop.cli.main import run; run()"]
        subprocess.run([*coop, "push"], cwd=a, check=True, capture_output=True)
        copy = root / "bob-copy"
        git(root, "init", "-q", "--bare", str(copy))
        git(copy, "fetch", "-q", url, "+refs/coop/ledger:refs/coop/remotes/origin/ledger")
        repo = open_repo(str(copy))
        theirs = repo.tip("refs/coop/remotes/origin/ledger")
        assert theirs is not None
        started, cpu = time.perf_counter(), time.process_time()
        merged = merge.merge(
            repo, "origin", theirs, "bob@example.com", START, fsync=False, last=None
        )
        check_alone = time.perf_counter() - started, time.process_time() - cpu
        assert merged.kind == "new", merged.kind
        started, cpu = time.perf_counter(), children_cpu()
        done = subprocess.run([*coop, "sync", "--json"], cwd=b, capture_output=True, text=True)
        whole = time.perf_counter() - started, children_cpu() - cpu
        assert done.returncode == 0, done.stderr
        return [
            ("first sync: items (one commit each)", f"{items} (built in {built:.1f} s)"),
            ("first sync: check + fast-forward alone", seconds(*check_alone)),
            ("first sync: whole `git coop sync` process", seconds(*whole)),
        ]


def seconds(wall: float, cpu: float) -> str:
    return f"{wall:.3f} s (CPU {cpu:.3f} s)"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--items", type=int, default=200)
    parser.add_argument("--events", type=int, default=1000)
    parser.add_argument("--first-sync", type=int, default=0, metavar="N")
    opts = parser.parse_args()
    extra = first_sync(opts.first_sync) if opts.first_sync else []
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "--bare", "remote.git")
        url = (root / "remote.git").as_uri()
        a, b = make_clone(root, "alice", url), make_clone(root, "bob", url)
        os.environ["COOP_NOW"] = "2026-11-29T12:00:00Z"
        items = write_events(a, "alice@example.com", opts.items, None, 1)
        coop = [sys.executable, "-c", "from gitcoop.cli.main import run; run()"]
        subprocess.run([*coop, "sync"], cwd=a, check=True, capture_output=True)
        subprocess.run([*coop, "sync"], cwd=b, check=True, capture_output=True)
        write_events(a, "alice@example.com", opts.events, items, 2)
        write_events(b, "bob@example.com", opts.events, items, 3)
        subprocess.run([*coop, "push"], cwd=a, check=True, capture_output=True)

        # the merge alone, on a copy of bob's clone: plan (check + replay + write) and swap
        copy = root / "bob-copy"
        git(root, "clone", "-q", "--mirror", str(b), str(copy))
        git(copy, "fetch", "-q", url, "+refs/coop/ledger:refs/coop/remotes/origin/ledger")
        repo = open_repo(str(copy))
        theirs = repo.tip("refs/coop/remotes/origin/ledger")
        assert theirs is not None
        started, cpu = time.perf_counter(), time.process_time()
        merged = merge.merge(
            repo, "origin", theirs, "bob@example.com", START, fsync=False, last=None
        )
        merge_alone = time.perf_counter() - started, time.process_time() - cpu
        assert merged.kind == "merged", merged.kind

        started, cpu = time.perf_counter(), children_cpu()
        done = subprocess.run([*coop, "sync", "--json"], cwd=b, capture_output=True, text=True)
        whole = time.perf_counter() - started, children_cpu() - cpu
        assert done.returncode == 0, done.stderr

        rows = [
            ("items", str(opts.items)),
            ("events per side since the merge base", str(opts.events)),
            ("items replayed", str(len(merged.items))),
            ("merge alone (check remote + replay + write + swap)", seconds(*merge_alone)),
            ("whole `git coop sync` process (fetch, merge, push)", seconds(*whole)),
            *extra,
        ]
        width = max(len(k) for k, _ in rows)
        print(f"{'measure':<{width}}  value")
        print(f"{'-' * width}  -------")
        for key, value in rows:
            print(f"{key:<{width}}  {value}")


if __name__ == "__main__":
    main()
