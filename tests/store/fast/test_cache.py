"""The read cache: keyed by object ids, so it is never stale, and it heals itself."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.domain import ids
from gitcoop.store.fast.cache_rows import Row, summarise
from gitcoop.store.fast.read_cache import ItemCache, cache_dir
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo
from tests.conftest import coop, coop_process, git


def add_items(n: int, tag: str | None = None) -> list[str]:
    made = []
    for k in range(n):
        args = ["add", "todo", f"work {k}", "--json"] + (["--tag", tag] if tag else [])
        result = coop(*args)
        assert result.code == 0, result.err
        made.append(result.json()["id"])
    return made


def snapshot(path: Path) -> Snapshot:
    repo = open_repo(str(path))
    return Snapshot(repo, repo.tip())


def shard_files(path: Path) -> list[str]:
    root = cache_dir(str(path / ".git"))
    return sorted(os.listdir(root)) if os.path.isdir(root) else []


def listed_ids(*args: str) -> list[str]:
    result = coop("list", "--json", *args)
    assert result.code == 0, result.err
    return [entry["id"] for entry in result.json()]


def whole(rows: list[Row]) -> list[tuple[object, ...]]:
    """Rows with their texts, read from wherever they are kept."""
    return [(*row[:4], row.packed, row.json) for row in rows]


@pytest.mark.fast_only
def test_rows_match_the_item_files_and_a_second_read_parses_nothing(ledger: Path) -> None:
    made = add_items(6)
    snap = snapshot(ledger)
    first = ItemCache(str(ledger / ".git"))
    rows = snap.rows(first)
    assert first.parsed == 6
    assert sorted(r[0] for r in rows) == sorted(made)
    for row in rows:
        item = snap.item(ids.ItemId(row.item_id))
        assert item is not None and row.data() == item.to_data()
        assert row.label == snap.label(ids.ItemId(row.item_id))
        assert row.summary == summarise(item.to_data())
        assert json.loads(row.json) == {**item.to_data(), "short_id": row.label}
    again = ItemCache(str(ledger / ".git"))  # a new process would start like this
    assert whole(snap.rows(again)) == whole(rows)
    # each fan-out served unchanged twice: from the open index and from the settled shard
    assert again.parsed == 0 and again.hits == 2 * len({ids.fanout(i) for i in made})


@pytest.mark.fast_only
def test_a_write_reparses_only_the_changed_item(ledger: Path) -> None:
    made = add_items(5)
    snapshot(ledger).rows(ItemCache(str(ledger / ".git")))
    assert coop("take", made[2]).code == 0
    cache = ItemCache(str(ledger / ".git"))
    rows = {r.item_id: r for r in snapshot(ledger).rows(cache)}
    assert cache.parsed == 1
    assert rows[made[2]].data()["status"] == "taken"
    assert rows[made[2]].summary.status == "taken"
    assert json.loads(rows[made[2]].json)["status"] == "taken"


def test_a_plain_update_ref_is_seen_at_once(ledger: Path) -> None:
    [item] = add_items(1)
    before = git(ledger, "rev-parse", "refs/coop/ledger").strip()
    assert coop("take", item).code == 0
    assert coop("list", "--json").json()[0]["status"] == "taken"  # cache now holds "taken"
    git(ledger, "update-ref", "refs/coop/ledger", before)
    assert coop("list", "--json").json()[0]["status"] == "open"
    assert coop("show", item, "--json").json()["status"] == "open"


def test_a_fetch_moving_the_ref_is_seen_at_once(ledger: Path, tmp_path: Path) -> None:
    add_items(1)
    assert listed_ids()  # warm the cache in this clone
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", str(ledger), str(other))
    git(other, "fetch", "-q", "origin", "refs/coop/ledger:refs/coop/ledger")
    added = coop_process(other, "add", "todo", "elsewhere", "--as", "bob@example.com", "--json")
    assert added.code == 0, added.err
    git(ledger, "fetch", "-q", str(other), "+refs/coop/ledger:refs/coop/ledger")
    assert added.json()["id"] in listed_ids()


@pytest.mark.fast_only
def test_corrupt_shards_are_rebuilt(ledger: Path) -> None:
    made = add_items(4)
    expected = listed_ids()
    cache = ItemCache(str(ledger / ".git"))
    names = shard_files(ledger)
    assert names
    damage = [b"", b"garbage", None]  # None: flip one byte inside the payload
    for name, bad in zip(names, damage * len(names), strict=False):
        path = os.path.join(cache.root, name)
        if bad is None:
            raw = bytearray(Path(path).read_bytes())
            raw[-3] ^= 0xFF
            bad = bytes(raw)
        Path(path).write_bytes(bad)
    assert listed_ids() == expected
    fresh = ItemCache(str(ledger / ".git"))
    snapshot(ledger).rows(fresh)
    assert fresh.parsed == 0 and sorted(made) == sorted(expected)


@pytest.mark.fast_only
def test_a_deleted_cache_is_rebuilt(ledger: Path) -> None:
    add_items(3)
    expected = listed_ids()
    root = Path(cache_dir(str(ledger / ".git")))
    for path in root.iterdir():
        path.unlink()
    root.rmdir()
    assert listed_ids() == expected
    assert shard_files(ledger)


@pytest.mark.fast_only
def test_the_cache_stays_bounded_by_the_ledger(ledger: Path) -> None:
    made = add_items(8)
    for item in made:
        assert coop("take", item).code == 0
        assert coop("list").code == 0
        assert coop("done", item).code == 0
    assert coop("list", "--all").code == 0
    fans = {ids.fanout(i) for i in made}
    groups = {fan[0] for fan in fans}
    kinds = ("open", "data", "json", "settled", "shard", "keys")
    expected = sorted([*(f"{g}.{k}" for g in groups for k in kinds), "doc-coop.yaml.doc"])
    assert shard_files(ledger) == expected  # six per group of fan-outs, one per parsed file
    cache = ItemCache(str(ledger / ".git"))
    for group in groups:
        for kind in kinds:  # only the fan-outs the ledger has, each as it is now
            stored = cache.read(f"{group}.{kind}")
            assert set(stored) == {fan for fan in fans if fan[0] == group}
        for fan, (_, rows) in cache.read(f"{group}.shard").items():  # every item is done
            assert len(rows) == sum(1 for i in made if ids.fanout(i) == fan)
        for _, rows, _, _ in cache.read(f"{group}.open").values():
            assert rows == []


@pytest.mark.fast_only
def test_concurrent_processes_read_and_write_the_cache(ledger: Path) -> None:
    made = add_items(12)
    root = Path(cache_dir(str(ledger / ".git")))
    script = (
        "import sys\nfrom gitcoop.cli.main import main\n"
        "for _ in range(4):\n"
        "    code = main(['list', '--all', '--json'])\n"
        "    assert code == 0, code\n"
    )
    env = {**os.environ, "COOP_ACTOR": "alice@example.com"}
    readers = [
        subprocess.Popen(
            [sys.executable, "-c", script],
            cwd=ledger,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        for _ in range(4)
    ]
    for item in made[:4]:  # writers move the ref while the readers rebuild shards
        assert coop_process(ledger, "take", item).code == 0
    for reader in readers:
        _, err = reader.communicate(timeout=120)
        assert reader.returncode == 0, err.decode()
    statuses = {e["id"]: e["status"] for e in coop("list", "--all", "--json").json()}
    assert all(statuses[i] == "taken" for i in made[:4])
    kinds = (".open", ".data", ".json", ".settled", ".shard", ".keys", ".in", ".doc")
    assert all(name.endswith(kinds) for name in os.listdir(root))


@pytest.mark.fast_only
def test_list_on_a_warm_cache_loads_no_yaml_and_no_lock(ledger: Path) -> None:
    add_items(3)
    assert coop("list").code == 0
    probe = (
        "import sys\nfrom gitcoop.cli.main import main\n"
        "code = main(['list', '--json'])\n"
        "loaded = [m for m in ('filelock', 'ruamel.yaml') if m in sys.modules]\n"
        "print('LOADED', loaded, code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ledger, capture_output=True, text=True, check=False
    )
    assert "LOADED [] 0" in done.stdout, done.stdout + done.stderr


def item_data(item_id: str, status: str = "open") -> dict[str, object]:
    return {"id": item_id, "kind": "todo", "status": status, "created_at": "x", "title": "t"}


@pytest.mark.fast_only
def test_a_new_neighbour_relabels_a_kept_row_and_its_json(tmp_path: Path) -> None:
    def parse(item_id: str, blob_id: str) -> dict[str, object]:
        return item_data(item_id)

    cache = ItemCache(str(tmp_path))
    one = {"ab": [("td-ab1234567890", "blob-1")]}
    [alone] = cache.rows([("ab", "tree-1")], one.__getitem__, parse)
    two = {"ab": [("td-ab1234567890", "blob-1"), ("td-ab1234567899", "blob-2")]}
    kept, added = cache.rows([("ab", "tree-2")], two.__getitem__, parse)
    assert cache.parsed == 2  # the kept file was not parsed again
    assert len(kept.label) > len(alone.label)
    assert json.loads(kept.json)["short_id"] == kept.label
    assert json.loads(added.json)["short_id"] == added.label != kept.label
    nothing: dict[str, list[tuple[str, str]]] = {}
    assert whole(cache.rows([("ab", "tree-2")], nothing.__getitem__, parse)) == whole([kept, added])


@pytest.mark.fast_only
def test_a_shard_keeps_its_other_fan_outs_when_one_changes(tmp_path: Path) -> None:
    def parse(item_id: str, blob_id: str) -> dict[str, object]:
        return item_data(item_id, blob_id)

    cache = ItemCache(str(tmp_path))
    files = {"ab": [("td-ab1234567890", "open")], "ac": [("td-ac1234567890", "open")]}
    cache.rows([("ab", "t1"), ("ac", "t2")], files.__getitem__, parse)
    files["ac"] = [("td-ac1234567890", "taken")]
    again = ItemCache(str(tmp_path))
    rows = again.rows([("ab", "t1"), ("ac", "t3")], files.__getitem__, parse)
    assert [r.summary.status for r in rows] == ["open", "taken"]
    assert again.hits == 2 and again.parsed == 1  # "ab": from the index and from the shard
    for kind in ("open", "settled", "shard"):
        assert set(again.read(f"a.{kind}")) == {"ab", "ac"}
    gone = ItemCache(str(tmp_path))
    assert [r.item_id for r in gone.rows([("ac", "t3")], files.__getitem__, parse)] == [
        "td-ac1234567890"
    ]
    for kind in ("open", "settled", "shard"):  # a fan-out the ledger no longer has is dropped
        assert set(gone.read(f"a.{kind}")) == {"ac"}


@pytest.mark.fast_only
def test_shards_of_an_earlier_format_are_removed(ledger: Path) -> None:
    add_items(2)
    parent = Path(cache_dir(str(ledger / ".git"))).parent
    earlier, later = parent / "items-v1", parent / "items-v99"
    for folder in (earlier, later):
        folder.mkdir(parents=True)
        (folder / "a.shard").write_bytes(b"another format")
    assert listed_ids()
    assert not earlier.exists()
    assert (later / "a.shard").exists()  # a newer gitcoop's, sharing this repository
    assert shard_files(ledger)
