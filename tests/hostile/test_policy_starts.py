"""Side branches forked before, around and after the signing policy, attacked by a peer with
push access (ledger format 2, docs/hardening.md H1-H5).

These attacks were written against `trust._Starts`: a commit whose parent's ledger did
not require signing was still covered when a `require_signed true` of the tip's
ledger was "beside" it, and mallory attacked what that rule read (copies of the start,
events carrying its id, which side of a merge held it). There are no policy starts
since format 2: a commit's events are judged where they join, and they are covered
when the state they join (their commit's first parent's) requires signing (H2); so a
side branch forked before the policy and merged in after it is judged by the policy
it joins, whatever its own ancestry says. The attacks that still mean something are
kept as attacks on that rule: a forgery in alice's name, unsigned, joins as a refused
event (an fsck note, roles and settings unchanged) or, when mallory's tree claims it
was applied, the whole fetch is refused (H3). Twin event ids (an event of mallory's
own carrying the start's id or a forged event's id) are test_event_ids.py's (H5).

What must hold: no forgery "by alice" without alice's signature counts, alice's start
is never undone, honest unsigned work from before the policy joins as conflicts its
author syncs on, and honest teams (all signing, or with no policy at all) sync cleanly
on every path.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gitcoop.domain import rulebook
from gitcoop.domain.records import Event
from gitcoop.store.ledger import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    MALLORY,
    REF,
    _events_raw,
    add_event,
    commit,
    config,
    files,
    mktree,
    new_event,
    push,
    team,
    tip,
    write_tree,
)
from tests.hostile.forge import (
    content_id as content_id_of,
)
from tests.hostile.policy import (
    ROLES,
    Signed,
    alices_signed_note,
    believed,
    forged_owner,
    keyed_team,
    merge_content,
    not_believed,
    notes,
    refused_where_it_joined,
    rejoined,
    signed_merge,
    signed_team,
    start_of,
    without,
)

Content = dict[str, bytes]


@pytest.fixture
def signed(clones: Clones, tmp_path: Path) -> Signed:
    return signed_team(clones, tmp_path)


def first_parents(where: Path, ref: str = "refs/coop/attack") -> list[str]:
    """The remote's first-parent chain, fetched into `ref`."""
    git(where, "fetch", "-q", "origin", f"+{REF}:{ref}")
    return git(where, "rev-list", "--first-parent", ref).split()


def refused_whole(where: Path, *fragments: str) -> None:
    """The sync is refused (exit 4) naming each fragment; the ledger as it was."""
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    for fragment in (*fragments, "the local ledger is unchanged"):
        assert fragment in synced.err, synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before


# -- a side branch forked before the policy, merged in after it ---------------------------


def side_before_policy(s: Signed, *events: dict[str, Any]) -> list[str]:
    """Unsigned commits "by alice" on the commit before the policy, one per event, each
    adding it; their ids."""
    mallory = s.crew.mallory
    content, made = files(mallory, s.before_policy), [s.before_policy]
    for data in events:
        content = add_event(content, data)
        made.append(commit(mallory, write_tree(mallory, content), [made[-1]], ALICE))
    return made[1:]


def start_on_the_side(s: Signed, start: str) -> dict[str, Any]:
    """The `require_signed true` mallory's side branch begins with: a byte-for-byte copy
    of alice's own signed start (same name, same blob), or a forged one of its own."""
    content = files(s.crew.mallory, s.before_policy)
    if start == "a-copy-of-alices":
        name, blob, _ = start_of(files(s.crew.mallory))
        data = codec.load(blob, name)
        assert add_event(content, data)[name] == blob
        return data
    return new_event(content, LEDGER, "config", actor=ALICE, key="require_signed", value=True)


