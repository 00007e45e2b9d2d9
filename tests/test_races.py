"""Races for real: several OS processes against one repository."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from gitcoop.store.layout import REF
from tests.conftest import coop, git

RACE_TAKE = """
import json, os, sys, time
from gitcoop.cli.main import main
start = float(sys.argv[2])
while time.time() < start:   # a shared start line, so the processes really overlap
    pass
sys.exit(main(["take", sys.argv[1], "--json"]))
"""

ADD_AND_FINISH = """
import sys
from gitcoop.cli.options import make_context
from gitcoop.service import ledger
ctx = make_context()
for n in range(int(sys.argv[1])):
    shown = ledger.add(ctx, "todo", f"{ctx.actor} #{n}")
    ledger.act(ctx, shown.item.id, "take", {})
    ledger.act(ctx, shown.item.id, "done", {"summary": f"done {n}"})
"""


def spawn(path: Path, script: str, args: list[str], actor: str) -> subprocess.Popen[str]:
    env = {**os.environ, "COOP_ACTOR": actor}
    return subprocess.Popen(
        [sys.executable, "-c", script, *args],
        cwd=path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_eight_processes_race_to_take_one_todo_exactly_one_wins(ledger: Path) -> None:
    todo = coop("add", "todo", "contested", "--json").json()["id"]
    start = str(time.time() + 1.5)
    racers = [spawn(ledger, RACE_TAKE, [todo, start], f"racer{n}@example.com") for n in range(8)]
    results = [(p.wait(timeout=120), p.stdout.read(), p.stderr.read()) for p in racers]  # type: ignore[union-attr]
    winners = [json.loads(out)["taken_by"] for code, out, _ in results if code == 0]
    assert len(winners) == 1
    winner = winners[0]
    losers = [err for code, _, err in results if code != 0]
    assert len(losers) == 7
    for err in losers:
        assert f"already taken by {winner}" in err, err
    takes = [e for e in coop("log", todo, "--json").json() if e["verb"] in ("take", "takeover")]
    assert len(takes) == 1 and takes[0]["actor"] == winner


def test_eight_processes_each_adding_and_finishing_twenty_todos_lose_nothing(ledger: Path) -> None:
    workers = [spawn(ledger, ADD_AND_FINISH, ["20"], f"worker{n}@example.com") for n in range(8)]
    for worker in workers:
        assert worker.wait(timeout=300) == 0, worker.stderr.read()  # type: ignore[union-attr]
    items = coop("list", "--all", "--json").json()
    assert len(items) == 160
    assert all(item["status"] == "done" and item["version"] == 3 for item in items)
    events = [e for e in coop("log", "--json").json() if e["verb"] != "roles"]
    assert len(events) == 480
    assert len({e["id"] for e in events}) == 480
    clocks = sorted(e["clock"] for e in coop("log", "--json").json())
    assert clocks == list(range(1, 482))  # one Lamport tick per write, none lost or repeated
    git(ledger, "fsck", "--strict", "--no-dangling")
    history = git(ledger, "rev-list", "--count", REF).strip()
    assert history == "481"  # init + 480 transitions: one commit per write
