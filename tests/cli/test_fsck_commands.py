"""`git coop fsck` through the CLI: exit 0 with one line, 1 with each breach, 4 unreadable."""

from __future__ import annotations

import json
from pathlib import Path

from gitcoop.store.ledger import codec
from tests.conftest import Clones, coop, coop_in, coop_process, git
from tests.rawledger import put, read


def test_a_healthy_ledger_prints_one_line_and_exits_0(ledger: Path) -> None:
    item = coop("add", "todo", "x").out.strip()
    assert coop("take", item).code == 0
    result = coop_process(ledger, "fsck")
    assert result.code == 0, result.err
    assert result.out.count("\n") == 1 and result.out.startswith("ok: refs/coop/ledger at ")
    assert "1 items, 3 events" in result.out  # the first owner's role event, add, take


def test_roles_that_are_not_the_fold_of_role_events_are_a_breach(ledger: Path) -> None:
    data = codec.load(read(ledger, "coop.yaml"), "coop.yaml")
    data["roles"]["owners"].append("mallory@example.com")
    put(ledger, ["coop.yaml"], codec.dump(data))
    result = coop("fsck")
    assert result.code == 1
    assert "coop.yaml: [state] in commit " in result.out
    assert "is not the state its first parent and the events it adds make" in result.out


def test_breaches_are_printed_with_their_paths_and_exit_1(ledger: Path) -> None:
    item = coop("add", "todo", "x").out.strip()
    path = "items/" + git(ledger, "ls-tree", "-r", "--name-only", "refs/coop/ledger:items").strip()
    data = codec.load(read(ledger, path), path)
    data["status"] = "done"
    put(ledger, path.split("/"), codec.dump(data))
    put(ledger, ["junk"], b"hello")
    result = coop("fsck")
    assert result.code == 1
    lines = result.out.splitlines()
    assert any(
        line.startswith(f"{path}: [state] in commit ")
        and line.endswith("is not the state its events make (it differs in: status)")
        for line in lines
    ), lines
    assert any(line.startswith("junk: [layout]") for line in lines)
    assert "2 breaches" in result.err
    assert item


def test_json_lists_the_breaches(ledger: Path) -> None:
    healthy = coop("fsck", "--json")
    assert healthy.code == 0 and healthy.json()["ok"] is True
    put(ledger, ["junk"], b"hello")
    broken = coop("fsck", "--json", "--full")
    assert broken.code == 1
    report = broken.json()["error"]  # exit 1: the error object, the report inside it
    assert report["code"] == "breaches" and report["exit"] == 1
    assert report["ok"] is False and report["full"] is True
    assert report["breaches"] == [
        {"path": "junk", "rule": "layout", "message": "not allowed at the root (mode 100644)"}
    ]


def test_no_ledger_exits_4(repo: Path) -> None:
    result = coop("fsck")
    assert result.code == 4 and "no ledger" in result.err


def test_json_says_which_commits_an_incremental_check_covered(ledger: Path) -> None:
    first = json.loads(coop_process(ledger, "fsck", "--json").out)
    assert first["since"] is None and first["commits"] == 1
    for n in range(3):
        assert coop("add", "todo", f"x{n}").code == 0
    later = json.loads(coop_process(ledger, "fsck", "--json").out)
    assert (later["since"], later["commits"], later["items"], later["events"]) == (
        first["tip"],
        3,
        3,
        3,
    )
    full = json.loads(coop_process(ledger, "fsck", "--json", "--full").out)
    assert (full["since"], full["commits"], full["items"]) == (None, 4, 3)


def test_the_checked_tip_is_this_clones_own(clones: Clones) -> None:
    """refs/coop/checked is never pushed, and a fetch never brings a peer's."""
    alice = clones.clone("alice")
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "remote", "setup", "origin").code == 0
    assert coop_in(alice, "fsck").code == 0
    assert coop_in(alice, "add", "todo", "x").code == 0
    assert coop_in(alice, "sync", "origin").code == 0, coop_in(alice, "sync", "origin").err
    assert "refs/coop/checked" not in git(alice, "ls-remote", "origin")
    remote = Path(clones.url.removeprefix("file://"))
    tip = git(alice, "rev-parse", "refs/coop/ledger").strip()
    git(remote, "update-ref", "refs/coop/checked", tip)
    bob = clones.clone("bob")
    assert coop_in(bob, "remote", "setup", "origin").code == 0
    assert coop_in(bob, "sync", "origin").code == 0
    git(bob, "fetch", "-q", "origin")
    assert git(bob, "for-each-ref", "refs/coop/checked").strip() == ""
