"""A ledger commit's headers are its writer's word: the board shows any git takes.

git's own check of what a fetch brings (`transfer.fsckObjects`) does not look at a
commit's `encoding` header, and the boundary judges trees, parents and authors, never
the message. The board's activity view (`service/board.activity`, `Repo.commit_summary`)
reads each ledger commit's message through pygit2, which decodes it with the codec the
header names: `encoding no-such-codec` raises LookupError, which no handler catches, so
`/activity` answers 500 with a traceback for everyone whose ledger took that commit in.
"""

from __future__ import annotations

import os
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


def activity(path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The board's activity page as `path`'s ledger shows it (its status must be 200)."""
    monkeypatch.chdir(path)
    settings = Settings(lambda expect: make_context(None, None, expect), cookie="coop-board-8765")
    with TestClient(build(settings), base_url=BASE, raise_server_exceptions=False) as client:
        assert client.get(f"/?token={settings.token}", follow_redirects=False).status_code == 303
        answer = client.get("/activity")
    assert answer.status_code == 200, answer.text[:300]
    return answer.text


def test_a_commit_naming_an_unknown_encoding_is_shown_as_utf8(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    crew = team(clones, tmp_path)
    content = files(crew.mallory)
    note = new_event(content, crew.todo, "note", text="an honest note")
    tree = write_tree(crew.mallory, add_event(content, note))
    env = {
        **os.environ,
        **{
            f"GIT_{who}_{what}": MALLORY
            for who in ("AUTHOR", "COMMITTER")
            for what in ("NAME", "EMAIL")
        },
    }
    made = subprocess.run(
        [
            "git",
            "-c",
            "i18n.commitEncoding=no-such-codec",
            "commit-tree",
            tree,
            "-p",
            tip(crew.mallory),
            "-m",
            "note",
        ],
        cwd=crew.mallory,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert "encoding no-such-codec" in git(crew.mallory, "cat-file", "commit", made)
    push(crew.mallory, made)

    synced = coop_in(crew.victim, "sync")
    assert synced.code == 0, synced.err  # an honest note: taken in

    assert made[:7] in activity(crew.victim, monkeypatch)


@pytest.mark.parametrize("when", ["253402300799 +9959", "253402300799 +2359", "253402400000 +0000"])
def test_a_commit_dated_where_python_cannot_hold_it_is_shown(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    """git takes any number of seconds and any four-digit offset; Python's datetime holds
    years 1 to 9999 and offsets under a day. Such a commit is shown at the nearest time
    Python holds, in UTC."""
    crew = team(clones, tmp_path)
    content = files(crew.mallory)
    note = new_event(content, crew.todo, "note", text="an honest note")
    tree = write_tree(crew.mallory, add_event(content, note))
    header = f"tree {tree}\nparent {tip(crew.mallory)}\n"
    header += f"author m <{MALLORY}> {when}\ncommitter m <{MALLORY}> {when}\n\nnote\n"
    made = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=crew.mallory,
        input=header,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    push(crew.mallory, made)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 0, synced.err
    assert made[:7] in activity(crew.victim, monkeypatch)
