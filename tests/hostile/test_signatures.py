"""#5 Under require_signed, an event counts only when its author's registered key signed it.

The team of `forge.team` (alice owns the ledger, mallory is a chief, bob is
the victim) registers a key each and alice turns the policy on; everything
before that was unsigned and stays valid. mallory then forges with git
plumbing: unsigned, signed with her own key under alice's name, signed with
a key nobody registered, signed with a key alice has retired.

Since ledger format 2 (docs/hardening.md, H2 and H3) a forged event is refused
where it joins: a conflict on its item marked `kept_out`, or a refused change of
the ledger's own roles, settings or keys (an fsck note), when mallory's tree is
the state an honest gitcoop computes for it ("honest"); and the whole fetch is
refused (exit 4) when her tree claims the event was applied ("claimed"), since a
first-parent commit's tree must be its state. There is no kept-out list in
coop.yaml any more, so the attacks on that list (keeping signed work out,
dropping an id from it) are restated against the item files that now hold the
refusal.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

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
from tests.hostile.policy import merge_content, rejoined, without
from tests.sshkeys import Key, make_key, sign_with

ROLES = {"owners": [ALICE], "chiefs": [MALLORY]}
TREES = ["honest", "claimed"]


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


def crafted(
    crew: Team,
    parent: str,
    events: list[dict[str, Any]],
    author: str,
    key: Path | None = None,
    honest: bool = True,
) -> str:
    """mallory's commit on `parent` adding `events` under `author`, signed with `key` (or
    not); not pushed. Its tree is the state an honest gitcoop computes for it (each event
    judged where it joins: one without its actor's signature refused), or, without
    `honest`, the forger's claim: every event applied as if its commit were signed."""
    content = files(crew.mallory, parent)
    for data in events:
        content = add_event(content, data)
    made = commit(crew.mallory, write_tree(crew.mallory, content), [parent], author, key=key)
    return rejoined(crew.mallory, made, key=key) if honest else made


def owner_event(content: dict[str, bytes]) -> dict[str, Any]:
    """alice making mallory an owner: the event mallory forges."""
    return new_event(content, LEDGER, "roles", actor=ALICE, action="add", role="owner", who=MALLORY)


def notes(path: Path, full: bool = True) -> list[str]:
    """fsck's notes (events refused where they joined); fsck finds no breach."""
    checked = coop_in(path, "fsck", *(["--full"] if full else []), "--json")
    assert checked.code == 0, checked.out
    found: list[str] = checked.json()["notes"]
    return found


def conflicts(path: Path, todo: str) -> list[dict[str, Any]]:
    shown = coop_in(path, "show", todo, "--json")
    assert shown.code == 0, shown.err
    found: list[dict[str, Any]] = shown.json()["conflicts"]
    return found


def refused_whole(crew: Team, bad: str, *fragments: str) -> None:
    """The victim's sync is refused (exit 4) naming `bad`, the ledger unchanged; the roles
    are alice's, bob's own signed work goes on, and fsck --full finds nothing."""
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4, synced.err
    for fragment in (f"commit {bad[:12]}", "the local ledger is unchanged", *fragments):
        assert fragment in synced.err, synced.err
    assert tip(crew.victim) == before
    assert crew.victim_runs("roles", "--json").json() == ROLES
    assert crew.victim_runs("note", crew.todo, "still working").code == 0  # signed, by bob
    assert crew.victim_runs("fsck", "--full").code == 0


def refused_where_it_joined(crew: Team, event_id: str, why: str) -> None:
    """The victim takes the commit in; the forged event is refused where it joined (an
    fsck note naming it and `why`); the roles are alice's and bob's work goes on."""
    synced = crew.victim_runs("sync")
    assert synced.code == 0, synced.err
    assert crew.victim_runs("roles", "--json").json() == ROLES
    found = [n for n in notes(crew.victim) if event_id in n]
    assert len(found) == 1 and why in found[0], (why, found)
    assert crew.victim_runs("note", crew.todo, "still working").code == 0  # signed, by bob


NOT_THE_STATE = "coop.yaml: is not the state its first parent and the events it adds make"


@pytest.mark.parametrize("tree", TREES)
@pytest.mark.parametrize("signer", ["unsigned", "mallorys-key", "a-strangers-key"])
def test_a_forged_alice_adds_mallory_is_refused(
    crew: Team, keys: dict[str, Key], signer: str, tree: str
) -> None:
    """alice's `roles add owner mallory`, in a commit "by alice" that mallory pushes:
    unsigned, signed with mallory's own (registered) key, or with a key nobody
    registered. Refused where it joins, for the reason git's verdict gives."""
    key = {"unsigned": None, "mallorys-key": "mallory", "a-strangers-key": "stranger"}[signer]
    private = keys[key].private if key else None
    forged = owner_event(files(crew.mallory))
    bad = crafted(crew, tip(crew.mallory), [forged], ALICE, private, honest=tree == "honest")
    push(crew.mallory, bad)
    if tree == "claimed":
        refused_whole(crew, bad, NOT_THE_STATE)
        return
    why = {
        "unsigned": f"no signature, where a key registered to {ALICE} must sign",
        "mallorys-key": f"signed by {keys['mallory'].fingerprint} ({MALLORY}'s), "
        f"not by a key registered to {ALICE}",
        "a-strangers-key": f"signed by {keys['stranger'].fingerprint}, not by a key registered",
    }[signer]
    refused_where_it_joined(crew, str(forged["id"]), why)


def forged_then_honest(crew: Team, keys: dict[str, Key], forged: dict[str, Any]) -> str:
    """mallory's push: one unsigned commit "by alice" holding `forged` (its tree honest:
    the event refused where it joins), then a signed note of her own on top; the forged
    commit's id."""
    bad = crafted(crew, tip(crew.mallory), [forged], ALICE)
    note = new_event(files(crew.mallory, bad), crew.todo, "note", text="mine")
    push(crew.mallory, crafted(crew, bad, [note], MALLORY, keys["mallory"].private))
    return bad


def test_good_and_bad_mixed_the_unsigned_events_are_conflicts_kept_out(
    crew: Team, keys: dict[str, Key], clones: Clones
) -> None:
    content = files(crew.mallory)
    forged = new_event(content, crew.todo, "release", actor=ALICE, reason="x")
    forged_then_honest(crew, keys, forged)
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["merge"] == "fast-forward"  # the refusal is in the remote's tree
    item = crew.victim_runs("show", crew.todo, "--json").json()
    assert item["status"] == "taken" and item["taken_by"] == ALICE  # the forged release: out
    assert [(c["event"], c.get("kept_out")) for c in item["conflicts"]] == [(forged["id"], True)]
    notes_ = [e for e in crew.victim_runs("log", crew.todo, "--json").json() if e["verb"] == "note"]
    assert notes_[-1]["actor"] == MALLORY  # her own signed work is taken
    assert crew.victim_runs("fsck", "--full").code == 0
    # alice is not told she lost anything: it was never hers
    told = coop_in(crew.alice, "sync", "--json")
    assert told.code == 0 and told.json()["lost"] == [], told.out
    # only an owner settles it
    bob = crew.victim_runs("resolve", crew.todo, forged["id"], "--dismiss", "--reason", "forged")
    assert bob.code == 1 and "only an owner" in bob.err
    settled = coop_in(crew.alice, "resolve", crew.todo, forged["id"], "--dismiss", "--reason", "x")
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


def test_a_forged_role_change_among_good_work_is_refused_where_it_joins(
    crew: Team, keys: dict[str, Key]
) -> None:
    """A real merge with the victim's local work: the forged change stays refused (the
    merge's first parent is the remote's tip, whose state holds the refusal), and fsck
    lists it for the owners as a note (exit 0), no longer as a breach."""
    owner = owner_event(files(crew.mallory))
    forged_then_honest(crew, keys, owner)
    assert crew.victim_runs("add", "todo", "diverged: a real merge").code == 0
    assert crew.victim_runs("sync").code == 0
    assert crew.victim_runs("roles", "--json").json() == ROLES
    merge = tip(crew.victim)
    assert len(git(crew.victim, "rev-list", "--parents", "-1", merge).split()) == 3
    found = [n for n in notes(crew.victim, full=False) if owner["id"] in n]
    assert len(found) == 1 and "no signature" in found[0], found


@pytest.mark.parametrize("tree", TREES)
def test_a_forged_policy_switch_cannot_vouch_for_what_follows(
    crew: Team, keys: dict[str, Key], tree: str
) -> None:
    """alice's forged `require_signed false` (unsigned), then mallory's unsigned note, then
    her signed one. The switch is refused where it joins, so the policy holds for the
    unsigned note after it (a conflict kept out); the signed note counts. A tree that
    claims the switch applied is refused whole."""
    content = files(crew.mallory)
    off = new_event(content, LEDGER, "config", actor=ALICE, key="require_signed", value=False)
    first = crafted(crew, tip(crew.mallory), [off], ALICE, honest=tree == "honest")
    if tree == "claimed":
        assert config(files(crew.mallory, first)).settings.get("require_signed") is not True
    sneak = new_event(files(crew.mallory, first), crew.todo, "note", text="unsigned")
    second = crafted(crew, first, [sneak], MALLORY, honest=tree == "honest")
    honest = new_event(files(crew.mallory, second), crew.todo, "note", text="signed")
    third = crafted(crew, second, [honest], MALLORY, keys["mallory"].private)
    push(crew.mallory, third)
    if tree == "claimed":
        refused_whole(crew, first, NOT_THE_STATE)
        return
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert crew.victim_runs("config", "require_signed", "--json").json()["value"] is True
    out = [c["event"] for c in conflicts(crew.victim, crew.todo) if c.get("kept_out")]
    assert out == [sneak["id"]], out
    logged = [e["id"] for e in crew.victim_runs("log", crew.todo, "--json").json()]
    assert honest["id"] in logged
    found = notes(crew.victim)
    assert any(off["id"] in n for n in found) and any(sneak["id"] in n for n in found), found


@pytest.mark.parametrize("how", ["kept-out-list", "item-without-it"])
def test_a_ledger_that_keeps_signed_work_out_is_refused(
    crew: Team, keys: dict[str, Key], how: str
) -> None:
    """mallory's signed commit that makes the todo's take (alice's, long joined) not count.
    Formerly a kept-out list in coop.yaml naming it, which no commit justified; format 2
    has no such list (coop.yaml holding one is refused as format 1's), and the refusal of
    an event lives in its item, which is its state: a todo folded without the take is not
    what its events make (H3)."""
    content = files(crew.mallory)
    take = next(e for e in events_of(content, crew.todo) if e.verb == "take")
    if how == "kept-out-list":
        data = config(content).to_data()
        data["kept_out"] = [take.id]
        forged, said = with_config(content, data), "kept_out is a format-1 list"
    else:
        forged = without(content, take.id)
        todo = f"items/{crew.todo[3:5]}/{crew.todo}.yaml"
        assert forged[todo] != content[todo]
        said = f"{todo}: is not the state its events make"
    bad = publish(crew.mallory, forged, key=keys["mallory"].private)
    refused_whole(crew, bad, said)
    shown = crew.victim_runs("show", crew.todo, "--json").json()
    assert shown["taken_by"] == ALICE


def test_a_later_commit_that_stops_keeping_an_event_out_is_refused(
    crew: Team, keys: dict[str, Key]
) -> None:
    """Formerly: a fast-forward whose coop.yaml no longer kept an event out. Now what
    joined stays decided (H1): after the forged release was refused where it joined (and
    the victim took that in), mallory's signed commit adding nothing, whose todo shows the
    release applied after all, is not the state its events make (H3)."""
    content = files(crew.mallory)
    forged = new_event(content, crew.todo, "release", actor=ALICE, reason="x")
    start = tip(crew.mallory)
    forged_then_honest(crew, keys, forged)
    assert crew.victim_runs("sync").code == 0  # refused where it joined, and pushed
    git(crew.mallory, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/ledger")
    content = files(crew.mallory)
    todo = f"items/{crew.todo[3:5]}/{crew.todo}.yaml"
    claim = merge_content(crew.mallory, start, tip(crew.mallory), claim=True)[todo]
    assert claim != content[todo]
    bad = publish(crew.mallory, {**content, todo: claim}, key=keys["mallory"].private)
    refused_whole(crew, bad, f"{todo}: is not the state its events make")
    shown = crew.victim_runs("show", crew.todo, "--json").json()
    assert shown["taken_by"] == ALICE
    assert [c["event"] for c in shown["conflicts"] if c.get("kept_out")] == [forged["id"]]


@pytest.mark.parametrize("tree", TREES)
def test_a_duplicate_judged_against_a_forgery_refused_where_it_joined(
    crew: Team, keys: dict[str, Key], tree: str
) -> None:
    """A forged, unsigned close of item T, then mallory's own signed verification calling
    U a duplicate of T. Formerly the remote folded the close in (T closed, U a draft) and
    each clone kept the forgery out and folded U again. Now the close is refused where it
    joins, so T is open when U's verdict joins and the verdict stands: the remote's tree
    says so, and every clone takes that tip as it is. A tree that applies the forged
    close is refused whole."""
    first, second = (
        coop_in(crew.alice, "add", "item", title, "--json").json()["id"]
        for title in ("Fix first toast", "Fix second toast")
    )
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0, path
    content = files(crew.mallory)
    forged = new_event(content, first, "edit_item", actor=ALICE, status="closed")
    bad = crafted(crew, tip(crew.mallory), [forged], ALICE, honest=tree == "honest")
    content = files(crew.mallory, bad)
    verify = new_event(content, second, "verify")
    content = add_event(content, verify)
    verdict = new_event(
        content,
        second,
        "verdict",
        verdict="duplicate",
        duplicate_of=first,
        reason="the same defect",
    )
    signed = crafted(crew, bad, [verify, verdict], MALLORY, keys["mallory"].private)
    held = files(crew.mallory, signed)[f"items/{second[3:5]}/{second}.yaml"]
    assert (b"status: draft" in held) == (tree == "claimed")  # T closed only in the claim
    push(crew.mallory, signed)
    if tree == "claimed":
        refused_whole(crew, bad, f"items/{first[3:5]}/{first}.yaml: is not the state")
        return
    assert coop_in(crew.alice, "pull").code == 0
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    shown = crew.victim_runs("show", second, "--json").json()
    assert (shown["status"], shown["duplicate_of"]) == ("duplicate", first)
    closed = crew.victim_runs("show", first, "--json").json()
    assert closed["status"] == "draft"
    assert [(c["event"], c.get("kept_out")) for c in closed["conflicts"]] == [(forged["id"], True)]
    assert crew.victim_runs("fsck", "--full").code == 0
    assert tip(crew.alice) == tip(crew.victim) == signed
    assert coop_in(crew.alice, "fsck", "--full").code == 0


def test_a_forgery_the_remote_already_refused_is_taken_as_it_is(crew: Team) -> None:
    """Formerly: a remote whose coop.yaml already kept the forgery out. Now the refusal is
    in the remote's tree itself (the release a conflict kept out): a fast-forward."""
    content = files(crew.mallory)
    forged = new_event(content, crew.todo, "release", actor=ALICE, reason="x")
    bad = crafted(crew, tip(crew.mallory), [forged], ALICE)
    push(crew.mallory, bad)
    synced = crew.victim_runs("sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["merge"] == "fast-forward" and tip(crew.victim) == bad
    found = conflicts(crew.victim, crew.todo)
    assert [(c["event"], c.get("kept_out")) for c in found] == [(forged["id"], True)]
    assert crew.victim_runs("show", crew.todo, "--json").json()["taken_by"] == ALICE
    assert crew.victim_runs("fsck", "--full").code == 0


def test_the_signed_work_of_a_chief_is_taken_and_her_claim_to_own_refused_by_the_fold(
    crew: Team,
) -> None:
    assert coop_in(crew.mallory, "note", crew.todo, "honest and signed").code == 0
    claim = coop_in(crew.mallory, "roles", "add", "owner", MALLORY)
    assert claim.code == 1  # her own gitcoop refuses it; a hand-made one is refused by the fold
    assert coop_in(crew.mallory, "sync").code == 0
    assert crew.victim_runs("sync").code == 0
    notes_ = [e for e in crew.victim_runs("log", crew.todo, "--json").json() if e["verb"] == "note"]
    assert notes_[-1]["actor"] == MALLORY


@pytest.mark.parametrize("tree", TREES)
def test_key_rotation_keeps_the_history_verifying(
    crew: Team, keys: dict[str, Key], clones: Clones, tree: str
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
    git(crew.mallory, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/ledger")
    late = new_event(files(crew.mallory), crew.todo, "note", actor=ALICE, text="old key, stolen")
    private = keys["alice"].private
    bad = crafted(crew, tip(crew.mallory), [late], ALICE, private, honest=tree == "honest")
    push(crew.mallory, bad)
    if tree == "claimed":
        refused_whole(crew, bad, f"items/{crew.todo[3:5]}/{crew.todo}.yaml: is not the state")
        return
    refused_where_it_joined(
        crew, str(late["id"]), f"signed by {keys['alice'].fingerprint}, not by a key registered"
    )
    [conflict] = [c for c in conflicts(crew.victim, crew.todo) if c["event"] == late["id"]]
    assert conflict.get("kept_out") is True, conflict


@pytest.mark.parametrize("tree", TREES)
def test_fsck_full_reports_the_commits_not_signed_by_their_authors_key(
    crew: Team, tree: str
) -> None:
    """Formerly a "signature" breach naming the first such commit and their count. fsck now
    recomputes each commit's state (rule "state"): the forged events refused where they
    joined are notes, one each (exit 0); a tree that claims them applied is a breach
    naming its commit (exit 1), found by plain fsck too (a first fsck checks every commit)."""
    honest = tree == "honest"
    forged = owner_event(files(crew.mallory))
    first = crafted(crew, tip(crew.mallory), [forged], ALICE, honest=honest)
    note = new_event(files(crew.mallory, first), crew.todo, "note", actor=BOB, text="x")
    second = crafted(crew, first, [note], BOB, honest=honest)
    git(crew.mallory, "update-ref", "refs/coop/ledger", second)  # past the boundary, by hand
    checked = coop_in(crew.mallory, "fsck", "--full", "--json")
    if honest:
        assert checked.code == 0, checked.out
        found = checked.json()["notes"]
        for event_id, commit_id in ((forged["id"], first), (note["id"], second)):
            [said] = [n for n in found if event_id in n]
            assert f"commit {commit_id[:12]}" in said and "no signature" in said, said
        return
    assert checked.code == 1, checked.out
    breaches = [b for b in checked.json()["error"]["breaches"] if b["rule"] == "state"]
    assert any(f"commit {first[:12]}" in b["message"] for b in breaches), breaches
    assert coop_in(crew.mallory, "fsck").code == 1


def test_git_verify_commit_agrees_with_the_victims_ledger_on_every_commit(
    crew: Team, keys: dict[str, Key]
) -> None:
    """gitcoop's verdict is git's, plus one rule git leaves out: the key is the author's.
    Formerly compared with `trust.judge`; now with what the victim's ledger shows after
    syncing: each event a commit under the policy adds counts (in its item's log, no
    conflict) exactly when `git verify-commit` says the commit's author signed it, and is
    a conflict marked kept_out otherwise."""
    for n in range(3):
        assert coop_in(crew.alice, "note", crew.todo, f"signed {n}").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert crew.victim_runs("note", crew.todo, "bob's").code == 0
    assert crew.victim_runs("sync").code == 0
    assert coop_in(crew.alice, "sync").code == 0  # a signed merge on alice's side
    git(crew.mallory, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/ledger")
    parent = tip(crew.mallory)
    for n, (author, key) in enumerate(
        [
            (ALICE, None),
            (ALICE, keys["mallory"].private),
            (ALICE, keys["stranger"].private),
            (MALLORY, keys["mallory"].private),
        ]
    ):
        data = new_event(files(crew.mallory, parent), crew.todo, "note", actor=author)
        parent = crafted(crew, parent, [{**data, "text": f"crafted {n}"}], author, key)
    push(crew.mallory, parent)
    assert crew.victim_runs("sync").code == 0
    assert tip(crew.victim) == parent
    allowed = crew.mallory.parent / "allowed"
    allowed.write_text(coop_in(crew.mallory, "keys", "export").out)
    kept_out = {str(c["event"]) for c in conflicts(crew.victim, crew.todo) if c.get("kept_out")}
    logged = {str(e["id"]) for e in crew.victim_runs("log", crew.todo, "--json").json()}
    covered = 0
    for made in git(crew.victim, "rev-list", "--no-merges", "--min-parents=1", REF).split():
        before = git(crew.victim, "rev-parse", f"{made}^").strip()
        if not config(files(crew.victim, before)).settings.get("require_signed"):
            continue  # written before the policy: no signature asked
        author = git(crew.victim, "log", "-1", "--format=%ae", made).strip()
        git_says = git_good_for(crew.victim, allowed, made)
        for item_id, event_id in added_events(crew.victim, before, made):
            assert item_id == crew.todo  # (every event after the policy is a note on it)
            covered += 1
            counts = event_id not in kept_out
            assert counts == (git_says == author), (made[:12], author, git_says, event_id)
            assert event_id in logged
    assert covered >= 8
    assert len(kept_out) == 3


def added_events(path: Path, parent: str, made: str) -> list[tuple[str, str]]:
    """(item id, event id) of each event file `made` adds to `parent`."""
    names = git(path, "diff-tree", "-r", "--name-only", "--diff-filter=A", parent, made)
    return [
        (n.split("/")[2], n.rsplit("/", 1)[1].split("-", 1)[1].removesuffix(".yaml"))
        for n in names.split()
        if n.startswith("events/")
    ]


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