@pytest.mark.parametrize(
    ("start", "tree", "path"),
    [
        ("a-copy-of-alices", "honest", "fast-forward"),
        ("a-copy-of-alices", "honest", "first-sync"),
        ("a-copy-of-alices", "claims-it-applied", "fast-forward"),
        ("a-copy-of-alices", "claims-it-applied", "first-sync"),
        ("one-of-its-own", "honest", "fast-forward"),
        ("one-of-its-own", "claims-it-applied", "fast-forward"),
    ],
)
def test_a_side_branch_forked_before_the_policy_is_judged_by_the_policy_it_joins(
    signed: Signed, start: str, tree: str, path: str
) -> None:
    """mallory forks from the commit before the policy and, "by alice" and unsigned, adds
    a `require_signed true` (a copy of alice's own, or one of its own), then her forged
    `roles add owner mallory`; she merges the side in as the second parent, signed by her
    own key. Once, through `_Starts`, a copy of alice's start on the side kept the start
    out and turned the policy off, and a start of the side's own "vouched" for it. Now the
    side's events join the merge's first parent, which requires signing: the forged owner
    (and the side's own start) are refused where they join, and the copy of alice's start
    joins nothing (the first parent holds that very file). A merge whose tree claims the
    forgery was applied is not the state its events make: refused whole."""
    crew, mallory = signed.crew, signed.crew.mallory
    first = start_on_the_side(signed, start)
    forged = forged_owner(add_event(files(mallory, signed.before_policy), first))
    _, side = side_before_policy(signed, first, forged)
    claim = tree == "claims-it-applied"
    content = merge_content(mallory, tip(mallory), side, claim=claim)
    if claim:
        assert MALLORY in config(content).roles.owners  # what the forged tree says
    made = signed_merge(signed, [tip(mallory), side], content)
    where = signed.newcomer if path == "first-sync" else crew.victim
    if claim:
        refused_whole(where, f"commit {made[:12]}: coop.yaml: is not the state")
        return
    not_believed(where, side, str(forged["id"]), taken=True)
    if start == "one-of-its-own":
        refused_where_it_joined(where, str(first["id"]))
    else:
        assert not any(str(first["id"]) in note for note in notes(where))


@pytest.mark.parametrize("local_work", [False, True])
def test_unsigned_work_forked_before_the_policy_pushed_alone_is_put_back_and_refused(
    signed: Signed, clones: Clones, local_work: bool
) -> None:
    """mallory makes no merge: she force-pushes her side commit "by alice" (forked from the
    commit before the policy, unsigned, `roles add owner mallory`) as the ledger itself.
    Once, `_Starts` found no start beside it in the fetched tip and the victim's own merge
    folded the forgery into the roles. Now the remote lost the tip the victim took in
    (H4): the victim's sync puts its own history back first and the side joins after it,
    on a state requiring signatures, so the forgery is refused where it joins (H2). What
    the victim took its fsck --full passes, the remote holds alice's start first again,
    and a newcomer then takes the very same ledger."""
    crew = signed.crew
    mallory = crew.mallory
    took = tip(crew.victim)
    content = files(mallory, signed.before_policy)
    forged = forged_owner(content)
    side = commit(
        mallory, write_tree(mallory, add_event(content, forged)), [signed.before_policy], ALICE
    )
    push(mallory, side)
    if local_work:
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    synced = coop_in(crew.victim, "sync", "--json")
    assert synced.code == 0, (synced.code, synced.err)
    assert "rewritten" in synced.err or synced.json()["rewritten"], synced.out
    assert str(forged["id"]) in synced.json()["unsigned"], synced.out
    assert believed(crew.victim) == (ROLES, True)
    refused_where_it_joined(crew.victim, str(forged["id"]))
    assert took in first_parents(crew.victim), "the remote's lost history was not put back"
    fresh = clones.clone("dave")
    assert coop_in(fresh, "sync").code == 0
    assert files(fresh) == files(crew.victim)
    assert believed(fresh) == (ROLES, True)


@pytest.mark.parametrize("tree", ["honest", "claims-it-applied"])
def test_an_unsigned_release_in_alices_name_on_the_tip_is_refused_where_it_joins(
    signed: Signed, clones: Clones, tree: str
) -> None:
    """No side branch at all: mallory's own commit on the tip, "by alice" and unsigned,
    releases alice's take. It joins a state requiring signatures: refused where it
    joins, a conflict on the todo marked kept out, the todo still alice's, on the
    victim's clone and a newcomer's (H2). Its tree as mallory would have it, the todo
    released, is not the state its events make: refused whole (H3)."""
    crew, mallory = signed.crew, signed.crew.mallory
    content = files(mallory)
    release = new_event(content, crew.todo, "release", actor=ALICE, reason="gone")
    made = commit(mallory, write_tree(mallory, add_event(content, release)), [tip(mallory)], ALICE)
    if tree == "honest":
        made = rejoined(mallory, made)
    push(mallory, made)
    if tree != "honest":
        refused_whole(crew.victim, f"commit {made[:12]}: items/{crew.todo[3:5]}/{crew.todo}")
        return
    for where in (crew.victim, clones.clone("dave")):
        assert coop_in(where, "sync").code == 0
        shown = coop_in(where, "show", crew.todo, "--json").json()
        assert (shown["status"], shown["taken_by"]) == ("taken", ALICE), shown
        [conflict] = shown["conflicts"]
        assert (conflict["event"], conflict["kept_out"]) == (release["id"], True), conflict
        refused_where_it_joined(where, str(release["id"]))


