"""Trees git's own check would refuse, reaching a sync with that check skipped.

A fetch checks what it brings (`transfer.fsckObjects`), but objects already in
the clone skip it: a plain `git fetch` or `git clone` (the check is off by
default) can bring a hostile ledger commit pushed to an ordinary branch, and
`git coop sync` then finds every object present. The history check reads
trees with its own parser, and every later read goes through libgit2, which
finds a path by binary search: a tree whose entries are out of git's order,
repeat a name, or hold a `/` in a name reads one way to the check and another
to everything after it. The check refuses such trees itself, in a first sync
(whose tip takes each item's events from the history check) and a later one.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import Team, push, team, tip
from tests.rawledger import Entry, open_raw, raw_entries, raw_tree, rewrite

REF = "refs/coop/ledger"


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def forge(
    crew: Team,
    parts: list[str],
    change: Callable[[list[Entry]], list[Entry]],
    parent: str | None = None,
) -> None:
    """mallory's next ledger commit with the tree at `parts` changed, pushed as the ledger
    and as an ordinary branch (which a plain `git fetch` brings unchecked)."""
    raw = open_raw(crew.mallory)
    at = raw.revparse_single(REF)
    base = raw.revparse_single(parent) if parent else at
    made = raw.create_commit(
        None, at.author, at.committer, "x", rewrite(raw, at.tree.id, parts, change), [base.id]
    )
    push(crew.mallory, str(made))
    git(crew.mallory, "push", "-q", "-f", "origin", f"{made}:refs/heads/feature")


def refused_by_both(crew: Team, clones: Clones, fragment: str) -> None:
    """A later sync (bob) and a first sync (carol), each after a plain `git fetch`, refuse."""
    before = tip(crew.victim)
    git(crew.victim, "fetch", "-q", "origin")
    later = coop_in(crew.victim, "sync")
    assert later.code == 4 and fragment in later.err, later.err
    assert tip(crew.victim) == before
    carol = clones.clone("carol")
    git(carol, "fetch", "-q", "origin")  # plain git: transfer.fsckObjects is off by default
    first = coop_in(carol, "sync")
    assert first.code == 4 and fragment in first.err, first.err
    assert "the local ledger is unchanged" in first.err
    assert git(carol, "rev-parse", "-q", "--verify", REF, check=False) == ""


NOT_GITS = "not as git writes them"


def test_an_events_tree_out_of_order_is_refused(crew: Team, clones: Clones) -> None:
    """Out of order, libgit2's binary search missed the item's folder: a first sync took
    the item, and the next note on it made the ledger fail its own fsck."""
    target = crew.todo[3:5]
    for n in range(20):
        added = coop_in(crew.mallory, "add", "todo", f"other {n}", "--json").json()["id"]
        if added[3:5] not in (target, "00"):
            other = added[3:5]
            break

    def unsorted(listed: list[Entry]) -> list[Entry]:
        by = {e[1].decode(): e for e in listed}
        rest = [e for name, e in by.items() if name not in (target, "00", other)]
        return [by[target], by["00"], by[other], *rest]

    forge(crew, ["events"], unsorted)
    refused_by_both(crew, clones, f"events: a tree whose entries are {NOT_GITS}")


def test_an_entry_repeated_in_an_items_folder_is_refused(crew: Team, clones: Clones) -> None:
    folder = ["events", crew.todo[3:5], crew.todo]
    forge(crew, folder, lambda listed: sorted([*listed, listed[0]], key=lambda e: e[1]))
    refused_by_both(crew, clones, f"{'/'.join(folder)}: a tree whose entries are {NOT_GITS}")


def test_a_name_held_twice_with_two_blobs_is_refused(crew: Team, clones: Clones) -> None:
    """Which of the two the check read depended on the order of a set: the other, a blob
    that is no event, could be what libgit2 found at the tip."""
    fan, todo = crew.todo[3:5], crew.todo
    raw = open_raw(crew.mallory)
    before = {e.name for e in raw.revparse_single(REF).tree[f"events/{fan}/{todo}"]}
    assert coop_in(crew.mallory, "note", todo, "mallory").code == 0
    garbage = open_raw(crew.mallory).create_blob(b"not: [an event\n")

    def twin(listed: list[Entry]) -> list[Entry]:
        new = next(e for e in listed if e[1].decode() not in before)
        return sorted([*listed, (new[0], new[1], garbage)], key=lambda e: e[1])

    forge(crew, ["events", fan, todo], twin, parent=tip(crew.mallory) + "^")
    refused_by_both(crew, clones, f"events/{fan}/{todo}: a tree whose entries are {NOT_GITS}")


def test_a_name_holding_a_slash_is_refused(crew: Team, clones: Clones) -> None:
    """`events/` holding an entry named `FAN/ITEM`: the paths of its files look like any
    item's events to the check, and libgit2 finds no such folder."""
    fan, todo = crew.todo[3:5], crew.todo
    raw = open_raw(crew.mallory)
    fan_tree = raw.revparse_single(REF).tree[f"events/{fan}"].id
    item = next(e for e in raw_entries(raw, fan_tree) if e[1] == todo.encode())

    def slashed(listed: list[Entry]) -> list[Entry]:
        return sorted([*listed, (b"40000", f"{fan}/{todo}".encode(), item[2])], key=lambda e: e[1])

    forge(crew, ["events"], slashed)
    refused_by_both(crew, clones, "events: a tree whose entries are")


