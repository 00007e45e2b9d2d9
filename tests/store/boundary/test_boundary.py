"""The boundary (store/boundary/), tried as an attacker: crafted commits pushed and fetched."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    Team,
    add_event,
    commit,
    files,
    new_event,
    publish,
    push,
    team,
    tip,
    write_tree,
)
from tests.rawledger import EXEC, GITLINK, LINK, TREE, open_raw, put


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def refused(crew: Team, fragment: str) -> None:
    before = tip(crew.victim)
    result = coop_in(crew.victim, "sync")
    assert result.code == 4 and fragment in result.err, result.err
    assert "the local ledger is unchanged" in result.err
    assert "unexpected" not in result.err
    assert tip(crew.victim) == before


def test_an_event_dropped_in_one_commit_and_restored_in_the_next_is_refused(crew: Team) -> None:
    content = files(crew.mallory)
    name = next(n for n in content if f"/{crew.todo}/" in n)
    publish(crew.mallory, {k: v for k, v in content.items() if k != name})
    publish(crew.mallory, content)
    refused(crew, "an event was dropped or rewritten")


def test_an_event_rewritten_in_place_is_refused(crew: Team) -> None:
    content = files(crew.mallory)
    name = next(n for n in content if f"/{crew.todo}/" in n)
    publish(crew.mallory, {**content, name: content[name].replace(b"seed", b"weed")})
    refused(crew, "an event was dropped or rewritten")


@pytest.mark.parametrize(("mode", "label"), [(EXEC, "exec"), (LINK, "link"), (GITLINK, "gitlink")])
def test_an_event_entry_of_another_mode_is_refused(crew: Team, mode: int, label: str) -> None:
    raw = open_raw(crew.mallory)
    folder = ["events", crew.todo[3:5], crew.todo, "000000000099-ev-mmmmmmmmmmmm.yaml"]
    oid = (
        raw.create_blob(b"x: 1\n")
        if mode != GITLINK
        else raw.revparse_single("refs/coop/ledger").id
    )
    put(crew.mallory, folder, mode=mode, oid=oid)
    push(crew.mallory, tip(crew.mallory))
    refused(crew, "not an allowed name or mode")


EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@pytest.mark.parametrize("name", ["000000000099-ev-mmmmmmmmmmmm.yaml", "junk"])
def test_an_empty_folder_in_an_items_event_folder_is_refused_by_a_first_sync(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """A commit that adds an empty tree inside an item's event folder adds no event file,
    so the history check sees nothing; the tip's listing of the folder refuses it. A
    first sync refuses it as a later one does (a shortcut taking the tip's events from
    the history check let it through, and left an item no command could show)."""
    raw = open_raw(crew.mallory)
    empty = raw.write(2, b"")
    assert str(empty) == EMPTY_TREE
    put(crew.mallory, ["events", crew.todo[3:5], crew.todo, name], mode=TREE, oid=empty)
    push(crew.mallory, tip(crew.mallory))
    refused(crew, f"{crew.todo}/{name}")
    newcomer = clones.clone("carol")
    result = coop_in(newcomer, "sync")
    assert result.code == 4 and f"{crew.todo}/{name}" in result.err, result.err
    assert git(newcomer, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False) == ""


@pytest.mark.parametrize("where", ["junk", "a fan-out", "an item's folder"])
def test_an_empty_folder_anywhere_under_events_is_refused_by_every_sync(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    """An empty folder holds no event, so no event file names it: the history check
    names it itself, and a later sync and a first sync both refuse it (before, one
    outside an item's folder passed both, as junk the layout does not allow)."""
    raw = open_raw(crew.mallory)
    empty = raw.write(2, b"")
    used = {name for name in files(crew.mallory) if name.startswith("events/")}
    fan = next(f"{a}{b}" for a in "zyx" for b in "zyx" if not any(f"/{a}{b}/" in u for u in used))
    other = crew.todo[:-1] + ("a" if crew.todo[-1] != "a" else "b")  # no such item
    parts = {
        "junk": ["events", "junk"],
        "a fan-out": ["events", fan],
        "an item's folder": ["events", crew.todo[3:5], other],
    }[where]
    put(crew.mallory, parts, mode=TREE, oid=empty)
    push(crew.mallory, tip(crew.mallory))
    path = "/".join(parts)
    refused(crew, f"{path}: not an allowed name or mode")
    newcomer = clones.clone("carol")
    result = coop_in(newcomer, "sync")
    assert result.code == 4 and f"{path}: not an allowed name or mode" in result.err, result.err
    assert git(newcomer, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False) == ""


def test_an_empty_folder_under_items_that_is_no_fan_out_is_refused(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only fan-outs sit under items/; an empty folder of another name held no file to
    refuse, so it was taken as it was."""
    empty = open_raw(crew.mallory).write(2, b"")
    put(crew.mallory, ["items", "_x_"], mode=TREE, oid=empty)
    push(crew.mallory, tip(crew.mallory))
    path = "items/_x_"
    refused(crew, f"{path}: not an allowed name or mode")
    newcomer = clones.clone("carol")
    result = coop_in(newcomer, "sync")
    assert result.code == 4 and f"{path}: not an allowed name or mode" in result.err, result.err


def test_honest_history_with_merges_from_a_peer_is_taken_in_whole(crew: Team) -> None:
    assert coop_in(crew.alice, "note", crew.todo, "alice was here").code == 0
    assert coop_in(crew.mallory, "add", "todo", "mallory's work").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.mallory, "sync").code == 0  # a merge commit, pushed
    assert coop_in(crew.victim, "sync").code == 0
    assert tip(crew.victim) == tip(crew.mallory)
    assert coop_in(crew.victim, "fsck").code == 0


def test_the_events_of_a_commit_are_by_its_author_in_any_side_branch(crew: Team) -> None:
    """Every fetched commit is checked, also one only reachable through a merge's second parent."""
    content = files(crew.mallory)
    forged = add_event(
        content, new_event(content, crew.todo, "note", actor="alice@example.com", text="x")
    )
    side = commit(crew.mallory, write_tree(crew.mallory, forged), [tip(crew.mallory)])
    merged = commit(crew.mallory, write_tree(crew.mallory, forged), [tip(crew.mallory), side])
    push(crew.mallory, merged)
    refused(crew, "in a commit authored by 'mallory@example.com'")
    git(crew.victim, "fsck", "--no-dangling")


def test_a_first_sync_refuses_an_item_file_that_is_not_its_state(
    crew: Team, clones: Clones
) -> None:
    """H3 on a first sync: the commit whose item file differs from what its events make
    refuses the whole fetch (it was checked in two processes until format 2)."""
    content = files(crew.mallory)
    path = f"items/{crew.todo[3:5]}/{crew.todo}.yaml"
    publish(crew.mallory, {**content, path: content[path].replace(b"seed", b"weed")})
    newcomer = clones.clone("carol")
    result = coop_in(newcomer, "sync")
    assert result.code == 4, result.err
    assert f"{path}: is not the state its events make" in result.err
    assert git(newcomer, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False) == ""


@pytest.mark.fast_only  # counts the reads the checked files spare the read cache
def test_an_item_file_written_another_way_is_read_and_taken_when_it_holds_the_fold(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An earlier gitcoop may have written a file another way (a string quoted that
    needs no quotes): its blob id is not the fold's, so it is read and compared as
    data, and taken; the cache serves its data as read."""
    from gitcoop.store.repository import Repo

    content = files(crew.mallory)
    path = f"items/{crew.todo[3:5]}/{crew.todo}.yaml"
    assert b"\ntitle: seed\n" in content[path]
    publish(
        crew.mallory, {**content, path: content[path].replace(b"title: seed", b"title: 'seed'")}
    )
    reads: list[str] = []
    real = Repo.blob_bytes

    def counting(self: Repo, oid: object, read: str, cap: int) -> bytes:
        reads.append(read)
        return real(self, oid, read, cap)

    monkeypatch.setattr(Repo, "blob_bytes", counting)
    newcomer = clones.clone("carol")
    assert coop_in(newcomer, "sync").code == 0
    assert [r for r in reads if r.startswith("items/")] == [path]
    shown = coop_in(newcomer, "show", crew.todo, "--json").json()
    assert shown["title"] == "seed"
    assert coop_in(newcomer, "list", "--json").out == coop_in(crew.victim, "list", "--json").out


def _two_halves_commit(crew: Team, last_clock_above: int) -> tuple[str, str]:
    """mallory's commit adding a note to two items whose fan-outs start differently (so
    each half of a split check holds one); the second note's clock is `last_clock_above`
    past the first's (1: honest). The two items."""
    first = crew.todo
    second = first
    while second[3] == first[3]:
        second = coop_in(crew.alice, "add", "todo", "other", "--json").json()["id"]
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.mallory, "sync").code == 0
    content = files(crew.mallory)
    one = new_event(content, first, "note", text="one")
    content = add_event(content, one)
    two = new_event(content, second, "note", clock=one["clock"] + last_clock_above)
    publish(crew.mallory, add_event(content, two))
    return first, second


@pytest.mark.parametrize(("step", "fine"), [(1, True), (2, False)])
def test_clocks_are_bounded_by_every_event_a_commit_adds(
    crew: Team, clones: Clones, step: int, fine: bool
) -> None:
    """A commit adding one event to each of two items allows clocks up to two past its
    parent's, and no more (H7)."""
    _two_halves_commit(crew, step)
    newcomer = clones.clone("carol")
    result = coop_in(newcomer, "sync")
    if fine:
        assert result.code == 0, result.err
        assert coop_in(newcomer, "fsck").code == 0
    else:
        assert result.code == 4, result.err
        assert "is outside" in result.err and "a clock grows by one per event" in result.err
        assert git(newcomer, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False) == ""
