"""The read cache, its open index, keys and index of events answer as reading the commit does.

`COOP_REFERENCE=1` routes every fast path to the path it shadows: no cache
file is read or written (every read parses, from the commit, each file it
needs), the line reader and the emitter give way to ruamel, nothing is forked
and the collector is left alone. Every reading verb is run three ways on the
same ledger after random writes: that way, then cold and warm with the fast
paths. The exit code, the output and the errors are the same.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitcoop.store import fast
from gitcoop.store.fast.cache_files import CACHE_DIR
from tests.conftest import Result, coop_in, git, make_repo
from tests.store.fast.test_keys import ACTORS, TIMES, random_ledger, random_step

ON, OFF = {fast.REFERENCE: "1"}, {fast.REFERENCE: "0"}  # OFF: also in a run by reference


def reads(made: list[str]) -> list[tuple[str, ...]]:
    """Each reading verb, in the forms that take different paths through the cache."""
    found: list[tuple[str, ...]] = [
        ("list", "--json"),
        ("list", "--all", "--json"),
        ("list",),
        ("list", "--all", "--sort", "updated"),
        ("list", "--grep", "NOTE", "--json"),
        ("list", "--all", "--grep", "work 1", "--json"),
        ("list", "--all", "--since", "1d", "--json"),
        ("list", "--status", "done", "--json"),
        ("ready", "--json"),
        ("blocked", "--json"),
        ("status", "--json"),
        ("status",),
        ("owed", "--json"),
        ("owed", "--all", "--json"),
        ("prime",),
    ]
    for item in made[:4]:
        found += [("show", item, "--json"), ("log", item, "--json")]
    return found


def answers(path: Path, made: list[str], env: dict[str, str]) -> list[Result]:
    found = []
    for actor in ACTORS[:2]:
        for args in reads(made):
            run = {**env, "COOP_ACTOR": actor, "COOP_NOW": TIMES[1]}
            found.append(coop_in(path, *args, env=run))
    return found


def compare(path: Path, made: list[str], cold: bool = False) -> None:
    """The reads by reference, then with the fast paths (from the cache as the last
    compare left it, or from none when `cold`), then again from the cache they left."""
    cache = path / ".git" / CACHE_DIR
    if cold:
        shutil.rmtree(cache, ignore_errors=True)
    before = files(cache)
    reference = answers(path, made, ON)
    assert files(cache) == before, "a read under COOP_REFERENCE=1 touched the read cache"
    fresh = answers(path, made, OFF)
    warm = answers(path, made, OFF)
    for args, one, two, three in zip(reads(made) * 2, reference, fresh, warm, strict=True):
        assert one == two == three, (args, one, two, three)


def files(folder: Path) -> dict[str, int]:
    return {str(p): p.stat().st_mtime_ns for p in folder.rglob("*")} if folder.exists() else {}


def test_every_read_answers_as_the_commit_does_after_random_writes(ledger: Path) -> None:
    rng = random.Random(44)
    made: list[str] = []
    for step in range(40):
        random_step(ledger, rng, made)
        if step % 8 == 7:
            compare(ledger, made, cold=step == 7)


def test_a_ledger_written_by_reference_is_the_same_ledger(tmp_path: Path) -> None:
    """The same writes, one repository under COOP_REFERENCE=1 (ruamel writes and reads
    every file), one not: the same files, to the byte."""
    trees = []
    for name, env in (("reference", ON), ("fast", OFF)):
        path = make_repo(tmp_path / name)
        assert coop_in(path, "init", env={**env, "COOP_SEED": "init"}).code == 0
        rng = random.Random(45)
        made: list[str] = []
        saved = dict(os.environ)
        try:
            for step in range(25):
                os.environ.update({**env, "COOP_SEED": f"step {step}"})
                random_step(path, rng, made)
        finally:
            os.environ.clear()
            os.environ.update(saved)
        trees.append(git(path, "rev-parse", "refs/coop/ledger^{tree}"))
        assert len(made) > 5
    assert trees[0] == trees[1]


@settings(
    max_examples=4,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(5, 25))
def test_every_read_answers_as_the_commit_does_under_any_writes(seed: int, steps: int) -> None:
    with random_ledger(seed, steps) as (path, made):
        compare(path, made, cold=True)
