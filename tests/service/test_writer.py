"""The one write path: policies, answers, one commit per write, and the rules the
verbs, the hooks and the queue once applied differently, now applied the same way.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from gitcoop.errors import ChangedUnderWrite, NotFound, Refused
from gitcoop.service import ledger as verbs
from gitcoop.service.writer import Intent, Policy, write
from tests.conftest import coop, git
from tests.service.queue_fixtures import CONFIRM, Code, install


def commits(path: Path) -> int:
    return int(git(path, "rev-list", "--count", "refs/coop/ledger").strip())


def new_todo(title: str) -> str:
    result = coop("add", "todo", title, "--json")
    assert result.code == 0, result.err
    return str(result.json()["id"])


@pytest.fixture
def code(ledger: Path) -> Code:
    return install(ledger)


def test_all_or_nothing_writes_nothing_when_one_intent_is_refused(code: Code) -> None:
    a, b = new_todo("a"), new_todo("b")
    assert coop("take", b, "--as", "bob@example.com").code == 0
    before = commits(code.path)
    with pytest.raises(Refused, match=r"already taken by bob@example\.com"):
        write(code.ctx(), [Intent(a, "take"), Intent(b, "take")])
    assert commits(code.path) == before
    assert coop("show", a, "--json").json()["status"] == "open"


def test_each_on_its_own_answers_every_intent_and_writes_one_commit(code: Code) -> None:
    a, b = new_todo("a"), new_todo("b")
    assert coop("take", b, "--as", "bob@example.com").code == 0
    before = commits(code.path)
    intents = [Intent(a, "take"), Intent(b, "take"), Intent("td-zzzz", "take")]
    written = write(code.ctx(), intents, Policy.EACH)
    first, second, third = written.answers
    assert first.shown is not None and first.shown.item.status == "taken"
    assert second.refusal is not None and "already taken by bob@example.com" in second.refusal
    assert third.refusal == "no item matches 'td-zzzz' — see git coop list"
    assert commits(code.path) == before + 1
    message = git(code.path, "log", "-1", "--format=%s", "refs/coop/ledger").strip()
    assert message == f"take {first.shown.label} by alice@example.com"


def test_a_write_that_changes_nothing_makes_no_commit(code: Code) -> None:
    a = new_todo("a")
    assert coop("done", a, "--summary", "s").code == 0
    before = commits(code.path)
    written = write(code.ctx(), [Intent(a, "done", {"summary": "s"})])
    assert not written.wrote and written.first().wrote is False
    assert commits(code.path) == before


def test_once_skips_an_event_the_item_already_holds(code: Code) -> None:
    a = new_todo("a")
    note = Intent(a, "note", {"text": "commit abc", "commit": "abc1234"}, once=True)
    assert write(code.ctx(), [note]).wrote
    before = commits(code.path)
    assert not write(code.ctx(), [note]).wrote
    assert commits(code.path) == before


def test_an_expected_version_is_checked_before_anything_is_planned(code: Code) -> None:
    a = new_todo("a")
    with pytest.raises(ChangedUnderWrite, match="is at version 1, not 7"):
        write(code.ctx(), [Intent(a, "take", expect=7)])
    with pytest.raises(NotFound, match="no item matches 'td-zzzz'"):
        write(code.ctx(), [Intent("td-zzzz", "take")])


def test_a_new_item_never_replaces_one_with_the_same_id(code: Code) -> None:
    """The verbs' add once skipped reading the item; the queue's refused. Now every add reads."""
    seeded = {"COOP_SEED": "7"}
    first = coop("add", "todo", "first", "--json", env=seeded)
    assert first.code == 0, first.err
    before = commits(code.path)
    again = coop("add", "todo", "second", env=seeded)
    assert again.code == 1, again.err
    assert "already exists" in again.err
    assert commits(code.path) == before
    assert coop("show", first.json()["id"], "--json").json()["title"] == "first"
    assert len(coop("log", first.json()["id"], "--json").json()) == 1


def split_in_two(code: Code) -> tuple[str, list[str]]:
    parent = coop("add", "item", "Rework the toast system", "--evidence", "src/app.py:3", "--json")
    code.plan(toast={"verdict": "too-big", "reason": "several rounds"})
    assert coop("verify").code == 0
    split = coop("split", parent.json()["id"], "--into", "Fix toast A", "--into", "Fix B toast")
    assert split.code == 0, split.err
    data = coop("show", parent.json()["id"], "--json").json()
    children = [c["id"] for c in coop("list", "--kind", "item", "--json").json()]
    return data["id"], [c for c in children if c != data["id"]]


def test_closing_the_last_child_by_any_verb_closes_a_split_parent(code: Code) -> None:
    """Only the queue's own writes used to settle a split parent; `close` left it split."""
    parent, children = split_in_two(code)
    code.plan(A=CONFIRM, B=CONFIRM)
    assert coop("verify").code == 0
    for _ in children:
        picked = coop("pick", "--json")
        assert picked.code == 0, picked.err
        done = coop("close", picked.json()["id"], "--commit", "abc1234", "--commit-elsewhere")
        assert done.code == 0, done.err
    assert coop("show", parent, "--json").json()["status"] == "closed"


