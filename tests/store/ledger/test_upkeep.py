"""The repository stays small: ledger writes start `git gc --auto` as git's commands do."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gitcoop.store.fast import packwrite
from gitcoop.store.fast.packwrite import INCOMING, KEEP_TEXT
from gitcoop.store.ledger import upkeep
from gitcoop.store.repository import open_repo
from tests.conftest import Clones, coop, coop_in, git
from tests.rawledger import open_raw


def loose_objects(repo: Path) -> list[Path]:
    objects = repo / ".git" / "objects"
    return [p for d in objects.glob("[0-9a-f][0-9a-f]") for p in d.iterdir()]


def seed_sample_dir(repo: Path, count: int) -> None:
    """`count` unreachable loose blobs in objects/17, the directory git estimates from.

    git keeps recent unreachable objects loose, so git's estimate stays over a
    gc.auto of 1 and every ledger write finds gc due: no test waits on chance
    landing objects in objects/17.
    """
    raw = open_raw(repo)
    made, n = 0, 0
    while made < count:
        content = b"seed %d" % n
        n += 1
        if hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest().startswith("17"):
            raw.create_blob(content)
            made += 1


def transitions(item: str, rounds: int) -> None:
    for _ in range(rounds):
        assert coop("take", item).code == 0
        assert coop("release", item, "--reason", "again").code == 0


def test_loose_objects_stay_bounded_over_many_transitions(ledger: Path) -> None:
    item = coop("add", "todo", "busy", "--json").json()["id"]
    git(ledger, "config", "gc.auto", "1")  # git's estimate: more than 1 loose object in 17/
    git(ledger, "config", "gc.autoDetach", "false")  # so this test need not wait for it
    seed_sample_dir(ledger, 2)
    packs_before = len(list((ledger / ".git" / "objects" / "pack").glob("*.pack")))
    for _ in range(10):
        transitions(item, 2)
        assert len(loose_objects(ledger)) <= 2  # only the unreachable seeds stay loose
    assert len(list((ledger / ".git" / "objects" / "pack").glob("*.pack"))) > packs_before
    assert coop("show", item).code == 0
    git(ledger, "fsck", "--no-dangling")


def test_between_git_s_gcs_the_ledger_s_loose_objects_are_packed(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = coop("add", "todo", "busy", "--json").json()["id"]
    git(ledger, "config", "gc.autoDetach", "false")  # git's gc.auto stays 6,700
    monkeypatch.setattr(upkeep, "PACK_EVERY", 0.0)  # no pause between two packs here
    seed_sample_dir(ledger, 2)  # over gitcoop's threshold (more than 1), far under git's (27)
    for _ in range(5):
        transitions(item, 2)
        assert len(loose_objects(ledger)) <= 2  # packed by `git repack -d` after each write
    assert not (ledger / ".git" / "gc.pid").exists()  # git's own gc never ran
    git(ledger, "fsck", "--no-dangling")


def test_while_git_s_gc_runs_the_loose_objects_are_still_packed(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = coop("add", "todo", "busy", "--json").json()["id"]
    git(ledger, "config", "gc.auto", "1")  # git's gc is due...
    git(ledger, "config", "gc.autoDetach", "false")
    (ledger / ".git" / "gc.pid").write_text("99999 elsewhere\n")  # ...and another holds it
    monkeypatch.setattr(upkeep, "PACK_EVERY", 0.0)
    seed_sample_dir(ledger, 2)
    for _ in range(3):
        transitions(item, 1)
        assert len(loose_objects(ledger)) <= 2  # `git repack -d` went on packing
    assert (ledger / ".git" / "gc.pid").read_text() == "99999 elsewhere\n"  # no gc started


def packs(repo: Path) -> set[str]:
    return {p.name for p in (repo / ".git" / "objects" / "pack").glob("*.pack")}


def keeps(repo: Path) -> list[Path]:
    return list((repo / ".git" / "objects" / "pack").glob("*.keep"))


def test_a_repack_starts_at_most_once_in_a_few_seconds(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = coop("add", "todo", "busy", "--json").json()["id"]
    git(ledger, "config", "gc.autoDetach", "false")
    monkeypatch.setattr(upkeep, "PACK_EVERY", 3600.0)  # however slow this machine is today
    seed_sample_dir(ledger, 2)
    transitions(item, 1)
    assert len(loose_objects(ledger)) == 0  # the seeds rolled up with the packs
    after_first = packs(ledger)
    transitions(item, 1)  # within PACK_EVERY: its two packs stay as they are for now
    assert len(packs(ledger) - after_first) == 2 and after_first <= packs(ledger)
    assert (ledger / ".git" / upkeep.STAMP).exists()


def test_a_transition_writes_one_pack_and_leaves_it_unkept(ledger: Path) -> None:
    git(ledger, "config", "gc.auto", "0")
    item = coop("add", "todo", "busy", "--json").json()["id"]
    before, loose = packs(ledger), loose_objects(ledger)
    assert coop("take", item).code == 0
    new = packs(ledger) - before
    assert len(new) == 1 and loose_objects(ledger) == loose
    listed = git(
        ledger, "verify-pack", "-v", str(ledger / ".git" / "objects" / "pack" / next(iter(new)))
    )
    tip = git(ledger, "rev-parse", "refs/coop/ledger").strip()
    assert tip in listed and "non delta: " in listed
    assert keeps(ledger) == []  # the ref names its objects: a repack may have them
    assert git(ledger, "fsck", "--strict", "--no-dangling").strip() == ""


def test_the_small_packs_are_rolled_into_one(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    item = coop("add", "todo", "busy", "--json").json()["id"]
    git(ledger, "config", "gc.autoDetach", "false")
    monkeypatch.setattr(upkeep, "PACK_EVERY", 0.0)
    for _ in range(upkeep.ROLL_AFTER * 2):
        transitions(item, 1)
        assert len(packs(ledger)) <= upkeep.ROLL_AFTER + 1
    assert not (ledger / ".git" / "gc.pid").exists()  # git's own gc never ran
    assert coop("show", item).code == 0
    git(ledger, "fsck", "--no-dangling")


def test_writers_and_git_s_gc_together_lose_nothing(ledger: Path) -> None:
    """Three writing processes at once, each finding gc due after every write: the gcs
    and roll-ups run beside the other processes' writes, and every write lands. (With
    loose objects and `gc --auto` alone, this lost the tip commit about one run in
    twenty: docs/performance.md, "The pack writer, measured again".)"""
    git(ledger, "config", "gc.auto", "1")
    git(ledger, "config", "gc.autoDetach", "false")
    seed_sample_dir(ledger, 2)
    script = (
        "import sys\nfrom gitcoop.cli.main import main\n"
        "sys.exit(max(main(['add', 'todo', f'{sys.argv[1]} {n}']) for n in range(6)))\n"
    )
    env = {**os.environ, "COOP_ACTOR": "alice@example.com", "COOP_SESSION": "s-gc"}
    writers = [
        subprocess.Popen([sys.executable, "-c", script, name], cwd=ledger, env=env)
        for name in ("a", "b", "c")
    ]
    assert [writer.wait() for writer in writers] == [0, 0, 0]
    titles = sorted(entry["title"] for entry in coop("list", "--json").json())
    assert titles == sorted(f"{name} {n}" for name in "abc" for n in range(6))
    git(ledger, "fsck", "--strict", "--no-dangling")


def test_a_keep_a_killed_writer_left_is_removed_in_time(ledger: Path) -> None:
    git(ledger, "config", "gc.auto", "0")  # removed even with gc off: it is no gc
    folder = ledger / ".git" / "objects" / "pack"
    gone = subprocess.Popen(["true"])
    gone.wait()  # a pid no process has now
    host = os.uname().nodename.encode()
    dead = b"%s (pid %d on %s)\n" % (KEEP_TEXT, gone.pid, host)
    alive = b"%s (pid %d on %s)\n" % (KEEP_TEXT, os.getpid(), host)
    elsewhere = b"%s (pid %d on another-host)\n" % (KEEP_TEXT, gone.pid)
    cases = {"dead": dead, "alive": alive, "elsewhere": elsewhere, "git": b"receive-pack 1\n"}
    old = time.time() - upkeep.KEEP_STALE - 60
    for name, text in cases.items():
        (folder / f"pack-{name}.keep").write_bytes(text)
        os.utime(folder / f"pack-{name}.keep", (old, old))
    (folder / "pack-fresh.keep").write_bytes(dead)  # a write still under way, for all we know
    week = time.time() - packwrite.ELSEWHERE_STALE - 60
    (folder / "pack-gone-elsewhere.keep").write_bytes(elsewhere)
    os.utime(folder / "pack-gone-elsewhere.keep", (week, week))
    upkeep.after_write(open_repo(str(ledger)))
    left = sorted(p.name for p in folder.glob("*.keep"))
    assert left == [f"pack-{n}.keep" for n in ("alive", "elsewhere", "fresh", "git")]


def test_a_gc_log_does_not_stop_the_roll_ups(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    item = coop("add", "todo", "busy", "--json").json()["id"]
    git(ledger, "config", "gc.auto", "1")  # git's gc is due at every write...
    git(ledger, "config", "gc.autoDetach", "false")
    seed_sample_dir(ledger, 2)
    (ledger / ".git" / "gc.log").write_text("warning: too many unreachable loose objects\n")
    monkeypatch.setattr(upkeep, "PACK_EVERY", 0.0)  # ...but refuses to run for its log
    for _ in range(upkeep.ROLL_AFTER + 4):
        transitions(item, 1)
        assert len(packs(ledger)) <= upkeep.ROLL_AFTER + 2
    git(ledger, "fsck", "--no-dangling")


def rolling(ledger: Path, monkeypatch: pytest.MonkeyPatch, after: int) -> str:
    """An item to move, with roll-ups due past `after` packs, waited for, never paused."""
    item = str(coop("add", "todo", "busy", "--json").json()["id"])
    git(ledger, "config", "gc.autoDetach", "false")
    monkeypatch.setattr(upkeep, "PACK_EVERY", 0.0)
    monkeypatch.setattr(upkeep, "ROLL_AFTER", after)
    return item


def test_a_roll_up_removes_what_a_killed_write_left(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = rolling(ledger, monkeypatch, 0)
    objects = ledger / ".git" / "objects"
    old = time.time() - upkeep.KEEP_STALE - 60
    stale_file, stale_folder = objects / f"{INCOMING}pack-1-ab", objects / f"{INCOMING}x1"
    fresh = objects / f"{INCOMING}pack-2-cd"
    stale_file.write_bytes(b"half a pack")
    stale_folder.mkdir()
    (stale_folder / "pack-1.pack").write_bytes(b"half")
    fresh.write_bytes(b"a pack being written")
    for path in (stale_file, stale_folder):
        os.utime(path, (old, old))
    transitions(item, 1)
    assert not stale_file.exists() and not stale_folder.exists() and fresh.exists()


def test_git_s_own_gc_still_comes_between_the_roll_ups(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = rolling(ledger, monkeypatch, 1)
    git(ledger, "config", "gc.autoPackLimit", "3")  # a gc after three roll-ups
    packed_refs = ledger / ".git" / "packed-refs"
    assert "refs/coop/ledger" not in (packed_refs.read_text() if packed_refs.exists() else "")
    transitions(item, 3)
    assert "refs/coop/ledger" in packed_refs.read_text()  # git gc packs the refs
    assert (ledger / ".git" / upkeep.STAMP).read_text().split()[1] in ("0", "1", "2")
    git(ledger, "fsck", "--no-dangling")


def test_a_multi_pack_index_is_kept_through_the_roll_ups(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = rolling(ledger, monkeypatch, 1)
    git(ledger, "multi-pack-index", "write")
    transitions(item, 2)
    assert (ledger / ".git" / "objects" / "pack" / "multi-pack-index").exists()
    git(ledger, "multi-pack-index", "verify")


def test_gc_auto_0_leaves_the_repository_alone(ledger: Path) -> None:
    git(ledger, "config", "gc.auto", "0")  # first: no write of this test may start a repack
    git(ledger, "config", "gc.autoDetach", "false")
    item = coop("add", "todo", "busy", "--json").json()["id"]
    seed_sample_dir(ledger, 2)
    before, loose = packs(ledger), loose_objects(ledger)
    transitions(item, 3)
    assert len(packs(ledger) - before) == 6 and before <= packs(ledger)  # one pack a write
    assert loose_objects(ledger) == loose


def test_the_estimate_is_git_s(tmp_path: Path) -> None:
    objects = tmp_path / "objects"
    (objects / "17").mkdir(parents=True)
    (objects / "pack").mkdir()
    limits = upkeep.Thresholds(loose=512, packs=2)  # 512 / 256: more than 2 in 17/
    for n in range(2):
        (objects / "17" / f"{n:038x}").write_bytes(b"")
    (objects / "17" / "tmp_obj_abc").write_bytes(b"")  # not an object name: not counted
    assert not upkeep.due(str(objects), limits)
    (objects / "17" / f"{2:038x}").write_bytes(b"")
    assert upkeep.due(str(objects), limits)
    assert not upkeep.due(str(objects), upkeep.Thresholds(loose=0, packs=2))  # gc.auto 0: off
    for name in ("a", "b", "c"):
        (objects / "pack" / f"pack-{name}.pack").write_bytes(b"")
    quiet = upkeep.Thresholds(loose=6700, packs=2)
    assert upkeep.due(str(objects), quiet)  # three packs, over gc.autoPackLimit 2
    (objects / "pack" / "pack-a.keep").write_bytes(b"")
    assert not upkeep.due(str(objects), quiet)  # a kept pack is not counted, as in git


def test_the_thresholds_are_read_as_git_reads_them(ledger: Path) -> None:
    assert upkeep.Thresholds.of(open_repo(str(ledger))) == upkeep.Thresholds(6700, 50, True)
    git(ledger, "config", "gc.auto", "7k")
    git(ledger, "config", "gc.autoPackLimit", "0")
    git(ledger, "config", "gc.autoDetach", "no")
    assert upkeep.Thresholds.of(open_repo(str(ledger))) == upkeep.Thresholds(7168, 0, False)
    git(ledger, "config", "gc.auto", "lots")  # git would refuse it; so the check stays out
    upkeep.after_write(open_repo(str(ledger)))


def test_a_merge_writes_its_objects_into_one_pack(clones: Clones) -> None:
    a, b = clones.clone("alice"), clones.clone("bob")
    assert coop_in(a, "init").code == 0
    assert coop_in(a, "add", "todo", "shared").code == 0
    assert coop_in(a, "sync").code == 0 and coop_in(b, "sync").code == 0
    for path, title in ((a, "from alice"), (b, "from bob")):
        assert coop_in(path, "add", "todo", title).code == 0
    assert coop_in(a, "sync").code == 0
    assert coop_in(b, "sync").code == 0  # diverged: bob's sync writes a merge commit
    tip = git(b, "rev-parse", "refs/coop/ledger").strip()
    assert len(git(b, "rev-list", "--parents", "-n", "1", tip).split()) == 3
    written = [tip, *(git(b, "rev-parse", f"{tip}^{{tree}}", f"{tip}:items").split())]
    for oid in written:  # in the new pack, not loose
        assert not (b / ".git" / "objects" / oid[:2] / oid[2:]).exists(), oid
        assert git(b, "cat-file", "-t", oid).strip() in ("commit", "tree")
    git(b, "fsck", "--no-dangling")
    assert keeps(b) == []  # kept only until the ref named the merge's objects
    assert not [p for p in (b / ".git" / "objects").iterdir() if p.name.startswith(INCOMING)]
    assert coop_in(b, "list").code == 0
