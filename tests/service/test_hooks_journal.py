"""What a hook cannot record is journaled, then replayed; the lock held by another process."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gitcoop.store import journal
from gitcoop.store.lock import lock_path
from tests.conftest import coop, git, make_repo
from tests.service.hook_helpers import add, commit, head, item, ledger_tip, with_gitcoop_on_path

HOLDER = (
    "import sys, filelock\n"
    "lock = filelock.FileLock(sys.argv[1])\n"
    "lock.acquire()\n"
    "print('locked', flush=True)\n"
    "sys.stdin.read()\n"
)


@contextmanager
def lock_held_elsewhere(git_dir: Path) -> Iterator[None]:
    """Another OS process holds gitcoop's writer lock until the block ends."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, lock_path(str(git_dir))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "locked"
        yield
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=30)


@pytest.fixture
def hooked(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with_gitcoop_on_path(monkeypatch)
    assert coop("hooks", "install").code == 0
    return ledger


def test_a_busy_lock_journals_the_trailer_and_replay_records_it(hooked: Path) -> None:
    todo = add("todo", "locked out")
    git_dir = str(hooked / ".git")
    before = ledger_tip(hooked)
    with lock_held_elsewhere(hooked / ".git"):
        done = commit(hooked, f"Work\n\nCoop-Done: {todo}\n")
        sha = head(hooked)
        assert ledger_tip(hooked) == before
    lines = [line for line in done.stderr.splitlines() if line.startswith("gitcoop:")]
    assert len(lines) == 1 and "could not record Coop-Done" in lines[0]
    assert [e["commit"] for e in journal.entries(git_dir)] == [sha]

    replayed = coop("hook", "replay", "--json")
    assert [r["status"] for r in replayed.json()] == ["recorded"]
    assert item(todo)["commit_sha"] == sha
    assert not journal.has_entries(git_dir)


def test_replay_waits_while_the_lock_is_still_held(hooked: Path) -> None:
    todo = add("todo", "still locked")
    with lock_held_elsewhere(hooked / ".git"):
        commit(hooked, f"Work\n\nCoop-Done: {todo}\n")
        replayed = coop("hook", "replay", "--json")
        assert [r["status"] for r in replayed.json()] == ["waiting"]
        assert journal.has_entries(str(hooked / ".git"))
    assert coop("hook", "replay").code == 0
    assert item(todo)["status"] == "done"


def test_an_amend_while_journaled_moves_the_journaled_sha(hooked: Path) -> None:
    todo = add("todo", "amended while locked")
    with lock_held_elsewhere(hooked / ".git"):
        commit(hooked, f"Work\n\nCoop-Done: {todo}\n")
        git(hooked, "commit", "-q", "--amend", "-m", f"Work, amended\n\nCoop-Done: {todo}")
        amended = head(hooked)
    assert [e["commit"] for e in journal.entries(str(hooked / ".git"))] == [amended, amended]
    assert coop("hook", "replay").code == 0
    assert item(todo)["commit_sha"] == amended
    events = coop("log", todo, "--json").json()
    assert {e.get("commit") for e in events if e.get("commit")} == {amended}  # no dead sha
    assert events[-1]["summary"] == "Work, amended"  # the later close amends the summary


def test_no_ledger_yet_in_a_fresh_clone_then_the_next_command_replays(
    ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_gitcoop_on_path(monkeypatch)
    todo = add("todo", "cloned work")
    commit(ledger, "Start\n")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(ledger), str(clone))
    git(clone, "config", "user.email", "alice@example.com")
    monkeypatch.chdir(clone)
    assert coop("hooks", "install").code == 0
    done = commit(clone, f"Offline\n\nCoop-Done: {todo}\n")
    assert "no ledger" in done.stderr
    git(clone, "fetch", "-q", "origin", "refs/coop/ledger:refs/coop/ledger")

    listed = coop("list", "--all")
    assert listed.code == 0
    assert "gitcoop: journal: " in listed.err and "done with" in listed.err
    assert item(todo)["commit_sha"] == head(clone)


def test_the_journal_keeps_a_torn_line_and_settles_by_id(tmp_path: Path) -> None:
    git_dir = str(make_repo(tmp_path / "r") / ".git")
    first = journal.append(git_dir, {"kind": "trailers", "n": 1})
    with open(journal.journal_path(git_dir), "a", encoding="utf-8") as handle:
        handle.write('{"id": "torn", "kind"')
    second = journal.append(git_dir, {"kind": "trailers", "n": 2})
    assert [e["n"] for e in journal.entries(git_dir)] == [1, 2]
    journal.settle(git_dir, {first})
    assert [e["id"] for e in journal.entries(git_dir)] == [second]
    assert '"kind"' in Path(journal.journal_path(git_dir)).read_text().splitlines()[0]
