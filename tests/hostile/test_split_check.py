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
from typing import Any

import pytest

from gitcoop.store.boundary import windows
from gitcoop.store.fast import split
from gitcoop.store.ledger import codec
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
    monkeypatch.setattr(windows, "DATA_HELD", 4)
    monkeypatch.setattr(windows, "SUMMARIES_HELD", 4)
    kept = windows.Kept({})
    shares = [windows.Kept({}, 2) for _ in range(2)]
    assert [share.most for share in shares] == [(2, 2), (2, 2)]
    for n in range(6):
        kept.take([[(f"td-{n:012d}", f"{n:040d}"), False, {"id": f"td-{n:012d}"}]])
    assert len(kept.checked or {}) == 4
    kept.add({"td-999999999999": ("0" * 40, {"id": "td-999999999999", "status": "open"})})
    assert len(kept.checked or {}) == 4


def test_an_item_checked_at_two_versions_is_kept_once_at_its_latest(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A file a later commit replaced is one the read cache never asks for: the bound
    counts items, each at the version checked last, not every version of each."""
    monkeypatch.setattr(windows, "DATA_HELD", 2)
    monkeypatch.setattr(windows, "SUMMARIES_HELD", 2)
    kept = windows.Kept({})
    one, two, three = (f"td-00000000000{n}" for n in (1, 2, 3))
    settled = {
        "id": one, "kind": "todo", "status": "done", "conflicts": [], "takeovers": [],
        "obligation": None, "tags": [], "links": [], "title": "t",
        "created_at": "2026-01-01T00:00:00Z",
    }  # fmt: skip
    kept.add({one: ("1" * 40, {"id": one, "status": "open"})})
    kept.add({one: ("2" * 40, {"id": one, "status": "taken"})})
    kept.add({two: ("3" * 40, {"id": two, "status": "open"})})
    assert sorted(kept.checked or {}) == [(one, "2" * 40), (two, "3" * 40)]
    kept.add({one: ("4" * 40, settled)})  # now a summary: its data's place is free again
    kept.add({three: ("5" * 40, {"id": three, "status": "open"})})
    held = kept.checked or {}
    assert sorted(held) == [(one, "4" * 40), (two, "3" * 40), (three, "5" * 40)]
    assert isinstance(held[one, "4" * 40], windows.Summary)
    # data is held marshalled, a quarter of its size as objects
    assert marshal.loads(held[three, "5" * 40]) == {"id": three, "status": "open"}
