"""A chief closed the work; the worker's commit with `Coop-Done` still records its sha."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.store.ledger import journal
from tests.conftest import coop, git
from tests.service.hook_helpers import add, commit, head, item, with_gitcoop_on_path

BOB, CHIEF = "bob@example.com", "carol@example.com"


def test_the_holders_trailer_after_a_chiefs_close_is_an_amendment(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_gitcoop_on_path(monkeypatch)
    assert coop("hooks", "install").code == 0
    assert coop("roles", "add", "chief", CHIEF).code == 0
    todo = add("todo", "write the docs")
    assert coop("take", todo, "--as", BOB, "--session", "s1").code == 0
    assert coop("review", todo, "close", "--as", CHIEF).code == 0
    git(ledger, "config", "user.email", BOB)  # bob commits: the hook acts as the committer
    done = commit(ledger, f"Write the docs\n\nCoop-Done: {todo}\n")
    shown = item(todo)
    assert (shown["closed_by"], shown["commit_sha"]) == (CHIEF, head(ledger))
    assert shown["result_summary"] == "Write the docs"
    assert "not recorded" not in done.stderr
    assert not journal.has_entries(str(ledger / ".git"))
    edit = coop("log", todo, "--json").json()[-1]
    assert (edit["verb"], edit["actor"], edit["commit"]) == ("edit", BOB, head(ledger))
