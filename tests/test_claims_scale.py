"""No double work at scale: eight clones, each an agent loop, against one `git daemon`.

Forty verified, ready queue items. Each clone runs `pick` -> `finish done` in
its own OS process until nothing is ready (a finish is decided at the remote
like a claim, and one that lost every race, exit 3, is run again, as
docs/agents.md tells a loop to) (each command run as the CLI runs
it, in that process, so the test measures contention rather than interpreter
start-up; every fetch and push is a real `git` against the daemon); the
processes start together on a pipe barrier. Every item must be picked exactly
once, the picks on the remote must be exactly the picks that exited 0, and
after syncing every clone holds the same ledger as the remote.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import barrier
from tests.conftest import coop_in, git, make_repo
from tests.remotes import Served, picks_on, serve
from tests.service.queue_fixtures import CONFIRM, install

CLONES = 8
ITEMS = 40

AGENT = """
import contextlib, io, json, sys
from gitcoop.cli.main import main

def coop(*args):  # one command, as the CLI runs it; in-process, so the loop is not start-up
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()

print("ready", flush=True)
sys.stdin.readline()  # the barrier: every agent starts on the same line from the test
failures = 0
while failures < 20:
    code, out, err = coop("pick", "--json")
    if code == 5 or "nothing is ready" in err:
        break
    if code != 0:
        failures += 1
        print(json.dumps({"failed": code, "err": err}), flush=True)
        continue
    item = json.loads(out)["id"]
    print(json.dumps({"picked": item}), flush=True)
    for _ in range(3):  # exit 3, the remote kept moving: re-read and retry, as agents do
        code, out, err = coop("finish", item, "done", "--commit", "HEAD")
        if code != 3:
            break
    print(json.dumps({"finished": item, "code": code, "err": err}), flush=True)
"""


@pytest.fixture
def daemon(tmp_path: Path) -> Iterator[Served]:
    with serve("daemon", tmp_path) as served:
        yield served


def seeded(served: Served) -> None:
    """The code and a ledger of ITEMS verified, ready items on the remote, claims on."""
    seed = make_repo(served.root / "seed", "owner@example.com")
    git(seed, "remote", "add", "origin", served.url)
    code = install(seed)
    code.plan(default=CONFIRM)
    git(seed, "config", "coop.fsync", "false")
    assert coop_in(seed, "init").code == 0
    for n in range(ITEMS):
        added = coop_in(seed, "add", "item", f"finding {n}", "--evidence", "src/app.py:7")
        assert added.code == 0, added.err
    assert coop_in(seed, "verify").code == 0
    ready = [i for i in coop_in(seed, "queue", "--json").json() if i["status"] == "ready"]
    assert len(ready) == ITEMS
    git(seed, "push", "-q", "origin", "main")
    assert coop_in(seed, "remote", "setup", "origin", "--claims").code == 0
    assert coop_in(seed, "sync").code == 0


def agent_clone(served: Served, n: int) -> Path:
    path = served.root / f"agent{n}"
    git(served.root, "clone", "-q", "-b", "main", served.url, str(path))
    git(path, "config", "user.email", f"agent{n}@example.com")
    git(path, "config", "coop.fsync", "false")  # durability is not under test; contention is
    assert coop_in(path, "remote", "setup", "origin", "--claims").code == 0
    assert coop_in(path, "sync").code == 0
    return path


def run_agents(paths: list[Path]) -> dict[str, list[dict[str, object]]]:
    """Start every agent, release them together, and collect what each reported."""
    agents = [
        subprocess.Popen(
            [sys.executable, "-c", AGENT],
            cwd=path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path in paths
    ]
    barrier.release(agents)  # once every agent has imported gitcoop and waits
    reports: dict[str, list[dict[str, object]]] = {}
    for n, agent in enumerate(agents):
        out, err = agent.communicate(timeout=600)
        assert agent.returncode == 0, err
        reports[f"agent{n}@example.com"] = [json.loads(line) for line in out.splitlines()]
    return reports


def test_eight_agent_loops_pick_every_item_exactly_once(daemon: Served) -> None:
    seeded(daemon)
    paths = [agent_clone(daemon, n) for n in range(CLONES)]
    reports = run_agents(paths)
    picked = Counter(
        (actor, str(entry["picked"]))
        for actor, entries in reports.items()
        for entry in entries
        if "picked" in entry
    )
    items = Counter(item for _, item in picked)
    assert len(items) == ITEMS and set(items.values()) == {1}, items
    assert picks_on(daemon.bare) == picked  # exactly the picks that exited 0
    finishes = [e for entries in reports.values() for e in entries if "finished" in e]
    failed = [e for e in finishes if e["code"] != 0]
    assert len(finishes) == ITEMS and not failed, failed
    for path in [*paths, *paths[:-1]]:  # everyone syncs; the last one's pushes reach all
        assert coop_in(path, "sync").code == 0
    trees = {git(p, "rev-parse", "refs/coop/ledger^{tree}").strip() for p in paths}
    assert trees == {git(daemon.bare, "rev-parse", "refs/coop/ledger^{tree}").strip()}
    statuses = Counter(i["status"] for i in coop_in(paths[0], "queue", "--all", "--json").json())
    assert statuses == {"done": ITEMS}
