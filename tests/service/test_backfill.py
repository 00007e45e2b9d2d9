"""`git coop hooks backfill`: trailers of commits made without the hooks, found and recorded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import coop, git
from tests.service.hook_helpers import add, commit, head, item, with_gitcoop_on_path

AFTER = "2026-11-29T11:00:00Z"  # the ledger fixture is created at 10:00


def at(when: str, author: str | None = None) -> dict[str, str]:
    env = {**os.environ, "GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    if author:
        env["GIT_AUTHOR_EMAIL"] = author
    return env


def found(*args: str) -> list[dict[str, object]]:
    listed = coop("hooks", "backfill", "--json", *args)
    assert listed.code == 0, listed.err
    result: list[dict[str, object]] = listed.json()
    return result


def test_backfill_finds_and_records_commits_made_without_hooks(ledger: Path) -> None:
    todo, request, evidence = add("todo", "t"), add("request", "r"), add("todo", "e")
    assert coop("take", request, "--as", "bob@example.com").code == 0
    commit(ledger, f"Fix t\n\nCoop-Done: {todo}\n", env=at(AFTER, "carol@example.com"))
    fixed = head(ledger)
    commit(ledger, f"Close r\n\nCoop-Close: {request}\n", env=at("2026-11-29T11:05:00Z"))
    closing = head(ledger)
    commit(ledger, f"Touch e\n\nCoop-Refs: {evidence}\n", env=at("2026-11-29T11:10:00Z"))
    commit(ledger, "No trailers\n", env=at("2026-11-29T11:15:00Z"))

    shown = found()
    assert [f["commit"] for f in shown][:2] == [fixed, closing]
    assert [f["trailers"] for f in shown] == [
        [{"key": "Coop-Done", "ref": todo}],
        [{"key": "Coop-Close", "ref": request}],
        [{"key": "Coop-Refs", "ref": evidence}],
    ]
    assert shown[0]["author"] == "carol@example.com"
    text = coop("hooks", "backfill").out
    assert "3 commit(s) carry Coop trailers" in text and "git coop hooks backfill --apply" in text
    assert item(todo)["status"] == "open"  # showing records nothing

    applied = coop(
        "hooks", "backfill", "--apply", "--json", env={"COOP_NOW": "2026-12-01T09:00:00Z"}
    )
    outcomes = [[o["status"] for o in f["outcomes"]] for f in applied.json()]
    assert outcomes == [["recorded"], ["refused"], ["recorded"]]
    refused = applied.json()[1]["outcomes"][0]
    assert refused["command"] == (
        f"git coop close {request} --commit {closing} --summary 'Close r' --force"
    )

    done = coop("log", todo, "--json").json()[-1]
    assert (done["verb"], done["actor"], done["at"]) == (
        "done",
        "alice@example.com",
        "2026-12-01T09:00:00Z",
    )
    assert (done["commit"], done["author"], done["committer"]) == (
        fixed,
        "carol@example.com",
        "alice@example.com",
    )
    assert done["committed_at"] == AFTER
    assert item(todo)["closed_by"] == "alice@example.com"  # whoever ran backfill
    assert coop("log", evidence, "--json").json()[-1]["verb"] == "note"

    assert [f["commit"] for f in found()] == [closing]  # what it could not record, still listed
    coop("release", request, "--as", "bob@example.com", "--reason", "done in a commit")
    assert coop("hooks", "backfill", "--apply").code == 0
    assert item(request)["commit_sha"] == closing
    assert found() == []
    assert "nothing to backfill" in coop("hooks", "backfill").out
    since = coop("hooks", "backfill", "--since", "HEAD~1").out
    assert "since HEAD~1 is recorded" in since and "ledger began" not in since


def test_with_hooks_nothing_is_left_and_without_them_only_those_commits(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_gitcoop_on_path(monkeypatch)
    assert coop("hooks", "install").code == 0
    hooked, later = add("todo", "through the hooks"), add("todo", "after uninstall")
    commit(ledger, f"Hooked\n\nCoop-Done: {hooked}\n", env=at(AFTER))
    assert item(hooked)["status"] == "done"
    assert found() == []
    assert coop("hooks", "uninstall").code == 0
    commit(ledger, f"Unhooked\n\nCoop-Done: {later}\n", env=at("2026-11-29T12:00:00Z"))
    assert [f["subject"] for f in found()] == ["Unhooked"]


def test_since_and_the_ledgers_creation_bound_the_search(ledger: Path) -> None:
    early, late = add("todo", "before the ledger"), add("todo", "after")
    commit(ledger, "Start\n", env=at("2025-12-01T00:00:00Z"))
    start = head(ledger)
    commit(ledger, f"Old\n\nCoop-Done: {early}\n", env=at("2026-01-01T00:00:00Z"))
    old = head(ledger)
    commit(ledger, f"New\n\nCoop-Done: {late}\n", env=at(AFTER))
    assert [f["subject"] for f in found()] == ["New"]  # from the ledger's creation on
    assert [f["subject"] for f in found("--since", start)] == ["Old", "New"]
    assert [f["subject"] for f in found("--since", old)] == ["New"]
    bad = coop("hooks", "backfill", "--since", "no-such-rev")
    assert bad.code == 2 and "--since 'no-such-rev' names no commit" in bad.err


def test_a_clock_behind_the_ledgers_by_hours_still_finds_the_commit(ledger: Path) -> None:
    """Two machines' clocks differ: a commit dated before the ledger's first commit by
    less than a day was made after it all the same; only older ones are left out, and
    an empty answer says how far it looked and how to look further."""
    skewed = add("todo", "made on a machine whose clock is behind")
    commit(ledger, f"Skewed\n\nCoop-Done: {skewed}\n", env=at("2026-11-29T04:00:00Z"))
    assert [f["subject"] for f in found()] == ["Skewed"]
    assert coop("hooks", "backfill", "--apply").code == 0
    nothing = coop("hooks", "backfill")
    assert nothing.code == 0
    assert "since a day before the ledger began" in nothing.out
    assert "--since REV" in nothing.out


def test_a_commit_on_another_branch_is_found_and_a_detached_one_is_not(ledger: Path) -> None:
    todo, loose = add("todo", "on a branch"), add("todo", "detached")
    commit(ledger, "Start\n", env=at(AFTER))
    git(ledger, "checkout", "-q", "-b", "side")
    commit(ledger, f"Side\n\nCoop-Done: {todo}\n", env=at(AFTER))
    git(ledger, "checkout", "-q", "--detach")
    commit(ledger, f"Loose\n\nCoop-Done: {loose}\n", env=at(AFTER))
    git(ledger, "checkout", "-q", "main")
    assert [f["subject"] for f in found()] == ["Side"]


def test_a_commit_naming_an_encoding_python_lacks_is_read_as_utf8(ledger: Path) -> None:
    """A commit's `encoding` header is the writer's word, and git takes any: a code
    commit fetched from a teammate naming one Python does not know is read as UTF-8 (its
    bytes), not a traceback, and its trailers are found as any commit's."""
    todo = add("todo", "t")
    env = {**at(AFTER, "carol@example.com"), "GIT_CONFIG_PARAMETERS": ""}
    env["GIT_CONFIG_COUNT"], env["GIT_CONFIG_KEY_0"] = "1", "i18n.commitEncoding"
    env["GIT_CONFIG_VALUE_0"] = "no-such-codec"
    commit(ledger, f"Fix t, café\n\nCoop-Done: {todo}\n", env=env)
    assert "encoding no-such-codec" in git(ledger, "cat-file", "commit", "HEAD")
    shown = found()
    assert [(f["commit"], f["author"]) for f in shown] == [(head(ledger), "carol@example.com")]
    assert shown[0]["trailers"] == [{"key": "Coop-Done", "ref": todo}]