def test_an_item_file_held_twice_is_refused(crew: Team, clones: Clones) -> None:
    """The tip check found one of the two by path; a listing of the folder, as the read
    cache makes, met the other, never checked."""
    fan, todo = crew.todo[3:5], crew.todo
    garbage = open_raw(crew.mallory).create_blob(b"not: [an item\n")

    def twin(listed: list[Entry]) -> list[Entry]:
        mine = next(e for e in listed if e[1] == f"{todo}.yaml".encode())
        return sorted([*listed, (mine[0], mine[1], garbage)], key=lambda e: e[1])

    forge(crew, ["items", fan], twin)
    refused_by_both(crew, clones, f"items/{fan}: a tree whose entries are {NOT_GITS}")


def test_an_items_tree_out_of_order_is_refused(crew: Team, clones: Clones) -> None:
    for n in range(3):
        assert coop_in(crew.mallory, "add", "todo", f"other {n}").code == 0
    forge(crew, ["items"], lambda listed: list(reversed(sorted(listed, key=lambda e: e[1]))))
    refused_by_both(crew, clones, f"items: a tree whose entries are {NOT_GITS}")


def test_a_root_holding_a_name_twice_is_refused(crew: Team, clones: Clones) -> None:
    raw = open_raw(crew.mallory)
    empty_events = raw_tree(raw, [])

    def twice(listed: list[Entry]) -> list[Entry]:
        return sorted([*listed, (b"40000", b"events", empty_events)], key=lambda e: e[1])

    forge(crew, [], twice)
    refused_by_both(crew, clones, "a tree whose entries are")


@pytest.mark.parametrize("mode", [b"0", b"644", b"140000"])
def test_an_item_file_git_reads_as_a_submodule_is_refused(
    crew: Team, clones: Clones, mode: bytes
) -> None:
    """libgit2 reads these modes as 100644, git as a gitlink: a plain fetch never brought
    the blob, and the tip check matched its id with the fold's without reading it."""
    fan, todo = crew.todo[3:5], crew.todo
    assert coop_in(crew.mallory, "note", todo, "mallory").code == 0
    name = f"{todo}.yaml".encode()
    forge(
        crew,
        ["items", fan],
        lambda listed: [(mode if n == name else m, n, o) for m, n, o in listed],
        parent=tip(crew.mallory) + "^",
    )
    refused_by_both(crew, clones, f"items/{fan}: a tree whose entries are {NOT_GITS}")


def test_a_zero_padded_event_mode_is_refused(crew: Team, clones: Clones) -> None:
    """Accepted, the next note on the item rewrote its folder with the mode unpadded, and
    the clone's own fsck then found the event file modified."""
    fan, todo = crew.todo[3:5], crew.todo
    raw = open_raw(crew.mallory)
    before = {e.name for e in raw.revparse_single(REF).tree[f"events/{fan}/{todo}"]}
    assert coop_in(crew.mallory, "note", todo, "mallory").code == 0
    forge(
        crew,
        ["events", fan, todo],
        lambda listed: [(m if n.decode() in before else b"0100644", n, o) for m, n, o in listed],
        parent=tip(crew.mallory) + "^",
    )
    refused_by_both(crew, clones, f"events/{fan}/{todo}: a tree whose entries are {NOT_GITS}")


@pytest.mark.parametrize("where", ["events", "fan-out", "item"])
def test_a_folder_mode_spelt_otherwise_is_refused(crew: Team, clones: Clones, where: str) -> None:
    """`040000` or `40755` for a folder: git's check refuses both, libgit2 reads a folder."""
    fan, todo = crew.todo[3:5], crew.todo
    parts, name, mode = {
        "events": ([], b"events", b"040000"),
        "fan-out": (["events"], fan.encode(), b"040000"),
        "item": (["events", fan], todo.encode(), b"40755"),
    }[where]
    forge(crew, parts, lambda listed: [(mode if n == name else m, n, o) for m, n, o in listed])
    path = "/".join(parts) or "the ledger's root"
    refused_by_both(crew, clones, f"{path}: a tree whose entries are {NOT_GITS}")
