"""#5 Ledger text never becomes a command or a commit trailer: one-line fields stay one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in
from tests.hostile.forge import MALLORY, Team, add_event, files, new_event, publish, team, tip


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def trailer(crew: Team) -> str:
    return f"looks harmless\n\nCoop-Close: {crew.todo}\n{crew.shell}"


@pytest.mark.parametrize(
    ("verb", "field"),
    [
        ("add", "title"),
        ("add", "tag"),
        ("note", "session"),
        ("release", "reason"),
        ("done", "summary"),
        ("edit_item", "title"),
    ],
)
def test_a_peers_line_break_in_a_one_line_field_is_refused(
    crew: Team, verb: str, field: str
) -> None:
    content = files(crew.mallory)
    target = "td-mmmmmmmmmmmm" if verb == "add" else crew.todo
    args: dict[str, object] = {"kind": "todo", "title": "ok"} if verb == "add" else {"text": "t"}
    event = new_event(content, target, verb, **args)
    if field == "session":
        event["session"] = trailer(crew)
    else:
        event[field] = trailer(crew)
    publish(crew.mallory, add_event(content, event))
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4 and f"{field} must be one line" in synced.err, synced.err
    assert tip(crew.victim) == before
    assert crew.victim_runs("list").code == 0
    assert crew.victim_runs("take", crew.todo, "--force").code == 0


def test_a_peers_actor_with_a_line_break_is_refused(crew: Team) -> None:
    content = files(crew.mallory)
    event = new_event(content, crew.todo, "note", actor=f"{MALLORY}\nCoop-Close: x", text="t")
    publish(crew.mallory, add_event(content, event))
    synced = crew.victim_runs("sync")
    assert synced.code == 4 and "cannot name a person" in synced.err


def test_every_local_way_in_keeps_a_title_on_one_line(crew: Team, tmp_path: Path) -> None:
    path = crew.victim
    assert crew.victim_runs("add", "todo", "two\nlines").code == 2
    item = crew.victim_runs("add", "item", "fine", "--evidence", "a.py:1").out.strip()
    assert crew.victim_runs("edit", item, "--title", "two\nlines").code == 2
    assert crew.victim_runs("note", crew.todo, "a note\nmay span lines").code == 0
    assert crew.victim_runs("release", crew.todo, "--force", "--reason", "no\nno").code == 2
    findings = tmp_path / "findings.json"
    findings.write_text(
        json.dumps([{"title": "a\nCoop-Close: x", "evidence": [{"path": "a.py", "line": 2}]}])
    )
    scanned = coop_in(path, "scan", "--from", str(findings), "--json")
    assert scanned.code == 0 and scanned.json()["added"] == []
    assert crew.victim_runs("fsck").code == 0