def test_an_unsigned_note_in_alices_name_is_not_shown_as_hers(signed: Signed) -> None:
    """mallory's unsigned note "by alice" on the tip, honestly written: refused where it
    joins, a conflict. What `show` prints as alice's notes must not hold its text."""
    crew, mallory = signed.crew, signed.crew.mallory
    content = files(mallory)
    note = new_event(content, crew.todo, "note", actor=ALICE, text="forged: pay mallory")
    made = commit(mallory, write_tree(mallory, add_event(content, note)), [tip(mallory)], ALICE)
    push(mallory, rejoined(mallory, made))
    assert coop_in(crew.victim, "sync").code == 0
    shown = coop_in(crew.victim, "show", crew.todo, "--json").json()
    assert [c["event"] for c in shown["conflicts"]] == [note["id"]], shown
    assert "forged" not in str(shown["notes"]), shown["notes"]
    assert "forged" not in coop_in(crew.victim, "show", crew.todo).out


def test_a_side_branch_merged_in_as_the_first_parent_is_a_rewrite_to_every_clone_that_took_the_tip(
    signed: Signed,
) -> None:
    """mallory's merge has her side commit (forked before the policy, the forged owner
    "by alice", unsigned) as its FIRST parent and the policy's tip as its second. Once the
    start beside the side covered it. Now the merge's state is the side's plus what the
    tip adds: the forgery joined where no policy was. But the tip the victim took in is
    on that merge's second parent only: every clone that took it in exits 10 and takes
    nothing (H4), the victim's own unpushed work kept."""
    crew, mallory = signed.crew, signed.crew.mallory
    forged = forged_owner(files(mallory, signed.before_policy))
    [side] = side_before_policy(signed, forged)
    signed_merge(signed, [side, tip(mallory)], merge_content(mallory, side, tip(mallory)))
    assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    for where in (crew.victim, crew.alice):
        before = tip(where)
        synced = coop_in(where, "sync")
        assert synced.code == 10, (where.name, synced.code, synced.err)
        assert tip(where) == before
        assert believed(where) == (ROLES, True)
    shown = coop_in(crew.victim, "show", crew.todo, "--json")
    assert "local work" in shown.out, shown.out


def test_a_newcomer_believes_a_forgery_on_the_remotes_first_parent_chain(
    signed: Signed,
) -> None:
    """What H4 does not promise (docs/hardening.md, "A newcomer believes the remote's
    first-parent chain"), pinned down: the same merge, its side commit first, for a
    clone that took nothing in. The side joined where no policy was, so the forged owner
    counts there, and the policy's events join after it: mallory is an owner, the policy
    on. Note that this merge is a fast-forward of the remote's tip in git's terms (the tip
    is its second parent), so `receive.denyNonFastForwards` on the host does not stop
    it."""
    mallory = signed.crew.mallory
    forged = forged_owner(files(mallory, signed.before_policy))
    [side] = side_before_policy(signed, forged)
    merged = merge_content(mallory, side, tip(mallory))
    remote_tip = tip(mallory)
    made = signed_merge(signed, [side, remote_tip], merged)
    assert git(mallory, "merge-base", "--is-ancestor", remote_tip, made, check=False) == ""
    first = coop_in(signed.newcomer, "sync")
    assert first.code == 0, first.err
    roles, policy = believed(signed.newcomer)
    assert MALLORY in roles["owners"] and policy is True, (roles, policy)


def test_a_side_branch_forked_while_the_policy_was_off_is_judged_once_it_is_on_again(
    signed: Signed, clones: Clones
) -> None:
    """alice turns the policy off, bob writes an unsigned note (honest: nothing requires a
    signature then), and alice turns it on again. bob's note joined where no policy was,
    so a newcomer takes the honest history with nothing refused. mallory forks from bob's
    note (policy off there) and merges her unsigned "alice" owner in: it joins the tip,
    where the policy is on again, and is refused."""
    crew = signed.crew
    assert coop_in(crew.alice, "config", "require_signed", "false").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.victim, "sync").code == 0
    git(crew.victim, "config", "coop.sign", "false")
    assert coop_in(crew.victim, "note", crew.todo, "unsigned, in the gap").code == 0
    gap = tip(crew.victim)
    assert not git(crew.victim, "cat-file", "commit", gap).count("gpgsig")
    assert coop_in(crew.victim, "sync").code == 0
    git(crew.victim, "config", "coop.sign", "true")
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    erin = clones.clone("erin")
    honest = coop_in(erin, "sync", "--json")
    assert honest.code == 0 and honest.json()["unsigned"] == [], honest.err
    assert notes(erin) == []
    mallory = crew.mallory
    content = files(mallory, gap)
    forged = forged_owner(content)
    side = commit(mallory, write_tree(mallory, add_event(content, forged)), [gap], ALICE)
    signed_merge(signed, [tip(mallory), side], merge_content(mallory, tip(mallory), side))
    not_believed(crew.victim, side, str(forged["id"]), taken=True)
    not_believed(signed.newcomer, side, str(forged["id"]), taken=True)


