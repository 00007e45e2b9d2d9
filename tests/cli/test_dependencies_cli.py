"""dep, ready, blocked, a take of blocked work, and `add --discovered-from`, through the CLI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.conftest import coop, git

BOB = {"COOP_ACTOR": "bob@example.com"}


def add(kind: str, title: str, *args: str, minute: int = 0) -> str:
    env = {"COOP_NOW": f"2026-11-29T10:{minute:02d}:00Z"}
    result = coop("add", kind, title, *args, "--json", env=env)
    assert result.code == 0, result.err
    return str(result.json()["id"])


def show(item: str) -> dict[str, Any]:
    data: dict[str, Any] = coop("show", item, "--json").json()
    return data


def ready_ids(*args: str) -> list[str]:
    result = coop("ready", *args, "--json")
    assert result.code == 0, result.err
    return [entry["id"] for entry in result.json()]


def tip(path: Path) -> str:
    return git(path, "rev-parse", "refs/coop/ledger").strip()


@pytest.mark.parametrize(
    ("phrase", "holder", "stored", "waits"),
    [
        ("blocks", "second", "blocked-by", "second"),
        ("blocked-by", "first", "blocked-by", "first"),
        ("parent-of", "first", "parent-of", "first"),
        ("child-of", "second", "parent-of", "second"),
        ("discovered-from", "first", "discovered-from", None),
        ("related", "first", "related", None),
    ],
)
def test_dep_add_and_remove_each_kind_of_link(
    ledger: Path, phrase: str, holder: str, stored: str, waits: str | None
) -> None:
    first, second = add("todo", "First"), add("todo", "Second")
    ids = {"first": first, "second": second}
    other = second if holder == "first" else first
    result = coop("dep", "add", first, phrase, second)
    assert result.code == 0, result.err
    links = show(ids[holder])["links"]
    assert [(x["type"], x["item"]) for x in links] == [(stored, other)]
    assert set(ready_ids()) == {first, second} - ({ids[waits]} if waits else set())
    before = tip(ledger)
    assert "already there" in coop("dep", "add", first, phrase, second).out
    assert tip(ledger) == before  # a repeat writes nothing
    assert coop("dep", "remove", first, phrase, second).code == 0
    assert show(ids[holder])["links"] == []
    assert coop("fsck").code == 0  # every item file is the fold of its stored events
    missing = coop("dep", "remove", first, phrase, second, "--json")
    assert missing.code == 1 and "nothing to remove" in missing.json()["error"]["message"]


def test_a_link_that_would_close_a_cycle_is_refused_naming_the_cycle(ledger: Path) -> None:
    a, b, c = add("todo", "a"), add("todo", "b"), add("request", "c")
    assert coop("dep", "add", a, "blocks", b).code == 0
    assert coop("dep", "add", b, "blocks", c).code == 0
    assert coop("dep", "add", c, "parent-of", a).code == 0  # c waits on a twice over: no cycle
    before = tip(ledger)
    refused = coop("dep", "add", c, "blocks", a, "--json")  # a would wait on c, which waits on a
    assert refused.code == 1
    error = refused.json()["error"]
    assert error["cycle"] in ([a, c, b, a], [a, c, a])
    assert "would close the cycle" in error["message"]
    label = {i: show(i)["short_id"] for i in (a, b, c)}
    assert f"{label[a]} → {label[c]} → " in refused.err
    assert tip(ledger) == before
    assert coop("dep", "add", c, "related", a).code == 0  # a link nobody waits on is fine


def test_unknown_links_and_self_links_are_usage_errors(ledger: Path) -> None:
    a = add("todo", "a")
    assert coop("dep", "add", a, "precedes", a).code == 2
    assert coop("dep", "add", a, "blocks", a).code == 2


def test_ready_orders_by_priority_then_age_or_queue_order_and_filters(ledger: Path) -> None:
    old = add("todo", "old", minute=1)
    urgent = add("request", "urgent", "-p", "0", "--tag", "ops", minute=5)
    low = add("todo", "low", "-p", "4", minute=0)
    q2 = add("item", "queue second", minute=2)
    q1 = add("item", "queue first", minute=3)
    for item in (q1, q2):
        assert coop("edit", item, "--state", "ready").code == 0
    assert coop("edit", q1, "--before", q2).code == 0
    draft = add("item", "still a draft", minute=4)
    taken = add("todo", "held", minute=0)
    assert coop("take", taken, env=BOB).code == 0
    assert ready_ids() == [urgent, old, q1, q2, low]
    assert draft not in ready_ids() and taken not in ready_ids()
    assert ready_ids("--kind", "item") == [q1, q2]
    assert ready_ids("--tag", "ops") == [urgent]
    assert ready_ids("-n", "2") == [urgent, old]
    text = coop("ready").out.splitlines()
    assert text[0].startswith("P0") and "urgent" in text[0]
    assert coop("ready", "--kind", "bogus").code == 2


def test_an_item_is_ready_once_every_blocker_and_child_is_settled(ledger: Path) -> None:
    parent, child, blocker = add("todo", "parent"), add("todo", "child"), add("todo", "blocker")
    coop("dep", "add", parent, "parent-of", child)
    coop("dep", "add", blocker, "blocks", child)
    assert ready_ids() == [blocker]
    assert coop("done", blocker).code == 0
    assert ready_ids() == [child]
    assert coop("done", child).code == 0
    assert ready_ids() == [parent]


def test_blocked_lists_what_waits_on_what(ledger: Path) -> None:
    a, b = add("todo", "first thing"), add("todo", "second thing")
    coop("dep", "add", a, "blocks", b)
    text = coop("blocked").out
    assert "second thing" in text and "waits on" in text and "first thing" in text
    data = coop("blocked", "--json").json()
    assert [w["id"] for w in data["waiting"]] == [b]
    assert data["waiting"][0]["waiting_on"][0]["id"] == a
    assert data["cycles"] == []
    coop("done", a)
    assert coop("blocked").out.strip() == "nothing is blocked"


def test_take_of_blocked_work_is_refused_naming_the_blockers_unless_forced(ledger: Path) -> None:
    a, b = add("todo", "first"), add("todo", "second")
    coop("dep", "add", a, "blocks", b)
    refused = coop("take", b, "--json", env=BOB)
    assert refused.code == 1
    error = refused.json()["error"]
    assert error["blockers"] == [a] and error["code"] == "refused"
    assert show(a)["short_id"] in error["message"] and "--force" in error["message"]
    forced = coop("take", b, "--force", "--json", env=BOB)
    assert forced.code == 0 and forced.json()["taken_by"] == "bob@example.com"


def test_add_discovered_from_links_the_new_item_in_the_same_commit(ledger: Path) -> None:
    origin = add("todo", "the work")
    before = git(ledger, "rev-list", "--count", "refs/coop/ledger").strip()
    found = add("todo", "found along the way", "--discovered-from", origin)
    after = git(ledger, "rev-list", "--count", "refs/coop/ledger").strip()
    assert int(after) == int(before) + 1
    assert [(x["type"], x["item"]) for x in show(found)["links"]] == [("discovered-from", origin)]
    assert show(origin)["dependencies"]["discovered"][0]["id"] == found
    assert found in ready_ids()  # discovered work does not wait on where it was found
    queued = add("item", "queue finding", "--discovered-from", origin)
    assert show(queued)["links"][0]["item"] == origin


def test_split_children_are_parent_of_links(ledger: Path) -> None:
    parent = add("item", "too big")
    result = coop("split", parent, "--into", "part one", "--into", "part two", "--json")
    children = [c["id"] for c in result.json()["children"]]
    deps = show(parent)["dependencies"]
    assert sorted(c["id"] for c in deps["children"]) == sorted(children)
    assert show(children[0])["dependencies"]["parent"][0]["id"] == parent
