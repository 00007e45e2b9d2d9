"""A first sync reads each fetched file once, and leaves the read cache warm."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from gitcoop.store import fast
from gitcoop.store.fast.read_cache import ItemCache
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo, open_repo
from tests.conftest import Clones, coop_in


def counted_reads(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every blob read from now on, by ledger path."""
    reads: Counter[str] = Counter()
    one = Repo.blob_bytes

    def counting(self: Repo, oid: Any, path: str, cap: int) -> bytes:
        reads[path] += 1
        return one(self, oid, path, cap)

    def counting_many(self: Repo, wanted: list[tuple[Any, str]], cap: int) -> list[bytes]:
        reads.update(path for _, path in wanted)
        return [one(self, oid, path, cap) for oid, path in wanted]

    monkeypatch.setattr(Repo, "blob_bytes", counting)
    monkeypatch.setattr(Repo, "blobs_bytes", counting_many)
    return reads


def shared_ledger(clones: Clones, count: int) -> Path:
    a = clones.clone("alice")
    assert coop_in(a, "init").code == 0
    made = [coop_in(a, "add", "todo", f"work {k}", "--json").json()["id"] for k in range(count)]
    for item in made[: count // 2]:
        assert coop_in(a, "done", item).code == 0
    assert coop_in(a, "take", made[-1]).code == 0
    assert coop_in(a, "sync").code == 0
    return a


@pytest.mark.fast_only
def test_a_first_sync_reads_each_event_once_no_item_file_and_fills_the_cache(
    clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An item file as gitcoop writes it is the fold of its events written out, so
    its blob id says it is, unread (store/boundary/joining.py)."""
    a = shared_ledger(clones, 24)
    b = clones.clone("bob")
    reads = counted_reads(monkeypatch)
    assert coop_in(b, "sync").code == 0
    items = {path: n for path, n in reads.items() if path.startswith("items/")}
    events = {path: n for path, n in reads.items() if path.startswith("events/")}
    assert items == {}
    assert len(events) >= 24 + 12 + 2 and set(events.values()) == {1}
    reads.clear()
    repo = open_repo(str(b))
    cache = ItemCache(repo.common_dir)
    Snapshot(repo, repo.tip()).open_view(cache)
    assert cache.parsed == 0 and cache.hits > 0  # the sync filled the open index
    answers = {args: coop_in(b, *args).out for args in (("list", "--json"), ("list",))}
    assert not [path for path in reads if path.startswith("items/")]  # no item file read again
    for args, answer in answers.items():
        assert answer == coop_in(a, *args).out, args


def test_a_large_first_sync_is_checked_in_two_halves_alike(
    clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:

    a = shared_ledger(clones, 40)
    b = clones.clone("bob")
    assert coop_in(b, "sync").code == 0
    assert coop_in(b, "list", "--all", "--json").out == coop_in(a, "list", "--all", "--json").out
    repo = open_repo(str(b))
    cache = ItemCache(repo.common_dir)
    Snapshot(repo, repo.tip()).open_view(cache)
    assert cache.parsed == 0 or fast.reference()  # the halves filled the cache (none by reference)


def lost_take(clones: Clones, count: int) -> tuple[Path, str]:
    """A shared ledger where alice's take of one item lost to carol's: the item holds a
    conflict (and is open, so the open index holds its row)."""
    a = shared_ledger(clones, count)
    c = clones.clone("carol")
    assert coop_in(c, "sync").code == 0
    listed = coop_in(a, "list", "--json").json()
    todo = next(item["id"] for item in listed if item["taken_by"] is None)
    assert coop_in(c, "take", todo, env={"COOP_NOW": "2026-11-29T10:05:00Z"}).code == 0
    assert coop_in(c, "sync").code == 0
    assert coop_in(a, "take", todo, env={"COOP_NOW": "2026-11-29T10:30:00Z"}).code == 0
    assert coop_in(a, "sync").code == 8  # alice's take lost: she is told
    assert coop_in(a, "sync").code == 0
    assert coop_in(a, "show", todo, "--json").json()["conflicts"]
    return a, todo


@pytest.mark.fast_only
def test_the_conflicted_rows_the_halves_hand_over_are_those_of_the_cache(
    clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A split first sync's merge takes the open rows with conflicts that the two halves
    found (all the notices read) instead of reading the open index back: the same rows
    a fresh read of the cache gives, and only those cross from the child."""
    from gitcoop.store.fast.cache_rows import conflicted
    from gitcoop.store.ledger import merge, transport

    _, todo = lost_take(clones, 40)
    b = clones.clone("bob")
    assert coop_in(b, "remote", "setup", "origin").code == 0
    repo = open_repo(str(b))
    theirs = transport.fetch(repo, "origin")
    assert theirs is not None
    merged = merge.merge(
        repo, "origin", theirs, "bob@example.com", datetime(2026, 11, 29, tzinfo=UTC), last=None
    )
    fresh = ItemCache(repo.common_dir)
    view = Snapshot(repo, theirs).open_view(fresh)
    assert fresh.parsed == 0 and len(view.rows) > 1
    handed = [(*row[:4], row.packed, row.json) for row in merged.conflicted or ()]
    assert handed == [(*row[:4], row.packed, row.json) for row in conflicted(view.rows)]
    assert [r.item_id for r in merged.conflicted] == [todo]


def test_a_first_sync_tells_its_actor_what_lost(clones: Clones) -> None:
    """alice's new clone learns at its first sync that her take lost (it was checked in
    two processes, and in one, until format 2; the answer is the same for two clones)."""
    _, todo = lost_take(clones, 40)
    answers = []
    for name in ("one", "two"):
        fresh = clones.clone(f"alice-{name}", "alice@example.com")
        told = coop_in(fresh, "sync", "--json")
        assert told.code == 8, told.err
        answers.append(told.out)
        assert todo in told.out
    assert answers[0] == answers[1]


def test_what_a_sync_needs_next_loads_while_git_fetches(clones: Clones) -> None:
    """`fetch(meanwhile=...)` runs it once git has started and before the fetch is done;
    if it fails, git is stopped and the failure is the fetch's."""
    from gitcoop.store.ledger import transport

    shared_ledger(clones, 4)
    b = clones.clone("bob")
    assert coop_in(b, "remote", "setup", "origin").code == 0
    repo = open_repo(str(b))
    tracking = transport.remote_ref("origin")
    seen: list[object] = []  # the ref the fetch moves, as it stood while `meanwhile` ran
    theirs = transport.fetch(repo, "origin", meanwhile=lambda: seen.append(repo.tip(tracking)))
    assert seen == [None] and theirs is not None and repo.tip(tracking) == theirs

    def failing() -> None:
        raise RuntimeError("meanwhile failed")

    c = clones.clone("carol")
    assert coop_in(c, "remote", "setup", "origin").code == 0
    with pytest.raises(RuntimeError, match="meanwhile failed"):
        transport.fetch(open_repo(str(c)), "origin", meanwhile=failing)
    assert open_repo(str(c)).tip(transport.remote_ref("origin")) is None
