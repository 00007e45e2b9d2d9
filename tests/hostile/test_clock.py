"""#3 A peer cannot exhaust the clock: it grows by one per event, on every fetched commit."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Clones, git
from tests.hostile.forge import (
    Team,
    add_event,
    config,
    files,
    new_event,
    publish,
    team,
    tip,
    with_config,
)


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def refused_then_work_goes_on(crew: Team, fragment: str) -> None:
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4 and fragment in synced.err, synced.err
    assert tip(crew.victim) == before
    assert crew.victim_runs("add", "todo", "later work").code == 0
    names = git(crew.victim, "ls-tree", "-r", "--name-only", "refs/coop/ledger", "events/")
    assert all(len(n.rsplit("/", 1)[1].split("-", 1)[0]) == 12 for n in names.split())
    for command in (["log"], ["fsck"], ["list"]):
        assert crew.victim_runs(*command).code == 0, command


def test_coop_yaml_clock_pushed_to_the_end_is_refused(crew: Team) -> None:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["clock"] = 999_999_999_999
    publish(crew.mallory, with_config(content, data))
    refused_then_work_goes_on(crew, "coop.yaml: clock 999999999999 is outside")


def test_one_event_at_the_last_clock_is_refused(crew: Team) -> None:
    content = files(crew.mallory)
    note = new_event(content, crew.todo, "note", clock=999_999_999_999, text="hi")
    publish(crew.mallory, add_event(content, note))
    refused_then_work_goes_on(crew, "clock 999999999999 is outside")


def test_an_event_slipped_below_its_parents_clock_is_refused(crew: Team) -> None:
    """An early clock would sort before events already recorded and change their fold."""
    content = files(crew.mallory)
    take = new_event(content, crew.todo, "takeover", clock=2, force=True)
    publish(crew.mallory, add_event(content, take))
    refused_then_work_goes_on(crew, "clock 2 is not above")


def test_a_clock_grown_in_one_commit_and_hidden_by_the_next_is_refused(crew: Team) -> None:
    """Every fetched commit is checked, not only the tip."""
    content = files(crew.mallory)
    data = config(content).to_data()
    grown = publish(crew.mallory, with_config(content, {**data, "clock": 10**9}))
    publish(crew.mallory, content)  # the tip itself looks honest again
    refused_then_work_goes_on(crew, f"commit {grown[:12]}: coop.yaml: clock 1000000000 is outside")


def test_honest_events_from_a_peer_move_the_clock_by_their_number(crew: Team) -> None:
    """Format 2 names an event by its content, so the notes carry content ids (explicit
    12-character ids are refused before the clock is even looked at)."""
    content = files(crew.mallory)
    floor = config(content).clock
    first = new_event(content, crew.todo, "note", text="one")
    content = add_event(content, first)
    second = new_event(content, crew.todo, "note", text="two")
    publish(crew.mallory, add_event(content, second))
    assert crew.victim_runs("sync").code == 0
    assert config(files(crew.victim)).clock == floor + 2
    assert crew.victim_runs("fsck").code == 0


@pytest.mark.parametrize("past", [0, 2], ids=["at-the-parents-clock", "one-past-the-bound"])
def test_a_clock_one_outside_the_bound_is_refused(crew: Team, past: int) -> None:
    """The bound is exact: one event moves the clock by exactly one (floor+1), so
    floor (no growth) and floor+2 (one too many) are both refused."""
    content = files(crew.mallory)
    floor = config(content).clock
    note = new_event(content, crew.todo, "note", clock=floor + past, text="hi")
    publish(crew.mallory, add_event(content, note))
    said = "is not above" if past == 0 else "is outside"
    refused_then_work_goes_on(crew, f"clock {floor + past} {said}")
