"""`git coop list` filters, served from the read cache."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import coop


def ids_of(*args: str, env: dict[str, str] | None = None) -> set[str]:
    result = coop("list", "--json", *args, env=env)
    assert result.code == 0, result.err
    return {entry["id"] for entry in result.json()}


def add(kind: str, title: str, *extra: str) -> str:
    result = coop("add", kind, title, "--json", *extra)
    assert result.code == 0, result.err
    return str(result.json()["id"])


def test_filters_narrow_the_listing(ledger: Path) -> None:
    todo = add("todo", "a todo", "--tag", "ci")
    request = add("request", "a request")
    mine = add("todo", "alice holds this")
    theirs = add("todo", "bob holds this")
    finished = add("todo", "finished", "--tag", "ci")
    assert coop("take", mine).code == 0
    assert coop("take", theirs, "--as", "bob@example.com", "--session", "s1").code == 0
    assert coop("done", finished).code == 0

    assert ids_of() == {todo, request, mine, theirs}
    assert ids_of("--kind", "request") == {request}
    assert ids_of("--tag", "ci") == {todo}
    assert ids_of("--tag", "ci", "--all") == {todo, finished}
    assert ids_of("--status", "done") == {finished}  # naming a status shows settled work
    assert ids_of("--holder", "bob@example.com") == {theirs}
    assert ids_of("--holder", "alice@example.com", "--kind", "todo") == {mine}
    assert coop("list", "--kind", "bogus").code == 2


def test_owed_and_stale_follow_the_clock(ledger: Path) -> None:
    with_session = add("todo", "owes an outcome in 3h")
    without = add("todo", "owes a review in 3h")
    assert coop("take", with_session, "--session", "s1").code == 0
    assert coop("take", without).code == 0
    assert ids_of("--owed") == set()
    assert ids_of("--stale") == set()
    later = {"COOP_NOW": "2026-11-29T12:30:00Z"}  # 2.5h after the takes
    assert ids_of("--owed", env=later) == set()
    assert ids_of("--stale", env=later) == {with_session, without}
    much_later = {"COOP_NOW": "2026-11-29T13:00:00Z"}
    assert ids_of("--owed", env=much_later) == {with_session, without}
    assert coop("done", without).code == 0
    assert ids_of("--owed", "--all", env=much_later) == {with_session}


def test_no_match_says_so(ledger: Path) -> None:
    add("todo", "something")
    result = coop("list", "--kind", "request")
    assert result.code == 0
    assert "nothing matches" in result.out
