"""Ledger format 1 (the previous release) read, checked and upgraded on the first write.

`tests/fixtures/format1.bundle` is a ledger the previous release wrote (two
clones, a role change, two offline takes of one todo with the loser's
conflict, a done, a merge with the local side first, notes): the real bytes,
not a re-creation. A format-1 history is checked as format 1 was, at its last
commit; the first write makes coop.yaml format 2 (with the keys its events
fold to) and touches no event file (docs/sync.md, "Ledger format 2").
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gitcoop.store.ledger.layout import REF
from tests.conftest import Clones, Result, coop_in, git
from tests.hostile.forge import add_event, commit, files, new_event, push, write_tree

BUNDLE = Path(__file__).parents[2] / "fixtures" / "format1.bundle"


def remote_from_bundle(clones: Clones) -> Path:
    bare = clones.root / "remote.git"
    git(bare, "fetch", "-q", str(BUNDLE), f"{REF}:{REF}")
    return bare


def event_files(path: Path, ref: str = REF) -> dict[str, str]:
    listing = git(path, "ls-tree", "-r", ref, "events").splitlines()
    return {line.split("\t")[1]: line.split()[2] for line in listing}


def coop_yaml(path: Path) -> str:
    return git(path, "cat-file", "-p", f"{REF}:coop.yaml")


def test_a_format_1_ledger_is_taken_in_as_it_is(clones: Clones) -> None:
    remote_from_bundle(clones)
    carol = clones.clone("carol")
    synced = coop_in(carol, "sync")
    assert synced.code == 0, synced.err
    assert "format: 1" in coop_yaml(carol)  # reading it writes nothing
    listed = coop_in(carol, "list", "--all", "--json").json()
    assert {i["title"]: i["status"] for i in listed} == {
        "write the docs": "taken",
        "fix the test": "done",
    }
    [docs] = [i for i in listed if i["title"] == "write the docs"]
    assert docs["taken_by"] == "bob@example.com" and len(docs["conflicts"]) == 1
    checked = coop_in(carol, "fsck", "--full")
    assert checked.code == 0, checked.out + checked.err


def test_the_first_write_upgrades_without_touching_an_event(clones: Clones) -> None:
    remote_from_bundle(clones)
    carol = clones.clone("carol")
    assert coop_in(carol, "sync").code == 0
    before = event_files(carol)
    added = coop_in(carol, "add", "todo", "after the upgrade", "--json")
    assert added.code == 0, added.err
    after = event_files(carol)
    assert {k: v for k, v in after.items() if k in before} == before  # every event as it was
    [new] = set(after) - set(before)
    assert len(new.rsplit("-", 1)[1].removesuffix(".yaml")) == 26  # named by its content
    text = coop_yaml(carol)
    assert "format: 2" in text and "keys:" in text and "kept_out" not in text
    assert "bob@example.com" in text  # the roles carried over
    checked = coop_in(carol, "fsck", "--full")
    assert checked.code == 0, checked.out + checked.err
    assert coop_in(carol, "sync").code == 0
    dave = clones.clone("dave", "dave@example.com")
    assert coop_in(dave, "sync").code == 0
    titles = {i["title"] for i in coop_in(dave, "list", "--all", "--json").json()}
    assert titles == {"write the docs", "fix the test", "after the upgrade"}
    assert coop_in(dave, "fsck", "--full").code == 0


def test_work_on_a_format_1_remote_merges_and_upgrades_it(clones: Clones) -> None:
    """A merge is a write: the remote's format-1 tip first, this clone's work joined after."""
    bare = remote_from_bundle(clones)
    carol, erin = clones.clone("carol"), clones.clone("erin", "erin@example.com")
    for path in (carol, erin):
        assert coop_in(path, "sync").code == 0
    todo = next(
        i["id"]
        for i in coop_in(carol, "list", "--all", "--json").json()
        if i["title"] == "fix the test"
    )
    assert coop_in(carol, "note", todo, "carol's note").code == 0
    assert coop_in(erin, "note", todo, "erin's note").code == 0
    assert coop_in(carol, "sync").code == 0
    assert coop_in(erin, "sync").code == 0  # a merge: carol's upgraded tip first
    assert git(bare, "cat-file", "-p", f"{REF}:coop.yaml").count("format: 2") == 1
    first = git(bare, "rev-parse", f"{REF}^1").strip()
    assert first == git(carol, "rev-parse", REF).strip()
    for path in (carol, erin):
        assert coop_in(path, "sync").code == 0
        assert coop_in(path, "fsck", "--full").code == 0
    notes = [e.get("text") for e in coop_in(carol, "log", todo, "--json").json()]
    assert {"carol's note", "erin's note"} <= set(notes)


# the last release that wrote format 1 (the commit before format 2's model)
FORMAT_1_RELEASE = "80c9511"
CHECKOUT = Path(__file__).parents[3]


def test_a_gitcoop_of_format_1_refuses_a_format_2_ledger(clones: Clones, tmp_path: Path) -> None:
    """The previous release, run as it is from this repository's history, refuses the
    ledger this one writes with a sentence that says to upgrade, and changes nothing."""
    found = subprocess.run(
        ["git", "-C", str(CHECKOUT), "cat-file", "-e", f"{FORMAT_1_RELEASE}^{{commit}}"],
        capture_output=True,
    )
    if found.returncode != 0:
        pytest.skip(f"the release {FORMAT_1_RELEASE} is not in this checkout's history")
    old = tmp_path / "release"
    old.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(CHECKOUT), "archive", FORMAT_1_RELEASE, "gitcoop"],
        capture_output=True, check=True,
    ).stdout  # fmt: skip
    subprocess.run(["tar", "-x", "-C", str(old)], input=archive, check=True)
    alice = clones.clone("alice")
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "add", "todo", "new work").code == 0
    assert "format: 2" in coop_yaml(alice)
    before = git(alice, "rev-parse", REF)
    ran = subprocess.run(
        [sys.executable, "-c", "from gitcoop.cli.main import run; run()", "list"],
        cwd=alice, env={**os.environ, "PYTHONPATH": str(old)}, capture_output=True, text=True,
    )  # fmt: skip
    assert ran.returncode == 4, (ran.returncode, ran.stderr)
    assert "ledger format 2 is not supported (this gitcoop reads format 1)" in ran.stderr
    assert "upgrade gitcoop" in ran.stderr and "Traceback" not in ran.stderr
    assert git(alice, "rev-parse", REF) == before


# -- format-1 commits after the upgrade ----------------------------------------------------


def upgraded(clones: Clones) -> tuple[Path, Path, str]:
    """erin's first write upgraded the bundle's ledger to format 2 on origin, and carol
    holds it; mallory has fetched it. The bundle's format-1 tip."""
    bare = remote_from_bundle(clones)
    old_tip = git(bare, "rev-parse", REF).strip()
    erin, carol, mallory = (clones.clone(n) for n in ("erin", "carol", "mallory"))
    assert coop_in(erin, "sync").code == 0
    assert coop_in(erin, "add", "todo", "after the upgrade").code == 0
    assert coop_in(erin, "sync").code == 0
    assert coop_in(carol, "sync").code == 0 and "format: 2" in coop_yaml(carol)
    git(mallory, "fetch", "-q", "origin", f"{REF}:{REF}")
    return carol, mallory, old_tip


