"""The queue's rules through the CLI, one test per rule, with a fake verifier process.

Each test commits real code, steers the fake verifier (tests/service/fake_verifier.py)
and runs `git coop` in-process, or as a real process where a terminal or a
pipe matters.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import coop, git
from tests.service.queue_fixtures import CONFIRM, Code, install


@pytest.fixture
def code(ledger: Path) -> Code:
    return install(ledger)


def add(title: str, *evidence: str) -> str:
    args = [arg for spec in evidence for arg in ("--evidence", spec)]
    result = coop("add", "item", title, "--tag", "ui", *args, "--json")
    assert result.code == 0, result.err
    return str(result.json()["id"])


def ready(code: Code, title: str = "Fix toast", spec: str = "src/app.py:3") -> str:
    """An item the verifier confirmed at the current HEAD."""
    item_id = add(title, spec)
    code.plan(**{title.split()[-1]: CONFIRM})
    assert coop("verify").code == 0
    assert show(item_id)["status"] == "ready"
    return item_id


def show(item_id: str) -> dict[str, object]:
    result = coop("show", item_id, "--json")
    assert result.code == 0, result.err
    data: dict[str, object] = result.json()
    return data


def head(code: Code) -> str:
    return git(code.path, "rev-parse", "HEAD").strip()


def pick_json(*args: str) -> tuple[int, dict[str, object]]:
    result = coop("pick", "--json", *args)
    return result.code, json.loads(result.out)


# -- evidence ages honestly -----------------------------------------------------------


def move_head(code: Code, move: str) -> None:
    """Move HEAD so that the HEAD the evidence was cached at is no longer its ancestor."""
    if move == "backwards":
        git(code.path, "reset", "-q", "--hard", "HEAD~1")
    elif move == "sideways":
        git(code.path, "checkout", "-q", "-b", "side", "HEAD~1")
        code.commit("docs/notes.md", "elsewhere\n")
    else:  # the branch the item was judged on is rebased onto a newer main
        git(code.path, "checkout", "-q", "main")
        code.commit("docs/notes.md", "main moved\n")
        git(code.path, "checkout", "-q", "topic")
        git(code.path, "rebase", "-q", "main")


@pytest.mark.parametrize("move", ["backwards", "sideways", "rebase"])
def test_head_moved_backwards_sideways_or_past_a_rebase_reverifies(code: Code, move: str) -> None:
    if move == "rebase":
        git(code.path, "checkout", "-q", "-b", "topic")
    code.commit("src/app.py", "line\n" * 50 + "more\n")
    item_id = ready(code)
    cached = head(code)
    move_head(code, move)
    assert git(code.path, "cat-file", "-t", cached).strip() == "commit"  # still there
    assert git(code.path, "merge-base", "--is-ancestor", cached, "HEAD", check=False) == ""
    status, picked = pick_json()
    assert status == 0, picked
    assert picked["id"] == item_id
    checks = picked["checks"]
    assert isinstance(checks, list)
    assert [(c["cache"], c["action"]) for c in checks] == [("moved", "verify"), ("hit", "use")]
    assert "ancestor" in str(checks[0]["why"])
    assert code.calls() == [item_id, item_id]  # asked again, not handed stale lines


def test_a_merge_counts_once_per_first_parent_step(code: Code) -> None:
    item_id = ready(code)
    git(code.path, "checkout", "-q", "-b", "feature")
    for n in range(25):
        code.commit("src/app.py", f"line {n}\n" * 50)
    git(code.path, "checkout", "-q", "main")
    git(code.path, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    status, picked = pick_json()
    assert status == 0
    assert picked["id"] == item_id
    assert [(c["cache"], c["touching"], c["action"]) for c in picked["checks"]] == [
        ("moved", 1, "reuse")
    ]
