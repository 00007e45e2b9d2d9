"""Merge bases the local ledger never had as its tip, attacked by a peer with push access.

The signing policy (`require_signed`) covers a fetched commit when the ledger at
its (first) parent requires signing. mallory forks a side branch from the commit
just before alice turned the policy on (one the victim took in the middle of a
sync, never as its tip), commits there unsigned under alice's name, and joins it
to the current tip with a merge commit: the merge adds no events of its own, so
nothing in it is covered. What must hold is that the forgery does not count:
the sync is refused (exit 4, naming the forged commit), or its events are kept
out. Then what does hold: a side commit forked after the policy is covered; a
base the victim holds only under its own keep-out commit keeps the event out;
a side branch forked from the ledger's root is still checked commit by commit.
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
from tests.hostile.policy import ROLES, Signed, forged_owner, not_believed, signed_team


@pytest.fixture
def signed(clones: Clones, tmp_path: Path) -> Signed:
    return signed_team(clones, tmp_path)


def merged_in(s: Signed, side: str, forged: dict[str, object]) -> str:
    """mallory's merge of the current tip and `side` (whose forged ledger event it unites
    with the tip's, roles refolded: the only thing wrong is the forgery), signed by her
    own registered key, pushed; the merge's id."""
    mallory = s.crew.mallory
    union = add_event(files(mallory), forged)  # coop.yaml's clock: the larger of both sides'
    tree = write_tree(mallory, union)
    made = commit(mallory, tree, [tip(mallory), side], MALLORY, key=s.keys["mallory"].private)
    push(mallory, made)
    return made


def fork_before_policy(s: Signed) -> tuple[str, dict[str, object]]:
    """An unsigned commit "by alice" on the commit before the policy, adding the forgery."""
    mallory = s.crew.mallory
    content = files(mallory, s.before_policy)
    assert not config(content).settings.get("require_signed")
    forged = forged_owner(content)
    side = commit(
        mallory, write_tree(mallory, add_event(content, forged)), [s.before_policy], ALICE
    )
    return side, forged


def never_a_tip(where: Path, commit_id: str) -> None:
    """`commit_id` is in the clone's ledger history but was never its tip (the reflog)."""
    assert git(where, "merge-base", "--is-ancestor", commit_id, REF, check=False) == ""
    tips = git(where, "reflog", "--format=%H", REF).split()
    assert commit_id not in tips, tips


@pytest.mark.parametrize("path", ["fast-forward", "merge", "first-sync"])
def test_unsigned_work_forked_before_the_policy_and_merged_in_is_not_believed(
    signed: Signed, path: str
) -> None:
    """mallory's side commit "by alice" sits on the commit just before the policy: the
    ledger at its parent does not require signing, and the merge that joins it to the
    tip adds no events. The merge base git computes for the side is that fork point, a
    commit the victim took in the middle of one sync and never had as its tip. Judged
    by its parent alone, the forged `roles add owner mallory` "by alice" was folded into
    the roles; the start of the policy beside it covers it (`trust._Starts`)."""
    side, forged = fork_before_policy(signed)
    merged_in(signed, side, forged)
    crew = signed.crew
    if path == "merge":
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    if path != "first-sync":
        never_a_tip(crew.victim, signed.before_policy)
    where = signed.newcomer if path == "first-sync" else crew.victim
    not_believed(where, side, str(forged["id"]), named=True)


def test_a_forged_policy_switch_off_forked_before_the_policy_turns_nothing_off(
    signed: Signed,
) -> None:
    """The same way in, with alice's forged `config require_signed false`: clock one past
    the fork (the clock of alice's own `require_signed true`) and a later instant, so it
    sorts after the switch on. Uncovered, the merged coop.yaml folded to the policy off,
    and from then on no commit was covered at all."""
    mallory = signed.crew.mallory
    content = files(mallory, signed.before_policy)
    off = new_event(
        content,
        LEDGER,
        "config",
        actor=ALICE,
        at="2026-11-29T11:00:00Z",  # alice's switch on: COOP_NOW, 10:00, the same clock
        event_id="ev-ffffffffffff",
        key="require_signed",
        value=False,
    )
    side = commit(
        mallory, write_tree(mallory, add_event(content, off)), [signed.before_policy], ALICE
    )
    merged_in(signed, side, off)
    not_believed(signed.crew.victim, side, "ev-ffffffffffff", named=True)


def test_unsigned_work_forked_after_the_policy_and_merged_in_is_refused(signed: Signed) -> None:
    """Passes: forked from the policy's tip, the side commit is covered, and with nothing
    good fetched beside it the sync is refused, naming it."""
    crew = signed.crew
    mallory = crew.mallory
    content = files(mallory)
    forged = forged_owner(content)
    side = commit(mallory, write_tree(mallory, add_event(content, forged)), [tip(mallory)], ALICE)
    merged_in(signed, side, forged)
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4, synced.err
    assert f"commit {side[:12]}: no signature, where a key registered to {ALICE}" in synced.err
    assert "the local ledger is unchanged" in synced.err
    assert tip(crew.victim) == before
    assert crew.victim_runs("roles", "--json").json() == ROLES


def test_a_base_under_the_victims_own_keep_out_commit_keeps_the_event_out(
    signed: Signed,
) -> None:
    """Passes. The victim took mallory's history (an unsigned release "by alice", then her
    signed note: R1) as a commit of its own on top that keeps the release out. mallory
    then pushes R2, a signed note on R1 that keeps nothing out: the merge base is R1, in
    the victim's history only under its keep-out commit, never its tip. What the victim
    keeps out stays out, and the todo stays alice's."""
    crew, keys = signed.crew, signed.keys
    mallory = crew.mallory
    content = files(mallory)
    release = new_event(
        content, crew.todo, "release", actor=ALICE, event_id="ev-ffffffffffff", reason="x"
    )
    content = add_event(content, release)
    bad = commit(mallory, write_tree(mallory, content), [tip(mallory)], ALICE)
    note = new_event(content, crew.todo, "note", event_id="ev-nnnnnnnnnnnn", text="one")
    content = add_event(content, note)
    first = commit(mallory, write_tree(mallory, content), [bad], key=keys["mallory"].private)
    push(mallory, first)
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0 and synced.json()["kept_out"] == ["ev-ffffffffffff"], synced.err
    assert tip(crew.victim) != first
    again = new_event(content, crew.todo, "note", event_id="ev-pppppppppppp", text="two")
    content = add_event(content, again)
    assert not config(content).kept_out
    push(
        mallory, commit(mallory, write_tree(mallory, content), [first], key=keys["mallory"].private)
    )
    never_a_tip(crew.victim, first)
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    shown = crew.victim_runs("show", crew.todo, "--json").json()
    assert (shown["status"], shown["taken_by"]) == ("taken", ALICE), shown
    assert "ev-ffffffffffff" in config(files(crew.victim)).kept_out
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
