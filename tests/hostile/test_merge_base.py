"""Side branches forked where the victim never stood, joined by a peer with push access.

Until format 2 a merge folded both sides over their merge base, and the signing policy
covered a fetched commit when the ledger at its parent required signing: a side branch
forked from the commit just before alice turned `require_signed` on (one the victim took
in the middle of a sync, never as its tip) slipped under the policy, and a base the victim
held only under its own keep-out commit could undo the keep-out. Merges no longer use a
merge base at all: a commit's state is its FIRST parent's plus the events it adds (H1),
each judged by the roles, policy and keys of that first parent's state (H2), and the
tree of each first-parent commit must be that state (H3). So the fork point decides
nothing, and each attack is restated at the merge that joins the side branch:

- the side's unsigned events "by alice" join the tip's state, which requires signing:
  refused where they join (an fsck note, roles and policy unchanged) when the merge's
  tree is honest, and the whole fetch refused (exit 4, naming the merge) when the tree
  claims they were applied; forked before the policy or after, alike;
- there are no keep-out commits since format 2: an event refused where it joined stays
  refused, and a later commit whose tree says otherwise is refused whole;
- a merge that puts the side branch first, the tip second, is a rewrite (H4, exit 10);
- a side branch forked from the ledger's root is still checked commit by commit.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    MALLORY,
    REF,
    add_event,
    commit,
    config,
    files,
    new_event,
    push,
    team,
    tip,
    write_tree,
)
from tests.hostile.policy import (
    ROLES,
    Signed,
    believed,
    forged_owner,
    merge_content,
    refused_where_it_joined,
    rejoined,
    signed_team,
)


@pytest.fixture
def signed(clones: Clones, tmp_path: Path) -> Signed:
    return signed_team(clones, tmp_path)


def merged_in(s: Signed, side: str, claimed: bool) -> str:
    """mallory's merge of the current tip (first parent) and `side`, signed by her own
    registered key, pushed; the merge's id. Its tree is what gitcoop's merge writes
    (`claimed` false: the side's events judged where they join) or the forger's claim
    (every one of them applied as if its commit were signed): the only thing wrong."""
    mallory = s.crew.mallory
    content = merge_content(mallory, tip(mallory), side, claim=claimed)
    made = commit(
        mallory,
        write_tree(mallory, content),
        [tip(mallory), side],
        MALLORY,
        key=s.keys["mallory"].private,
    )
    push(mallory, made)
    return made


def fork(s: Signed, at: str, forged: dict[str, object] | None = None) -> tuple[str, str]:
    """An unsigned commit "by alice" on commit `at`, adding `forged` (by default alice
    making mallory an owner); the commit and the event's id."""
    mallory = s.crew.mallory
    content = files(mallory, at)
    event = forged or forged_owner(content)
    side = commit(mallory, write_tree(mallory, add_event(content, event)), [at], ALICE)
    return side, str(event["id"])


def never_a_tip(where: Path, commit_id: str) -> None:
    """`commit_id` is in the clone's ledger history but was never its tip (the reflog)."""
    assert git(where, "merge-base", "--is-ancestor", commit_id, REF, check=False) == ""
    tips = git(where, "reflog", "--format=%H", REF).split()
    assert commit_id not in tips, tips


def refused_whole(where: Path, merge: str) -> None:
    """The sync is refused (exit 4) at `merge`, whose coop.yaml is not the state its
    first parent and the events it adds make; the ledger is as it was."""
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    assert f"commit {merge[:12]}: coop.yaml: is not the state its first parent" in synced.err
    assert "the local ledger is unchanged" in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
    if before:
        assert believed(where) == (ROLES, True)


def refused_where_the_merge_joins(where: Path, event_id: str) -> None:
    """The sync takes the merge in; the side's event was refused where it joined (an fsck
    note), so roles and policy are alice's still, and later work goes on."""
    synced = coop_in(where, "sync")
    assert synced.code == 0, synced.err
    assert believed(where) == (ROLES, True)
    refused_where_it_joined(where, event_id)


@pytest.mark.parametrize("tree", ["honest", "claimed"])
@pytest.mark.parametrize("path", ["fast-forward", "merge", "first-sync"])
@pytest.mark.parametrize("forked", ["before-the-policy", "after-the-policy"])
def test_unsigned_work_on_a_side_branch_is_judged_where_the_merge_joins_it(
    signed: Signed, forked: str, path: str, tree: str
) -> None:
    """mallory's side commit "by alice" (unsigned, `roles add owner mallory`) sits on the
    commit just before the policy (a commit the victim took in the middle of one sync and
    never had as its tip), or on the tip itself. Judged by the side's own parent alone,
    the forgery before the policy needed no signature. The merge's first parent is the
    tip, which requires signing, and the side's event joins there (H1, H2): the fork
    point makes no difference."""
    crew = signed.crew
    at = signed.before_policy if forked == "before-the-policy" else tip(crew.mallory)
    side, forged = fork(signed, at)
    merge = merged_in(signed, side, claimed=tree == "claimed")
    if path == "merge":
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    if path != "first-sync" and forked == "before-the-policy":
        never_a_tip(crew.victim, signed.before_policy)
    where = signed.newcomer if path == "first-sync" else crew.victim
    if tree == "claimed":
        refused_whole(where, merge)
        if path == "first-sync":
            assert coop_in(where, "list").code == 4  # nothing was taken in: no ledger here
    else:
        refused_where_the_merge_joins(where, forged)
        if where == crew.victim:  # (the newcomer signs with bob's key, as carol: no writer)
            assert coop_in(where, "note", crew.todo, "later work").code == 0


@pytest.mark.parametrize("tree", ["honest", "claimed"])
def test_a_forged_policy_switch_off_forked_before_the_policy_turns_nothing_off(
    signed: Signed, tree: str
) -> None:
    """The same way in, with alice's forged `config require_signed false`, one past the
    fork's clock (the clock of alice's own `require_signed true`) at a later instant, so
    that in the old fold it sorted after the switch on and turned the policy off. It joins
    at the merge, after the switch on, on a state that requires signing: refused there.
    With the policy held, mallory's next unsigned forgery is refused too."""
    crew = signed.crew
    mallory = crew.mallory
    content = files(mallory, signed.before_policy)
    assert not config(content).settings.get("require_signed")
    off = new_event(
        content,
        LEDGER,
        "config",
        actor=ALICE,
        at="2026-11-29T11:00:00Z",  # alice's switch on: COOP_NOW, 10:00, the same clock
        key="require_signed",
        value=False,
    )
    side, off_id = fork(signed, signed.before_policy, off)
    merge = merged_in(signed, side, claimed=tree == "claimed")
    if tree == "claimed":
        refused_whole(crew.victim, merge)
        return
    refused_where_the_merge_joins(crew.victim, off_id)
    again, forged = fork(signed, tip(mallory))
    push(mallory, rejoined(mallory, again))  # the honest tree: the forgery refused
    refused_where_the_merge_joins(crew.victim, forged)


def test_a_side_branch_made_the_first_parent_is_a_rewrite(signed: Signed) -> None:
    """The way around H1: a merge whose first parent is the side branch forked before the
    policy, where the forgery needs no signature, and whose second is the tip the victim
    took in. The tip is then no longer on the remote's first-parent chain: the victim
    takes nothing in (exit 10, H4), and its roles stay alice's."""
    crew = signed.crew
    mallory = crew.mallory
    side, _ = fork(signed, signed.before_policy)
    content = merge_content(mallory, side, tip(mallory))
    made = commit(
        mallory,
        write_tree(mallory, content),
        [side, tip(mallory)],
        MALLORY,
        key=signed.keys["mallory"].private,
    )
    push(mallory, made)
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 10, (synced.code, synced.err)
    assert "holds it only aside" in synced.err, synced.err
    assert tip(crew.victim) == before
    assert believed(crew.victim) == (ROLES, True)
    assert coop_in(crew.victim, "note", crew.todo, "later work").code == 0


def test_an_event_refused_where_it_joined_stays_refused_whatever_joins_later(
    signed: Signed,
) -> None:
    """Formerly: a merge base under the victim's own keep-out commit must keep the event
    out. There are no keep-out commits since format 2 (no kept-out list): mallory pushes
    R1, an unsigned release "by alice" (its tree honest: the release refused where it
    joined, a conflict marked kept_out) and her own signed note on it. The victim takes it
    in. Then R2, a signed note on R1 whose todo says the release had been applied after
    all: what joined stays decided (H1), and a tree that says otherwise is not the state
    its events make (H3): refused whole. The honest R2 is taken, the release still out."""
    crew, keys = signed.crew, signed.keys
    mallory = crew.mallory
    start = tip(mallory)
    content = files(mallory)
    release = new_event(content, crew.todo, "release", actor=ALICE, reason="x")
    forged = commit(mallory, write_tree(mallory, add_event(content, release)), [start], ALICE)
    bad = rejoined(mallory, forged)  # unsigned: gitcoop's tree for it refuses the release
    content = files(mallory, bad)
    content = add_event(content, new_event(content, crew.todo, "note", text="one"))
    first = commit(mallory, write_tree(mallory, content), [bad], key=keys["mallory"].private)
    push(mallory, first)
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert tip(crew.victim) == first  # a fast-forward: the tree is the state
    shown = crew.victim_runs("show", crew.todo, "--json").json()
    assert (shown["status"], shown["taken_by"]) == ("taken", ALICE), shown
    [conflict] = [c for c in shown["conflicts"] if c["event"] == release["id"]]
    assert conflict["kept_out"] is True, conflict

    content = add_event(content, new_event(content, crew.todo, "note", text="two"))
    honest = commit(mallory, write_tree(mallory, content), [first], key=keys["mallory"].private)
    claim = merge_content(mallory, start, honest, claim=True)  # the release applied
    todo = f"items/{crew.todo[3:5]}/{crew.todo}.yaml"
    assert claim[todo] != content[todo]
    lying = commit(
        mallory,
        write_tree(mallory, {**content, todo: claim[todo]}),
        [first],
        key=keys["mallory"].private,
    )
    push(mallory, lying)
    synced = crew.victim_runs("sync")
    assert synced.code == 4, synced.err
    assert f"commit {lying[:12]}: {todo}: is not the state its events make" in synced.err
    assert tip(crew.victim) == first

    push(mallory, honest)
    assert crew.victim_runs("sync").code == 0
    assert tip(crew.victim) == honest
    shown = crew.victim_runs("show", crew.todo, "--json").json()
    assert (shown["status"], shown["taken_by"]) == ("taken", ALICE), shown
    assert [c["event"] for c in shown["conflicts"] if c.get("kept_out")] == [release["id"]]
    assert crew.victim_runs("fsck", "--full").code == 0


@pytest.mark.parametrize("forgery", ["by-someone-else", "clock-too-far"])
def test_a_forgery_on_a_side_branch_forked_from_the_ledgers_root_is_refused(
    clones: Clones, tmp_path: Path, forgery: str
) -> None:
    """Passes. The side branch forks from alice's first commit, which the victim holds but
    never had as its tip (its first sync took the team's tip): the side commit is still
    fetched, so still checked, though its parent is no fetched commit."""
    crew = team(clones, tmp_path)
    mallory = crew.mallory
    root = git(mallory, "rev-list", "--max-parents=0", REF).strip()
    never_a_tip(crew.victim, root)
    content = files(mallory, root)
    actor, clock = (ALICE, None) if forgery == "by-someone-else" else (MALLORY, 5)
    event = new_event(
        content, LEDGER, "config", actor=actor, clock=clock, key="topup_size", value=7
    )
    side = commit(mallory, write_tree(mallory, add_event(content, event)), [root], MALLORY)
    union = add_event(files(mallory), event)
    push(mallory, commit(mallory, write_tree(mallory, union), [tip(mallory), side], MALLORY))
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4, synced.err
    fragment = (
        f"an event by {ALICE!r} in a commit authored by {MALLORY!r}"
        if forgery == "by-someone-else"
        else "clock 5 is outside 2..2"
    )
    assert f"commit {side[:12]}: events/00/{LEDGER}/" in synced.err and fragment in synced.err
    assert "the local ledger is unchanged" in synced.err
    assert tip(crew.victim) == before
