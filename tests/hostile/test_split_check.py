"""A history checked in two processes, each taking every other folder, judges as one does.

Past `windows.SPLIT_FROM` windows, a fetched history's folders are shared between
this process and a forked one (`split.halves`). What they find is put together as
one pass through every folder in order would find it: the refusal of the first
folder that has one, whichever process read it, and, accepted, the same ledger and
the same files kept for the read cache.
"""

from __future__ import annotations

import marshal
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from gitcoop.store.boundary import windows
from gitcoop.store.fast import REFERENCE, split
from gitcoop.store.fast.cache_rows import Summary
from gitcoop.store.ledger import codec, snapshot
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import MALLORY, add_event, files, new_event, publish, team, tip
from tests.hostile.test_folder_windows import A, B, C, _three_items_being_verified
from tests.hostile.test_folder_windows import _added as added


@contextmanager
def shared(between: bool) -> Iterator[list[int]]:
    """Every history checked in two processes (`between`), or in this one; yields the
    number of times the work was shared."""
    calls: list[int] = []
    real = split.halves

    def counted(work: Any) -> Any:
        calls.append(1)
        return real(work)

    saved = windows.SPLIT_FROM
    windows.SPLIT_FROM = 1 if between else 10**9
    split_before, split.halves = split.halves, counted
    try:
        yield calls
    finally:
        windows.SPLIT_FROM, split.halves = saved, split_before


def _noted(content: dict[str, bytes], item_id: str, text: str) -> dict[str, bytes]:
    return add_event(content, new_event(content, item_id, "note", text=text))


def _retitled(content: dict[str, bytes], item_id: str, title: str) -> dict[str, bytes]:
    path = f"items/{item_id[3:5]}/{item_id}.yaml"
    data = codec.load(content[path], path)
    return {**content, path: codec.dump({**data, "title": title})}


def _victims(victim: Path, tmp_path: Path) -> tuple[Path, Path]:
    twin = tmp_path / "twin"
    shutil.copytree(victim, twin, symlinks=True)
    return victim, twin


def _sync(where: Path, between: bool) -> tuple[Any, ...]:
    git(where, "fetch", "-q", "origin")  # plain git: what sync then checks
    with shared(between) as calls:
        synced = coop_in(where, "sync")
    assert calls == ([1] if between else []), calls
    return synced.code, synced.err, tip(where)


def test_this_process_can_fork_here() -> None:
    """The tests below share the work only where forking is safe (no other thread)."""
    assert split._can_fork()


def test_a_refusal_in_either_process_is_the_one_of_the_first_folder(
    clones: Clones, tmp_path: Path
) -> None:
    crew = team(clones, tmp_path)
    honest = _three_items_being_verified(crew)
    honest = _noted(_noted(honest, A, "one"), B, "two")
    # both folders' item files claim a title no event gave: each process finds one
    forged = _retitled(_retitled(honest, A, "Not one"), B, "Not two")
    made = publish(crew.mallory, forged, author=MALLORY)
    one, two = _victims(crew.victim, tmp_path)
    alone, between = _sync(one, False), _sync(two, True)
    assert alone == between
    code, err, now = between
    assert code == 4 and made[:12] in err and f"{A}.yaml" in err, err
    assert f"{B}.yaml" not in err and now != made
    # the first folder's breach alone: the other process's is the one reported
    fixed = publish(crew.mallory, _retitled(honest, B, "Not two"), parents=[tip(crew.victim)])
    alone, between = _sync(one, False), _sync(two, True)
    assert alone == between
    code, err, now = between
    assert code == 4 and fixed[:12] in err and f"{B}.yaml" in err, err


def test_an_honest_history_is_taken_in_as_one_process_takes_it(
    clones: Clones, tmp_path: Path
) -> None:
    crew = team(clones, tmp_path)
    content = _three_items_being_verified(crew)
    heads = []
    for n, item_id in enumerate((A, B, C)):  # three commits, each in one or both folders
        content = _noted(_noted(content, item_id, f"note {n}"), A, f"again {n}")
        heads.append(publish(crew.mallory, content))
    one, two = _victims(crew.victim, tmp_path)
    alone, between = _sync(one, False), _sync(two, True)
    assert alone == between and alone[0] == 0 and alone[2] == heads[-1], alone
    for args in (("list", "--json", "--all"), ("show", A, "--json"), ("fsck", "--full")):
        assert coop_in(one, *args).out == coop_in(two, *args).out, args


