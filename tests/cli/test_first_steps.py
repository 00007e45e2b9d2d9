"""A new user's first steps: a fresh clone of a shared ledger, and ids a plain fetch brought."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Clones, coop_in, git


def shared(clones: Clones) -> Path:
    """A first clone whose ledger is on the remote."""
    first = clones.clone("first")
    assert coop_in(first, "init").code == 0
    assert coop_in(first, "remote", "setup", "origin").code == 0
    assert coop_in(first, "sync").code == 0
    return first


def test_a_fresh_clone_is_told_to_share_the_remotes_ledger_first(clones: Clones) -> None:
    shared(clones)
    fresh = clones.clone("fresh")
    listed = coop_in(fresh, "list")
    assert listed.code == 4
    assert "no ledger in this clone yet — to share origin's: git coop remote setup origin && " in (
        listed.err
    )
    hint = listed.err.split("—", 1)[1]
    assert hint.index("git coop remote setup origin && git coop sync") < hint.index("init")


def test_init_in_a_clone_refuses_naming_the_remotes_ledger(clones: Clones) -> None:
    first = shared(clones)
    tip = git(first, "rev-parse", "refs/coop/ledger").strip()
    fresh = clones.clone("fresh")
    refused = coop_in(fresh, "init")
    assert refused.code == 1
    assert f"origin has a ledger (refs/coop/ledger at {tip[:10]})" in refused.err
    assert "git coop remote setup origin && git coop sync" in refused.err
    assert "git coop init --new" in refused.err
    assert git(fresh, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False) == ""
    data = coop_in(fresh, "init", "--json").json()["error"]
    assert data["remote"] == "origin" and data["ledger"] == tip
    assert coop_in(fresh, "init", "--new").code == 0  # asked for in so many words
    assert coop_in(fresh, "init").code == 0  # and idempotent, without asking again


def test_init_refuses_after_a_plain_fetch_brought_the_ledger(clones: Clones) -> None:
    shared(clones)
    fresh = clones.clone("fresh")
    assert coop_in(fresh, "remote", "setup", "origin").code == 0
    git(fresh, "fetch", "-q", "origin")
    refused = coop_in(fresh, "init")
    assert refused.code == 1
    assert "a ledger was fetched from origin" in refused.err and "git coop sync" in refused.err


def test_init_where_the_remote_has_no_ledger_or_cannot_be_asked(clones: Clones) -> None:
    empty = clones.clone("empty")
    assert coop_in(empty, "init").code == 0
    away = clones.clone("away")
    git(away, "remote", "add", "gone", str(clones.root / "nowhere.git"))
    refused = coop_in(away, "init")
    assert refused.code == 1
    assert "could not ask gone whether it has a ledger" in refused.err
    assert "never merges" in refused.err and "git coop init --new" in refused.err
    assert coop_in(away, "init", "--new").code == 0


def test_an_id_a_plain_fetch_brought_hints_pull(clones: Clones) -> None:
    first = shared(clones)
    second = clones.clone("second")
    assert coop_in(second, "remote", "setup", "origin").code == 0
    assert coop_in(second, "sync").code == 0
    new = coop_in(first, "add", "todo", "made on the first clone").out.strip()
    assert coop_in(first, "sync").code == 0
    git(second, "fetch", "-q", "origin")
    missing = coop_in(second, "show", new)
    assert missing.code == 1
    assert "the ledger fetched from origin has it — merge it first: git coop pull origin" in (
        missing.err
    )
    assert coop_in(second, "show", "td-zzzzzzzz").err.endswith("see git coop list\n")
    assert coop_in(second, "pull").code == 0
    assert coop_in(second, "show", new).code == 0
