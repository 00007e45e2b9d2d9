"""`git coop status`: the ledger at a glance, the first thing to type in a repository."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Clones, coop, coop_in, git

BOB = "bob@example.com"


def test_status_counts_what_i_hold_and_what_is_due(ledger: Path) -> None:
    mine = coop("add", "todo", "my work").out.strip()
    coop("add", "todo", "open work")
    coop("add", "request", "a request")
    theirs = coop("add", "todo", "bob's work").out.strip()
    assert coop("take", mine, "--session", "s1").code == 0
    assert coop("take", theirs, "--as", BOB).code == 0
    now = coop("status")
    assert now.code == 0, now.err
    lines = now.out.splitlines()
    assert lines[0].startswith("alice@example.com (owner) · ledger at ")
    assert "  request  1 open" in lines
    assert "  todo     1 open, 2 taken" in lines
    assert "You hold 1 item:" in lines
    held = next(line for line in lines if mine in line)
    assert "outcome owed" in held and "due in 3h" in held and "my work" in held
    assert "Nothing owed is due." in lines
    assert "Not shared: this repository has no git remote" in lines

    later = coop("status", env={"COOP_NOW": "2026-11-29T13:30:00Z"}).out.splitlines()
    assert "Needs you now (git coop owed):" in later
    due = [line for line in later if "due 30m ago" in line]
    assert any(mine in line for line in due)  # mine: its outcome
    assert any(theirs in line and "review owed (taken without a session)" in line for line in due)


def test_status_is_one_screen_however_much_is_held(ledger: Path) -> None:
    held = [coop("add", "todo", f"work {n}").out.strip() for n in range(8)]
    for todo in held:
        assert coop("take", todo, "--as", BOB, "--session", "s1").code == 0
    later = {"COOP_NOW": "2026-11-29T13:30:00Z"}
    lines = coop("status", "--as", BOB, env=later).out.splitlines()
    assert "You hold 8 items:" in lines
    assert sum(1 for line in lines if any(todo in line for todo in held)) == 5 + 5
    assert "  …and 3 more — git coop list --mine" in lines
    assert "  …and 3 more — git coop owed --mine" in lines
    assert len(coop("status", "--as", BOB, "--json", env=later).json()["held"]) == 8


def test_status_as_json(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo)
    data = coop("status", "--json", env={"COOP_NOW": "2026-11-29T13:30:00Z"}).json()
    assert data["actor"] == "alice@example.com" and data["roles"] == ["owner"]
    assert data["counts"] == {"todo": {"taken": 1}}
    assert [i["short_id"] for i in data["held"]] == [todo]
    assert [d["short_id"] for d in data["due"]] == [todo]
    assert data["due"][0]["kind"] == "legacy_binding"  # stored names stay in --json
    assert data["sharing"] == [] and data["journal"] == 0


def test_status_compares_with_the_remote_as_last_fetched(clones: Clones) -> None:
    first, second = clones.clone("first"), clones.clone("second")
    assert coop_in(first, "init").code == 0
    assert coop_in(first, "remote", "setup", "origin").code == 0
    assert coop_in(first, "sync").code == 0
    assert coop_in(second, "remote", "setup", "origin").code == 0
    assert coop_in(second, "sync").code == 0
    assert "Shared with origin: up to date as of the last fetch" in coop_in(second, "status").out
    coop_in(second, "add", "todo", "made here")
    coop_in(second, "add", "todo", "and here")
    coop_in(first, "add", "todo", "made there")
    assert coop_in(first, "sync").code == 0
    assert "2 commits ahead" in coop_in(second, "status").out  # nothing fetched yet
    git(second, "fetch", "-q", "origin")
    shown = coop_in(second, "status").out
    assert "Shared with origin: 2 commits ahead and 1 commit behind as of the last fetch" in shown
    assert "git coop sync" in shown
    data = coop_in(second, "status", "--json").json()
    assert data["sharing"] == [
        {"remote": "origin", "fetched": True, "ahead": 2, "behind": 1, "claims": False}
    ]


def test_status_in_a_clone_not_yet_shared_says_how(clones: Clones) -> None:
    clone = clones.clone("first")
    assert coop_in(clone, "init").code == 0
    assert (
        "Not shared yet: git coop remote setup origin && git coop sync origin"
        in coop_in(clone, "status").out
    )


def test_status_counts_journal_entries_waiting(ledger: Path) -> None:
    journal = ledger / ".git" / "coop-journal"
    journal.write_text('{"id": "0123456789abcdef", "kind": "unreadable", "line": "x"}\n')
    shown = coop("status")
    assert "1 hook journal entry waits — git coop hook replay" in shown.out
    assert coop("status", "--json").json()["journal"] == 1


def test_status_without_a_ledger_says_how_to_start(repo: Path) -> None:
    result = coop("status")
    assert result.code == 4 and "git coop init" in result.err