@pytest.mark.parametrize("between", [False, True])
def test_the_events_of_a_commit_are_counted_across_both_processes(
    clones: Clones, tmp_path: Path, between: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A commit's events are bounded in all (MAX_EVENTS), not in each process's share."""
    crew = team(clones, tmp_path)
    content = files(crew.mallory)
    for item_id in (A, B):  # one event in each folder (aa, bb): two in all
        content = added(content, item_id, f"Item {item_id}", 0)
    made = publish(crew.mallory, content)
    monkeypatch.setattr(windows, "MAX_EVENTS", 1)
    monkeypatch.setattr(windows, "_TOO_MANY", "adds over 1 events — one commit adds at most")
    code, err, now = _sync(crew.victim, between)
    assert code == 4 and made[:12] in err and "adds over 1 events" in err, err
    assert now != made


def test_the_files_kept_from_both_processes_stay_within_one_bound(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Each process keeps half the bound; what they hand back, and what is kept after,
    is held to the whole of it (a peer cannot make a clone hold twice as much)."""
    monkeypatch.setattr(windows, "KEPT_BYTES", 4 * (windows.ENTRY_BYTES + 100))
    kept = windows.Kept({})
    shares = [windows.Kept({}, 2) for _ in range(2)]
    assert [share.most for share in shares] == [kept.most // 2] * 2
    for n in range(6):  # each file 100 bytes: four fit
        kept.take([[(f"td-{n:012d}", f"{n:040d}"), bytes(100)]])
    assert len(kept.checked or {}) == 4
    kept.add({"td-999999999999": ("0" * 40, {"id": "td-999999999999", "status": "open"})})
    assert len(kept.checked or {}) == 4


def test_large_files_are_kept_within_the_bound_in_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A peer's items each with a 64K-character body hold no more memory than small ones:
    the bound is in bytes, not files."""
    monkeypatch.setattr(windows, "KEPT_BYTES", 1024 * 1024)
    kept = windows.Kept({})
    body = "é" * 64 * 1024  # 128 KB as UTF-8
    for n in range(20):
        item_id = f"td-{n:012d}"
        kept.add({item_id: (f"{n:040d}", {"id": item_id, "status": "open", "body": body})})
    held = [file for file in (kept.checked or {}).values() if isinstance(file, bytes)]
    assert 0 < len(held) < 20
    assert sum(len(file) + windows.ENTRY_BYTES for file in held) <= windows.KEPT_BYTES
    assert kept.held == sum(len(file) + windows.ENTRY_BYTES for file in held)


def test_an_item_checked_at_two_versions_is_kept_once_at_its_latest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file a later commit replaced is one the read cache never asks for: the bound
    counts what is kept of each item at the version checked last, not every version."""
    one, two, three = (f"td-00000000000{n}" for n in (1, 2, 3))
    body = "x" * 1000  # an open item's data, larger than a settled one's summary

    def taken(item_id: str) -> dict[str, str]:
        return {"id": item_id, "status": "taken", "body": body}

    size = len(marshal.dumps(taken(one))) + windows.ENTRY_BYTES
    monkeypatch.setattr(windows, "KEPT_BYTES", 3 * size - 1)  # not three open items
    kept = windows.Kept({})
    settled = {
        "id": one, "kind": "todo", "status": "done", "conflicts": [], "takeovers": [],
        "obligation": None, "tags": [], "links": [], "title": "t",
        "created_at": "2026-01-01T00:00:00Z",
    }  # fmt: skip
    kept.add({one: ("1" * 40, taken(one))})
    kept.add({one: ("2" * 40, taken(one))})
    kept.add({two: ("3" * 40, taken(two))})
    assert sorted(kept.checked or {}) == [(one, "2" * 40), (two, "3" * 40)]
    kept.add({one: ("4" * 40, settled)})  # now a summary, smaller: room for another
    kept.add({three: ("5" * 40, taken(three))})
    held = kept.checked or {}
    assert sorted(held) == [(one, "4" * 40), (two, "3" * 40), (three, "5" * 40)]
    # held marshalled: data as itself, a summary as its fields
    assert marshal.loads(held[three, "5" * 40]) == taken(three)
    assert Summary(*marshal.loads(held[one, "4" * 40])).status == "done"


@pytest.mark.parametrize("files_held", [0, 3, 1000])
def test_what_a_first_sync_shows_is_the_files_whatever_it_kept(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files_held: int
) -> None:
    """Checked in two processes, a bound that keeps none, some or all of the checked files
    (versions replaced, some refused a place): every read shows what a clone that read
    every file shows."""
    alice = clones.clone("alice")
    assert coop_in(alice, "init").code == 0
    ids = [coop_in(alice, "add", "todo", f"t{n}", "--json").json()["id"] for n in range(8)]
    for step in range(3):
        for n, item in enumerate(ids):
            if (n + step) % 3 == 0:
                assert coop_in(alice, "note", item, f"r{step}").code == 0
        assert coop_in(alice, "take", ids[step], "--session", f"s{step}").code == 0
        assert coop_in(alice, "sync").code == 0
    for item in ids[5:7]:
        assert coop_in(alice, "done", item, "--summary", "ok", "--force").code == 0, item
    assert coop_in(alice, "sync").code == 0
    carol = clones.clone("carol")
    twin = tmp_path / "twin"
    shutil.copytree(carol, twin, symlinks=True)
    monkeypatch.setattr(windows, "SPLIT_FROM", 1)
    monkeypatch.setattr(windows, "KEPT_BYTES", files_held * (windows.ENTRY_BYTES + 1000))
    read_back: list[bytes] = []  # files the read cache took as the check kept them

    def loads(raw: bytes) -> Any:
        read_back.append(raw)
        return marshal.loads(raw)

    monkeypatch.setattr(snapshot, "marshal", SimpleNamespace(loads=loads))
    assert coop_in(carol, "sync").code == 0
    assert (len(read_back) > 0) == (files_held > 0), len(read_back)
    assert coop_in(twin, "sync", env={REFERENCE: "1"}).code == 0
    for args in (("list", "--json"), ("list", "--json", "--all"), ("status", "--json")):
        got, want = coop_in(carol, *args), coop_in(twin, *args, env={REFERENCE: "1"})
        assert got.code == want.code == 0, (args, got.err, want.err)
        assert got.out == want.out, args
