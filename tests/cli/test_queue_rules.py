"""The queue's rules through the CLI, one test per rule, with a fake verifier process.

Each test commits real code, steers the fake verifier (tests/service/fake_verifier.py)
and runs `git coop` in-process, or as a real process where a terminal or a
pipe matters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

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


def show(item_id: str) -> dict[str, Any]:
    result = coop("show", item_id, "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def head(code: Code) -> str:
    return git(code.path, "rev-parse", "HEAD").strip()


def pick_json(*args: str) -> tuple[int, dict[str, Any]]:
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


def confirm_citing(path: str, line: int | None = 7, quote: str | None = "line") -> dict[str, Any]:
    return {
        "verdict": "confirmed",
        "reason": "the code shows it",
        "evidence": [{"path": path, "line": line, "quote": quote}],
    }


def test_evidence_paths_are_normalised_and_must_name_real_lines_and_quotes(code: Code) -> None:
    code.commit("src/app.py", "def toast():\n" + "line\n" * 49)
    absolute = str(code.path / "src" / "app.py")
    cases = {
        "dotted": (confirm_citing("./src/app.py"), "ready", None),
        "absolute": (confirm_citing(absolute), "ready", None),
        "missing": (confirm_citing("src/nope.py"), "draft", "src/nope.py is not a file"),
        "past": (confirm_citing("src/app.py", 999), "draft", "line 999 is past the end"),
        "quote": (confirm_citing("src/app.py", 40, "def toast"), "draft", "the quote"),
        "outside": (confirm_citing("/etc/passwd", 1, None), "draft", "outside the repository"),
        "folder": (confirm_citing("src", None, None), "draft", "src is not a file"),
    }
    code.plan(**{name: verdict for name, (verdict, _, _) in cases.items()})
    ids = {name: add(f"Item {name}", "src/app.py:3") for name in cases}
    assert coop("verify").code == 0
    for name, (_, status, reason) in cases.items():
        item = show(ids[name])
        assert item["status"] == status, (name, item)
        if reason is None:
            assert [e["path"] for e in item["evidence"]] == ["src/app.py"]
        else:
            assert reason in str(item["reason"]), (name, item["reason"])
    near = confirm_citing("src/app.py", 4, "def toast():")  # three lines off: near enough
    code.plan(near=near)
    assert show(add("Item near", "src/app.py:3"))["status"] == "draft"
    coop("verify")
    assert [i["status"] for i in coop("queue", "--json").json() if i["title"] == "Item near"] == [
        "ready"
    ]


def test_add_item_warns_about_evidence_that_is_not_in_the_tree(code: Code) -> None:
    result = coop("add", "item", "Fix it", "--evidence", "./src/app.py:7:line", "--json")
    assert result.code == 0 and result.err == ""
    assert result.json()["evidence"][0]["path"] == "src/app.py"
    ahead = coop("add", "item", "Fix new", "--evidence", "src/new.py:3", "--json")
    assert ahead.code == 0  # filed anyway: a person may be ahead of the tree
    assert "warning" in ahead.err and "src/new.py is not a file" in ahead.err
    assert ahead.json()["status"] == "draft"
    past = coop("add", "item", "Fix past", "--evidence", "src/app.py:51")
    assert past.code == 0 and "line 51 is past the end of src/app.py (50 lines)" in past.err


def test_nothing_is_picked_unverified_whatever_made_it_ready(code: Code) -> None:
    bare = add("Fix bare toast")  # no evidence at all
    assert coop("edit", bare, "--state", "ready").code == 0
    parent = add("Rework the toast system")
    code.plan(system={"verdict": "too-big", "reason": "three rounds of work"})
    coop("verify")
    split = coop("split", parent, "--into", "Fix child one", "--into", "Fix child two", "--json")
    child = split.json()["children"][0]["id"]
    assert coop("edit", child, "--state", "ready").code == 0
    code.plan(bare=CONFIRM, child=CONFIRM)
    for expected in (bare, child):
        status, picked = pick_json()
        assert status == 0 and picked["id"] == expected
        first = picked["checks"][0]
        assert (first["cache"], first["action"]) == ("miss", "verify")
        assert picked["evidence"] and picked["evidence"][0]["path"] == "src/app.py"
    assert code.calls().count(bare) == 1 and code.calls().count(child) == 1


def test_a_hand_off_without_evidence_says_to_find_the_place_first() -> None:
    from datetime import UTC, datetime

    from gitcoop.cli.queue_commands import picked_text
    from gitcoop.domain.ids import ItemId
    from gitcoop.domain.records import Evidence, Item
    from gitcoop.service.writer import Shown

    at = datetime(2026, 11, 29, tzinfo=UTC)
    item = Item(ItemId("it-aaaaaaaaaaaa"), "item", "Fix it", "in_progress", at, "a@x")
    text = picked_text(Shown(item, "it-aaaa"))
    assert "no evidence" in text and "find the place in the code first" in text
    cited = picked_text(Shown(Item(**{**item.__dict__, "evidence": (Evidence("a.py", 3),)}), "x"))
    assert "evidence a.py:3" in cited and "no evidence" not in cited
