"""What a merge's second parent carries, attacked by a peer with push access.

mallory pushes a merge commit whose first parent is an honest note of hers on
the tip and whose second parent is a side commit holding the one forgery a
test plants; the merge's own tree is the honest union of both sides (or, when
the forgery is in the side's trees only, the honest side's tree), so nothing
but the side commit is wrong. Every path of the check must see it: a
fast-forward, a real merge with local work, and a first sync into a fresh
clone, checked in one piece or in two halves (the side's fan-out checked here
or by the child). The merge is also pushed as an ordinary branch and fetched
by plain git first, so objects git's own fetch check would refuse reach the
sync unchecked (as in tests/store/test_raw_trees.py).

Then an unrelated root: a merge whose second parent shares no history with
the ledger, holding an event older than the ledger's first.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitcoop.domain.records import LedgerConfig, Roles
from gitcoop.store import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    MALLORY,
    REF,
    Team,
    add_event,
    commit,
    config,
    files,
    new_event,
    refolded,
    refused_on,
    team,
    tip,
    write_tree,
)
from tests.rawledger import Entry, open_raw, rewrite

PATHS = ["fast-forward", "merge", "first-whole", "first-halves-here", "first-halves-child"]
Content = dict[str, bytes]


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def pushed(crew: Team, made: str) -> None:
    """mallory's push of `made` as the ledger and as an ordinary branch."""
    git(crew.mallory, "update-ref", REF, made)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{made}:{REF}", f"{made}:refs/heads/feature")


def on_path(crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, path: str) -> Path:
    """The clone that syncs on `path`, set up for it."""
    from gitcoop.store import inbound

    if path == "merge":
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    if path.startswith("first"):
        where = clones.clone("carol")
        split = 10**6 if path == "first-whole" else 1
        monkeypatch.setattr(inbound, "SPLIT_ITEMS", split)
        if path == "first-halves-child":
            monkeypatch.setattr(inbound, "_FIRST_HALF", frozenset())  # the child takes all
        elif path == "first-halves-here":
            monkeypatch.setattr(
                inbound, "_FIRST_HALF", frozenset("0123456789abcdefghjkmnpqrstvwxyz")
            )
    else:
        where = crew.victim
    return where


# -- the forgeries a side commit carries ----------------------------------------------


@dataclass
class Side:
    tree: str  # the side commit's tree
    author: str
    union: list[dict[str, Any]]  # its events the merge's tree must unite with the other side's
    fragment: str  # what the refusal names


Forgery = Callable[[Team, Content], Side]


def _folder(crew: Team) -> str:
    return f"events/{crew.todo[3:5]}/{crew.todo}"


def _by_someone_else(crew: Team, content: Content) -> Side:
    note = new_event(content, crew.todo, "note", actor=ALICE, event_id="ev-ssssssssssss", text="x")
    return Side(
        write_tree(crew.mallory, add_event(content, note)),
        MALLORY,
        [note],
        f"an event by {ALICE!r} in a commit authored by {MALLORY!r}",
    )


def _take_event(crew: Team, content: Content) -> str:
    return next(
        n for n in content if n.startswith(_folder(crew) + "/") and b"verb: take" in content[n]
    )


def _dropped(crew: Team, content: Content) -> Side:
    name = _take_event(crew, content)
    side = {k: v for k, v in content.items() if k != name}
    return Side(write_tree(crew.mallory, side), MALLORY, [], f"{name}: an event was dropped")


def _rewritten(crew: Team, content: Content) -> Side:
    name = _take_event(crew, content)
    assert b"session: s1" in content[name]
    side = {**content, name: content[name].replace(b"session: s1", b"session: s9")}
    return Side(write_tree(crew.mallory, side), MALLORY, [], f"{name}: an event was dropped")


def _clock_too_far(crew: Team, content: Content) -> Side:
    jump = config(content).clock + 3  # one event: one past its parent's clock at most
    note = new_event(content, crew.todo, "note", clock=jump, event_id="ev-ssssssssssss", text="x")
    return Side(
        write_tree(crew.mallory, add_event(content, note)),
        MALLORY,
        [note],
        f"clock {jump} is outside",
    )


def _coop_clock_too_far(crew: Team, content: Content) -> Side:
    note = new_event(content, crew.todo, "note", event_id="ev-ssssssssssss", text="x")
    side = add_event(content, note)
    data = config(side).to_data()
    data["clock"] = note["clock"] + 2
    side = {**side, "coop.yaml": codec.dump(data)}
    return Side(
        write_tree(crew.mallory, side), MALLORY, [note], f"coop.yaml: clock {note['clock'] + 2}"
    )


def _raw_side(
    crew: Team, content: Content, change: Callable[[list[Entry]], list[Entry]], parts: list[str]
) -> str:
    raw = open_raw(crew.mallory)
    root = pygit2.Oid(hex=write_tree(crew.mallory, content))
    return str(rewrite(raw, root, parts, change))


def _empty_folder(crew: Team, content: Content) -> Side:
    empty = open_raw(crew.mallory).write(pygit2.enums.ObjectType.TREE, b"")
    parts = _folder(crew).split("/")

    def with_empty(listed: list[Entry]) -> list[Entry]:
        return sorted([*listed, (b"40000", b"junk", empty)], key=lambda e: e[1])

    tree = _raw_side(crew, content, with_empty, parts)
    return Side(tree, MALLORY, [], f"{_folder(crew)}/junk: not an allowed name or mode")


