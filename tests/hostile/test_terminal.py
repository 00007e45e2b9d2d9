"""#6 Ledger text never drives a terminal: every human-facing line is escaped, inputs refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Clones, coop_process, git
from tests.hostile.forge import (
    Team,
    add_event,
    commit,
    files,
    new_event,
    publish,
    team,
    tip,
    unsafe_in,
    write_tree,
)
from tests.rawledger import put

CLEAR = "\x1b[2J\x1b[H"
CLIPBOARD = "\x1b]52;c;Y3VybCBldmlsfHNo\x07"  # OSC 52: sets the clipboard
TITLE = f"Fix{CLEAR} it\r{CLIPBOARD}\x9b31m done\u202eevil\u2028"
HOLDER = f"eve{CLIPBOARD}@example.com"
ITEM = "td-eeeeeeeeeeee"


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def plant_locally(crew: Team) -> None:
    """A ledger that already holds such text (an older gitcoop, a hand edit): it is shown safely."""
    content = files(crew.victim)
    added = new_event(content, ITEM, "add", actor=HOLDER, kind="todo", title=TITLE, body=TITLE)
    content = add_event(content, added)
    took = new_event(content, ITEM, "take", actor=HOLDER)
    took["session"] = f"s{CLEAR}"
    content = add_event(content, took)
    noted = new_event(content, ITEM, "note", actor=HOLDER, text=TITLE)
    content = add_event(content, noted)
    push_local(crew.victim, content)


def push_local(path: Path, content: dict[str, bytes]) -> None:
    made = commit(path, write_tree(path, content), [tip(path)])
    git(path, "update-ref", "refs/coop/ledger", made)


def shown_safely(crew: Team, *args: str) -> str:
    result = coop_process(crew.victim, *args, env={"COOP_NOW": "2026-11-29T18:00:00Z"})
    assert result.code in (0, 1), (args, result.code, result.err)
    assert "unexpected" not in result.err
    out = result.out + result.err
    assert unsafe_in(out) == [], (args, out)
    return out


def test_every_output_escapes_what_the_ledger_holds(crew: Team) -> None:
    plant_locally(crew)
    outputs = {
        "list": shown_safely(crew, "list"),
        "show": shown_safely(crew, "show", ITEM),
        "log": shown_safely(crew, "log"),
        "owed": shown_safely(crew, "owed", "--all"),
        "take refused": shown_safely(crew, "take", ITEM),
        "note confirmed": shown_safely(crew, "note", ITEM, "seen"),
        "done confirmed": shown_safely(crew, "done", ITEM, "--force"),
        "fsck": shown_safely(crew, "fsck"),
    }
    assert "[taken by eve\\x1b]52;c;" in outputs["list"]
    assert "Fix\\x1b[2J\\x1b[H it\\x0d" in outputs["show"]
    assert "\\u202eevil\\u2028" in outputs["log"]
    assert "taken by eve\\x1b]52" in outputs["take refused"]
    assert "\\x9b31m" in outputs["done confirmed"]
    assert "[identity]" in outputs["fsck"]  # fsck names the control characters in identities
    assert not crew.marker.exists()


def test_an_error_naming_a_hostile_tree_entry_is_escaped(crew: Team) -> None:
    put(crew.victim, ["items", "ab", f"td-ab{CLIPBOARD}.yaml"], b"x: 1\n")
    out = shown_safely_code(crew, 4, "list")
    assert "td-ab\\x1b]52;c;" in out


def shown_safely_code(crew: Team, code: int, *args: str) -> str:
    result = coop_process(crew.victim, *args)
    assert result.code == code, result.err
    assert unsafe_in(result.out + result.err) == []
    return result.err


@pytest.mark.parametrize(
    "args",
    [
        ["note", "ID", f"seen{CLIPBOARD}"],
        ["release", "ID", "--force", "--reason", f"why\r{CLEAR}"],
        ["done", "ID", "--force", "--summary", "ok\x9b31m"],
        ["add", "todo", "fine", "--body", f"text{CLEAR}"],
        ["add", "todo", "fine", "--tag", "t\u202e"],
        ["take", "ID", "--session", f"s{CLEAR}"],
        ["add", "todo", "fine", "--as", f"eve{CLEAR}@example.com"],
    ],
)
def test_control_characters_in_free_text_input_are_usage_errors(
    crew: Team, args: list[str]
) -> None:
    before = tip(crew.victim)
    result = coop_process(crew.victim, *[crew.todo if a == "ID" else a for a in args])
    assert result.code == 2, result.err
    assert unsafe_in(result.out + result.err) == []
    assert tip(crew.victim) == before


def test_a_peers_control_characters_never_arrive(crew: Team) -> None:
    content = files(crew.mallory)
    publish(crew.mallory, add_event(content, new_event(content, crew.todo, "note", text=TITLE)))
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4 and "text must not hold control characters" in synced.err
    assert unsafe_in(synced.err) == [] and tip(crew.victim) == before
    assert crew.victim_runs("list").code == 0