def on_other_remote(clones: Clones, mallory: Path, carol: Path, commit_id: str) -> Result:
    other = clones.root / "other.git"
    git(clones.root, "init", "-q", "--bare", str(other))
    git(mallory, "push", "-q", str(other), f"{commit_id}:{REF}")
    git(carol, "remote", "add", "other", str(other))
    return coop_in(carol, "sync", "other")


def test_a_format_1_commit_written_after_the_upgrade_joins_no_format_2_ledger(
    clones: Clones,
) -> None:
    """Format 1 is history once a clone's ledger is format 2 and the remote's last tip it
    took in was too: format 1's own rules believed what its coop.yaml kept out, so a
    format-1 fork written after the upgrade (here on a second remote) could keep the
    owners' events out and make its writer the owner."""
    carol, mallory, old_tip = upgraded(clones)
    tree = git(mallory, "rev-parse", f"{old_tip}^{{tree}}").strip()
    fork = commit(mallory, tree, [old_tip])
    before = git(carol, "rev-parse", REF)
    synced = on_other_remote(clones, mallory, carol, fork)
    assert synced.code == 4, (synced.code, synced.err)
    assert "format 1" in synced.err, synced.err
    assert git(carol, "rev-parse", REF) == before


def test_a_format_1_commit_held_aside_is_checked_when_built_on(clones: Clones) -> None:
    """H3: a format-1 commit carol took in only aside (a merge's second parent) is
    checked once a fetched chain makes it a first parent, as format 1 was: here its
    coop.yaml names mallory the owner, which no event of the ledger makes so. carol's
    ledger is still format 1 (she has not written since she took it in)."""
    bare = remote_from_bundle(clones)
    old_tip = git(bare, "rev-parse", REF).strip()
    carol, mallory = clones.clone("carol"), clones.clone("mallory")
    assert coop_in(carol, "sync").code == 0 and "format: 1" in coop_yaml(carol)
    git(mallory, "fetch", "-q", "origin", f"{REF}:{REF}")
    content = files(mallory, old_tip)
    forged = content["coop.yaml"].replace(b"- alice@example.com", b"- mallory@example.com")
    assert forged != content["coop.yaml"]
    aside = commit(mallory, write_tree(mallory, {**content, "coop.yaml": forged}), [old_tip])
    tree = git(mallory, "rev-parse", f"{old_tip}^{{tree}}").strip()
    git(mallory, "push", "-q", "origin", f"{commit(mallory, tree, [old_tip, aside])}:{REF}")
    assert coop_in(carol, "sync").code == 0  # an empty merge, the forgery only aside
    owners = coop_in(carol, "roles", "--json").json()["owners"]
    before = git(carol, "rev-parse", REF)
    synced = on_other_remote(clones, mallory, carol, aside)
    assert synced.code == 4, (synced.code, synced.err)
    assert "its roles are not the fold" in synced.err, synced.err
    assert git(carol, "rev-parse", REF) == before
    assert coop_in(carol, "roles", "--json").json()["owners"] == owners


