"""Property: claims, pushes and network failures interleaved over three clones.

Three agents share one remote with claims through it. Hypothesis interleaves
picks, finishes and syncs in any clone with the remote failing: a push cut off
before it lands, one cut off after it landed, the remote gone (also right
after a push landed) and back. Whatever the order, once the remote is back and
everyone has synced:

- no item is picked twice, and no pick lost on replay (no conflicts at all);
- every pick that exited 0 is on the remote;
- a pick on the remote that did not exit 0 is one whose push was cut off and
  whose clone was told it could not tell (exit 7);
- every clone holds exactly the remote's ledger.
"""

from __future__ import annotations

import shutil
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import coop_in, git, make_repo
from tests.remotes import Served, cut_pushes, picks_on
from tests.service.queue_fixtures import CONFIRM, install

NAMES = ("ann", "bob", "cyd")
ITEMS = 5
OPS = ("pick", "pick", "finish", "sync", "away", "back")
CUTS = ("cut-before", "cut-after", "cut-after-away")  # the next push, whoever makes it

steps = st.lists(
    st.tuples(st.integers(0, len(NAMES) - 1), st.sampled_from(OPS + CUTS)), min_size=1, max_size=12
)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A bare remote with ITEMS verified ready items, and three clones with claims on."""
    root = tmp_path_factory.mktemp("claims-template")
    git(root, "init", "-q", "--bare", "remote.git")
    seed = make_repo(root / "seed", "owner@example.com")
    git(seed, "remote", "add", "origin", (root / "remote.git").as_uri())
    install(seed).plan(default=CONFIRM)
    assert coop_in(seed, "init").code == 0
    for n in range(ITEMS):
        assert coop_in(seed, "add", "item", f"finding {n}", "--evidence", "src/app.py:7").code == 0
    assert coop_in(seed, "verify").code == 0
    git(seed, "push", "-q", "origin", "main")
    assert coop_in(seed, "sync").code == 0
    for name in NAMES:
        path = root / name
        git(root, "clone", "-q", "-b", "main", (root / "remote.git").as_uri(), str(path))
        git(path, "config", "user.email", f"{name}@example.com")
        git(path, "config", "coop.fsync", "false")  # durability is not under test here
        # a template is copied while tests run: no packing may start in it in the background
        git(path, "config", "gc.auto", "0")
        assert coop_in(path, "remote", "setup", "origin", "--claims").code == 0
        assert coop_in(path, "sync").code == 0
    yield root


def copied(template: Path, root: Path) -> tuple[Served, list[Path]]:
    """A fresh copy of the template, its clones pointed at the copy's remote."""
    shutil.copytree(template, root, dirs_exist_ok=True, symlinks=True)
    bare = root / "remote.git"
    paths = [root / name for name in NAMES]
    for path in paths:
        git(path, "remote", "set-url", "origin", bare.as_uri())
    return Served(root, bare.as_uri(), "file", bare), paths


class Run:
    """What each clone was told: picks that exited 0, and picks it could not confirm."""

    def __init__(self, served: Served, paths: list[Path]) -> None:
        self.served = served
        self.paths = paths
        self.confirmed: Counter[tuple[str, str]] = Counter()
        self.doubtful: Counter[str] = Counter()  # per actor: picks that ended in exit 7
        self.held: dict[int, list[str]] = {n: [] for n in range(len(paths))}

    def step(self, who: int, op: str) -> None:
        path, actor = self.paths[who], f"{NAMES[who]}@example.com"
        gone = not self.served.bare.exists()
        if op == "pick":
            self.pick(who, path, actor, gone)
        elif op == "finish" and self.held[who]:
            finished = coop_in(path, "finish", self.held[who][0], "done", "--commit", "HEAD")
            # decided at the remote like a claim: away, or cut off, it says so (exit 7)
            assert finished.code in (0, 1, 7), finished.err
            if finished.code != 7:
                self.held[who].pop(0)
        elif op == "sync":
            # away, or a push cut off: it cannot say, exit 7 (unreachable)
            assert coop_in(path, "sync").code in ((7,) if gone else (0, 1, 7))
        elif op.startswith("cut") and not gone:
            cut_pushes(self.served, landed=op != "cut-before", then_away=op.endswith("away"))
        elif op == "away" and not gone:
            self.served.away()
        elif op == "back" and gone:
            self.served.back()

    def pick(self, who: int, path: Path, actor: str, gone: bool) -> None:
        picked = coop_in(path, "pick", "--json")
        if picked.code == 0:
            item = picked.json()["id"]
            assert (actor, item) in picks_on(self.served.bare, settled=False)  # there already
            self.confirmed[(actor, item)] += 1
            self.held[who].append(item)
        elif picked.code == 7:
            self.doubtful[actor] += "took it is not known" in picked.err
        else:
            assert "nothing is ready" in picked.err or picked.code == 5, picked.err
            assert not gone

    def settle(self) -> None:
        """The remote back, no more cuts, everyone synced twice around."""
        if not self.served.bare.exists():
            self.served.back()
        (self.served.root / "cut-next-push").unlink(missing_ok=True)
        for path in [*self.paths, *self.paths]:
            synced = coop_in(path, "sync")
            assert synced.code == 0, synced.err


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps)
def test_claims_hold_through_network_failures(template: Path, plan: list[tuple[int, str]]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        served, paths = copied(template, Path(tmp))
        run = Run(served, paths)
        for who, op in plan:
            run.step(who, op)
        run.settle()
        on_remote = picks_on(served.bare)  # also: no conflict on any item
        items = Counter(item for _, item in on_remote)
        assert set(items.values()) <= {1}, items
        assert set(run.confirmed.values()) <= {1}
        assert set(run.confirmed) <= set(on_remote)
        unconfirmed = Counter(actor for actor, _ in set(on_remote) - set(run.confirmed))
        for actor, count in unconfirmed.items():
            assert count <= run.doubtful[actor], (actor, on_remote, run.confirmed)
        tree = git(served.bare, "rev-parse", "refs/coop/ledger^{tree}")
        assert {git(p, "rev-parse", "refs/coop/ledger^{tree}") for p in paths} == {tree}
