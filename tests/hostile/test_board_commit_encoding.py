"""A ledger commit's headers are its writer's word: the board shows any git takes.

git's own check of what a fetch brings (`transfer.fsckObjects`) does not look at a
commit's `encoding` header, nor at dates Python cannot hold, and the boundary judges
trees, parents and authors. The board's activity view (`service/board.activity`,
`Repo.commit_summary`) reads each ledger commit's message, author and date: pygit2
decodes the texts with the codec the header names (`encoding no-such-codec` raised
LookupError) and a date past year 9999 raised in `datetime`, so `/activity` answered
500 for everyone whose ledger took that commit in (H7: a commit's headers are read
whatever they say).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from gitcoop.cli.invocation import make_context
from gitcoop.web.app import Settings, build
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import MALLORY, add_event, files, new_event, push, team, tip, write_tree

BASE = "http://127.0.0.1:8765"
NOW = "1796500000 +0000"


def activity(path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The board's activity page as `path`'s ledger shows it (its status must be 200)."""
    monkeypatch.chdir(path)
    settings = Settings(lambda expect: make_context(None, None, expect), cookie="coop-board-8765")
    with TestClient(build(settings), base_url=BASE, raise_server_exceptions=False) as client:
        assert client.get(f"/?token={settings.token}", follow_redirects=False).status_code == 303
        answer = client.get("/activity")
    assert answer.status_code == 200, answer.text[:300]
    return answer.text


def synced_note(
    clones: Clones, tmp_path: Path, when: str = NOW, headers: str = ""
) -> tuple[str, Path]:
    """mallory's honest note in a commit written by hand (dated `when`, with `headers`
    after its committer), pushed and synced by the victim: (the commit, the victim)."""
    crew = team(clones, tmp_path)
    content = files(crew.mallory)
    note = new_event(content, crew.todo, "note", text="an honest note, café")
    tree = write_tree(crew.mallory, add_event(content, note))
    header = f"tree {tree}\nparent {tip(crew.mallory)}\n"
    header += f"author m <{MALLORY}> {when}\ncommitter m <{MALLORY}> {when}\n{headers}"
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=crew.mallory,
        input=f"{header}\nnote, café\n",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    push(crew.mallory, made)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 0, synced.err  # an honest note: taken in
    return made, crew.victim


def test_a_commit_naming_an_unknown_encoding_is_shown_as_utf8(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made, victim = synced_note(clones, tmp_path, headers="encoding no-such-codec\n")
    assert "encoding no-such-codec" in git(victim, "cat-file", "commit", made)
    shown = activity(victim, monkeypatch)
    assert made[:7] in shown and "note, café" in shown


@pytest.mark.parametrize("when", ["253402300799 +1200", "253402400000 +0000"])
def test_a_commit_dated_where_python_cannot_hold_it_is_shown(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """git takes any number of seconds; Python's datetime holds years 1 to 9999, and the
    last second of 9999 in a zone east of UTC is past it there. Such a commit is shown at
    the nearest time Python holds, in UTC."""
    made, victim = synced_note(clones, tmp_path, when)
    assert made[:7] in activity(victim, monkeypatch)
