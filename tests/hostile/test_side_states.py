"""A state is believed only where it was checked as one (H3).

A commit only a merge's second parent reaches is checked on its own (H5-H7),
never as a state: its tree may say anything of roles and items. mallory
hides a coop.yaml naming her an owner in such a side commit F, merged aside
by an honest-looking merge, and later offers a commit whose first parent is
F. A clone already holds F, so a check that stopped at the commits it holds
took F's tree for a state, and mallory was an owner there. The fetched
first-parent chain is checked back to where it meets this clone's own, so F
is checked as a state once it becomes one, and refused.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.store.ledger import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import ALICE, MALLORY, REF, Team, commit, files, team, tip, write_tree


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def forged_owner_aside(crew: Team) -> str:
    """mallory's side commit F (coop.yaml naming her an owner, no event) merged aside on
    origin, which every clone then takes in; F's id."""
    at = tip(crew.mallory)
    content = files(crew.mallory)
    data = codec.load(content["coop.yaml"], "coop.yaml")
    data["roles"]["owners"] = [ALICE, MALLORY]
    forged = commit(crew.mallory, write_tree(crew.mallory, {**content, "coop.yaml":
                    codec.dump(data)}), [at])  # fmt: skip
    tree = git(crew.mallory, "rev-parse", f"{at}^{{tree}}").strip()
    merged = commit(crew.mallory, tree, [at, forged])  # the honest tree, F only aside
    git(crew.mallory, "push", "-q", "origin", f"{merged}:{REF}")  # a plain fast-forward
    taken = coop_in(crew.victim, "sync")
    assert taken.code == 0, taken.err
    assert coop_in(crew.victim, "roles", "--json").json()["owners"] == [ALICE]
    return forged


def on_forged(crew: Team, forged: str) -> str:
    """A commit whose first parent is F, adding nothing."""
    return commit(crew.mallory, git(crew.mallory, "rev-parse", f"{forged}^{{tree}}").strip(),
                  [forged])  # fmt: skip


def refused_as_state(crew: Team, synced_code: int, err: str, before: str) -> None:
    assert synced_code == 4, (synced_code, err)
    assert "coop.yaml: is not the state" in err, err
    assert tip(crew.victim) == before
    assert coop_in(crew.victim, "roles", "--json").json()["owners"] == [ALICE]
    assert coop_in(crew.victim, "fsck", "--full").code == 0


def test_a_side_commit_is_checked_when_a_second_remote_builds_on_it(
    crew: Team, clones: Clones
) -> None:
    forged = forged_owner_aside(crew)
    backup = clones.root / "backup.git"
    git(clones.root, "init", "-q", "--bare", str(backup))
    git(crew.mallory, "push", "-q", str(backup), f"{on_forged(crew, forged)}:{REF}")
    git(crew.victim, "remote", "add", "backup", str(backup))
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync", "backup")
    refused_as_state(crew, synced.code, synced.err, before)


def test_a_side_commit_is_checked_when_a_rewrite_is_accepted(crew: Team) -> None:
    """Whether this clone puts its history back (H4) or takes the rewrite, the fetched
    chain's states are checked, F's included."""
    forged = forged_owner_aside(crew)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{on_forged(crew, forged)}:{REF}")
    before = tip(crew.victim)
    for options in ((), ("--accept-rewrite",)):
        synced = coop_in(crew.victim, "sync", *options)
        refused_as_state(crew, synced.code, synced.err, before)


def test_a_tip_holding_this_clones_aside_without_its_events_is_not_taken(
    crew: Team, clones: Clones
) -> None:
    """H5: a merge is checked against its first parent, so a history may hold a commit
    aside without that commit's events; a clone never moves its ledger to one that
    drops its own. mallory offers, on a second remote, a merge of the victim's tip aside
    of its parent's tree: a fast-forward for the victim, and the victim's last event
    would be gone."""
    assert coop_in(crew.victim, "note", crew.todo, "the victim's own work").code == 0
    assert coop_in(crew.victim, "sync").code == 0
    assert coop_in(crew.mallory, "sync").code == 0
    ours = tip(crew.victim)
    older = git(crew.mallory, "rev-parse", f"{ours}^").strip()
    content = files(crew.mallory, older)
    data = codec.load(content["coop.yaml"], "coop.yaml")
    data["clock"] = codec.load(files(crew.mallory, ours)["coop.yaml"], "coop.yaml")["clock"]
    tree = write_tree(crew.mallory, {**content, "coop.yaml": codec.dump(data)})
    dropped = commit(crew.mallory, tree, [older, ours])
    backup = clones.root / "backup.git"
    git(clones.root, "init", "-q", "--bare", str(backup))
    git(crew.mallory, "push", "-q", str(backup), f"{dropped}:{REF}")
    git(crew.victim, "remote", "add", "backup", str(backup))
    synced = coop_in(crew.victim, "sync", "backup")
    assert synced.code == 4, (synced.code, synced.err)
    assert "events are never dropped" in synced.err, synced.err
    assert tip(crew.victim) == ours
    notes = coop_in(crew.victim, "show", crew.todo, "--json").json()
    assert "the victim's own work" in str(notes)
