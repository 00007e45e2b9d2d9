"""#4 coop.yaml is the state its first parent and its events make, on every path (H3), and
each event is its commit author's (H6).

Since format 2 the message no longer says "roles/settings are not the fold": a coop.yaml
edited by hand is refused as "coop.yaml: is not the state its first parent and the events
it adds make" (store/boundary/joining.py holds_state), for roles, settings and keys alike.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    MALLORY,
    Team,
    add_event,
    commit,
    config,
    files,
    new_event,
    publish,
    push,
    team,
    tip,
    with_config,
    write_tree,
)

NOT_THE_STATE = "coop.yaml: is not the state its first parent and the events it adds make"


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def refused(crew: Team, fragment: str, where: Path | None = None) -> None:
    path = where or crew.victim
    before = tip(path) if where is None else None
    synced = crew.victim_runs("sync") if where is None else coop_in(path, "sync")
    assert synced.code == 4 and fragment in synced.err, synced.err
    if before is not None:
        assert tip(path) == before
        roles = crew.victim_runs("roles", "--json").json()
        assert roles == {"owners": [ALICE], "chiefs": [MALLORY]}
        assert crew.victim_runs("take", crew.todo, "--force").code == 0  # work goes on
        assert crew.victim_runs("fsck").code == 0


def sole_owner(crew: Team) -> None:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["roles"] = {"owners": [MALLORY], "chiefs": []}
    publish(crew.mallory, with_config(content, data))


def test_a_fast_forward_never_trusts_coop_yaml_roles(crew: Team) -> None:
    sole_owner(crew)
    refused(crew, NOT_THE_STATE)


def test_a_merge_never_trusts_coop_yaml_roles(crew: Team) -> None:
    assert crew.victim_runs("add", "todo", "local work").code == 0  # diverged: a real merge
    sole_owner(crew)
    refused(crew, NOT_THE_STATE)


def test_a_fresh_clone_never_trusts_coop_yaml_roles(crew: Team, clones: Clones) -> None:
    sole_owner(crew)
    fresh = clones.clone("carol")
    refused(crew, NOT_THE_STATE, where=fresh)
    assert coop_in(fresh, "list").code == 4  # nothing was taken in: there is no ledger here


def test_a_forged_role_event_in_the_attackers_own_commit_is_refused(crew: Team) -> None:
    content = files(crew.mallory)
    forged = new_event(
        content, LEDGER, "roles", actor=ALICE, action="add", role="owner", who=MALLORY
    )
    publish(crew.mallory, add_event(content, forged))  # authored by mallory
    refused(crew, "an event by 'alice@example.com' in a commit authored by 'mallory@example.com'")


def test_settings_edited_without_an_owners_event_are_refused(crew: Team) -> None:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["settings"] = {"topup_threshold": 100_000}
    publish(crew.mallory, with_config(content, data))
    refused(crew, NOT_THE_STATE)


def test_a_chiefs_own_role_event_is_refused_by_the_fold_not_taken(crew: Team) -> None:
    """The event is refused where it joins (H2): roles stay alice's. Since format 2 such a
    refusal is no breach of the ledger but a note fsck lists for the owners (exit 0)."""
    content = files(crew.mallory)
    claim = new_event(content, LEDGER, "roles", action="add", role="owner", who=MALLORY)
    publish(crew.mallory, add_event(content, claim))  # honest authorship, no right to it
    assert crew.victim_runs("sync").code == 0
    roles = crew.victim_runs("roles", "--json").json()
    assert roles == {"owners": [ALICE], "chiefs": [MALLORY]}
    checked = crew.victim_runs("fsck")
    assert checked.code == 0, checked.out  # the refused change is listed for the owners
    [note] = [line for line in checked.out.splitlines() if line.startswith("note:")]
    assert claim["id"] in note and MALLORY in note, note
    assert crew.victim_runs("take", crew.todo, "--force").code == 0  # work goes on


def test_a_merge_commit_that_adds_an_event_of_its_own_is_refused(crew: Team) -> None:
    content = files(crew.mallory)
    first = add_event(content, new_event(content, crew.todo, "note", text="one"))
    side = commit(crew.mallory, write_tree(crew.mallory, first), [tip(crew.mallory)])
    forged = new_event(first, crew.todo, "note", actor=ALICE, text="x")
    merged = write_tree(crew.mallory, add_event(first, forged))
    push(crew.mallory, commit(crew.mallory, merged, [tip(crew.mallory), side], author=ALICE))
    refused(crew, "a merge commit adds an event of its own")


def test_without_signed_commits_a_forged_author_is_believed(crew: Team) -> None:
    """What remains possible (docs/hardening.md): naming alice as the author of a commit.

    Only commit signatures checked against keys the ledger records would close
    this; until then the fold, the bounds and the clocks still hold.
    """
    content = files(crew.mallory)
    forged = new_event(
        content, LEDGER, "roles", actor=ALICE, action="add", role="owner", who=MALLORY
    )
    publish(crew.mallory, add_event(content, forged), author=ALICE)
    assert crew.victim_runs("sync").code == 0
    assert MALLORY in crew.victim_runs("roles", "--json").json()["owners"]
