"""Property: three clones conflict offline over shared todos; a model names every winner.

Every clone starts with the same todos (`ITEMS`). Hypothesis plays rounds: in
each, the clones take, take over, finish, amend and release those todos
offline, at instants that often coincide, then sync in some order. The model
(tests/service/offline_model.py) replays each clone's events in the order of
the history (a sync's own events join after the remote's) and predicts:

- the exit code of every step: 0, or 1 when a rule refuses the command, and
  for a sync 8 exactly when it finds one of the clone's own events lost;
- the event each write records (verb, force, Lamport clock, time, actor);
- every todo on every clone after each round: status, holder, closer,
  summary, and which events the replay refused (its conflicts), in order.

After a last round of syncs every clone holds identical items/ and events/
trees, every event written anywhere exactly once, and passes `fsck --full`
(every commit holds its state). A run in which no example produced a conflict
fails.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from gitcoop.domain.roles import LEDGER_ID
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo
from tests.conftest import coop_in, git, make_repo
from tests.service.offline_model import Ev, Todo, ask, fold, joined

NAMES = ("ann", "bob", "cyd")
ITEMS = 2
START = datetime(2026, 11, 29, 10, tzinfo=UTC)
COMMANDS = ("take", "force", "done", "done", "release")  # done twice: closes and amendments

Step = tuple[int, str, int, int, str]  # (clone, command, todo, minute in the round, summary)
Round = tuple[list[Step], list[int]]  # the offline steps, then the order the clones sync in

step = st.tuples(
    st.integers(0, len(NAMES) - 1),
    st.sampled_from(COMMANDS),
    st.integers(0, ITEMS - 1),
    st.integers(0, 1),  # two instants a round: equal times, so ids break some ties
    st.sampled_from(("ok", "fixed")),  # a repeated summary is an identical second close
)
rounds = st.lists(
    st.tuples(st.lists(step, min_size=2, max_size=6), st.permutations(range(len(NAMES)))),
    min_size=1,
    max_size=3,
)
# two takes of one todo at one instant and one clock: only the event ids decide
TIE: list[Round] = [([(0, "take", 0, 0, "ok"), (1, "take", 0, 0, "ok")], [0, 1, 2])]


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A bare remote and three clones that all hold the same `ITEMS` open todos."""
    root = tmp_path_factory.mktemp("offline-template")
    git(root, "init", "-q", "--bare", "remote.git")
    for name in NAMES:
        path = make_repo(root / name, f"{name}@example.com")
        git(path, "remote", "add", "origin", (root / "remote.git").as_uri())
        git(path, "config", "coop.fsync", "false")  # durability is not under test here
        # a template is copied while tests run: no packing may start in it in the background
        git(path, "config", "gc.auto", "0")
    assert coop_in(root / "ann", "init").code == 0
    for n in range(ITEMS):
        assert coop_in(root / "ann", "add", "todo", f"shared {n}").code == 0
    for name in NAMES:
        assert coop_in(root / name, "sync").code == 0
    yield root


@dataclass
class Clone:
    path: Path
    actor: str
    events: dict[str, list[Ev]]  # todo id -> the events this clone holds, as the model has them

    def clock(self) -> int:
        return max((e.clock for evs in self.events.values() for e in evs), default=0)


@dataclass
class Play:
    """One example: the clones, the remote's events as the model has them, what was written."""

    clones: list[Clone]
    todos: list[str]
    remote: dict[str, list[Ev]]
    seed_clock: int
    written: set[str] = field(default_factory=set)

    def act(self, clone: Clone, command: str, todo: str, now: datetime, summary: str) -> None:
        asked = ask(fold(clone.events[todo]), command, clone.actor, summary)
        args = {
            "take": ["take", todo],
            "force": ["take", todo, "--force"],
            "done": ["done", todo, "--summary", summary],
            "release": ["release", todo, "--reason", "later"],
        }[command]
        result = coop_in(clone.path, *args, env={"COOP_NOW": instant(now)})
        assert result.code == asked.code, (command, clone.actor, fold(clone.events[todo]), result)
        known = {e.id for e in clone.events[todo]}
        new = [e for e in log(clone.path, todo) if e["id"] not in known and e["verb"] != "add"]
        if asked.verb is None:
            assert new == [], new  # refused, or nothing to change: no event
            return
        assert len(new) == 1, new
        recorded = new[0]
        clock = max(clone.clock(), self.seed_clock) + 1  # one more than the ledger's largest
        assert (recorded["verb"], bool(recorded.get("force"))) == (asked.verb, asked.force)
        assert (recorded["clock"], recorded["at"], recorded["actor"]) == (
            clock,
            instant(now),
            clone.actor,
        )
        ev = Ev(
            recorded["id"],
            todo,
            clock,
            now,
            clone.actor,
            asked.verb,
            asked.force,
            recorded.get("summary"),
        )
        clone.events[todo].append(ev)
        self.written.add(ev.id)

    def sync(self, clone: Clone, now: datetime) -> None:
        before = {t: set(fold(clone.events[t]).conflicts) for t in self.todos}
        merged = {t: joined(self.remote[t], clone.events[t]) for t in self.todos}
        mine = {e.id for evs in merged.values() for e in evs if e.actor == clone.actor}
        new = {c for t in self.todos for c in fold(merged[t]).conflicts if c not in before[t]}
        result = coop_in(clone.path, "sync", env={"COOP_NOW": instant(now)})
        assert result.code == (8 if new & mine else 0), (clone.actor, new, mine, result)
        clone.events = {t: list(evs) for t, evs in merged.items()}
        self.remote = {t: list(evs) for t, evs in merged.items()}

    def check(self, clone: Clone) -> None:
        """Every todo on the clone is what the model folds from the events it holds."""
        shown = {i["id"]: i for i in coop_in(clone.path, "list", "--all", "--json").json()}
        for todo in self.todos:
            assert seen(shown[todo]) == fold(clone.events[todo]), (clone.actor, todo)