# -- a refused add leaves a folder of no item --------------------------------------------


@pytest.mark.parametrize("tree", ["honest", "claims-the-item"])
def test_an_unsigned_add_refused_under_a_signed_note_leaves_a_ledger_every_clone_takes(
    signed: Signed, clones: Clones, tree: str
) -> None:
    """mallory's unsigned commit adds a todo of her own; her next, signed, adds a note on it.
    Once the victim kept the `add` out in a commit of its own, leaving the signed note in
    a folder of no item, which its own fsck then called broken. Now the `add` is refused
    where it joins (its commit unsigned under the policy): no item file, its folder
    holding the refused `add`, and the signed note joins no item. Honestly written, that
    ledger is taken by every clone and passes every fsck (H2); mallory's own trees,
    claiming the todo exists, are not the state (H3): refused whole."""
    crew = signed.crew
    mallory = crew.mallory
    key = signed.keys["mallory"].private
    content = files(mallory)
    added = new_event(content, "td-kkkkkkkkkkkk", "add", kind="todo", title="mine")
    content = add_event(content, added)
    bad = commit(mallory, write_tree(mallory, content), [tip(mallory)], MALLORY)
    if tree == "honest":
        bad = rejoined(mallory, bad)
        content = files(mallory, bad)
        assert "items/kk/td-kkkkkkkkkkkk.yaml" not in content
    note = new_event(content, "td-kkkkkkkkkkkk", "note", text="signed")
    made = commit(mallory, write_tree(mallory, add_event(content, note)), [bad], key=key)
    if tree == "honest":
        made = rejoined(mallory, made, key=key)
    push(mallory, made)
    if tree != "honest":
        refused_whole(crew.victim, f"commit {bad[:12]}: items/kk/td-kkkkkkkkkkkk.yaml")
        return
    for where in (crew.victim, crew.alice, clones.clone("dave")):
        synced = coop_in(where, "sync")
        assert synced.code == 0, (where.name, synced.err)
        assert tip(where) == made
        refused_where_it_joined(where, str(added["id"]))
        gone = coop_in(where, "show", "td-kkkkkkkkkkkk")
        assert gone.code == 1 and "no item" in gone.err.lower(), (gone.code, gone.err)
        logged = {e["id"]: e["result"] for e in coop_in(where, "log", "--json").json()}
        assert logged[str(added["id"])].startswith("refused"), logged  # never "accepted"
        assert logged[str(note["id"])].startswith("refused"), logged


# -- honest teams -----------------------------------------------------------------------


