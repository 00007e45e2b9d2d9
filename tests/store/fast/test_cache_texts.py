"""The rows' texts kept apart from the open index (store/fast/cache_texts.py): read only when
asked for, never taken for another tree's, and an open file never written without them."""

from __future__ import annotations

import json
import marshal
import shutil
from collections import Counter
from pathlib import Path

import pytest

from gitcoop.domain import ids
from gitcoop.store.fast import cache_files
from gitcoop.store.fast.read_cache import ItemCache, cache_dir
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo
from tests.conftest import coop

pytestmark = pytest.mark.fast_only  # what the cache keeps; nothing is kept by reference


def add_items(n: int) -> list[str]:
    made = []
    for k in range(n):
        result = coop("add", "todo", f"work {k}", "--json")
        assert result.code == 0, result.err
        made.append(result.json()["id"])
    return made


def cache_root(ledger: Path) -> Path:
    return Path(cache_dir(str(ledger / ".git")))


def texts_files(ledger: Path) -> list[Path]:
    root = cache_root(ledger)
    return sorted([*root.glob("*.data"), *root.glob("*.json")])


def listing(*args: str) -> str:
    result = coop("list", *args)
    assert result.code == 0, result.err
    return result.out


def test_a_text_listing_reads_no_texts_and_json_makes_lost_ones_again(ledger: Path) -> None:
    made = add_items(6)
    assert coop("take", made[0]).code == 0
    text, as_json = listing(), listing("--json")
    opened = sorted(cache_root(ledger).glob("*.open"))
    assert opened and texts_files(ledger)
    for path in texts_files(ledger):
        path.unlink()
    assert listing() == text
    assert sorted(cache_root(ledger).glob("*.open")) == opened  # no texts were looked for
    assert listing("--json") == as_json  # each row parsed from its file again
    assert not list(cache_root(ledger).glob("*.open"))  # so the next read rebuilds them
    assert listing("--json") == as_json
    assert sorted(cache_root(ledger).glob("*.open")) == opened and texts_files(ledger)
    shown = coop("show", made[0], "--json")
    assert shown.code == 0 and shown.json()["status"] == "taken"


def test_texts_kept_for_another_tree_are_not_used(ledger: Path) -> None:
    made = add_items(4)
    listing("--json")
    group = ids.fanout(made[1])[:1]
    kept = {p.name: p.read_bytes() for p in texts_files(ledger) if p.stem == group}
    assert coop("take", made[1]).code == 0
    listing("--json")  # the group rebuilt, its texts for the new tree
    for name, raw in kept.items():  # an older write lands last, as a racing writer's would
        (cache_root(ledger) / name).write_bytes(raw)
    entry = next(e for e in coop("list", "--json").json() if e["id"] == made[1])
    assert entry["status"] == "taken"
    shown = coop("show", made[1], "--json")
    assert shown.code == 0 and shown.json()["status"] == "taken"
    held = coop("status", "--json")
    assert held.code == 0, held.err
    assert [e["id"] for e in held.json()["held"]] == [made[1]]


def test_no_open_file_is_written_when_its_texts_are_not(ledger: Path) -> None:
    made = add_items(3)
    as_json = listing("--json")
    group = ids.fanout(made[0])[:1]
    root = cache_root(ledger)
    (root / f"{group}.open").unlink()
    (root / f"{group}.json").unlink()
    (root / f"{group}.json").mkdir()  # the texts file cannot be replaced
    try:
        assert listing("--json") == as_json
        assert not (root / f"{group}.open").exists()
    finally:
        shutil.rmtree(root / f"{group}.json")
    assert listing("--json") == as_json
    assert (root / f"{group}.open").exists() and (root / f"{group}.json").is_file()


def snap(ledger: Path) -> Snapshot:
    repo = open_repo(str(ledger))
    return Snapshot(repo, repo.tip())


def crowded_group(made: list[str]) -> tuple[str, list[str]]:
    """A group of fan-outs holding at least two of the items, and them."""
    group, n = Counter(ids.fanout(i)[:1] for i in made).most_common(1)[0]
    assert n >= 2
    return group, [i for i in made if ids.fanout(i)[:1] == group]


def test_a_reader_of_an_older_tree_leaves_the_current_open_file(ledger: Path) -> None:
    made = add_items(24)
    group, mine = crowded_group(made)
    listing("--json")
    view = snap(ledger).open_view(ItemCache(str(ledger / ".git")))  # rows, no texts yet
    assert coop("take", mine[0]).code == 0
    listing("--json")  # another reader rebuilds the group for the new tree
    row = next(r for r in view.rows if r.item_id == mine[0])
    assert json.loads(row.json)["status"] == "open"  # its own tree's, from its file
    assert (cache_root(ledger) / f"{group}.open").exists()  # the stale reader drops nothing
    fresh = ItemCache(str(ledger / ".git"))
    snap(ledger).open_view(fresh)
    assert fresh.parsed == 0


def test_a_row_whose_texts_are_lost_is_parsed_once(ledger: Path) -> None:
    made = add_items(24)
    group, mine = crowded_group(made)
    listing("--json")
    for suffix in ("data", "json"):
        (cache_root(ledger) / f"{group}.{suffix}").unlink()
    cache = ItemCache(str(ledger / ".git"))
    row = next(r for r in snap(ledger).open_view(cache).rows if r.item_id == mine[0])
    assert row.data()["id"] == mine[0] and json.loads(row.json)["id"] == mine[0]
    assert cache.parsed == 1


def test_an_open_file_goes_when_its_texts_cannot_be_written(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = add_items(24)
    group, mine = crowded_group(made)
    listing("--json")
    cache = ItemCache(str(ledger / ".git"))

    def size(name: str) -> int:
        return len(marshal.dumps((cache_files.FORMAT, name, cache.read(name))))

    limit = size(f"{group}.json") - 1  # the JSON texts no longer fit; the open file does
    assert size(f"{group}.open") < limit
    monkeypatch.setattr(cache_files, "MAX_FILE_BYTES", limit)
    assert coop("take", mine[0]).code == 0
    again = ItemCache(str(ledger / ".git"))
    rows = snap(ledger).open_view(again).rows  # rebuilds the group for the new tree
    assert not (cache_root(ledger) / f"{group}.open").exists()  # none naming the old tree
    taken = next(r for r in rows if r.item_id == mine[0])
    assert json.loads(taken.json)["status"] == "taken"
