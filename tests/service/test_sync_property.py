"""Property: three clones, random work and random sync orders, converge exactly.

After everyone syncs: identical items/ and events/ trees, every event written
anywhere present exactly once, and every item file equal to the fold of its
events.
"""

from __future__ import annotations

import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitcoop.domain import rulebook
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.store.repository import open_repo
from gitcoop.store.snapshot import Snapshot
from tests.conftest import Clones, coop_in, git, make_repo

START = datetime(2026, 11, 29, 10, tzinfo=UTC)
VERBS = ("add", "take", "force", "done", "release", "note", "sync")

steps = st.lists(
    st.tuples(st.integers(0, 2), st.sampled_from(VERBS), st.integers(0, 50)),
    min_size=1,
    max_size=14,
)


def run_step(path: Path, verb: str, target: str | None, now: str) -> list[str]:
    """Do one operation; the ids of the item's events afterwards, [] when it was refused."""
    env = {"COOP_NOW": now}
    if verb == "sync":
        result = coop_in(path, "sync", env=env)
        assert result.code in (0, 8), result.err  # 8: one of this clone's own events lost
        return []
    if verb == "add":
        result = coop_in(path, "add", "todo", f"made {now}", "--json", env=env)
    elif target is None:
        return []
    else:
        args = {
            "take": ["take", target],
            "force": ["take", target, "--force"],
            "done": ["done", target, "--summary", "ok"],
            "release": ["release", target, "--reason", "later"],
            "note": ["note", target, "seen"],
        }[verb]
        result = coop_in(path, *args, "--json", env=env)
    if result.code != 0:
        assert result.code in (1, 2), result.err  # refused by a rule, or not here yet
        return []
    item = result.json()["id"]
    return [e["id"] for e in coop_in(path, "log", item, "--json").json()]


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps)
def test_three_clones_converge(plan: list[tuple[int, str, int]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        git(root, "init", "-q", "--bare", "remote.git")
        clones = Clones(root, (root / "remote.git").as_uri())
        paths = [clones.clone(name) for name in ("ann", "bob", "cyd")]
        for path in paths:  # durability is not under test here; speed is
            git(path, "config", "coop.fsync", "false")
        assert coop_in(paths[0], "init").code == 0
        for path in paths:
            assert coop_in(path, "sync").code == 0
        written: set[str] = set()
        known: list[str] = []
        for step, (who, verb, pick) in enumerate(plan, start=1):
            now = (START + timedelta(minutes=step)).strftime("%Y-%m-%dT%H:%M:%SZ")
            target = known[pick % len(known)] if known else None
            ids = run_step(paths[who], verb, target, now)
            written.update(ids)
            if verb == "add" and ids:
                known.append(coop_in(paths[who], "list", "--json").json()[-1]["id"])
        for path in [*paths, *paths[:2]]:
            assert coop_in(path, "sync").code in (0, 8)
        check_converged(paths, written)


def check_converged(paths: list[Path], written: set[str]) -> None:
    trees = {git(p, "ls-tree", "refs/coop/ledger", "items", "events") for p in paths}
    assert len(trees) == 1
    snapshot = Snapshot(open_repo(str(paths[0])), open_repo(str(paths[0])).tip())
    events = [e for e in snapshot.all_events() if e.item != LEDGER_ID]  # init's first owner
    ids = [e.id for e in events]
    assert len(ids) == len(set(ids))
    assert set(ids) == written
    roles = snapshot.config.roles
    for item_id in snapshot.item_ids():
        item = snapshot.item(item_id)
        folded = rulebook.fold(snapshot.events(item_id), roles)
        assert item is not None and folded is not None
        assert item.to_data() == folded.to_data()


def test_the_property_checker_catches_a_missing_event(tmp_path: Path) -> None:
    """The convergence check itself can fail: an event nobody holds is reported."""
    path = make_repo(tmp_path / "solo")
    assert coop_in(path, "init").code == 0
    try:
        check_converged([path], {"ev-000000000000"})
    except AssertionError:
        return
    raise AssertionError("check_converged accepted a ledger missing an event")