def cleanly(where: Path) -> None:
    """A sync that takes everything and refuses nothing, then a clean fsck --full with
    nothing refused where it joined."""
    synced = coop_in(where, "sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["unsigned"] == [] and synced.json()["lost"] == [], synced.out
    assert notes(where) == []


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_signed_work_written_before_the_policy_and_merged_after_it_is_taken_everywhere(
    clones: Clones, tmp_path: Path, first: str
) -> None:
    """Every one signs from the start. bob writes a note offline on the commit before the
    policy while alice turns it on; whoever syncs first pushes, the other merges, and
    every clone (a fast-forward, a merge, a first sync) takes it all: bob's commit is
    signed by the key alice's state registers to him, wherever it joins."""
    crew, _ = keyed_team(clones, tmp_path)
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    assert coop_in(crew.victim, "note", crew.todo, "offline, signed").code == 0
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    order = [crew.alice, crew.victim] if first == "alice" else [crew.victim, crew.alice]
    for path in (*order, *order, crew.mallory):
        cleanly(path)
    assert coop_in(crew.victim, "note", crew.todo, "after the policy").code == 0
    assert coop_in(crew.mallory, "note", crew.todo, "beside it").code == 0
    for path in (crew.victim, crew.mallory, crew.victim, crew.alice):
        cleanly(path)
    fresh = clones.clone("carol")
    cleanly(fresh)
    assert files(fresh) == files(crew.alice)
    assert believed(fresh) == (ROLES, True)


def test_a_ledger_with_no_policy_takes_concurrent_unsigned_work_on_every_path(
    clones: Clones, tmp_path: Path
) -> None:
    """No keys, no policy, nobody signs; concurrent notes merge both ways."""
    crew = team(clones, tmp_path)
    for path, text in ((crew.victim, "bob's"), (crew.alice, "alice's"), (crew.mallory, "hers")):
        assert coop_in(path, "note", crew.todo, text).code == 0
    for path in (crew.alice, crew.victim, crew.mallory, crew.alice, crew.victim):
        cleanly(path)
    fresh = clones.clone("carol")
    cleanly(fresh)
    assert files(fresh) == files(crew.alice)
    assert coop_in(fresh, "config", "require_signed", "--json").json()["value"] in (None, False)


def test_a_policy_switch_nobody_counts_does_not_cover_honest_work_in_a_ledger_with_no_policy(
    clones: Clones, tmp_path: Path
) -> None:
    """No keys, no policy: nobody signs. mallory (a chief) pushes a `config require_signed
    true` of her own, which is refused where it joins (only owners change settings): the
    ledger still requires nothing. bob's unsigned note, written before he fetched it, is
    merged and pushed as any honest work is. Once `_Starts` took every `require_signed
    true`, counted or not, so bob's note was "beside a start" and refused, and no clone
    but bob's could sync again. Now only the state a commit joins says whether it must
    be signed: everything syncs, and only mallory's change is refused."""
    crew = team(clones, tmp_path)
    assert coop_in(crew.victim, "note", crew.todo, "offline work").code == 0
    mallory = crew.mallory
    content = files(mallory)
    uncounted = new_event(content, LEDGER, "config", key="require_signed", value=True)
    changed = add_event(content, uncounted)
    assert "require_signed" not in config(changed).settings  # refused: mallory is no owner
    push(mallory, commit(mallory, write_tree(mallory, changed), [tip(mallory)], MALLORY))
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.victim, "sync").code == 0  # bob merges and pushes
    synced = coop_in(crew.alice, "sync")
    assert synced.code == 0, f"alice's sync of bob's honest merge: {synced.err.strip()}"
    fresh = clones.clone("carol")
    first = coop_in(fresh, "sync")
    assert first.code == 0, f"a newcomer's first sync: {first.err.strip()}"
    for where in (crew.alice, fresh):
        found = notes(where)
        assert len(found) == 1 and str(uncounted["id"]) in found[0], found
        shown = coop_in(where, "show", crew.todo, "--json").json()
        assert shown["conflicts"] == [] and "offline work" in str(shown), shown


# -- honest unsigned work from before the policy -------------------------------------------


def test_unsigned_work_forked_before_the_policy_joins_as_a_conflict_and_its_author_still_syncs(
    clones: Clones, tmp_path: Path
) -> None:
    """bob writes a note offline and unsigned on the commit before alice turns
    require_signed on. Once alice's sync kept it out in a commit of its own and bob's
    next sync met a coop.yaml keeping out an event his clone held. Now his note joins
    after alice's start, whoever merges it: refused where it joins (his commit is
    unsigned), a conflict on the todo marked kept out, never his lost event (no exit 8).
    bob syncs on (no exit 4), signs again, and every clone, a newcomer too, holds one
    ledger that passes fsck --full, the refusal one note."""
    crew, _ = keyed_team(clones, tmp_path)
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    git(crew.victim, "config", "coop.sign", "false")
    assert coop_in(crew.victim, "note", crew.todo, "offline, unsigned").code == 0
    note = coop_in(crew.victim, "log", crew.todo, "--json").json()[-1]["id"]
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    merged = coop_in(crew.victim, "sync", "--json")  # merges alice's start, pushes his note
    assert merged.code == 0, (merged.code, merged.err)
    assert merged.json()["unsigned"] == [note] and merged.json()["lost"] == [], merged.out
    git(crew.victim, "config", "coop.sign", "true")  # signing again, as the refusal asks
    assert coop_in(crew.victim, "note", crew.todo, "again, signed").code == 0
    for where in (crew.victim, crew.alice, crew.victim, crew.mallory):
        again = coop_in(where, "sync", "--json")
        assert again.code == 0, f"{where.name}'s sync: {again.err.strip()}"
    assert tip(crew.victim) == tip(crew.alice) == tip(crew.mallory)
    fresh = clones.clone("carol")
    assert coop_in(fresh, "sync").code == 0
    for where in (crew.victim, crew.alice, fresh):
        shown = coop_in(where, "show", crew.todo, "--json").json()
        [conflict] = shown["conflicts"]
        assert (conflict["event"], conflict.get("kept_out")) == (note, True), conflict
        refused_where_it_joined(where, note)
    assert files(fresh) == files(crew.victim) == files(crew.alice)


