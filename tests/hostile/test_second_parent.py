"""What a merge's second parent carries, attacked by a peer with push access.

mallory pushes a merge commit whose first parent is an honest note of hers on
the tip and whose second parent is a side commit holding the one forgery a
test plants; the merge's own tree is the honest union of both sides (or, when
the forgery is in the side's trees only, the honest side's tree), so nothing
but the side commit is wrong. Every path of the check must see it: a
fast-forward, a real merge with local work, and a first sync into a fresh
clone. (The first sync was also checked in two halves, one per process, each
taking some fan-outs; that split is gone with format 2, whose boundary checks a
fetch in one process, store/boundary/, so those parametrisations are dropped.)
The merge is also pushed as an ordinary branch and fetched
by plain git first, so objects git's own fetch check would refuse reach the
sync unchecked (as in tests/store/git/test_raw_trees.py).

Then an unrelated root: a merge whose second parent shares no history with
the ledger, holding an event older than the ledger's first. Since format 2 such an
event would join at the merge, after everything the first parent holds, and be
judged there (H1, H2), so it could no longer sort before the ledger's own first
events; the second root is refused outright all the same (H7, one root).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitcoop.domain.records import LedgerConfig, Roles
from gitcoop.store.ledger import codec
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
    content_id,
    files,
    new_event,
    refused_on,
    team,
    tip,
    write_tree,
)
from tests.hostile.policy import merge_content
from tests.rawledger import Entry, open_raw, rewrite

PATHS = ["fast-forward", "merge", "first-sync"]
Content = dict[str, bytes]


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def pushed(crew: Team, made: str) -> None:
    """mallory's push of `made` as the ledger and as an ordinary branch."""
    git(crew.mallory, "update-ref", REF, made)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{made}:{REF}", f"{made}:refs/heads/feature")


def on_path(crew: Team, clones: Clones, path: str) -> Path:
    """The clone that syncs on `path`, set up for it."""
    if path == "merge":
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    return clones.clone("carol") if path == "first-sync" else crew.victim


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
    note = new_event(content, crew.todo, "note", actor=ALICE, text="x")
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
    note = new_event(content, crew.todo, "note", clock=jump, text="x")
    return Side(
        write_tree(crew.mallory, add_event(content, note)),
        MALLORY,
        [note],
        f"clock {jump} is outside",
    )


def _coop_clock_too_far(crew: Team, content: Content) -> Side:
    note = new_event(content, crew.todo, "note", text="x")
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


def _as_gitlink(crew: Team, content: Content, parts: list[str], name: bytes) -> str:
    """The side's tree with one folder's entry made a gitlink (mode 160000) of the same
    id: the tree is unchanged, its entry is not (git's transport carries it, walking no
    gitlink)."""

    def linked(listed: list[Entry]) -> list[Entry]:
        return [(b"160000" if n == name else mode, n, oid) for mode, n, oid in listed]

    return _raw_side(crew, content, linked, parts)


def _gitlink_fanout(crew: Team, content: Content) -> Side:
    tree = _as_gitlink(crew, content, ["events"], crew.todo[3:5].encode())
    return Side(tree, MALLORY, [], "an event was dropped or rewritten")


def _gitlink_events(crew: Team, content: Content) -> Side:
    tree = _as_gitlink(crew, content, [], b"events")
    return Side(tree, MALLORY, [], "events: not an allowed entry at the ledger's root")


FORGERIES: dict[str, Forgery] = {
    "by-someone-else": _by_someone_else,
    "dropped": _dropped,
    "rewritten": _rewritten,
    "clock-too-far": _clock_too_far,
    "coop-clock-too-far": _coop_clock_too_far,
    "empty-folder": _empty_folder,
    "repeated-entry": _repeated_entry,
    "junk-at-the-root": _junk_at_the_root,
    "gitlink-fan-out": _gitlink_fanout,
    "gitlink-events": _gitlink_events,
}


def merge_with_side(crew: Team, forgery: Forgery) -> tuple[str, str]:
    """mallory's honest note on the tip, her forged side commit on the tip, and a merge of
    the two (first parent: the note) holding the honest union; pushed. (side, merge)."""
    mallory = crew.mallory
    content = files(mallory)
    here = tip(mallory)
    mine = add_event(content, new_event(content, crew.todo, "note", text="honest"))
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
    crew: Team, clones: Clones, forgery: str, path: str
) -> None:
    """Passes: every fetched commit is checked, parents first, whichever parent reaches it
    (store/boundary/history.py); the refusal names the path and the side commit."""
    planted = FORGERIES[forgery](crew, files(crew.mallory))
    side, _ = merge_with_side(crew, FORGERIES[forgery])
    where = on_path(crew, clones, path)
    err = refused_on(where, planted.fragment)
    assert f"commit {side[:12]}" in err, err
    if path == "first-sync":
        assert coop_in(where, "list").code == 4  # nothing was taken in: no ledger here


