"""Recording never fails on history this clone lacks (a commit another clone recorded)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.store.ledger import journal
from tests.conftest import Clones, coop_in, git
from tests.service.hook_helpers import commit, head, with_gitcoop_on_path
from tests.service.test_hooks_journal import lock_held_elsewhere


def show(clone: Path, ref: str) -> dict[str, object]:
    shown = coop_in(clone, "show", ref, "--json")
    assert shown.code == 0, shown.err
    result: dict[str, object] = shown.json()
    return result


@pytest.fixture
def recorded_elsewhere(clones: Clones, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, str, str]:
    """Clone A, and a todo that clone B closed with a commit it never pushed; its sha."""
    with_gitcoop_on_path(monkeypatch)
    a = clones.clone("a", "alice@example.com")
    assert coop_in(a, "init").code == 0
    todo = coop_in(a, "add", "todo", "fix it", "--json").json()["id"]
    commit(a, "Start\n")
    git(a, "push", "-q", "origin", "main")
    assert coop_in(a, "sync").code == 0

    b = clones.clone("b", "alice@example.com")
    git(b, "fetch", "-q", "origin", "main")
    git(b, "checkout", "-q", "-b", "private", "FETCH_HEAD")
    assert coop_in(b, "sync").code == 0
    assert coop_in(b, "hooks", "install").code == 0
    commit(b, f"Fix it in B\n\nCoop-Done: {todo}\n", name="b.txt")
    unpushed = head(b)
    assert show(b, todo)["commit_sha"] == unpushed
    assert coop_in(b, "sync").code == 0

    assert coop_in(a, "sync").code == 0
    assert coop_in(a, "hooks", "install").code == 0
    with pytest.raises(AssertionError):
        git(a, "cat-file", "-e", unpushed)  # clone A has never seen it
    return a, todo, unpushed


def test_a_second_close_of_a_commit_not_here_is_recorded_as_related(
    recorded_elsewhere: tuple[Path, str, str],
) -> None:
    a, todo, unpushed = recorded_elsewhere
    done = commit(a, f"Fix it in A too\n\nCoop-Done: {todo}\n", name="a.txt")
    assert "unexpectedly" not in done.stderr
    shown = show(a, todo)
    assert shown["commit_sha"] == unpushed  # the record another clone holds stands
    assert shown["related_commits"] == [head(a)]
    assert not journal.has_entries(str(a / ".git"))


@pytest.mark.parametrize("command", [["list", "--all"], ["status"], ["hook", "replay"]])
def test_a_journaled_trailer_about_a_commit_not_here_never_fails_a_command(
    recorded_elsewhere: tuple[Path, str, str], command: list[str]
) -> None:
    a, todo, unpushed = recorded_elsewhere
    with lock_held_elsewhere(a / ".git"):
        commit(a, f"Fix it in A too\n\nCoop-Done: {todo}\n", name="a.txt")
    assert journal.has_entries(str(a / ".git"))
    ran = coop_in(a, *command)
    assert ran.code == 0, ran.err
    assert "unexpected" not in ran.err
    assert f"keeps {unpushed[:7]} as its record" in ran.err + ran.out
    assert show(a, todo)["related_commits"] == [head(a)]
    assert not journal.has_entries(str(a / ".git"))


def test_backfill_of_a_second_close_of_a_commit_not_here_records_it(
    recorded_elsewhere: tuple[Path, str, str],
) -> None:
    a, todo, unpushed = recorded_elsewhere
    assert coop_in(a, "hooks", "uninstall").code == 0
    commit(a, f"Fix it in A too\n\nCoop-Done: {todo}\n", name="a.txt")
    applied = coop_in(a, "hooks", "backfill", "--apply")
    assert applied.code == 0, applied.err
    assert f"keeps {unpushed[:7]} as its record" in applied.out
    assert show(a, todo)["related_commits"] == [head(a)]


def test_a_branch_that_points_at_nothing_is_not_asked_about(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_gitcoop_on_path(monkeypatch)
    assert coop_in(ledger, "hooks", "install").code == 0
    todo = coop_in(ledger, "add", "todo", "twice", "--json").json()["id"]
    commit(ledger, f"First\n\nCoop-Done: {todo}\n", name="one.txt")
    first = head(ledger)
    git(ledger, "symbolic-ref", "refs/heads/alias", "refs/heads/nowhere")
    second = commit(ledger, f"Second\n\nCoop-Done: {todo}\n", name="two.txt")
    assert "unexpectedly" not in second.stderr
    shown = show(ledger, todo)
    assert (shown["commit_sha"], shown["related_commits"]) == (first, [head(ledger)])
    listed = coop_in(ledger, "hooks", "backfill")
    assert listed.code == 0, listed.err