# -- a copy of an item's signed event ---------------------------------------------------


def copy_of_alices_note(s: Signed) -> tuple[str, str, str]:
    """alice's signed note, synced everywhere; mallory's unsigned commit "by alice", on the
    commit before it, adding a byte-identical copy of its file. The note's id, alice's
    commit, and the copy's commit."""
    crew, mallory = s.crew, s.crew.mallory
    before = tip(crew.alice)
    note, made = alices_signed_note(s)
    now, old = files(mallory, made), files(mallory, before)
    [name] = [n for n in now if n.startswith("events/") and n not in old and note in n]
    side = add_event(old, codec.load(now[name], name))  # coop.yaml's clock moved, as a writer
    assert side[name] == now[name]
    return note, made, commit(mallory, write_tree(mallory, side), [before], ALICE)


@pytest.mark.parametrize("tree", ["honest", "hides-the-note"])
def test_a_copy_of_alices_signed_note_in_a_forged_commit_does_not_make_hers_a_conflict(
    signed: Signed, tree: str
) -> None:
    """mallory merges the copy in as the second parent, signed by her key. Once the copy
    broke the policy and alice's note, sharing its id, was kept out with it. Now the copy
    is the very file the merge's first parent holds: it adds nothing and joins nothing,
    and alice's note stays hers, no conflict. A merge whose item hides the note is not
    the state its events make (H3): refused whole."""
    crew, mallory = signed.crew, signed.crew.mallory
    note, _, copy = copy_of_alices_note(signed)
    content = merge_content(mallory, tip(mallory), copy)
    assert content == {**files(mallory), "coop.yaml": content["coop.yaml"]}
    if tree == "hides-the-note":
        content = without(content, note)
    made = signed_merge(signed, [tip(mallory), copy], content)
    if tree == "hides-the-note":
        refused_whole(crew.victim, f"commit {made[:12]}: items/{crew.todo[3:5]}/{crew.todo}")
    else:
        assert coop_in(crew.victim, "sync").code == 0
        assert tip(crew.victim) == made
    shown = coop_in(crew.victim, "show", crew.todo, "--json")
    assert shown.code == 0 and "alice's own words" in shown.out, shown.out
    assert shown.json()["conflicts"] == [], shown.out


@pytest.mark.parametrize("tree", ["honest", "hides-the-note"])
def test_a_fork_without_alices_signed_note_force_pushed_alone_is_put_back(
    signed: Signed, clones: Clones, tree: str
) -> None:
    """mallory's branch never holds alice's signed commit: it forks from the commit before
    it, adds the unsigned copy of her note "by alice", then a signed note of mallory's
    own, and she force-pushes it. Once its coop.yaml listed alice's note as kept out.
    Honestly written, that fork's own state does refuse the copy (it joins where the
    policy is on, unsigned): there, alice's note is a conflict. But the remote lost the
    tip the victim took in (H4): its sync puts its history back first, mallory's fork
    joins after it (the copy is the file the victim holds already; only her own signed
    note joins), and alice's note stays hers, no conflict, for the victim and a newcomer
    after it. A fork whose tree hides even that conflict is not the state (H3): refused
    whole."""
    crew, mallory = signed.crew, signed.crew.mallory
    key = signed.keys["mallory"].private
    note, made, copy = copy_of_alices_note(signed)
    copy = rejoined(mallory, copy)
    side = files(mallory, copy)
    hers = new_event(side, crew.todo, "note", actor=MALLORY, text="mine")
    item = f"items/{crew.todo[3:5]}/{crew.todo}.yaml"
    assert note in str(codec.load(side[item], item)["conflicts"])  # the fork refuses the copy
    content = add_event(side, hers)
    if tree == "hides-the-note":  # no conflict either: as if alice's note were never written
        data = codec.load(content[item], item)
        data["conflicts"] = [c for c in data["conflicts"] if c["event"] != note]
        content = {**content, item: codec.dump(data)}
    forked = commit(mallory, write_tree(mallory, content), [copy], key=key)
    if tree == "honest":
        forked = rejoined(mallory, forked, key=key)
    git(mallory, "push", "-q", "--force", "origin", f"{forked}:{REF}")
    if tree == "hides-the-note":
        refused_whole(crew.victim, f"commit {forked[:12]}: items/{crew.todo[3:5]}/{crew.todo}")
        return
    synced = coop_in(crew.victim, "sync", "--json")
    assert synced.code == 0, (synced.code, synced.err)
    assert made in first_parents(crew.victim), "the remote's lost history was not put back"
    fresh = clones.clone("dave")
    assert coop_in(fresh, "sync").code == 0
    for where in (crew.victim, fresh):
        shown = coop_in(where, "show", crew.todo, "--json")
        assert "alice's own words" in shown.out and "mine" in shown.out, shown.out
        assert note not in str(shown.json()["conflicts"]), shown.out