# -- an unrelated root, merged in ----------------------------------------------------


def unrelated_root(crew: Team, claimed: bool) -> tuple[str, str]:
    """mallory's root commit of her own (a `git coop init` of hers, backdated): one event,
    hers and by her (named by its content), with clock 1 and an instant before alice's
    init, making herself an owner; and a merge of the ledger's tip (first parent) with it.
    Its tree is gitcoop's join of the root's event onto the tip's state (mallory's owner
    event refused there: she is no owner), or with `claimed` the format-1 fold in which it
    sorted first and made her the first owner. Pushed; (the root, the merge)."""
    mallory = crew.mallory
    first: dict[str, Any] = {
        "id": "",
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
    first["id"] = content_id(first)
    own = LedgerConfig(roles=Roles(owners=(MALLORY,)), clock=1)
    alone = {
        "coop.yaml": codec.dump(own.to_data()),
        f"events/00/{LEDGER}/000000000001-{first['id']}.yaml": codec.dump(first),
    }
    root = commit(mallory, write_tree(mallory, alone), [], MALLORY)
    if claimed:
        union = {**files(mallory), **{k: v for k, v in alone.items() if k != "coop.yaml"}}
        data = config(union).to_data()
        data["roles"] = {"owners": [MALLORY], "chiefs": []}  # alice's own add refused after
        union["coop.yaml"] = codec.dump(data)
    else:
        union = merge_content(mallory, tip(mallory), root)
        assert config(union).roles == config(files(mallory)).roles
    assert config(union).clock == config(files(mallory)).clock
    merged = commit(mallory, write_tree(mallory, union), [tip(mallory), root], MALLORY)
    pushed(crew, merged)
    return root, merged


@pytest.mark.parametrize("tree", ["joined", "claimed"])
@pytest.mark.parametrize("path", PATHS)
def test_an_unrelated_root_merged_in_as_a_second_parent_is_refused(
    crew: Team, clones: Clones, path: str, tree: str
) -> None:
    """Two separate `git coop init`s are refused when synced directly ("no history in
    common"); the same unrelated history arriving as a merge's second parent passed
    every check of each commit (a root adds its author's events, clocks from 1), and the
    tip was an honest fold. Through it mallory added an event of clock 1 dated 1970,
    which sorted before alice's own init: mallory became the first owner. Since format 2
    her event would join at the merge and be refused there (H1, H2), and the tree that
    says otherwise is not the state (H3); but a ledger's history has one root (H7), and
    the second is refused by name before any state is computed, whichever tree."""
    root, _ = unrelated_root(crew, claimed=tree == "claimed")
    where = on_path(crew, clones, path)
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    roles = coop_in(where, "roles", "--json")
    shown = roles.json() if roles.code == 0 else None
    assert synced.code == 4, (
        f"a merge with an unrelated root was taken in (exit {synced.code}); roles now {shown}"
    )
    said = "a second first commit (no parent)" if path == "first-sync" else "of its own"
    assert said in synced.err and "a ledger's history" in synced.err, synced.err
    if path != "first-sync":
        assert f"commit {root[:12]}: a first commit (no parent) of its own" in synced.err
    assert "the local ledger is unchanged" in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
    if before:
        assert shown == {"owners": [ALICE], "chiefs": [MALLORY]}


def test_two_separate_inits_synced_directly_are_refused(crew: Team, clones: Clones) -> None:
    """The direct case the merge above goes around: the remote replaced by a history of
    its own is a rewrite to a clone that took a tip in (H4, exit 10, naming who pushed
    it), and "no history in common" to one that never did; neither takes anything in."""
    root, _ = unrelated_root(crew, claimed=False)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{root}:{REF}")
    before = git(crew.victim, "rev-parse", REF).strip()
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 10, (synced.code, synced.err)
    assert "was replaced by" in synced.err and MALLORY in synced.err, synced.err
    assert "shares no history" in synced.err, synced.err
    assert git(crew.victim, "rev-parse", REF).strip() == before
    apart = clones.clone("apart")
    assert coop_in(apart, "init", "--new").code == 0
    fresh = coop_in(apart, "sync")
    assert fresh.code == 1 and "no history in common" in fresh.err, (fresh.code, fresh.err)
