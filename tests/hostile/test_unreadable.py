"""#2 No accepted value can make the ledger unreadable: bounds are checked where values enter."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import Team, add_event, files, new_event, publish, push, team, tip


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def refused(crew: Team, *fragments: str) -> None:
    """The victim's sync refuses (exit 4), its ledger stays readable and its work goes on."""
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4, synced.err
    for fragment in fragments:
        assert fragment in synced.err
    assert tip(crew.victim) == before
    for command in (["list"], ["log"], ["owed", "--all"], ["fsck"]):
        assert crew.victim_runs(*command).code == 0, command
    assert crew.victim_runs("add", "todo", "later work").code == 0
    assert crew.victim_runs("sync").code == 4  # still refused: nothing half-merged


def test_the_last_instant_a_command_accepts_still_reads_back(crew: Team) -> None:
    late = {"COOP_NOW": "9000-12-31T23:00:00Z"}
    todo = crew.victim_runs("add", "todo", "late", env=late).out.strip()
    assert crew.victim_runs("take", todo, env=late).code == 0  # due in the year 9001
    assert crew.victim_runs("list").code == 0
    assert crew.victim_runs("owed", "--all").code == 0
    assert crew.victim_runs("sync").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.alice, "list").code == 0 and coop_in(crew.alice, "fsck").code == 0
    past = crew.victim_runs("take", todo, env={"COOP_NOW": "9001-01-01T00:00:00Z"})
    assert past.code == 2 and "1970 to 9000" in past.err


@pytest.mark.parametrize(
    ("at", "args", "fragment"),
    [
        ("9500-01-01T00:00:00Z", {"decision": "defer"}, "outside the years 1970 to 9000"),
        ("1969-07-20T20:17:00Z", {"decision": "defer"}, "at is not an ISO 8601 instant"),
        ("2026-11-29T11:00:00Z", {"decision": "defer", "delay_seconds": 10**20}, "delay_seconds"),
        ("2026-11-29T11:00:00Z", {"decision": "defer", "delay_seconds": -5}, "delay_seconds"),
        ("2026-11-29T11:00:00Z", {"decision": 7}, "decision must be text"),
    ],
)
def test_a_peers_review_out_of_bounds_is_refused(
    crew: Team, at: str, args: dict[str, object], fragment: str
) -> None:
    content = files(crew.mallory)
    publish(
        crew.mallory, add_event(content, new_event(content, crew.todo, "review", at=at, **args))
    )
    refused(crew, fragment)


def test_a_peers_review_at_the_last_instant_is_accepted_and_readable(crew: Team) -> None:
    content = files(crew.mallory)
    review = new_event(content, crew.todo, "review", at="9000-12-31T23:59:59Z", decision="park")
    publish(crew.mallory, add_event(content, review))  # due 30 days later: in 9001
    assert crew.victim_runs("sync").code == 0
    owed = crew.victim_runs("owed", "--all", "--json")
    assert owed.code == 0 and '"due": "9001-01-30T23:59:59Z"' in owed.out
    assert crew.victim_runs("fsck").code == 0
    assert crew.victim_runs("add", "todo", "later work").code == 0
    assert crew.victim_runs("sync").code == 0


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        ({"body": ["not", "text"]}, "body must be text"),
        ({"order_key": "Z!"}, "order_key must be an order key"),
        ({"evidence": [{"path": "a.py", "line": 10**30}]}, "line must be a whole number"),
        ({"parent_id": "../../etc"}, "parent_id must be an item id"),
    ],
)
def test_a_peers_value_of_the_wrong_shape_is_refused(
    crew: Team, args: dict[str, object], fragment: str
) -> None:
    content = files(crew.mallory)
    item = "it-mmmmmmmmmmmm"
    added = new_event(content, item, "add", kind="item", title="Looks fine", **args)
    publish(crew.mallory, add_event(content, added))
    refused(crew, fragment)


def test_a_commit_git_itself_refuses_at_the_fetch_is_a_refused_ledger(crew: Team) -> None:
    """A commit whose author line git's fsck refuses (here: no e-mail) is stopped by the
    fetch's own check (transfer.fsckObjects): the sync refuses it like any hostile
    ledger (exit 4, naming git's reason), not as a transport failure."""
    parent = tip(crew.mallory)
    tree = git(crew.mallory, "rev-parse", f"{parent}^{{tree}}").strip()
    raw = (
        f"tree {tree}\nparent {parent}\n"
        "author Mallory <mallory 1700000000 +0000\n"
        "committer Mallory <mallory@example.com> 1700000000 +0000\n\nwork\n"
    )
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "--literally", "-w", "--stdin"],
        cwd=crew.mallory,
        input=raw,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    push(crew.mallory, made)
    refused(crew, "git refused an object", "the local ledger is unchanged")


def smuggle_a_name_with_a_newline(crew: Team, content_of: bytes | None = None) -> None:
    """An item file named `td-….yaml` and a newline: git takes the name (even with
    transfer.fsckObjects), and a pattern anchored with `$` matched it too."""
    content = files(crew.mallory)
    real = f"items/{crew.todo[3:5]}/{crew.todo}.yaml"
    extra = content[real] if content_of is None else content_of
    publish(crew.mallory, {**content, real + "\n": extra})


def test_an_item_file_name_ending_in_a_newline_is_refused(crew: Team) -> None:
    """Taken, it was compared with nothing (item `td-….`, no file, no events), and then
    every read refused the whole ledger as a local breach."""
    smuggle_a_name_with_a_newline(crew)
    refused(crew, "not an allowed name or mode")


def test_a_first_sync_refuses_a_name_ending_in_a_newline_too(crew: Team, clones: Clones) -> None:
    smuggle_a_name_with_a_newline(crew, b"id: whatever\n")
    carol = clones.clone("carol")
    synced = coop_in(carol, "sync")
    assert synced.code == 4 and "the local ledger is unchanged" in synced.err, synced.err
    assert git(carol, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False) == ""


def test_an_event_holding_a_5000_digit_number_is_refused_not_a_crash(crew: Team) -> None:
    """Python reads no integer of more than 4,300 digits: such a number was a crash
    (exit 70) at the trust boundary instead of a refusal."""
    content = files(crew.mallory)
    note = new_event(content, crew.todo, "note", text="PLACEHOLDER")
    changed = add_event(content, note, refold=False)
    path = next(p for p in changed if p.endswith(f"-{note['id']}.yaml"))
    changed[path] = changed[path].replace(b"PLACEHOLDER", b"1" * 5000)
    publish(crew.mallory, changed)
    refused(crew, "digits")