# -- many events, many commits: the cost of checking them (H7) ---------------------------

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def _id(prefix: str, n: int) -> str:
    tail = ""
    for _ in range(12):
        tail, n = ALPHABET[n % 32] + tail, n // 32
    return f"{prefix}-{tail}"


def own_config(clock: int, n: int, key: str, value: object) -> dict[str, Any]:
    """A `config` event of mallory's own (refused where it joins: she is no owner), named by
    its content (`n` tells otherwise equal ones apart by their instant)."""
    data: dict[str, Any] = {
        "id": "", "item": LEDGER, "clock": clock,
        "at": f"2026-11-29T11:{n // 60 % 60:02d}:{n % 60:02d}Z", "actor": MALLORY,
        "session": None, "verb": "config", "key": key, "value": value,
    }  # fmt: skip
    return {**data, "id": content_id_of(data)}


def imported(where: Path, commits: list[list[dict[str, Any]]]) -> str:
    """mallory's commits on the ledger's tip through `git fast-import`, each adding its
    events (a new todo's `add` gets its item file) with coop.yaml's clock moved: what an
    honest writer would hold, thousands of commits in a moment. Pushed; the new tip."""
    settings = config(files(where))
    out = [f"reset {REF}\nfrom {tip(where)}\n\n".encode()]
    for events in commits:
        head = f"mallory <{MALLORY}> 1767225600 +0000"
        out.append(f"commit {REF}\nauthor {head}\ncommitter {head}\ndata 4\nwork\n".encode())
        for data in events:
            item_id = data["item"]
            blob = codec.dump(data)
            name = f"events/{item_id[3:5]}/{item_id}/{data['clock']:012d}-{data['id']}.yaml"
            out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(blob), blob))
            if data["verb"] == "add":
                item = rulebook.fold(_events_raw({name: blob}, item_id), settings.roles)
                assert item is not None
                body = codec.dump(item.to_data())
                path = f"items/{item_id[3:5]}/{item_id}.yaml".encode()
                out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path, len(body), body))
            settings = replace(settings, clock=max(settings.clock, data["clock"]))
        own = [Event.from_data(d) for d in events if d["item"].startswith("cf-")]
        if own:  # the ledger's own changes join as the rules say (refused: coop.yaml's conflicts)
            state = rulebook.state_of(settings, list)
            joined = rulebook.join(lambda _: None, state, own, None, settings.conflicts)
            settings = rulebook.config_of(joined.ledger, settings.clock, joined.conflicts)
        if events:
            yaml = codec.dump(settings.to_data())
            out.append(b"M 100644 inline coop.yaml\ndata %d\n%s\n" % (len(yaml), yaml))
        out.append(b"\n")
    done = subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=where, input=b"".join(out), capture_output=True
    )
    assert done.returncode == 0, done.stderr
    git(where, "push", "-q", "-f", "origin", f"{REF}:{REF}")
    return tip(where)


class _Counted:
    """A pygit2 walker whose commits are counted as they are yielded."""

    def __init__(self, walker: Any, counter: list[int]) -> None:
        self.walker, self.counter = walker, counter

    def __getattr__(self, name: str) -> Any:
        return getattr(self.walker, name)

    def __iter__(self) -> Any:
        for found in self.walker:
            self.counter[0] += 1
            yield found


