"""Sync against a real server: `git daemon` with receive-pack, on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import barrier
from tests.conftest import coop_in, git
from tests.remotes import Served, serve


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """A bare remote served by `git daemon --enable=receive-pack`; stopped in teardown."""
    with serve("daemon", tmp_path) as remote:
        yield remote


def trees(path: Path) -> str:
    return git(path, "rev-parse", "refs/coop/ledger:items", "refs/coop/ledger:events")


def test_diverged_clones_meet_through_git_daemon(served: Served) -> None:
    a, b = served.clone("alice"), served.clone("bob")
    assert coop_in(a, "init").code == 0
    assert coop_in(a, "add", "todo", "seed").code == 0
    assert coop_in(a, "sync").code == 0, coop_in(a, "sync").err
    assert coop_in(b, "sync").code == 0
    coop_in(a, "add", "todo", "alice's")
    coop_in(b, "add", "todo", "bob's")
    assert coop_in(a, "sync").code == 0
    merged = coop_in(b, "sync", "--json")
    assert merged.code == 0 and merged.json()["merge"] == "merged"
    assert coop_in(a, "sync").code == 0
    assert trees(a) == trees(b)
    titles = sorted(i["title"] for i in coop_in(b, "list", "--json").json())
    assert titles == ["alice's", "bob's", "seed"]


def test_simultaneous_syncs_through_git_daemon_both_land(served: Served) -> None:
    a, b = served.clone("alice"), served.clone("bob")
    coop_in(a, "init")
    coop_in(a, "sync")
    coop_in(b, "sync")
    coop_in(a, "add", "todo", "alice's")
    coop_in(b, "add", "todo", "bob's")
    syncs = [barrier.start(barrier.RUN_CLI, ["sync"], p, served.env) for p in (a, b)]
    barrier.release(syncs)
    for code, _, err in barrier.finish(syncs, timeout=60):
        assert code == 0, err
    coop_in(a, "sync"), coop_in(b, "sync")
    assert trees(a) == trees(b)
    fresh = served.clone("carol")
    assert coop_in(fresh, "remote", "setup", "origin").code == 0
    assert coop_in(fresh, "sync").code == 0
    titles = sorted(i["title"] for i in coop_in(fresh, "list", "--json").json())
    assert titles == ["alice's", "bob's"]
