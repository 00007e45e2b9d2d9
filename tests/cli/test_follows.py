"""A way forward from a settled item: `add --follows`, and refusals that name it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import coop


def settled_todo(title: str = "shipped the parser") -> tuple[str, str]:
    added = coop("add", "todo", title, "--json").json()
    assert coop("done", added["short_id"], "--summary", "first").code == 0
    return added["id"], added["short_id"]


def test_follows_files_a_new_item_linked_to_the_settled_one(ledger: Path) -> None:
    old, label = settled_todo()
    before = coop("show", old, "--json").json()
    new = coop("add", "todo", "fix the parser again", "--follows", label, "--json").json()
    assert new["status"] == "open" and new["id"] != old
    shown = coop("show", new["id"], "--json").json()
    assert [f["id"] for f in shown["dependencies"]["follows"]] == [old]
    after = coop("show", old, "--json").json()
    assert [f["id"] for f in after["dependencies"]["followed_by"]] == [new["id"]]
    kept = ("status", "closed_by", "closed_at", "result_summary", "version")
    assert {k: after[k] for k in kept} == {k: before[k] for k in kept}  # still the record
    text = coop("show", label).out
    assert "followed by" in text and "fix the parser again" in text


def test_follows_refuses_work_that_is_not_settled(ledger: Path) -> None:
    open_todo = coop("add", "todo", "still open").out.strip()
    refused = coop("add", "todo", "another", "--follows", open_todo)
    assert refused.code == 1
    assert "not settled" in refused.err and "--discovered-from" in refused.err
    assert coop("list", "--json").json()[0]["title"] == "still open"  # nothing added


@pytest.mark.parametrize(
    "args",
    [
        ["take"],
        ["release", "--reason", "r"],
        ["abandon", "--reason", "r"],
        ["done", "--summary", "second", "--force"],
        ["report", "blocked", "--reason", "r"],
    ],
    ids=lambda a: a[0],
)
def test_every_refusal_on_a_settled_item_names_the_way_forward(
    ledger: Path, args: list[str]
) -> None:
    _, label = settled_todo()
    if args[0] == "done":  # a second done amends; an abandoned one is the refusal
        todo = coop("add", "todo", "dropped").out.strip()
        assert coop("abandon", todo, "--reason", "no").code == 0
        label = todo
        args = ["done", "--summary", "after all"]
    refused = coop(args[0], label, *args[1:])
    assert refused.code == 1, refused.err
    assert refused.err.count("\n") == 1
    assert f"git coop add todo TITLE --follows {label}" in refused.err


def test_a_settled_queue_item_names_the_way_forward_too(ledger: Path) -> None:
    item = coop("add", "item", "Fix toast", "--evidence", "a.py:1", "--json").json()["short_id"]
    assert coop("edit", item, "--state", "closed", "--reason", "dropped").code == 0
    refused = coop("edit", item, "--state", "ready")
    assert refused.code == 1 and f"git coop add item TITLE --follows {item}" in refused.err
