"""H7: what a peer pushes costs what it adds: at most two parents, a bounded number of events.

mallory crafts commits with git plumbing and pushes them; the victim's sync
refuses them with exit 4 naming the commit, and its ledger does not move.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.store.boundary import history
from tests.conftest import Clones, coop_in
from tests.hostile.forge import (
    add_event,
    commit,
    files,
    new_event,
    publish,
    push,
    refused_on,
    team,
    tip,
    write_tree,
)


def test_a_commit_of_three_parents_is_refused(clones: Clones, tmp_path: Path) -> None:
    t = team(clones, tmp_path)
    content = files(t.mallory)
    base = tip(t.mallory)
    sides = [
        commit(t.mallory, write_tree(t.mallory, content), [base], message=f"side {n}")
        for n in range(3)
    ]
    push(t.mallory, commit(t.mallory, write_tree(t.mallory, content), sides))
    refused_on(t.victim, "has 3 parents", "at most 2")


def test_a_commit_adding_more_events_than_the_bound_is_refused(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bound is 100,000 events a commit; lowered here so the test writes only four."""
    monkeypatch.setattr(history, "MAX_EVENTS", 3)
    t = team(clones, tmp_path)
    content = files(t.mallory)
    for n in range(4):
        content = add_event(content, new_event(content, t.todo, "note", text=f"note {n}"))
    publish(t.mallory, content)
    refused_on(t.victim, "adds 4 events", "at most 3")
    assert coop_in(t.victim, "note", t.todo, "the victim's work goes on").code == 0


def test_an_event_not_named_by_its_content_is_refused(clones: Clones, tmp_path: Path) -> None:
    """H5: on a format-2 ledger a second file cannot carry an id its content does not give."""
    t = team(clones, tmp_path)
    content = files(t.mallory)
    data = new_event(content, t.todo, "note", text="mine", event_id="ev-mmmmmmmmmmmm")
    publish(t.mallory, add_event(content, data))
    refused_on(t.victim, "its id is not the one its content gives")


def test_a_folder_of_another_cf_id_is_refused(clones: Clones, tmp_path: Path) -> None:
    """H3: a folder without an item file is honest only where its item's add was refused,
    and a `cf-` id is no item's (only the ledger's own folder is one): mallory's add of
    another `cf-` id, refused by the rules, does not make a folder her notes can fill."""
    t = team(clones, tmp_path)
    content = files(t.mallory)
    other = "cf-" + "z" * 12
    add = new_event(content, other, "add", kind="todo", title="not an item")
    publish(t.mallory, add_event(content, add))
    refused_on(t.victim, f"events/zz/{other}: events of no item")
