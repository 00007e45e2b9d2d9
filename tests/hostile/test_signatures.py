"""#5 Under require_signed, a commit is believed only when its author's registered key signed it.

The team of `forge.team` (alice owns the ledger, mallory is a chief, bob is
the victim) registers a key each and alice turns the policy on; everything
before that was unsigned and stays valid. mallory then forges with git
plumbing: unsigned, signed with her own key under alice's name, signed with
a key nobody registered, signed with a key alice has retired.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gitcoop.domain import rulebook
from gitcoop.store import codec
from gitcoop.store.inbound import Reader
from gitcoop.store.repository import Oid, open_repo
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    BOB,
    LEDGER,
    MALLORY,
    REF,
    Team,
    add_event,
    commit,
    config,
    events_of,
    files,
    new_event,
    publish,
    push,
    team,
    tip,
    with_config,
    write_tree,
)
from tests.sshkeys import Key, make_key, sign_with


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Key]:
    names = ("alice", "mallory", "bob", "stranger", "alice-new")
    return {name: make_key(tmp_path / "keys", name) for name in names}


@pytest.fixture
def crew(clones: Clones, tmp_path: Path, keys: dict[str, Key]) -> Team:
    crew = team(clones, tmp_path)
    for path, name in ((crew.alice, "alice"), (crew.mallory, "mallory"), (crew.victim, "bob")):
        sign_with(path, keys[name])
    for who, name in ((ALICE, "alice"), (MALLORY, "mallory"), (BOB, "bob")):
        assert coop_in(crew.alice, "keys", "add", who, str(keys[name].public)).code == 0
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    return crew


def forged_owner(crew: Team) -> dict[str, bytes]:
    """The ledger with one more event: alice making mallory an owner."""
    content = files(crew.mallory)
    forged = new_event(
        content, LEDGER, "roles", actor=ALICE, action="add", role="owner", who=MALLORY
    )
    return add_event(content, forged)


def refused(crew: Team, bad: str, *fragments: str) -> None:
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4, synced.err
    for fragment in (f"commit {bad[:12]}", *fragments):
        assert fragment in synced.err, synced.err
    assert tip(crew.victim) == before
    roles = crew.victim_runs("roles", "--json").json()
    assert roles == {"owners": [ALICE], "chiefs": [MALLORY]}
    assert crew.victim_runs("note", crew.todo, "still working").code == 0  # signed, by bob
    assert crew.victim_runs("fsck", "--full").code == 0


def test_a_forged_alice_adds_mallory_pushed_by_mallory_is_refused(crew: Team) -> None:
    bad = publish(crew.mallory, forged_owner(crew), author=ALICE)
    refused(crew, bad, "no signature, where a key registered to alice@example.com must sign")


def test_alices_name_with_mallorys_own_key_is_refused(crew: Team, keys: dict[str, Key]) -> None:
    bad = publish(crew.mallory, forged_owner(crew), author=ALICE, key=keys["mallory"].private)
    refused(
        crew,
        bad,
        f"signed by {keys['mallory'].fingerprint} (it is mallory@example.com's), "
        "not by a key registered to alice@example.com",
    )


def test_a_key_nobody_registered_is_refused(crew: Team, keys: dict[str, Key]) -> None:
    bad = publish(crew.mallory, forged_owner(crew), author=ALICE, key=keys["stranger"].private)
    refused(crew, bad, f"signed by {keys['stranger'].fingerprint}, not by a key registered")


def forged_then_honest(crew: Team, keys: dict[str, Key], *forged: dict[str, object]) -> str:
    """mallory's push: one unsigned commit "by alice" holding `forged` events, then a signed
    note of her own on top; the forged commit's id."""
    content = files(crew.mallory)
    for data in forged:
        content = add_event(content, data)
    bad = commit(crew.mallory, write_tree(crew.mallory, content), [tip(crew.mallory)], ALICE)
    note = new_event(content, crew.todo, "note", event_id="ev-nnnnnnnnnnnn", text="mine")
    on_top = write_tree(crew.mallory, add_event(content, note))
    push(crew.mallory, commit(crew.mallory, on_top, [bad], MALLORY, key=keys["mallory"].private))
    return bad


def conflicts(path: Path, todo: str) -> list[dict[str, object]]:
    shown = coop_in(path, "show", todo, "--json")
    assert shown.code == 0, shown.err
    found: list[dict[str, object]] = shown.json()["conflicts"]
    return found


