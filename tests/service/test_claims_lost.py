"""The loser of an offline race is told loudly (sync exits 8) and keeps seeing it
(`list --mine`, `owed --mine`) until they acknowledge it; turning claims on and off."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in, git
from tests.service.hook_helpers import commit, with_gitcoop_on_path
from tests.service.test_sync import offline_takes


def raced(clones: Clones) -> tuple[Path, Path, str]:
    """Alice and bob took one todo offline, alice first; after syncing, (loser, winner, todo)."""
    a, b = clones.clone("alice"), clones.clone("bob")
    assert coop_in(a, "init").code == 0
    todo = coop_in(a, "add", "todo", "contested", "--json").json()["id"]
    assert coop_in(a, "sync").code == 0 and coop_in(b, "sync").code == 0
    offline_takes(a, b, todo)
    codes = [coop_in(path, "sync").code for path in (a, b, a)]
    assert codes == [0, 8, 0]  # bob's later take lost: his sync says so, alice's do not
    return b, a, todo


def test_the_loser_sees_the_loss_in_list_and_owed_mine_until_they_acknowledge_it(
    clones: Clones,
) -> None:
    loser, winner, todo = raced(clones)
    mine = coop_in(loser, "list", "--mine", "--json")
    assert [i["id"] for i in mine.json()] == [todo]
    assert "your take lost on merge" in coop_in(loser, "list", "--mine").out
    owed = [o for o in coop_in(loser, "owed", "--mine", "--json").json() if o["kind"] == "lost"]
    assert [(o["item"], o["verb"], o["acknowledged"]) for o in owed] == [(todo, "take", False)]
    assert "git coop ack" in coop_in(loser, "owed", "--mine").out
    # the winner holds it: theirs, and nothing lost
    held = coop_in(winner, "list", "--mine", "--json").json()
    assert [(i["id"], i["status"]) for i in held] == [(todo, "taken")]
    theirs = coop_in(winner, "owed", "--mine", "--json").json()
    assert [o for o in theirs if o["kind"] == "lost"] == []
    nothing = coop_in(winner, "ack", todo)  # nothing waits for them: a repeat's answer (#14)
    assert nothing.code == 0 and "nothing to acknowledge" in nothing.out
    lost_event = coop_in(winner, "show", todo, "--json").json()["conflicts"][0]["event"]
    refused = coop_in(winner, "ack", todo, lost_event)
    assert refused.code == 1 and "only the person whose event lost" in refused.err
    assert coop_in(loser, "ack", todo, "ev-i").code == 1  # no event id has an "i"

    plain = coop_in(loser, "owed", "--json").json()  # not only with --mine, like takeovers
    assert [(o["kind"], o["item"]) for o in plain if o["kind"] == "lost"] == [("lost", todo)]
    assert coop_in(loser, "owed", "--check").code == 6  # an agent loop stops on it

    acked = coop_in(loser, "ack", todo)
    assert acked.code == 0, acked.err
    assert coop_in(loser, "list", "--mine", "--json").json() == []
    after = coop_in(loser, "owed", "--mine", "--json").json()
    assert [o for o in after if o["kind"] == "lost"] == []
    conflict = coop_in(loser, "show", todo, "--json").json()["conflicts"][0]
    assert conflict["acknowledged"] is True  # still there for the owners to settle
    again = coop_in(loser, "ack", todo)
    assert again.code == 0 and "nothing to acknowledge" in again.out
    assert [e["verb"] for e in coop_in(loser, "log", todo, "--json").json()].count("ack") == 1
    assert coop_in(loser, "sync").code == 0  # told once: nothing new lost
    assert coop_in(winner, "sync").code == 0
    seen = coop_in(winner, "show", todo, "--json").json()["conflicts"][0]
    assert seen["acknowledged"] is True


def test_remote_setup_turns_claims_on_and_off(clones: Clones) -> None:
    a = clones.clone("alice")
    on = coop_in(a, "remote", "setup", "origin", "--claims")
    assert on.code == 0 and "origin now decides claims" in on.out
    assert git(a, "config", "coop.claims").strip() == "origin"
    again = coop_in(a, "remote", "setup", "origin", "--claims", "--json").json()
    assert (again["added"], again["claims"]) == (False, "origin")
    off = coop_in(a, "remote", "setup", "origin", "--no-claims")
    assert off.code == 0 and "decided in each clone again" in off.out
    assert git(a, "config", "coop.claims", check=False) == ""
    plain = coop_in(a, "remote", "setup", "origin", "--json").json()
    assert "claims" not in plain


def test_claims_through_a_remote_that_is_not_configured_is_a_usage_error(
    clones: Clones,
) -> None:
    a = clones.clone("alice")
    assert coop_in(a, "init").code == 0
    todo = coop_in(a, "add", "todo", "x", "--json").json()["id"]
    git(a, "config", "coop.claims", "upstream")
    result = coop_in(a, "take", todo)
    assert result.code == 2
    assert "coop.claims names 'upstream'" in result.err and "--unset coop.claims" in result.err


def test_a_commit_hook_records_locally_and_the_next_command_pushes_it(
    clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    a = clones.clone("alice")
    monkeypatch.chdir(a)
    with_gitcoop_on_path(monkeypatch)
    assert coop_in(a, "init").code == 0
    todo = coop_in(a, "add", "todo", "x", "--json").json()["id"]
    assert coop_in(a, "remote", "setup", "origin", "--claims").code == 0
    assert coop_in(a, "sync").code == 0
    assert coop_in(a, "hooks", "install").code == 0
    remote = clones.root / "remote.git"
    before = git(remote, "rev-parse", "refs/coop/ledger")
    commit(a, f"Fix it\n\nCoop-Done: {todo}\n")
    assert git(remote, "rev-parse", "refs/coop/ledger") == before  # a hook never pushes
    assert coop_in(a, "show", todo, "--json").json()["status"] == "done"
    assert coop_in(a, "add", "todo", "next", "--json").code == 0
    assert git(remote, "rev-parse", "refs/coop/ledger") == git(a, "rev-parse", "refs/coop/ledger")


def test_an_offline_claim_that_lost_is_told_at_the_next_claim_through_the_remote(
    clones: Clones,
) -> None:
    a, b = clones.clone("alice"), clones.clone("bob")
    assert coop_in(a, "init").code == 0
    ids = [coop_in(a, "add", "todo", f"t{n}", "--json").json()["id"] for n in range(2)]
    for path in (a, b):
        assert coop_in(path, "remote", "setup", "origin", "--claims").code == 0
        assert coop_in(path, "sync").code == 0
    remote = clones.root / "remote.git"
    remote.rename(clones.root / "away.git")
    assert coop_in(a, "note", ids[1], "offline work first").code == 0  # stays here
    offline = coop_in(a, "take", ids[0], "--offline")
    assert offline.code == 0 and "--offline" in offline.err
    (clones.root / "away.git").rename(remote)
    assert coop_in(b, "take", ids[0]).code == 0  # decided by the remote, one clock earlier
    told = coop_in(a, "take", ids[1])
    assert told.code == 0, told.err
    assert "your take of td-" in told.err and "lost to bob@example.com" in told.err
    assert "git coop ack" in told.err
    mine = coop_in(a, "list", "--mine", "--json").json()
    assert sorted(i["id"] for i in mine) == sorted(ids)  # the one lost, the one held
    assert coop_in(a, "show", ids[0], "--json").json()["taken_by"] == "bob@example.com"
