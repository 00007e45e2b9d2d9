"""Races for real: several OS processes against one repository."""

from __future__ import annotations

import json
from pathlib import Path

from gitcoop.store.ledger.layout import REF
from tests import barrier
from tests.conftest import coop, git

ADD_AND_FINISH = (
    "import sys\n"
    "from gitcoop.cli.options import make_context\n"
    "from gitcoop.service import ledger\n"
    + barrier.WAIT
    + """
ctx = make_context()
for n in range(int(sys.argv[1])):
    shown = ledger.add(ctx, "todo", f"{ctx.actor} #{n}")
    ledger.act(ctx, shown.item.id, "take", {})
    ledger.act(ctx, shown.item.id, "done", {"summary": f"done {n}"})
"""
)


def test_eight_processes_race_to_take_one_todo_exactly_one_wins(ledger: Path) -> None:
    todo = coop("add", "todo", "contested", "--json").json()["id"]
    racers = [
        barrier.start(
            barrier.RUN_CLI,
            ["take", todo, "--json"],
            ledger,
            {"COOP_ACTOR": f"racer{n}@example.com"},
        )
        for n in range(8)
    ]
    barrier.release(racers)
    results = barrier.finish(racers)
    winners = [json.loads(out)["taken_by"] for code, out, _ in results if code == 0]
    assert len(winners) == 1
    winner = winners[0]
    losers = [(code, err) for code, _, err in results if code != 0]
    assert len(losers) == 7
    for code, err in losers:
        assert code == 1, err  # refused by the take guard, not a lost swap or a crash
        assert f"already taken by {winner}" in err, err
    takes = [e for e in coop("log", todo, "--json").json() if e["verb"] in ("take", "takeover")]
    assert len(takes) == 1 and takes[0]["actor"] == winner


def test_eight_processes_each_adding_and_finishing_twenty_todos_lose_nothing(ledger: Path) -> None:
    # the writers race each other here; a background repack racing the final `git fsck`
    # would be git's own race (tests/store/ledger/test_upkeep.py covers the packing)
    git(ledger, "config", "gc.auto", "0")
    workers = [
        barrier.start(ADD_AND_FINISH, ["20"], ledger, {"COOP_ACTOR": f"worker{n}@example.com"})
        for n in range(8)
    ]
    barrier.release(workers)
    for code, _, err in barrier.finish(workers, timeout=300):
        assert code == 0, err
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
