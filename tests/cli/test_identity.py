"""Who acts must look like someone: an email address, or the identity git is configured
with here (issue 39, point 7). The hooks journal a commit made under anything else."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.store.ledger import journal
from gitcoop.store.ledger.layout import REF
from tests.conftest import coop, git
from tests.service.hook_helpers import add, bare_env, commit, head, item, with_gitcoop_on_path

NOT_AN_IDENTITY = (
    "gitcoop: 'not an email' does not look like anyone — act as an email address "
    "(--as, COOP_ACTOR) or as git config user.email here"
)


def tip(path: Path) -> str:
    return git(path, "rev-parse", REF).strip()


@pytest.mark.parametrize(
    ("args", "env"),
    [(("--as", "not an email"), {}), ((), {"COOP_ACTOR": "not an email"})],
    ids=["--as", "COOP_ACTOR"],
)
def test_a_name_that_is_no_identity_is_refused_before_anything_is_written(
    ledger: Path, args: tuple[str, ...], env: dict[str, str]
) -> None:
    todo = coop("add", "todo", "x").out.strip()
    before = tip(ledger)
    refused = coop("take", todo, *args, env=env)
    assert (refused.code, refused.err.strip()) == (2, NOT_AN_IDENTITY)
    assert tip(ledger) == before
    as_json = coop("take", todo, *args, "--json", env=env)
    assert as_json.code == 2
    assert as_json.json()["error"] == {
        "code": "usage",
        "exit": 2,
        "message": NOT_AN_IDENTITY.removeprefix("gitcoop: "),
    }
    assert coop("list", "--mine", *args, env=env).code == 2  # reads ask who, too


@pytest.mark.parametrize("who", ["bob@example.com", "agent-3@fleet.example", "ci@localhost"])
def test_email_addresses_act(ledger: Path, who: str) -> None:
    todo = coop("add", "todo", "x").out.strip()
    taken = coop("take", todo, "--as", who, "--json")
    assert taken.code == 0, taken.err
    assert taken.json()["taken_by"] == who


@pytest.mark.parametrize("who", ["bob @example.com", "@example.com", "bob@", "a@b@c"])
def test_what_only_resembles_an_address_is_refused(ledger: Path, who: str) -> None:
    todo = coop("add", "todo", "x").out.strip()
    refused = coop("take", todo, "--as", who)
    assert refused.code == 2 and "does not look like anyone" in refused.err


def test_the_identity_git_is_configured_with_acts_whatever_its_shape(ledger: Path) -> None:
    git(ledger, "config", "user.email", "build-bot")
    todo = coop("add", "todo", "x").out.strip()
    taken = coop("take", todo, "--json")
    assert taken.code == 0, taken.err
    assert taken.json()["taken_by"] == "build-bot"
    assert coop("take", todo, "--as", "build-bot").code == 0  # named outright, the same
    assert coop("take", todo, "--as", "other-bot").code == 2


def test_a_hook_under_a_name_that_is_no_identity_journals_the_commit(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_gitcoop_on_path(monkeypatch)
    assert coop("hooks", "install").code == 0
    todo = add("todo", "committed under a loose name")
    done = commit(ledger, f"Work\n\nCoop-Done: {todo}\n", env=bare_env(COOP_ACTOR="not an email"))
    assert done.returncode == 0  # the user's commit stands
    assert "cannot record Coop-Done" in done.stderr and "does not look like anyone" in done.stderr
    entry = journal.entries(str(ledger / ".git"))[0]
    assert (entry["state"], entry["actor"]) == ("broken", "not an email")
    assert item(todo)["status"] == "open"
    # its own advice followed (recorded by hand): the entry goes, nothing waits any more
    by_hand = coop("done", todo, "--commit", head(ledger), "--summary", "Work")
    assert by_hand.code == 0, by_hand.err
    listed = coop("list")
    assert listed.code == 0 and "wait" not in listed.err, listed.err
    assert journal.entries(str(ledger / ".git")) == []