def test_an_id_of_the_content_form_is_its_content_in_any_commit(clones: Clones) -> None:
    """H5: an event whose id has format 2's form (26 characters) is named by its content
    whatever the format of the commit that adds it. A format-1 commit could otherwise
    carry a signed event's id (and path) for content of its own, on a side branch whose
    merge then took the signed commit for its writer (issue of a path twin)."""
    bare = remote_from_bundle(clones)
    old_tip = git(bare, "rev-parse", REF).strip()
    carol, mallory = clones.clone("carol"), clones.clone("mallory")
    git(mallory, "fetch", "-q", "origin", f"{REF}:{REF}")
    content = files(mallory, old_tip)
    todo = next(n.split("/")[2] for n in content if n.startswith("events/") and "/td-" in n)
    data = new_event(content, todo, "note", text="mine", event_id="ev-" + "m" * 26)
    forged = add_event(content, data, rename=False)
    kept = content["coop.yaml"].replace(b"clock: 8", f"clock: {data['clock']}".encode())
    assert b"format: 1" in kept and kept != content["coop.yaml"]
    forged["coop.yaml"] = kept  # a format-1 commit, as the previous release wrote them
    push(mallory, commit(mallory, write_tree(mallory, forged), [old_tip]))
    synced = coop_in(carol, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    assert "its id is not the one its content gives" in synced.err, synced.err


def test_a_team_moving_over_takes_the_old_releases_format_1_commits(clones: Clones) -> None:
    """The previous release records no tip taken in: erin, who came from it, upgrades by
    a write of her own before any sync, while bob's old release pushes format-1 work. She
    has taken in no format-2 tip from anywhere, so format 1 is still her team's format:
    his commit joins, and her sync pushes the upgrade."""
    bare = remote_from_bundle(clones)
    erin, bob = clones.clone("erin"), clones.clone("bob2", "bob@example.com")
    for path in (erin, bob):  # both hold the format-1 ledger, as the old release left it
        git(path, "fetch", "-q", "origin", f"{REF}:{REF}")
    assert coop_in(erin, "add", "todo", "erin's, upgraded").code == 0
    assert "format: 2" in coop_yaml(erin)
    content = files(bob)
    todo = next(n.split("/")[2] for n in content if n.startswith("events/") and "/td-" in n)
    data = new_event(content, todo, "note", actor="bob@example.com", text="old release")
    data["id"] = "ev-" + "b" * 12  # the old release's random ids
    noted = add_event(content, data, rename=False)
    noted["coop.yaml"] = content["coop.yaml"].replace(
        b"clock: 8", f"clock: {data['clock']}".encode()
    )
    old_tip = git(bob, "rev-parse", REF).strip()
    push(bob, commit(bob, write_tree(bob, noted), [old_tip], "bob@example.com"))
    synced = coop_in(erin, "sync")
    assert synced.code == 0, (synced.code, synced.err)
    assert "format: 2" in git(bare, "cat-file", "-p", f"{REF}:coop.yaml")
    assert coop_in(erin, "fsck", "--full").code == 0


def test_fsck_folds_a_format_1_history_once_at_its_last_commit(
    clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The format-1 part of a history is checked as format 1 was, at its last commit only
    (a fold of the whole ledger each time), whatever commits aside its merges hold: the
    bundle's history merges two commits of alice's aside."""
    from gitcoop.store.boundary import format1

    remote_from_bundle(clones)
    carol = clones.clone("carol")
    assert coop_in(carol, "sync").code == 0
    folded: list[str] = []
    real = format1.check_tip

    def counted(*args: Any, **kwargs: Any) -> Any:
        folded.append(args[2])
        return real(*args, **kwargs)

    monkeypatch.setattr(format1, "check_tip", counted)
    checked = coop_in(carol, "fsck", "--full")
    assert checked.code == 0, checked.out + checked.err
    assert folded == [git(carol, "rev-parse", REF).strip()]