def test_good_and_bad_mixed_the_unsigned_events_are_kept_out_as_conflicts(
    crew: Team, keys: dict[str, Key], clones: Clones
) -> None:
    content = files(crew.mallory)
    forged = new_event(
        content, crew.todo, "release", actor=ALICE, event_id="ev-ffffffffffff", reason="x"
    )
    forged_then_honest(crew, keys, forged)
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["kept_out"] == ["ev-ffffffffffff"]
    item = crew.victim_runs("show", crew.todo, "--json").json()
    assert item["status"] == "taken" and item["taken_by"] == ALICE  # the forged release: out
    assert [(c["event"], c["kept_out"]) for c in item["conflicts"]] == [("ev-ffffffffffff", True)]
    notes = [e for e in crew.victim_runs("log", crew.todo, "--json").json() if e["verb"] == "note"]
    assert notes[-1]["actor"] == MALLORY  # her own signed work is taken
    assert crew.victim_runs("fsck", "--full").code == 0
    # alice is not told she lost anything: it was never hers
    told = coop_in(crew.alice, "sync", "--json")
    assert told.code == 0 and told.json()["lost"] == [], told.out
    # only an owner settles it
    bob = crew.victim_runs("resolve", crew.todo, "ev-ffff", "--dismiss", "--reason", "forged")
    assert bob.code == 1 and "only an owner" in bob.err
    settled = coop_in(crew.alice, "resolve", crew.todo, "ev-ffff", "--dismiss", "--reason", "x")
    assert settled.code == 0, settled.err
    assert conflicts(crew.alice, crew.todo) == []
    assert coop_in(crew.alice, "sync").code == 0
    # every clone that has seen the same events holds the same files
    fresh = clones.clone("carol")
    assert coop_in(fresh, "sync").code == 0
    assert crew.victim_runs("sync").code == 0
    for path in (fresh, crew.victim):
        assert files(path) == files(crew.alice)
        assert coop_in(path, "fsck", "--full").code == 0


def test_a_forged_role_change_among_good_work_is_kept_out_of_the_roles(
    crew: Team, keys: dict[str, Key]
) -> None:
    content = files(crew.mallory)
    owner = new_event(
        content, LEDGER, "roles", actor=ALICE, action="add", role="owner", who=MALLORY
    )
    forged_then_honest(crew, keys, owner)
    assert crew.victim_runs("add", "todo", "diverged: a real merge").code == 0
    assert crew.victim_runs("sync").code == 0
    roles = crew.victim_runs("roles", "--json").json()
    assert roles == {"owners": [ALICE], "chiefs": [MALLORY]}
    merge = tip(crew.victim)
    assert len(git(crew.victim, "rev-list", "--parents", "-1", merge).split()) == 3
    checked = crew.victim_runs("fsck", "--json")
    assert checked.code == 1  # the refused change of the ledger is listed for the owners
    assert any("kept out" in b["message"] for b in checked.json()["breaches"])


def test_a_forged_policy_switch_cannot_vouch_for_what_follows(
    crew: Team, keys: dict[str, Key]
) -> None:
    content = files(crew.mallory)
    off = new_event(content, LEDGER, "config", actor=ALICE, key="require_signed", value=False)
    content = add_event(content, off)
    first = commit(crew.mallory, write_tree(crew.mallory, content), [tip(crew.mallory)], ALICE)
    sneak = new_event(content, crew.todo, "note", event_id="ev-ssssssssssss", text="unsigned")
    content = add_event(content, sneak)
    second = commit(crew.mallory, write_tree(crew.mallory, content), [first], MALLORY)
    honest = new_event(content, crew.todo, "note", event_id="ev-hhhhhhhhhhhh", text="signed")
    content = add_event(content, honest)
    third = commit(
        crew.mallory, write_tree(crew.mallory, content), [second], key=keys["mallory"].private
    )
    push(crew.mallory, third)
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert sorted(synced.json()["kept_out"]) == sorted([off["id"], "ev-ssssssssssss"])
    config = crew.victim_runs("config", "require_signed", "--json").json()
    assert config["value"] is True


def refolded(content: dict[str, bytes], todo: str, kept_out: set[str]) -> dict[str, bytes]:
    """The ledger with coop.yaml keeping `kept_out` out and the todo folded that way."""
    data = config(content).to_data()
    data["kept_out"] = sorted(kept_out)
    if not kept_out:
        data.pop("kept_out")
    item = rulebook.fold(events_of(content, todo), config(content).roles, kept_out)
    assert item is not None
    path = f"items/{todo[3:5]}/{todo}.yaml"
    return {**with_config(content, data), path: codec.dump(item.to_data())}


def test_a_ledger_that_keeps_signed_work_out_is_refused(crew: Team, keys: dict[str, Key]) -> None:
    content = files(crew.mallory)
    take = next(e for e in events_of(content, crew.todo) if e.verb == "take")
    publish(crew.mallory, refolded(content, crew.todo, {take.id}), key=keys["mallory"].private)
    synced = crew.victim_runs("sync")
    assert synced.code == 4 and f"keeps {take.id} out, though no commit" in synced.err