def test_every_event_of_a_commit_is_by_the_commits_author(code: Code) -> None:
    """A split parent's settle was written as `system` inside the finisher's commit."""
    parent, _ = split_in_two(code)
    code.plan(A=CONFIRM, B={"verdict": "stale", "reason": "gone"})
    assert coop("verify").code == 0
    picked = coop("pick", "--json", "--as", "bob@example.com").json()
    assert coop(
        "finish",
        picked["id"],
        "done",
        "--commit",
        "abc1234",
        "--commit-elsewhere",
        "--as",
        "bob@example.com",
    )
    settle = coop("log", parent, "--json").json()[-1]
    assert (settle["verb"], settle["actor"]) == ("settle", "bob@example.com")
    author = git(code.path, "log", "-1", "--format=%ae %s", "refs/coop/ledger").strip()
    assert author.startswith("bob@example.com finish ")
    assert ", settle " in author


def test_roles_and_init_go_through_the_writer(code: Code) -> None:
    ctx = code.ctx()
    assert roles() == (("alice@example.com",), ())
    verbs.change_roles(ctx, "add", "chief", "carol@example.com")
    assert roles() == (("alice@example.com",), ("carol@example.com",))
    before = commits(code.path)
    verbs.change_roles(ctx, "add", "chief", "carol@example.com")  # already: nothing written
    assert commits(code.path) == before
    assert verbs.init(replace(ctx, actor="bob@example.com"))[0] is False
    message = git(code.path, "log", "-1", "--format=%s", "refs/coop/ledger").strip()
    assert message == "roles add chief carol@example.com by alice@example.com"


def roles() -> tuple[tuple[str, ...], tuple[str, ...]]:
    data = coop("roles", "--json").json()
    return tuple(data["owners"]), tuple(data["chiefs"])


def test_a_large_write_goes_into_one_pack_and_leaves_nothing_loose(code: Code) -> None:
    git(code.path, "config", "gc.auto", "0")  # no background packing to blur the count
    objects = code.path / ".git" / "objects"

    def loose() -> set[str]:
        return {f"{d.name}{p.name}" for d in objects.glob("[0-9a-f][0-9a-f]") for p in d.iterdir()}

    def packs() -> set[str]:
        return {p.name for p in (objects / "pack").glob("*.pack")}

    before_loose, before_packs = loose(), packs()
    intents = [
        Intent(f"td-{n:012d}", "add", {"kind": "todo", "title": f"t {n}"}) for n in range(40)
    ]
    write(code.ctx(), intents)
    assert loose() == before_loose
    new = packs() - before_packs
    assert len(new) == 1
    tip = git(code.path, "rev-parse", "refs/coop/ledger").strip()
    listed = git(code.path, "verify-pack", "-v", str(objects / "pack" / next(iter(new))))
    assert tip in listed  # the commit too
    assert git(code.path, "fsck", "--no-dangling").strip() == ""
    assert coop("list", "--json").code == 0