def instant(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


def log(path: Path, todo: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = coop_in(path, "log", todo, "--json").json()
    return events


def seen(item: dict[str, Any]) -> Todo:
    """A todo as the clone shows it, in the model's terms."""
    return Todo(
        item["status"],
        item["taken_by"],
        item["closed_by"],
        item["result_summary"],
        tuple(c["event"] for c in item["conflicts"]),
    )


def copied(template: Path, root: Path) -> Play:
    shutil.copytree(template, root, dirs_exist_ok=True, symlinks=True)
    paths = [root / name for name in NAMES]
    for path in paths:
        git(path, "remote", "set-url", "origin", (root / "remote.git").as_uri())
    items = coop_in(paths[0], "list", "--json").json()
    todos = sorted(i["id"] for i in items)
    seed_clock = max(e["clock"] for e in coop_in(paths[0], "log", "--json").json())
    clones = [
        Clone(path, f"{name}@example.com", {t: [] for t in todos})
        for path, name in zip(paths, NAMES, strict=True)
    ]
    return Play(clones, todos, {t: [] for t in todos}, seed_clock)


def play(template: Path, plan: list[Round]) -> int:
    """Play the rounds, sync everyone, check; the number of conflicts left at the end."""
    with tempfile.TemporaryDirectory() as tmp:
        game = copied(template, Path(tmp))
        for number, (steps, order) in enumerate(plan):
            base = START + timedelta(minutes=10 * number)
            for who, command, pick, minute, summary in steps:
                now = base + timedelta(minutes=minute)
                game.act(game.clones[who], command, game.todos[pick], now, summary)
            for who in order:
                game.sync(game.clones[who], base + timedelta(minutes=5))
            for clone in game.clones:
                game.check(clone)
        end = START + timedelta(minutes=10 * len(plan))
        for who in (0, 1, 2, 0, 1):
            game.sync(game.clones[who], end)
        check_converged([c.path for c in game.clones], game.written)
        final = [fold(game.remote[t]) for t in game.todos]
        for clone in game.clones:
            game.check(clone)
            assert [fold(clone.events[t]) for t in game.todos] == final
        return sum(len(todo.conflicts) for todo in final)


@dataclass
class Tally:
    examples: int = 0
    with_conflicts: int = 0
    conflicts: int = 0


def run(template: Path, examples: int) -> Tally:
    tally = Tally()

    @settings(
        max_examples=examples,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow],
    )
    @given(rounds)
    @example(TIE)
    def one(plan: list[Round]) -> None:
        conflicts = play(template, plan)
        tally.examples += 1
        tally.with_conflicts += conflicts > 0
        tally.conflicts += conflicts

    one()
    print(
        f"\n{tally.examples} examples, {tally.with_conflicts} with conflicts, "
        f"{tally.conflicts} conflicts"
    )
    return tally


def test_three_clones_conflict_offline_and_every_clone_agrees_on_the_ordering_rules_winner(
    template: Path,
) -> None:
    tally = run(template, examples=15)
    assert tally.with_conflicts > 0, tally  # a run that generated no conflict tested nothing


@pytest.mark.long
def test_a_hundred_examples_of_offline_conflicts(template: Path) -> None:
    tally = run(template, examples=100)
    assert tally.with_conflicts > tally.examples // 4, tally


def check_converged(paths: list[Path], written: set[str]) -> None:
    trees = {git(p, "ls-tree", "refs/coop/ledger", "items", "events") for p in paths}
    assert len(trees) == 1
    snapshot = Snapshot(open_repo(str(paths[0])), open_repo(str(paths[0])).tip())
    events = [e for e in snapshot.all_events() if e.item != LEDGER_ID and e.verb != "add"]
    ids = [e.id for e in events]
    assert len(ids) == len(set(ids))
    assert set(ids) == written
    checked = coop_in(paths[0], "fsck", "--full")
    assert checked.code == 0, checked.out


def test_the_property_checker_catches_a_missing_event(tmp_path: Path) -> None:
    """The convergence check itself can fail: an event nobody holds is reported."""
    path = make_repo(tmp_path / "solo")
    assert coop_in(path, "init").code == 0
    with pytest.raises(AssertionError):
        check_converged([path], {"ev-000000000000"})


def test_the_model_puts_a_syncs_own_events_after_the_remotes() -> None:
    """The model itself: the remote's take stands, whatever the joining one's clock and
    time; among the events that join together, equal clocks go to the earlier time."""
    at = START
    remote = [Ev("ev-b", "td", 4, at + timedelta(minutes=1), "bob@example.com", "take")]
    early = Ev("ev-a", "td", 3, at, "ann@example.com", "take")
    assert fold(joined(remote, [early])) == Todo("taken", "bob@example.com", conflicts=("ev-a",))
    later = Ev("ev-c", "td", 4, at + timedelta(minutes=2), "ann@example.com", "release")
    assert [e.id for e in joined([], [later, early])] == ["ev-a", "ev-c"]