def _repeated_entry(crew: Team, content: Content) -> Side:
    parts = _folder(crew).split("/")

    def twice(listed: list[Entry]) -> list[Entry]:
        return sorted([*listed, listed[0]], key=lambda e: e[1])

    tree = _raw_side(crew, content, twice, parts)
    return Side(tree, MALLORY, [], f"{_folder(crew)}: a tree whose entries are not as git writes")


def _junk_at_the_root(crew: Team, content: Content) -> Side:
    side = {**content, "junk": b"x: 1\n"}
    return Side(
        write_tree(crew.mallory, side),
        MALLORY,
        [],
        "junk: not an allowed entry at the ledger's root",
    )


FORGERIES: dict[str, Forgery] = {
    "by-someone-else": _by_someone_else,
    "dropped": _dropped,
    "rewritten": _rewritten,
    "clock-too-far": _clock_too_far,
    "coop-clock-too-far": _coop_clock_too_far,
    "empty-folder": _empty_folder,
    "repeated-entry": _repeated_entry,
    "junk-at-the-root": _junk_at_the_root,
}


def merge_with_side(crew: Team, forgery: Forgery) -> tuple[str, str]:
    """mallory's honest note on the tip, her forged side commit on the tip, and a merge of
    the two (first parent: the note) holding the honest union; pushed. (side, merge)."""
    mallory = crew.mallory
    content = files(mallory)
    here = tip(mallory)
    mine = add_event(
        content, new_event(content, crew.todo, "note", event_id="ev-hhhhhhhhhhhh", text="honest")
    )
    honest = commit(mallory, write_tree(mallory, mine), [here], MALLORY)
    planted = forgery(crew, content)
    side = commit(mallory, planted.tree, [here], planted.author)
    union = mine
    for event in planted.union:
        union = add_event(union, event)
    merged = commit(mallory, write_tree(mallory, union), [honest, side], MALLORY)
    pushed(crew, merged)
    return side, merged


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forgery_reached_only_through_a_merges_second_parent_is_refused(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, forgery: str, path: str
) -> None:
    """Passes: every fetched commit is checked, parents first, whichever parent reaches it;
    the refusal names the path and the side commit. (When the child checks every fan-out,
    this process's half, which compares a merge with each parent in every fan-out, may meet
    the forgery first through the merge: a rewritten event or a tree read by comparing the
    merge with the side. The commit named is then the merge: a refusal all the same.)"""
    planted = FORGERIES[forgery](crew, files(crew.mallory))
    side, merged = merge_with_side(crew, FORGERIES[forgery])
    where = on_path(crew, clones, monkeypatch, path)
    err = refused_on(where, planted.fragment)
    named = {side[:12]} | ({merged[:12]} if path == "first-halves-child" else set())
    assert any(f"commit {c}" in err for c in named), (named, err)


# -- an unrelated root, merged in ----------------------------------------------------


def unrelated_root(crew: Team) -> tuple[str, str]:
    """mallory's root commit of her own (a `git coop init` of hers, backdated): one event,
    hers and by her, with clock 1 and an instant before alice's init, making herself an
    owner; and a merge of the ledger's tip with it, the union honestly folded. Pushed;
    (the root, the merge)."""
    mallory = crew.mallory
    first = {
        "id": "ev-000000000000",
        "item": LEDGER,
        "clock": 1,
        "at": "1970-01-01T00:00:00Z",
        "actor": MALLORY,
        "session": None,
        "verb": "roles",
        "action": "add",
        "role": "owner",
        "who": MALLORY,
    }
    own = LedgerConfig(roles=Roles(owners=(MALLORY,)), clock=1)
    alone = {
        "coop.yaml": codec.dump(own.to_data()),
        f"events/00/{LEDGER}/000000000001-ev-000000000000.yaml": codec.dump(first),
    }
    root = commit(mallory, write_tree(mallory, alone), [], MALLORY)
    union = refolded({**files(mallory), **{k: v for k, v in alone.items() if k != "coop.yaml"}})
    assert config(union).clock == config(files(mallory)).clock
    merged = commit(mallory, write_tree(mallory, union), [tip(mallory), root], MALLORY)
    pushed(crew, merged)
    return root, merged


@pytest.mark.parametrize("path", ["fast-forward", "merge", "first-whole", "first-halves-here"])
def test_an_unrelated_root_merged_in_as_a_second_parent_is_refused(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """Two separate `git coop init`s are refused when synced directly ("no history in
    common"); the same unrelated history arriving as a merge's second parent passed
    every check of each commit (a root adds its author's events, clocks from 1), and the
    tip was an honest fold. Through it mallory added an event of clock 1 dated 1970,
    which sorts before alice's own init: mallory became the first owner, alice's `roles
    add owner alice` was refused by the fold. A ledger's history has one root."""
    root, merged = unrelated_root(crew)
    where = on_path(crew, clones, monkeypatch, path)
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    roles = coop_in(where, "roles", "--json")
    shown = roles.json() if roles.code == 0 else None
    assert synced.code == 4, (
        f"a merge with an unrelated root was taken in (exit {synced.code}); roles now {shown}"
    )
    assert f"commit {root[:12]}" in synced.err or f"commit {merged[:12]}" in synced.err
    assert "the local ledger is unchanged" in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before


def test_two_separate_inits_synced_directly_are_refused(crew: Team, clones: Clones) -> None:
    """Passes: the direct case the merge above goes around."""
    root, _ = unrelated_root(crew)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{root}:{REF}")
    synced = coop_in(crew.victim, "sync")
    assert synced.code != 0 and "no history in common" in synced.err, synced.err
