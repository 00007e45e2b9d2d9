"""A history checked a fan-out folder at a time judges what a whole commit's join judges.

The boundary reads a fetched history one fan-out folder at a time
(`store/boundary/windows.py`); an item whose duplicate verdict names an item
of another folder is set aside and joined at the end with what it names. A
peer crafts a commit where that chain runs on inside a folder: A (folder aa)
is called a duplicate of B (folder bb), B a duplicate of C (folder bb too),
and C is settled earlier in the same commit. Joined whole, B's verdict finds
C settled and is unclear, so B is open and A a duplicate of it; an item set
aside must be joined with every item its chain names, or A's file may claim
the state of a join that never read C's event (H3).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gitcoop.domain.records import Item
from gitcoop.store.ledger import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    MALLORY,
    REF,
    add_event,
    commit,
    files,
    new_event,
    publish,
    push,
    refused_on,
    team,
    tip,
    with_config,
    write_tree,
)
from tests.rawledger import open_raw, rewrite

A, B, C = "it-aa0000000001", "it-bb0000000001", "it-bb0000000002"


def _added(content: dict[str, bytes], item_id: str, title: str, minute: int) -> dict[str, bytes]:
    event = new_event(
        content,
        item_id,
        "add",
        at=f"2026-11-29T11:{minute:02d}:00Z",
        kind="item",
        title=title,
        order_key=f"0tpm2kt000002{item_id[3:]}",
        source="human",
        evidence=[],
    )
    return add_event(content, event)


def _verdict(
    content: dict[str, bytes], item_id: str, minute: int, word: str, of: str | None = None
) -> dict[str, Any]:
    return new_event(
        content,
        item_id,
        "verdict",
        at=f"2026-11-29T12:{minute:02d}:00Z",
        verdict=word,
        reason="the same defect",
        evidence=[],
        amended_title=None,
        duplicate_of=of,
    )


def _item(content: dict[str, bytes], item_id: str) -> Item:
    return Item.from_data(codec.load(content[f"items/{item_id[3:5]}/{item_id}.yaml"], "item"))


def _three_items_being_verified(crew: Any) -> dict[str, bytes]:
    """mallory's honest commit: A, B and C added and each being verified."""
    content = files(crew.mallory)
    for n, (item_id, title) in enumerate(((A, "Fix one"), (B, "Fix two"), (C, "Fix three"))):
        content = _added(content, item_id, title, n)
    for n, item_id in enumerate((A, B, C)):
        verify = new_event(content, item_id, "verify", at=f"2026-11-29T11:1{n}:00Z")
        content = add_event(content, verify)
    publish(crew.mallory, content)
    assert crew.victim_runs("sync").code == 0
    return content


def test_a_chain_of_duplicates_through_a_folder_set_aside_is_joined_whole(
    clones: Clones, tmp_path: Path
) -> None:
    crew = team(clones, tmp_path)
    before = _three_items_being_verified(crew)
    # honest, in one commit: C settled, then B a duplicate of C (unclear: C is settled),
    # then A a duplicate of B (B is open again, a draft): A stands as a duplicate
    honest = add_event(before, _verdict(before, C, 0, "stale"))
    b_dup = _verdict(honest, B, 1, "duplicate", C)
    honest = add_event(honest, b_dup)
    a_dup = _verdict(honest, A, 2, "duplicate", B)
    honest = add_event(honest, a_dup)
    assert _item(honest, B).status == "draft"
    assert _item(honest, A).status == "duplicate"
    # the forgery: A as a join that never read C's event makes it (B a duplicate of an
    # open C, so A's verdict unclear), every other file as the honest join makes it
    blind = add_event(add_event(before, b_dup), a_dup)
    assert _item(blind, A).status == "draft"
    path = f"items/{A[3:5]}/{A}.yaml"
    forged = {**honest, path: blind[path]}
    made = publish(crew.mallory, forged, author=MALLORY)
    err = refused_on(crew.victim, made[:12], path)
    assert "is not the state its events make" in err
    assert tip(crew.victim) != made
    # the honest commit, pushed instead, is taken in, and fsck agrees with it
    fair = publish(crew.mallory, honest, parents=[tip(crew.victim)])
    assert crew.victim_runs("sync").code == 0
    assert tip(crew.victim) == fair
    for args in (("fsck",), ("fsck", "--full")):
        checked = coop_in(crew.victim, *args)
        assert checked.code == 0, (args, checked.out, checked.err)


