"""The hooks run the gitcoop they were installed with; when it is gone, they still journal.

A second, real virtual environment is made for these tests (its site-packages
point at this one's), the hooks are installed from it, and then it is moved.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.service import hooks
from gitcoop.store.ledger import journal
from tests.conftest import coop, git
from tests.service.hook_helpers import GIT, add, bare_env, commit, head, item, ledger_tip

TOP = Path(__file__).resolve().parents[2]


def make_venv(where: Path) -> Path:
    """A virtual environment whose python imports this checkout's gitcoop."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(where)], check=True)
    site = next((where / "lib").glob("python*/site-packages"))
    found = [str(TOP), *(p for p in sys.path if p and os.path.isdir(p))]  # this one's imports
    (site / "gitcoop-tests.pth").write_text("\n".join(found) + "\n")
    script = where / "bin" / "git-coop"
    script.write_text("import sys\nfrom gitcoop.cli.main import run\nsys.exit(run())\n")
    return where


def run_from(venv: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    python, entry = venv / "bin" / "python", venv / "bin" / "git-coop"
    return subprocess.run(
        [str(python), str(entry), *args], cwd=cwd, capture_output=True, text=True, check=True
    )


@pytest.fixture
def moved(ledger: Path, tmp_path: Path) -> Path:
    """Hooks installed from a venv that was then moved away."""
    venv = make_venv(tmp_path / "venv")
    run_from(venv, ledger, "hooks", "install")
    assert hooks.recorded((ledger / ".git/hooks/post-commit").read_bytes()) == hooks.Runner(
        str(venv / "bin" / "python"), str(venv / "bin" / "git-coop")
    )
    assert {s["state"] for s in coop("hooks", "status", "--json").json()["hooks"]} == {"current"}
    os.rename(venv, tmp_path / "elsewhere")
    return ledger


def test_status_after_the_venv_moved_says_what_to_do(moved: Path, tmp_path: Path) -> None:
    status = coop("hooks", "status")
    assert "post-commit         stale" in status.out
    gone = tmp_path / "venv" / "bin" / "python"
    assert f"the gitcoop these hooks run is gone ({gone})" in status.out
    assert "run git coop hooks install with the gitcoop you use now" in status.out
    assert coop("hooks", "install").code == 0
    assert {s["state"] for s in coop("hooks", "status", "--json").json()["hooks"]} == {"current"}


def test_a_commit_no_gitcoop_can_record_is_noted_and_the_next_command_records_it(
    moved: Path,
) -> None:
    todo = add("todo", "while gitcoop was gone")
    before = ledger_tip(moved)
    done = commit(moved, f"Meanwhile\n\nCoop-Done: {todo}\n", env=bare_env())
    sha = head(moved)
    assert "gitcoop could not start" in done.stderr and f"commit {sha} noted" in done.stderr
    assert ledger_tip(moved) == before
    assert journal.has_entries(str(moved / ".git"))  # a note beside the journal

    listed = coop("list", "--all")
    assert "the hooks could not start gitcoop for 1 commit(s)" in listed.err
    assert "git coop hooks status says what to do" in listed.err
    assert "done with" in listed.err
    shown = item(todo)
    assert (shown["commit_sha"], shown["closed_by"]) == (sha, "alice@example.com")
    assert not journal.has_entries(str(moved / ".git"))
    assert git(moved, "status", "--porcelain") == ""  # nothing left in the working tree


def test_an_amend_no_gitcoop_can_record_is_noted_too(moved: Path) -> None:
    coop("hooks", "install")  # a working gitcoop records the first commit
    todo = add("todo", "amended later")
    commit(moved, f"First\n\nCoop-Done: {todo}\n")
    first = head(moved)
    gone = hooks.Runner("/gone/python", "/gone/git-coop")
    for name in ("post-commit", "post-rewrite"):
        (moved / ".git/hooks" / name).write_bytes(hooks.rendered(name, gone))
    amended = subprocess.run(
        [GIT, "commit", "-q", "--amend", "-m", "First, reworded"],
        cwd=moved,
        env=bare_env(),
        check=True,
        capture_output=True,
        text=True,
    )
    assert "the rewrite is noted" in amended.stderr
    assert item(todo)["commit_sha"] == head(moved) != first
    edit = coop("log", todo, "--json").json()[-1]
    assert (edit["verb"], edit["previous_commit"]) == ("edit", first)