def test_many_policy_switches_in_one_commit_do_not_make_a_sync_walk_the_history_once_each(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """COST (H7). mallory pushes 200 commits that add nothing, then one commit holding 200
    `require_signed true` of her own (each refused where it joins). `_Starts` once walked
    the history of every start's adders once per start: 200 walks of the whole history
    for the sync that brought it and every newcomer's first sync. There are no starts
    now, but the attack stands against any rule that reads the ledger's own events per
    commit or per event: the commits walked in one sync, counted as pygit2 yields them,
    stay within a small multiple of the history's length, and only her 200 changes are
    refused."""
    import pygit2

    crew = team(clones, tmp_path)
    clock = config(files(crew.mallory)).clock
    starts = [own_config(clock + k, k, "require_signed", True) for k in range(1, 201)]
    imported(crew.mallory, [[] for _ in range(200)] + [starts])
    history = len(git(crew.mallory, "rev-list", REF).split())
    walked = [0]
    real = pygit2.Repository.walk

    def counted(self: pygit2.Repository, *args: Any) -> _Counted:
        return _Counted(real(self, *args), walked)

    monkeypatch.setattr(pygit2.Repository, "walk", counted)
    for where in (crew.victim, clones.clone("carol")):
        walked[0] = 0
        assert coop_in(where, "sync").code == 0
        assert walked[0] <= 10 * history, (
            f"one sync walked {walked[0]} commits of a history of {history}"
        )
    monkeypatch.undo()
    assert believed(crew.victim)[1] in (None, False)
    assert len(notes(crew.victim)) == 200


def test_a_large_ledger_folder_is_not_read_again_for_every_fetched_commit(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """COST (H7). mallory adds 300 ledger events of her own (refused config changes) in one
    commit, then 150 ordinary commits follow. Format 1 folded the ledger's folder for the
    state each fetched commit joins (some 46,000 ledger events read by one sync, once).
    From format 2 the state a commit joins is its first parent's coop.yaml: one sync
    reads the ledger's folder at most once (in fact not at all), never once per fetched
    commit."""
    from gitcoop.domain.roles import LEDGER_ID
    from gitcoop.store.boundary import history

    crew = team(clones, tmp_path)
    clock = config(files(crew.mallory)).clock
    ledger = [own_config(clock + k, k, "topup_size", 7) for k in range(1, 301)]
    clock += len(ledger)
    adds = [
        [new_event({}, _id("td", k), "add", clock=clock + k, kind="todo", title=f"t{k}")]
        for k in range(1, 151)
    ]
    imported(crew.mallory, [ledger, *adds])
    read = [0]
    real = history.Reader.item_events

    def counted(self: history.Reader, snapshot: Any, item_id: Any) -> Any:
        found = real(self, snapshot, item_id)
        if item_id == LEDGER_ID:
            read[0] += len(found)
        return found

    monkeypatch.setattr(history.Reader, "item_events", counted)
    for where in (crew.victim, clones.clone("carol")):
        read[0] = 0
        assert coop_in(where, "sync").code == 0
        assert read[0] <= len(ledger), f"one sync read {read[0]} of the ledger's events"
        assert len(coop_in(where, "list", "--json").json()) >= 150


# -- roots in disguise ------------------------------------------------------------------


@pytest.mark.parametrize("disguise", ["a-parent-of-no-ledger", "an-empty-root-beneath"])
@pytest.mark.parametrize("path", ["fast-forward", "first-sync"])
def test_a_root_in_disguise_is_refused(
    clones: Clones, tmp_path: Path, disguise: str, path: str
) -> None:
    """mallory's note sits on a commit that is no ledger commit: one on the tip whose tree
    holds only a README (every event dropped), or a root of an empty tree, reached
    through a merge's second parent (a second root for a newcomer, a root of its own for
    the victim). Refused with exit 4, naming a commit, nothing moved."""
    crew = team(clones, tmp_path)
    mallory = crew.mallory
    content = files(mallory)
    if disguise == "a-parent-of-no-ledger":
        under = commit(mallory, write_tree(mallory, {"README": b"code\n"}), [tip(mallory)])
    else:
        under = commit(mallory, mktree(mallory, []), [])
    note = new_event(content, crew.todo, "note", text="x")
    side = commit(mallory, write_tree(mallory, add_event(content, note)), [under])
    if disguise == "a-parent-of-no-ledger":
        push(mallory, side)
    else:
        push(mallory, commit(mallory, write_tree(mallory, add_event(content, note)),
                             [tip(mallory), side]))  # fmt: skip
    where = clones.clone("carol") if path == "first-sync" else crew.victim
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    assert "commit " in synced.err and "the local ledger is unchanged" in synced.err
    assert "its id is not the one its content gives" not in synced.err, synced.err
    assert "unexpected" not in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
