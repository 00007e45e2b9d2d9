"""The rows' texts kept apart from the open index (store/fast/cache_texts.py): read only when
asked for, never taken for another tree's, and an open file never written without them."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gitcoop.domain import ids
from gitcoop.store.fast.read_cache import cache_dir
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
