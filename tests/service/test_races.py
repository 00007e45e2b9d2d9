"""Real processes: racing writers, a concurrent `git pack-refs`, and writers killed mid-write."""

from __future__ import annotations

import json
import os
import random
import select
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gitcoop.service.context import Context
from gitcoop.service.fsck import fsck
from tests import barrier
from tests.conftest import coop, git


def race(path: Path, commands: list[list[str]]) -> list[subprocess.CompletedProcess[str]]:
    """Start one process per command, wait until all are ready, then release them at once."""
    racers = [barrier.start(barrier.RUN_CLI, command, path) for command in commands]
    barrier.release(racers)
    return [
        subprocess.CompletedProcess(command, code, out, err)
        for command, (code, out, err) in zip(commands, barrier.finish(racers), strict=True)
    ]


@contextmanager
def packing_refs(path: Path, enabled: bool) -> Iterator[Counter[str]]:
    """Run `git pack-refs --all` in a loop beside the racers (a concurrent git command)."""
    runs: Counter[str] = Counter()
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            subprocess.run(["git", "pack-refs", "--all"], cwd=path, capture_output=True)
            runs["pack-refs"] += 1

    worker = threading.Thread(target=loop)
    if enabled:
        worker.start()
    try:
        yield runs
    finally:
        stop.set()
        if enabled:
            worker.join()


def first_parent_subjects(path: Path) -> list[str]:
    return git(path, "log", "--first-parent", "--format=%s", "refs/coop/ledger").splitlines()


def assert_healthy(path: Path) -> None:
    assert fsck(Context(str(path)), full=True).breaches == []
    git(path, "fsck", "--strict", "--no-dangling")


@pytest.mark.parametrize("pack_refs", [False, True], ids=["alone", "with-pack-refs"])
def test_sixteen_takers_one_winner(ledger: Path, pack_refs: bool) -> None:
    item = coop("add", "todo", "contested").out.strip()
    commands = [["take", item, "--as", f"w{n}@example.com", "--json"] for n in range(16)]
    with packing_refs(ledger, pack_refs) as runs:
        results = race(ledger, commands)
    winners = [r for r in results if r.returncode == 0]
    assert len(winners) == 1, [(r.returncode, r.stderr) for r in results]
    losers = [r for r in results if r.returncode != 0]
    assert all(r.returncode == 1 and "already taken by" in r.stderr for r in losers), [
        r.stderr for r in losers
    ]
    winner = winners[0].args[3]
    shown = coop("show", item, "--json").json()
    assert shown["taken_by"] == winner and shown["version"] == 2
    assert sum(s.startswith("take ") for s in first_parent_subjects(ledger)) == 1
    assert not pack_refs or runs["pack-refs"] > 0
    assert_healthy(ledger)


@pytest.mark.parametrize("pack_refs", [False, True], ids=["alone", "with-pack-refs"])
def test_sixteen_writers_every_acknowledged_write_lands_once(ledger: Path, pack_refs: bool) -> None:
    commands = [["add", "todo", f"job {n}", "--json"] for n in range(16)]
    with packing_refs(ledger, pack_refs):
        results = race(ledger, commands)
    assert [r.returncode for r in results] == [0] * 16, [r.stderr for r in results]
    acked = {json.loads(r.stdout)["id"] for r in results}
    assert len(acked) == 16
    subjects = first_parent_subjects(ledger)
    assert len(subjects) == 17  # init + 16 adds, one commit each
    listed = Counter(i["id"] for i in coop("list", "--json").json())
    assert set(listed) == acked and set(listed.values()) == {1}
    assert_healthy(ledger)


# -- the kill loop ---------------------------------------------------------------

WRITER = """
from gitcoop.service import ledger
from gitcoop.service.context import Context
ctx = Context(actor="killme@example.com")
warm = ledger.add(ctx, "todo", "warm-up")  # imports and caches are loaded before the kills
print("add", warm.item.id, flush=True)
print("ready", flush=True)
while True:
    shown = ledger.add(ctx, "todo", "work")
    print("add", shown.item.id, flush=True)
    ledger.act(ctx, shown.item.id, "take", {})
    print("take", shown.item.id, flush=True)
    ledger.act(ctx, shown.item.id, "done", {"summary": "ok"})
    print("done", shown.item.id, flush=True)
"""


def run_and_kill(path: Path, rng: random.Random) -> list[tuple[str, str]]:
    """Start a writer, let it write for a random moment, SIGKILL it; its acknowledgements."""
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER],
        cwd=path,
        stdout=subprocess.PIPE,
        text=False,
        start_new_session=True,  # killed with what it started (a roll-up's git repack)
    )
    assert writer.stdout is not None
    out = writer.stdout
    warm = out.readline()
    assert out.readline() == b"ready\n"
    # the kill comes after a random number of acknowledged steps (however slow the
    # machine is), then anywhere inside the next write or two
    seen = [out.readline() for _ in range(rng.randint(0, 3))]
    select.select([out], [], [], rng.uniform(0.0, 0.03))  # waits on the writer's output
    os.killpg(writer.pid, signal.SIGKILL)
    rest = out.read()
    writer.wait()
    complete = [
        warm.strip(),
        *(line.strip() for line in seen),
        *rest.split(b"\n")[:-1],
    ]  # a line cut by the kill was never acknowledged
    return [(verb.decode(), item.decode()) for verb, item in (line.split() for line in complete)]


def kill_loop(path: Path, kills: int, seed: int) -> None:
    # roll-ups in the foreground of each write, so that none is still repacking (a pack
    # listed, then removed) while the `git fsck` at the end reads the packs
    git(path, "config", "gc.autoDetach", "false")
    rng = random.Random(seed)
    acked: list[tuple[str, str]] = []
    stale = killed_mid_write = 0
    lock = path / ".git" / "refs" / "coop" / "ledger.lock"
    for _ in range(kills):
        acked += run_and_kill(path, rng)
        killed_mid_write += acked[-1][0] != "done"
        try:  # a dead writer's ref lock: make it a few seconds old
            os.utime(lock, (1_000, 1_000))
            stale += 1
        except FileNotFoundError:
            pass  # none left (or a writer still leaving removed it just now)
        report = fsck(Context(str(path)))
        assert report.breaches == [], report.breaches
        result = coop("add", "todo", "after a kill")
        assert result.code == 0, result.err
    git(path, "fsck", "--strict", "--no-dangling")
    log = coop("log", "--json").json()
    recorded = Counter((e["verb"], e["item"]) for e in log)
    for ack in acked:
        assert recorded[ack] == 1, ack
    assert len(acked) > kills and killed_mid_write > 0


def test_a_writer_killed_at_random_times_loses_nothing(ledger: Path) -> None:
    kill_loop(ledger, kills=30, seed=7)


@pytest.mark.long
def test_a_writer_killed_two_hundred_times_loses_nothing(ledger: Path) -> None:
    kill_loop(ledger, kills=200, seed=11)
