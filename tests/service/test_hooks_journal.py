"""What a hook cannot record is journaled, then replayed; the lock held by another process."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from gitcoop.store.git.lock import lock_path
from gitcoop.store.ledger import journal
from tests.conftest import coop, git, make_repo
from tests.service.hook_helpers import (
    add,
    bare_env,
    commit,
    head,
    item,
    ledger_tip,
    with_gitcoop_on_path,
)

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
        assert replayed.code == 1  # still waiting: the listing inside the error
        assert [r["status"] for r in replayed.json()["error"]["entries"]] == ["waiting"]
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
    assert "gitcoop: journal " in listed.err and "done with" in listed.err
    assert item(todo)["commit_sha"] == head(clone)


def test_the_journal_keeps_a_torn_line_and_settles_by_id(tmp_path: Path) -> None:
    git_dir = str(make_repo(tmp_path / "r") / ".git")
    first = journal.append(git_dir, {"kind": "trailers", "n": 1})
    with open(journal.journal_path(git_dir), "a", encoding="utf-8") as handle:
        handle.write('{"id": "torn", "kind"')
    second = journal.append(git_dir, {"kind": "trailers", "n": 2})
    kept = journal.entries(git_dir)
    assert [e.get("n", e["kind"]) for e in kept] == [1, "unreadable", 2]
    assert kept[1]["line"] == '{"id": "torn", "kind"'
    journal.settle(git_dir, {first})
    assert [e["id"] for e in journal.entries(git_dir)] == [kept[1]["id"], second]
    assert '"kind"' in Path(journal.journal_path(git_dir)).read_text().splitlines()[0]


def test_a_torn_line_is_reported_with_why_until_it_is_dismissed(ledger: Path) -> None:
    git_dir = str(ledger / ".git")
    with open(journal.journal_path(git_dir), "w", encoding="utf-8") as handle:
        handle.write('{"id": "cut", "kind": "trail\n')
    torn = journal.entries(git_dir)[0]["id"][:8]
    listed = coop("list")
    assert listed.err == "gitcoop: 1 journal entry waits: git coop hook replay\n"
    replayed = coop("hook", "replay").out
    assert f"journal {torn}: a journal entry can never be recorded as it is: this journal " in (
        replayed
    )
    assert f"git coop hook dismiss {torn} --reason WHY" in replayed
    assert coop("hook", "dismiss", torn).code == 2  # a reason is required
    assert coop("hook", "dismiss", torn, "--reason", "a crash cut it").code == 0
    assert not journal.has_entries(git_dir)
    log = Path(journal.dismissed_path(git_dir)).read_text()
    dropped = [json.loads(line) for line in log.splitlines()]
    assert dropped[0]["reason"] == "a crash cut it"
    assert dropped[0]["entry"]["line"] == '{"id": "cut", "kind": "trail'
    assert coop("list").err == ""


def test_a_refusal_waits_until_it_is_recorded_or_dismissed(hooked: Path) -> None:
    todo, other = add("todo", "bob's"), add("todo", "bob's too")
    for held in (todo, other):
        assert coop("take", held, "--as", "bob@example.com").code == 0
    commit(hooked, f"Both\n\nCoop-Done: {todo}\nCoop-Done: {other}\n")
    sha = head(hooked)
    for _ in range(2):  # every command says it, once, and retries nothing a rule refused
        listed = coop("list")
        assert listed.err == "gitcoop: 2 trailers wait: git coop hook replay\n"
    entry = journal.entries(str(hooked / ".git"))[0]
    short = entry["id"][:8]
    assert entry["state"] == "refused"

    shown = coop("hook", "replay").out.splitlines()
    assert len(shown) == 2 and all(f"gitcoop: journal {short}: not recorded: " in x for x in shown)
    assert (
        f"record it with: git coop done {todo} --commit {sha} --summary Both --force" in (shown[0])
    )
    assert f"or drop it: git coop hook dismiss {short} --reason WHY" in shown[0]

    status = coop("hooks", "status").out
    assert "2 trailers wait: git coop hook replay" in status
    assert f"journal {short}: not recorded: Coop-Done {todo} of {sha[:7]}: " in status

    coop("release", todo, "--as", "bob@example.com", "--reason", "alice did it")
    replayed = coop("hook", "replay", "--json").json()["error"]["entries"]
    assert [(r["status"], r["kept"]) for r in replayed] == [("recorded", True), ("refused", True)]
    assert item(todo)["commit_sha"] == sha
    assert coop("list").err == "gitcoop: 1 trailer waits: git coop hook replay\n"

    assert coop("hook", "dismiss", short, "--reason", "bob finishes it himself").code == 0
    assert not journal.has_entries(str(hooked / ".git"))
    assert item(other)["status"] == "taken"
    assert coop("list").err == ""


def test_an_identity_that_names_no_one_is_kept_and_reported_with_why(hooked: Path) -> None:
    todo = add("todo", "by a broken identity")
    done = commit(hooked, f"Odd\n\nCoop-Done: {todo}\n", env=bare_env(COOP_ACTOR="a <b>"))
    assert "cannot record Coop-Done" in done.stderr and "cannot name a person" in done.stderr
    entry = journal.entries(str(hooked / ".git"))[0]
    assert (entry["state"], entry["actor"]) == ("broken", "a <b>")
    assert coop("list").err == "gitcoop: 1 trailer waits: git coop hook replay\n"
    replayed = coop("hook", "replay").out
    assert "can never be recorded as it is: 'a <b>' cannot name a person" in replayed
    assert f"record it by hand (git coop done {todo} --commit {head(hooked)}" in replayed
    assert item(todo)["status"] == "open"
    assert journal.has_entries(str(hooked / ".git"))  # until recorded or dismissed


def test_an_agent_commit_during_a_held_lock_is_replayed_as_the_agent(hooked: Path) -> None:
    agent = "agent-7@example.com"
    todo = add("todo", "agent's, while locked")
    assert coop("take", todo, "--as", agent).code == 0
    with lock_held_elsewhere(hooked / ".git"):
        done = commit(hooked, f"Agent\n\nCoop-Done: {todo}\n", env=bare_env(COOP_ACTOR=agent))
        assert "could not record Coop-Done" in done.stderr
        assert item(todo)["status"] == "taken"
    listed = coop("list", "--all")  # run by alice: the entry keeps its own actor
    assert "done with" in listed.err
    shown = item(todo)
    assert (shown["status"], shown["closed_by"]) == ("done", agent)


def journal_line(git_dir: str, entry: dict[str, object]) -> None:
    """An entry as a hand edit or another gitcoop version may have left it."""
    with open(journal.journal_path(git_dir), "a", encoding="utf-8") as handle:
        handle.write(json.dumps(entry) + "\n")


def test_an_entry_gitcoop_cannot_read_says_why_once_and_how_to_drop_it(ledger: Path) -> None:
    git_dir = str(ledger / ".git")
    todo = add("todo", "odd entry")
    request = {"verb": "done", "ref": todo, "args": {"summary": "s"}}
    at = "2026-01-01T00:00:00Z"
    journal_line(
        git_dir,
        {
            "id": "0dd1",
            "kind": "trailers",
            "at": at,
            "actor": 5,
            "commit": "abc1234",
            "requests": [request],
        },
    )
    first = coop("list")
    assert first.code == 0, first.err
    assert "journal 0dd1: " in first.err and "can never be recorded as it is" in first.err
    assert "actor 5 is not text" in first.err
    assert "git coop hook dismiss 0dd1 --reason WHY" in first.err
    again = coop("list")  # said once; then only counted
    assert (again.code, again.err) == (0, "gitcoop: 1 trailer waits: git coop hook replay\n")
    assert coop("hook", "replay").code == 1  # it still waits: a script can tell
    assert item(todo)["status"] == "open"


def test_a_bug_while_recording_an_entry_never_fails_the_command(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitcoop.service import recording

    git_dir = str(ledger / ".git")
    todo = add("todo", "a bug in the way")
    request = {"verb": "done", "ref": todo, "args": {"summary": "s"}}
    journal_line(
        git_dir,
        {
            "id": "b0b0",
            "kind": "trailers",
            "at": "2026-01-01T00:00:00Z",
            "actor": "alice@example.com",
            "commit": "abc1234",
            "requests": [request],
        },
    )

    def broken(*args: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(recording, "record", broken)
    listed = coop("list")
    assert listed.code == 0, listed.err
    assert "journal b0b0: " in listed.err and "RuntimeError: a bug" in listed.err
    assert "git coop hook dismiss b0b0 --reason WHY" in listed.err
    assert journal.entries(git_dir)[0]["state"] == "broken"
    assert coop("hook", "replay").code == 1  # the command that asked for it says it too


def test_a_journal_that_cannot_be_replayed_never_fails_the_command(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from gitcoop.service import replay

    journal_line(str(ledger / ".git"), {"id": "c0c0", "kind": "rewrite", "at": "x"})

    def broken(*args: object, **kwargs: object) -> object:
        raise RuntimeError("a bug")

    monkeypatch.setattr(replay, "replay", broken)
    listed = coop("list")
    assert listed.code == 0, listed.err
    assert listed.err.count("\n") == 1
    assert "RuntimeError: a bug" in listed.err and "git coop hook replay" in listed.err
