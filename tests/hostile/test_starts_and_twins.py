"""Owners switching the signing policy and registering keys offline at once, and honest
unsigned work caught between switches (ledger format 2, docs/hardening.md H2).

This module first tested two rules: one commit adds the policy's start (`trust._Starts`,
keyed by file), and an item's folder holding one event id in two files is refused where
it arrives (`inbound.one_id_each`). Both are gone. There are no policy starts: a
commit's events are covered when the state they join requires signing (H2). Twin event
ids cannot be written at all: a format-2 event's id is its content's hash, so a second
file carrying another event's id is refused in the commit that adds it (H5); those
attacks (a second start file with the start's id, a signed twin of alice's note on a
fork pushed alone) are test_event_ids.py's now.

What must hold here: an honest team syncs cleanly on every path however its owners
switch the policy; work that joins after the policy without its author's registered key
joins as a conflict (or, for a change of the ledger's own keys, roles or settings, a
refused change: an fsck note), its author syncs on (never exit 4), and an owner settles
it.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import ALICE, BOB, files
from tests.hostile.policy import ROLES, believed, keyed_team, notes
from tests.sshkeys import Key, make_key, sign_with

DAVE = "dave@example.com"


def clean(where: Path, refused: tuple[str, ...] = ()) -> None:
    """fsck --full finds nothing broken, and the events refused where they joined (its
    notes) are exactly `refused`."""
    found = notes(where)
    assert len(found) == len(refused), f"{where.name}: {found}"
    assert all(any(r in note for note in found) for r in refused), f"{where.name}: {found}"


def synced(where: Path) -> list[str]:
    """A sync that exits 0 and loses nothing of anyone's; the events it refused for want
    of a signature."""
    done = coop_in(where, "sync", "--json")
    assert done.code == 0, f"{where.name}: sync exit {done.code}: {done.err.strip()}"
    assert done.json()["lost"] == [], done.out
    return list(done.json()["unsigned"])


def conflicts(where: Path, item: str) -> list[dict[str, object]]:
    return list(coop_in(where, "show", item, "--json").json()["conflicts"])


# -- honest teams -----------------------------------------------------------------------


def test_policy_on_off_on_and_on_twice_with_concurrent_offline_work_syncs_everywhere(
    clones: Clones, tmp_path: Path
) -> None:
    """alice turns the policy on, off, on (twice: once from each of two clones of hers,
    offline); bob (signing) writes offline throughout; syncs in both orders; a newcomer's
    first sync and fsck --full everywhere agree, nothing refused."""
    crew, keys = keyed_team(clones, tmp_path)
    laptop = clones.clone("alice2", ALICE)
    sign_with(laptop, keys["alice"])
    for where in (crew.alice, crew.mallory, crew.victim, laptop):
        assert synced(where) == []
    steps = [("true", crew.alice), ("false", laptop), ("true", crew.alice)]
    for n, (value, who) in enumerate(steps):
        assert coop_in(crew.victim, "note", crew.todo, f"bob offline {n}").code == 0
        assert coop_in(who, "config", "require_signed", value).code == 0
        assert coop_in(crew.mallory, "note", crew.todo, f"mallory {n}").code == 0
        order = (who, crew.victim, crew.mallory) if n % 2 else (crew.victim, who, crew.mallory)
        for where in order:
            assert synced(where) == [], where
    # alice turns it on again from both clones at once, offline, with bob writing
    assert coop_in(laptop, "sync").code == 0
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    assert coop_in(laptop, "config", "require_signed", "true").code == 0
    assert coop_in(crew.victim, "note", crew.todo, "bob offline last").code == 0
    for where in (laptop, crew.victim, crew.alice, crew.mallory, laptop, crew.victim):
        assert synced(where) == [], where
    fresh = clones.clone("erin")
    assert synced(fresh) == []
    for where in (crew.alice, laptop, crew.victim, crew.mallory, fresh):
        clean(where)
        assert conflicts(where, crew.todo) == []
    assert files(fresh) == files(crew.alice) == files(crew.victim)
    assert believed(fresh) == (ROLES, True)


# -- two owners acting offline at once -----------------------------------------------------


def two_owners(clones: Clones, tmp_path: Path) -> tuple[list[Path], dict[str, Key], str]:
    """alice and dave own the ledger, bob works on it; nobody signs yet. dave, offline,
    registers his own key and turns the policy on (his key registered before his switch:
    signed, as the policy asks); alice, offline at the same time, registers her own key
    and bob's and writes a note, all signed by her key. Nothing pushed yet. The clones
    (alice, dave, bob), the keys, the seed todo."""
    alice, dave, bob = (clones.clone(n) for n in ("alice", "dave", "bob"))
    keys = {n: make_key(tmp_path / "keys", n) for n in ("alice", "dave", "bob")}
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "roles", "add", "owner", DAVE).code == 0
    todo = coop_in(alice, "add", "todo", "seed", "--json").json()["id"]
    for where in (alice, dave, bob):
        assert synced(where) == []
    for where, name in ((alice, "alice"), (dave, "dave"), (bob, "bob")):
        sign_with(where, keys[name])
    assert coop_in(dave, "keys", "add", DAVE, str(keys["dave"].public)).code == 0
    assert coop_in(dave, "config", "require_signed", "true").code == 0
    assert coop_in(alice, "keys", "add", ALICE, str(keys["alice"].public)).code == 0
    assert coop_in(alice, "keys", "add", BOB, str(keys["bob"].public)).code == 0
    assert coop_in(alice, "note", todo, "alice offline").code == 0
    return [alice, dave, bob], keys, todo


def registered(where: Path) -> set[str]:
    listed = coop_in(where, "keys", "list", "--json").json()
    return {k["who"] for k in listed if k["status"] == "registered"}


def test_two_owners_acting_offline_at_once_alice_pushing_first_sync_cleanly(
    clones: Clones, tmp_path: Path
) -> None:
    """alice pushes first: her key registrations and note join where no policy is yet.
    dave's registration and switch join after them. Nothing is refused anywhere; every
    clone, a newcomer too, holds one ledger with the three keys and the policy on."""
    (alice, dave, bob), _, _ = two_owners(clones, tmp_path)
    for where in (alice, dave, alice, dave, bob):
        assert synced(where) == [], where.name
    fresh = clones.clone("erin")
    assert synced(fresh) == []
    for where in (alice, dave, bob, fresh):
        clean(where)
        assert registered(where) == {ALICE, BOB, DAVE}, where.name
    assert files(fresh) == files(alice) == files(dave)


def test_two_owners_acting_offline_at_once_dave_pushing_first_refuses_alices_registration(
    clones: Clones, tmp_path: Path
) -> None:
    """dave pushes first: the remote requires signing, with only dave's key registered.
    alice's sync merges her work after it: her two registrations and her note, signed by
    a key that state does not register to her, are refused where they join (H2): the
    note a conflict on the todo marked kept out, the registrations refused changes of
    the ledger's keys (fsck notes); she syncs on (exit 0, nothing lost). Until a key of
    hers is registered her own writes are refused before anything is written (exit 1).
    dave, an owner, registers her key again and applies her note; every clone and a
    newcomer then agree, the refusals kept in the history as notes."""
    (alice, dave, bob), keys, todo = two_owners(clones, tmp_path)
    assert synced(dave) == []
    refused = synced(alice)
    assert len(refused) == 3, refused
    assert registered(alice) == {DAVE}
    [note] = conflicts(alice, todo)
    assert note["kept_out"] is True and note["actor"] == ALICE, note
    assert note["event"] in refused
    clean(alice, tuple(refused))
    written = coop_in(alice, "note", todo, "alice again")
    assert written.code == 1 and "nothing was written" in written.err, written.err
    assert synced(dave) == []
    assert coop_in(dave, "keys", "add", ALICE, str(keys["alice"].public)).code == 0
    reason = ("--reason", "alice's own, signed before her key reached dave")
    applied = coop_in(dave, "resolve", todo, str(note["event"]), "--apply", *reason)
    assert applied.code == 0, applied.err
    assert synced(dave) == []
    assert synced(alice) == []
    assert coop_in(alice, "note", todo, "alice again").code == 0
    for where in (alice, dave, bob):
        assert synced(where) == [], where.name
    fresh = clones.clone("erin")
    assert synced(fresh) == []
    for where in (alice, dave, bob, fresh):
        clean(where, tuple(refused))
        assert conflicts(where, todo) == [], where.name
        assert registered(where) == {ALICE, DAVE}, where.name
    assert files(fresh) == files(alice) == files(dave) == files(bob)


# -- honest unsigned work caught between two switches ---------------------------------------


def test_bob_offline_unsigned_before_a_second_switch_then_resolve_apply_syncs_everywhere(
    clones: Clones, tmp_path: Path
) -> None:
    """The policy on, off, and bob (not signing while it is off) writes offline; alice turns
    it on again before bob's work arrives. Once bob's note was "beside the second start",
    kept out by alice, and bob's next sync had to agree (`held_breakers`, from two
    starts). Now his note joins after the second switch, wherever it is merged: refused
    where it joins, a conflict on the todo marked kept out, and bob syncs on. alice then
    `resolve --apply`s it; every clone and a newcomer agree, the note applied."""
    crew, _ = keyed_team(clones, tmp_path)
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    for where in (crew.alice, crew.mallory, crew.victim):
        assert synced(where) == []
    assert coop_in(crew.alice, "config", "require_signed", "false").code == 0
    for where in (crew.alice, crew.victim):
        assert synced(where) == []
    git(crew.victim, "config", "coop.sign", "false")
    assert coop_in(crew.victim, "note", crew.todo, "offline, unsigned").code == 0
    note = coop_in(crew.victim, "log", crew.todo, "--json").json()[-1]["id"]
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    assert synced(crew.alice) == []
    assert synced(crew.victim) == [note]  # merges the second switch, pushes the note
    git(crew.victim, "config", "coop.sign", "true")
    assert coop_in(crew.victim, "note", crew.todo, "again, signed").code == 0
    assert synced(crew.victim) == []
    assert synced(crew.alice) == []
    [conflict] = conflicts(crew.alice, crew.todo)
    assert (conflict["event"], conflict["kept_out"]) == (note, True), conflict
    resolved = coop_in(crew.alice, "resolve", crew.todo, note, "--apply", "--reason", "bob's own")
    assert resolved.code == 0, resolved.err
    for where in (crew.alice, crew.victim, crew.mallory, crew.alice):
        synced(where)
    fresh = clones.clone("erin")
    synced(fresh)
    for where in (crew.alice, crew.victim, crew.mallory, fresh):
        clean(where, (note,))
        assert conflicts(where, crew.todo) == [], where.name
    assert files(fresh) == files(crew.alice) == files(crew.victim) == files(crew.mallory)
    assert believed(fresh) == (ROLES, True)
