"""A sync's fetch started before the program loads: only the fetch the command makes."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from gitcoop.store import fetching
from tests.conftest import Clones, coop_in, coop_process, git, make_repo

REMOTE_REF = "refs/coop/remotes/origin/ledger"


@pytest.fixture
def shared(clones: Clones) -> tuple[Clones, Path]:
    """alice's ledger on the remote, and bob's clone that has not fetched it."""
    alice = clones.clone("alice")
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "add", "todo", "shared work").code == 0
    assert coop_in(alice, "sync").code == 0
    return clones, clones.clone("bob")


@pytest.fixture
def no_pending() -> Iterator[None]:
    """Nothing left pending for the next test."""
    yield
    fetching._pending.clear()


def ref(path: Path, name: str) -> str:
    return git(path, "rev-parse", "-q", "--verify", name, check=False).strip()


def started_in(path: Path, words: list[str]) -> bool:
    saved = os.getcwd()
    os.chdir(path)
    try:
        fetching.start(words)
    finally:
        os.chdir(saved)
    return bool(fetching._pending)


def test_a_plain_sync_fetches_the_ledger_early_and_hands_it_over(
    shared: tuple[Clones, Path], no_pending: None
) -> None:
    _, bob = shared
    assert started_in(bob, ["sync"])
    git_dir = git(bob, "rev-parse", "--absolute-git-dir").strip()
    done = fetching.take(git_dir, "origin")
    assert done is not None and done.returncode == 0, done
    assert ref(bob, REMOTE_REF)
    assert fetching.take(git_dir, "origin") is None  # handed over once


@pytest.mark.parametrize(
    "words",
    [
        ["sync", "nosuch"],  # not a remote of this clone: never taken for a path
        ["sync", "--as", "carol"],
        ["sync", "-h"],
        ["sync", "origin", "extra"],
        ["list"],
        ["pull", "../elsewhere"],
    ],
)
def test_anything_but_a_plain_sync_or_pull_of_a_remote_starts_nothing(
    shared: tuple[Clones, Path], no_pending: None, words: list[str]
) -> None:
    _, bob = shared
    make_repo(bob / "nosuch")  # a repository the name would reach as a path
    assert not started_in(bob, words)
    assert not ref(bob, REMOTE_REF)
    assert not ref(bob, "refs/coop/remotes/nosuch/ledger")


def test_an_early_fetch_into_another_repository_is_not_taken(
    shared: tuple[Clones, Path], no_pending: None, tmp_path: Path
) -> None:
    _, bob = shared
    assert started_in(bob, ["pull"])
    other = make_repo(tmp_path / "other")
    assert fetching.take(git(other, "rev-parse", "--absolute-git-dir").strip(), "origin") is None
    assert not fetching._pending  # waited for, not left running


def test_the_script_fetches_once_and_syncs(shared: tuple[Clones, Path], tmp_path: Path) -> None:
    clones, bob = shared
    trace = tmp_path / "trace.json"
    synced = coop_process(bob, "sync", env={"GIT_TRACE2_EVENT": str(trace)})
    assert synced.code == 0, synced.err
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    commands = [e["name"] for e in events if e.get("event") == "cmd_name"]
    assert commands.count("fetch") == 1
    # started before gitcoop loaded: the two questions (side by side), then the fetch
    assert sorted(commands[1:3]) == ["config", "rev-parse"] and commands[3] == "fetch"
    assert ref(bob, "refs/coop/ledger") == ref(clones.root / "alice", "refs/coop/ledger")


def test_an_early_fetch_the_command_never_took_is_stopped(
    shared: tuple[Clones, Path], no_pending: None, tmp_path: Path
) -> None:
    """The command failed before its fetch step: the early fetch (held up here by an
    upload-pack that waits on a pipe) is stopped, and fetched nothing."""
    _, bob = shared
    fifo = tmp_path / "hold"
    os.mkfifo(fifo)
    holder = tmp_path / "upload-pack"
    holder.write_text(f"#!/bin/sh\ncat {fifo} > /dev/null\n")
    holder.chmod(0o755)
    git(bob, "config", "remote.origin.uploadpack", str(holder))
    assert started_in(bob, ["sync"])
    [(_, process)] = fetching._pending.values()
    try:
        fetching.abandon()
        assert process.returncode is not None and process.returncode < 0  # stopped
        assert not fetching._pending and not ref(bob, REMOTE_REF)
    finally:
        with contextlib.suppress(OSError):  # let the waiting upload-pack go, if it runs
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