def test_a_commit_held_aside_below_the_tip_checked_whole_is_checked_as_a_state(
    clones: Clones, tmp_path: Path
) -> None:
    """fsck remembers the tip it checked whole and later checks only the commits after it.
    A commit that tip holds only aside (a merge's second parent) was never checked as a
    state; once a later tip's first-parent chain runs through it, it is one (H3): an
    incremental fsck must check it, as a full one does."""
    crew = team(clones, tmp_path)
    victim = crew.victim
    start = tip(victim)
    content = files(victim)
    data = codec.load(content["coop.yaml"], "coop.yaml")
    data["roles"]["owners"] = [*data["roles"]["owners"], MALLORY]
    forged = commit(victim, write_tree(victim, with_config(content, data)), [start])
    # the forged coop.yaml held aside by a merge that adds nothing: the merge's state is
    # its first parent's, and it is clean
    aside = commit(victim, git(victim, "rev-parse", f"{start}^{{tree}}").strip(), [start, forged])
    git(victim, "update-ref", REF, aside)  # by hand, as a plain git fetch into the ref could
    first = coop_in(victim, "fsck", "--json")
    assert first.code == 0, first.out
    assert git(victim, "rev-parse", "refs/coop/checked").strip() == aside
    # now the forgery's tree is a first parent: mallory an owner, by no event
    made = commit(victim, git(victim, "rev-parse", f"{forged}^{{tree}}").strip(), [forged, aside])
    git(victim, "update-ref", REF, made)
    for args in (("fsck",), ("fsck", "--full")):
        checked = coop_in(victim, *args)
        assert checked.code == 1, (args, checked.out, checked.err)
        assert forged[:12] in checked.out and "coop.yaml" in checked.out, checked.out
    assert git(victim, "rev-parse", "refs/coop/checked").strip() == aside


def test_a_side_commit_whose_events_folder_is_not_as_git_writes_it_is_refused(
    clones: Clones, tmp_path: Path
) -> None:
    """A commit only a merge's second parent reaches is checked on its own (H5-H7): its
    events/ listing as git writes it (H7), a commit at a time or a folder at a time. Here
    a fan-out folder's mode is zero-padded (git's check of fetched objects only warns of
    that), and it holds an event the first parent lacks; the merge adds none of it."""
    crew = team(clones, tmp_path)
    start = tip(crew.mallory)
    content = files(crew.mallory)
    note = new_event(content, crew.todo, "note", text="aside")
    raw = open_raw(crew.mallory)
    added = raw.get(write_tree(crew.mallory, add_event(content, note))).id
    fan = crew.todo[3:5].encode()

    def padded(entries: list[Any]) -> list[Any]:
        return [(b"040000" if name == fan else mode, name, oid) for mode, name, oid in entries]

    side = commit(crew.mallory, str(rewrite(raw, added, ["events"], padded)), [start])
    data = codec.load(content["coop.yaml"], "coop.yaml")
    data["clock"] = note["clock"]  # a clock is never below its parents'
    merged = write_tree(crew.mallory, with_config(content, data))
    push(crew.mallory, commit(crew.mallory, merged, [start, side]))
    # a plain git fetch through the refspec `remote setup` adds brings it unchecked
    assert coop_in(crew.victim, "remote", "setup", "origin").code == 0
    refused_on(crew.victim, side[:12], "events: a tree whose entries are not as git writes")


def test_a_checked_tip_a_fetch_brings_is_not_believed(clones: Clones, tmp_path: Path) -> None:
    """fsck believes refs/coop/checked only where it put it itself (its reflog says so): a
    mirror's refspec (`git clone --mirror`, `+refs/coop/*:refs/coop/*`) brings a peer's
    ledger and the tip she says was checked, and fsck then checks everything."""
    crew = team(clones, tmp_path)
    victim = crew.victim
    assert coop_in(victim, "fsck").code == 0  # fsck remembers a tip of its own here
    content = files(crew.mallory)
    data = codec.load(content["coop.yaml"], "coop.yaml")
    data["roles"]["owners"] = [*data["roles"]["owners"], MALLORY]
    forged = publish(crew.mallory, with_config(content, data))
    git(crew.mallory, "push", "-q", "-f", "origin", f"{forged}:refs/coop/checked")
    git(victim, "fetch", "-q", "origin", "+refs/coop/*:refs/coop/*")  # by hand: a mirror's
    assert git(victim, "rev-parse", "refs/coop/checked").strip() == forged == tip(victim)
    checked = coop_in(victim, "fsck")
    assert checked.code == 1, (checked.out, checked.err)
    assert "coop.yaml: [state] in commit " + forged[:12] in checked.out, checked.out
    assert "all 5 commits checked" in checked.err, checked.err
    assert git(victim, "rev-parse", "refs/coop/checked").strip() == forged  # left as it was
