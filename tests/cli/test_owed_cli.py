"""`git coop owed`: what needs whom now (--mine), a test for loops (--check), and flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.service import owed
from tests.cli.test_plain_words import lost_take
from tests.conftest import Clones, coop, coop_in
from tests.service.queue_fixtures import CONFIRM, install

BOB, DAVE = "bob@example.com", "dave@example.com"


def at(hhmm: str, day: int = 29) -> dict[str, str]:
    return {"COOP_NOW": f"2026-11-{day:02d}T{hhmm}:00Z"}


def take(title: str, who: str, hhmm: str = "10:00", day: int = 29) -> str:
    todo = coop("add", "todo", title).out.strip()
    result = coop("take", todo, "--as", who, "--session", "s1", env=at(hhmm, day))
    assert result.code == 0, result.err
    return todo


def owed_ids(*args: str, env: dict[str, str]) -> list[str]:
    result = coop("owed", "--json", *args, env=env)
    assert result.code == 0, result.err
    return [entry["short_id"] for entry in result.json()]


def test_mine_is_what_i_hold_or_may_review(ledger: Path) -> None:
    bobs, daves = take("bob's", BOB), take("dave's", DAVE)
    later = at("13:00")
    assert set(owed_ids(env=later)) == {bobs, daves}
    assert owed_ids("--mine", "--as", BOB, env=later) == [bobs]
    assert owed_ids("--mine", "--as", DAVE, env=later) == [daves]
    assert set(owed_ids("--mine", env=later)) == {bobs, daves}  # alice, an owner, reviews
    assert owed_ids("--mine", "--as", "erin@example.com", env=later) == []


def test_check_exits_six_only_when_something_needs_attention(ledger: Path) -> None:
    take("bob's", BOB)
    quiet = coop("owed", "--check", "--mine", "--as", BOB, env=at("12:59"))
    assert quiet.code == 0 and "nothing owed is due" in quiet.out
    due = coop("owed", "--check", "--mine", "--as", BOB, env=at("13:00"))
    assert due.code == 6 and "1 owed item needs attention now" in due.err
    assert coop("owed", "--check", "--mine", "--as", DAVE, env=at("13:00")).code == 0
    assert coop("owed", "--check", "--all", "--as", BOB, env=at("12:00")).code == 0


def test_json_entries_carry_the_items_version(ledger: Path) -> None:
    todo = take("bob's", BOB)
    coop("note", todo, "progress", "--as", BOB, env=at("10:30"))
    entry = coop("owed", "--json", env=at("13:00")).json()[0]
    assert entry["version"] == coop("show", todo, "--json").json()["version"] == 3
    assert entry["marks"] == ["due"]


def test_a_take_dated_in_the_future_is_flagged(ledger: Path) -> None:
    todo = take("from a clock ahead", BOB, "10:00", day=30)
    now = at("10:00")
    assert owed_ids(env=now) == [todo]  # not due for a day: listed because of its date
    text = coop("owed", env=now).out
    assert "taken in the future, at 2026-11-30T10:00:00Z" in text
    assert coop("owed", "--json", env=now).json()[0]["marks"] == ["future"]
    assert coop("owed", "--check", env=now).code == 6


def test_list_mine_is_what_i_hold(ledger: Path) -> None:
    bobs, daves = take("bob's", BOB), take("dave's", DAVE)
    mine = coop("list", "--mine", "--json", "--as", BOB).json()
    assert [entry["short_id"] for entry in mine] == [bobs]
    assert daves not in coop("list", "--mine", "--as", BOB).out


def test_a_takeover_of_finished_work_stays_in_list_mine_until_acknowledged(ledger: Path) -> None:
    todo = take("bob's", BOB)
    coop("take", todo, "--force", "--as", DAVE, env=at("10:30"))
    coop("done", todo, "--as", DAVE, env=at("10:40"))
    assert "taken over by dave@example.com" in coop("list", "--mine", "--as", BOB).out
    assert coop("ack", todo, "--as", BOB).code == 0
    assert coop("list", "--mine", "--json", "--as", BOB).json() == []


def test_a_pick_through_the_queue_is_owed_in_two_hours(ledger: Path) -> None:
    code = install(ledger)
    added = coop("add", "item", "Fix picked toast", "--evidence", "src/app.py:3", "--json")
    assert added.code == 0, added.err
    code.plan(toast=CONFIRM)
    assert coop("verify").code == 0
    picked = coop("pick", "--json", "--session", "loop-1", env=at("10:00"))
    assert picked.code == 0, picked.err
    label = picked.json()["short_id"]
    assert owed_ids(env=at("11:59")) == []
    assert owed_ids(env=at("12:00")) == [label]


def test_past_many_items_the_open_index_shows_what_the_files_show(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With `owed.MANY` items or more to show, `owed` reads their rows of the open index
    instead of their files: the same lines and the same JSON either way, with every mark
    and hint an obligation can carry (a blocked report, an escalation, a park, a take in
    the future, a note)."""
    many = owed.MANY
    made = [take(f"work {n}", BOB if n % 2 else DAVE) for n in range(many + 1)]
    steps = [
        ("report", made[0], "blocked", "--reason", "waits on CI", "--as", DAVE),
        ("review", made[1], "escalate", "--reason", "stuck", "--after", "1h"),
        ("review", made[2], "park", "--reason", "later"),
        ("note", made[3], "half of it", "--as", BOB),
    ]
    for step in steps:
        assert coop(*step, env=at("11:00")).code == 0
    take("from a clock ahead", BOB, "10:00", day=30)
    later = at("13:00")
    reads = [("owed", "--all"), ("owed", "--all", "--json"), ("owed", "--json"), ("status",)]
    shown = [coop(*args, env=later) for args in reads]
    monkeypatch.setattr(owed, "MANY", 10**9)  # every item read from its file
    assert [coop(*args, env=later) for args in reads] == shown
    lines = shown[0].out
    for hint in ("blocked: waits on CI", "escalated to owners", "parked", "taken in the future"):
        assert hint in lines, lines
    assert len(shown[1].json()) == many + 2


def test_a_conflict_on_an_owed_item_shows_alike_from_the_open_index(
    clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The one value `owed` counts on the open index's path, an item's conflicts, shows as
    reading the item's file does: a take that lost on a merge, among `owed.MANY` others."""
    second, todo = lost_take(clones, owners=("bob@example.com",))
    for n in range(owed.MANY):
        work = coop_in(second, "add", "todo", f"work {n}").out.strip()
        assert coop_in(second, "take", work, "--session", "s1").code == 0
    later = {"COOP_NOW": "2026-12-30T10:00:00Z"}
    reads = [("owed",), ("owed", "--json")]
    shown = [coop_in(second, *args, env=later) for args in reads]
    monkeypatch.setattr(owed, "MANY", 10**9)  # every item read from its file
    assert [coop_in(second, *args, env=later) for args in reads] == shown
    [entry] = [e for e in shown[1].json() if e["short_id"] == todo and "holder" in e]
    assert entry["conflicts"] == 1
    assert "1 conflict on this item" in shown[0].out