def test_a_fast_forward_that_stops_keeping_an_event_out_is_refused(
    crew: Team, keys: dict[str, Key]
) -> None:
    content = files(crew.mallory)
    forged = new_event(
        content, crew.todo, "release", actor=ALICE, event_id="ev-ffffffffffff", reason="x"
    )
    forged_then_honest(crew, keys, forged)
    assert crew.victim_runs("sync").code == 0  # kept out, and pushed
    git(crew.mallory, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/ledger")
    content = files(crew.mallory)
    assert config(content).kept_out == ("ev-ffffffffffff",)
    publish(crew.mallory, refolded(content, crew.todo, set()), key=keys["mallory"].private)
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4 and "no longer keeps ev-ffffffffffff out" in synced.err
    assert tip(crew.victim) == before


def test_a_duplicate_judged_against_a_forgery_kept_out_is_folded_again(
    crew: Team, keys: dict[str, Key]
) -> None:
    """A forged, unsigned close of item T, then mallory's own signed verification calling
    U a duplicate of T. On the remote U's verdict finds T closed, so U is a draft; the
    victim keeps the forgery out, so T is open there and U's verdict stands: U is folded
    again in the commit that keeps the forgery out, and every clone agrees."""
    first, second = (
        coop_in(crew.alice, "add", "item", title, "--json").json()["id"]
        for title in ("Fix first toast", "Fix second toast")
    )
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0, path
    content = files(crew.mallory)
    forged = new_event(
        content, first, "edit_item", actor=ALICE, event_id="ev-ffffffffffff", status="closed"
    )
    content = add_event(content, forged)
    bad = commit(crew.mallory, write_tree(crew.mallory, content), [tip(crew.mallory)], ALICE)
    content = add_event(content, new_event(content, second, "verify", event_id="ev-vvvvvvvvvvvv"))
    verdict = new_event(
        content,
        second,
        "verdict",
        event_id="ev-wwwwwwwwwwww",
        verdict="duplicate",
        duplicate_of=first,
        reason="the same defect",
    )
    content = add_event(content, verdict)
    assert b"status: draft" in content[f"items/{second[3:5]}/{second}.yaml"]  # T was closed
    signed = commit(crew.mallory, write_tree(crew.mallory, content), [bad], MALLORY,
                    key=keys["mallory"].private)  # fmt: skip
    push(crew.mallory, signed)
    assert coop_in(crew.alice, "pull").code == 0  # alice keeps it out too, on her own

    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["kept_out"] == ["ev-ffffffffffff"]
    shown = crew.victim_runs("show", second, "--json").json()
    assert (shown["status"], shown["duplicate_of"]) == ("duplicate", first)
    assert crew.victim_runs("show", first, "--json").json()["status"] == "draft"
    assert crew.victim_runs("fsck", "--full").code == 0
    assert tip(crew.alice) != tip(crew.victim)
    assert files(crew.alice, REF + ":items") == files(crew.victim, REF + ":items")
    assert coop_in(crew.alice, "fsck", "--full").code == 0


def test_a_forgery_the_remote_already_keeps_out_is_taken_as_it_is(crew: Team) -> None:
    content = files(crew.mallory)
    forged = new_event(
        content, crew.todo, "release", actor=ALICE, event_id="ev-ffffffffffff", reason="x"
    )
    content = add_event(content, forged)
    bad = commit(crew.mallory, write_tree(crew.mallory, content), [tip(crew.mallory)], ALICE)
    kept = publish(crew.mallory, refolded(content, crew.todo, {"ev-ffffffffffff"}), parents=[bad])
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["merge"] == "fast-forward" and tip(crew.victim) == kept
    assert [c["event"] for c in conflicts(crew.victim, crew.todo)] == ["ev-ffffffffffff"]
    assert crew.victim_runs("fsck", "--full").code == 0


def test_the_signed_work_of_a_chief_is_taken_and_her_claim_to_own_refused_by_the_fold(
    crew: Team,
) -> None:
    assert coop_in(crew.mallory, "note", crew.todo, "honest and signed").code == 0
    claim = coop_in(crew.mallory, "roles", "add", "owner", MALLORY)
    assert claim.code == 1  # her own gitcoop refuses it; a hand-made one is refused by the fold
    assert coop_in(crew.mallory, "sync").code == 0
    assert crew.victim_runs("sync").code == 0
    notes = [e for e in crew.victim_runs("log", crew.todo, "--json").json() if e["verb"] == "note"]
    assert notes[-1]["actor"] == MALLORY


def test_key_rotation_keeps_the_history_verifying(
    crew: Team, keys: dict[str, Key], clones: Clones
) -> None:
    assert coop_in(crew.alice, "note", crew.todo, "with the old key").code == 0
    assert coop_in(crew.alice, "keys", "add", ALICE, str(keys["alice-new"].public)).code == 0
    sign_with(crew.alice, keys["alice-new"])
    assert coop_in(crew.alice, "keys", "remove", ALICE, str(keys["alice"].public)).code == 0
    assert coop_in(crew.alice, "note", crew.todo, "with the new key").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert crew.victim_runs("sync").code == 0
    fresh = clones.clone("carol")
    assert coop_in(fresh, "sync").code == 0  # the whole history, old key and new
    for path in (crew.victim, fresh):
        checked = coop_in(path, "fsck", "--full")
        assert checked.code == 0, checked.out
    # the retired key signs nothing any more, even under alice's own name
    content = files(crew.mallory)
    git(crew.mallory, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/ledger")
    content = files(crew.mallory)
    late = new_event(content, crew.todo, "note", actor=ALICE, text="old key, stolen")
    bad = publish(crew.mallory, add_event(content, late), ALICE, key=keys["alice"].private)
    refused(crew, bad, f"signed by {keys['alice'].fingerprint}, not by a key registered")


def test_fsck_full_reports_the_first_commit_not_signed_by_its_authors_key(
    crew: Team, keys: dict[str, Key]
) -> None:
    forged = forged_owner(crew)
    first = commit(crew.mallory, write_tree(crew.mallory, forged), [tip(crew.mallory)], ALICE)
    note = new_event(forged, crew.todo, "note", actor=BOB, event_id="ev-nnnnnnnnnnnn", text="x")
    second = commit(crew.mallory, write_tree(crew.mallory, add_event(forged, note)), [first], BOB)
    git(crew.mallory, "update-ref", "refs/coop/ledger", second)  # past the boundary, by hand
    checked = coop_in(crew.mallory, "fsck", "--full", "--json")
    assert checked.code == 1
    breaches = [b for b in checked.json()["breaches"] if b["rule"] == "signature"]
    assert len(breaches) == 1
    assert f"commit {first[:12]}" in breaches[0]["message"]
    assert "2 such commits" in breaches[0]["message"]
    assert coop_in(crew.mallory, "fsck").code == 0  # only --full reads the signatures


def test_git_verify_commit_agrees_with_gitcoop_on_every_ledger_commit(
    crew: Team, keys: dict[str, Key]
) -> None:
    """gitcoop's verdict is git's, plus one rule git leaves out: the key is the author's."""
    for n in range(3):
        assert coop_in(crew.alice, "note", crew.todo, f"signed {n}").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert crew.victim_runs("note", crew.todo, "bob's").code == 0
    assert crew.victim_runs("sync").code == 0
    assert coop_in(crew.alice, "sync").code == 0  # a signed merge on alice's side
    git(crew.mallory, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/ledger")
    content = files(crew.mallory)
    parent = tip(crew.mallory)
    for n, (author, key) in enumerate(
        [
            (ALICE, None),
            (ALICE, keys["mallory"].private),
            (ALICE, keys["stranger"].private),
            (MALLORY, keys["mallory"].private),
        ]
    ):
        data = new_event(content, crew.todo, "note", actor=author, event_id=f"ev-f{n}" + "0" * 10)
        content = add_event(content, {**data, "text": f"crafted {n}"})
        parent = commit(crew.mallory, write_tree(crew.mallory, content), [parent], author, key=key)
    allowed = crew.mallory.parent / "allowed"
    allowed.write_text(coop_in(crew.mallory, "keys", "export").out)
    repo = open_repo(str(crew.mallory))
    judged = trust.judge(
        trust.LedgerStates(repo, Reader(repo)), trust.history(repo, Oid(parent)), Oid(parent)
    )
    assert len(judged.covered) >= 8
    bad = {broken.commit.info.oid for broken in judged.broken}
    for covered in judged.covered:
        git_says = git_good_for(crew.mallory, allowed, covered.info.oid)
        assert (git_says == covered.info.author) == (covered.info.oid not in bad), covered.info
    assert len(bad) == 3


def git_good_for(repo: Path, allowed: Path, commit_id: str) -> str | None:
    """Whom `git verify-commit` says signed the commit (its principal), or None."""
    done = subprocess.run(
        ["git", "-c", f"gpg.ssh.allowedSignersFile={allowed}", "verify-commit", commit_id],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    found = re.search(r'Good "git" signature for (\S+)', done.stderr)
    return found.group(1) if done.returncode == 0 and found else None
