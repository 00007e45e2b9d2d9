"""The open index: plain reads cost what they show, and the index is never stale.

A plain `list` (and `owed`, `ready`, `blocked`, `prime`, the queue view) reads
only the rows of unsettled items; a settled item is read for `--all`, a
`--status` naming a settled state, or a search. The index is keyed by object
ids like the rest of the read cache, so it is right after writes, merges and
any other move of the ref.
"""

from __future__ import annotations

import os
import random
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from gitcoop.domain import ids
from gitcoop.domain.lifecycle import TERMINAL
from gitcoop.store.fast.read_cache import ItemCache
from tests.conftest import Clones, coop, coop_in, git

LATER = {"COOP_NOW": "2026-11-29T11:00:00Z"}


def seeds_sharing_a_fan_out() -> tuple[str, str]:
    """Two COOP_SEED values whose first todo ids fall in the same fan-out directory."""
    seen: dict[str, str] = {}
    for k in range(5000):
        fan = ids.fanout(ids.mint_item_id("todo", random.Random(str(k)).getrandbits))
        if fan in seen:
            return seen[fan], str(k)
        seen[fan] = str(k)
    raise AssertionError("no two seeds share a fan-out")


def add(title: str, seed: str | None = None, *args: str) -> str:
    env = {"COOP_SEED": seed} if seed is not None else None
    result = coop("add", "todo", title, "--json", *args, env=env)
    assert result.code == 0, result.err
    return str(result.json()["id"])


def loosen(repo: Path) -> None:
    """Every object of the repository's packs made loose (ledger writes leave packs)."""
    folder = repo / ".git" / "objects" / "pack"
    for pack in folder.glob("*.pack"):
        data = pack.read_bytes()
        for suffix in (".pack", ".idx", ".keep", ".rev"):
            pack.with_suffix(suffix).unlink(missing_ok=True)
        subprocess.run(["git", "unpack-objects", "-q"], cwd=repo, input=data, check=True)


def corrupt_object(repo: Path, spec: str) -> None:
    """Overwrite the object `spec` names with garbage: its id stays, it cannot be read."""
    oid = git(repo, "rev-parse", spec).strip()
    loosen(repo)
    path = repo / ".git" / "objects" / oid[:2] / oid[2:]
    assert path.exists(), "expected a loose object"
    os.chmod(path, 0o644)
    path.write_bytes(b"not a zlib stream")


@pytest.mark.fast_only
def test_a_settled_item_is_not_read_on_a_plain_list(ledger: Path) -> None:
    first, second = seeds_sharing_a_fan_out()
    settled = add("finished long ago", first)
    neighbour = add("still open", second)
    assert ids.fanout(settled) == ids.fanout(neighbour)
    assert coop("done", settled, "--summary", "shipped").code == 0
    assert coop("list").code == 0  # the index now knows the settled item's file
    corrupt_object(ledger, f"refs/coop/ledger:items/{ids.fanout(settled)}/{settled}.yaml")
    # a write in the same fan-out changes its tree: the index rebuilds it and
    # keeps the settled entry by its unchanged blob id, without reading it
    assert coop("take", neighbour).code == 0
    plain = coop("list")
    assert plain.code == 0, plain.err
    assert "taken" in plain.out and "settled: 1 done" in plain.out
    assert [e["id"] for e in coop("list", "--json").json()] == [neighbour]
    for verb in (("owed",), ("ready",), ("blocked",), ("queue",), ("list", "--status", "taken")):
        result = coop(*verb)
        assert result.code == 0, (verb, result.err)
    for verb in (("list", "--all"), ("list", "--status", "done"), ("list", "--all", "--json")):
        result = coop(*verb)
        assert result.code == 4, (verb, result.out)
        assert f"items/{ids.fanout(settled)}/{settled}.yaml" in result.err


@pytest.mark.fast_only
def test_a_new_clone_s_first_list_reads_settled_items_once(ledger: Path) -> None:
    made = [add(f"work {k}") for k in range(6)]
    for item in made[:4]:
        assert coop("done", item).code == 0
    first = ItemCache(str(ledger / ".git"))
    view = open_view(ledger, first)
    assert first.parsed == 6
    assert sorted(row.item_id for row in view.rows) == sorted(made[4:])
    assert [(t.kind, t.status, t.number) for t in view.settled] == [("todo", "done", 4)]
    again = ItemCache(str(ledger / ".git"))
    open_view(ledger, again)
    assert again.parsed == 0


def open_view(path: Path, cache: ItemCache) -> Any:
    from gitcoop.store.ledger.snapshot import Snapshot
    from gitcoop.store.repository import open_repo

    repo = open_repo(str(path))
    return Snapshot(repo, repo.tip()).open_view(cache)


def plain_listing(path: Path) -> tuple[list[dict[str, Any]], str]:
    """`list --json` and the text line counting settled work, as the index serves them."""
    listed = coop_in(path, "list", "--json")
    text = coop_in(path, "list")
    assert listed.code == 0 and text.code == 0, listed.err + text.err
    counted = [line for line in text.out.splitlines() if line.startswith("settled: ")]
    return listed.json(), counted[0] if counted else ""


def from_every_item(path: Path) -> tuple[list[dict[str, Any]], str]:
    """The same answer worked out from `list --all`, which reads every item."""
    every = coop_in(path, "list", "--all", "--json").json()
    shown = [e for e in every if e["status"] not in TERMINAL or e["conflicts"]]
    counts: dict[str, int] = {}
    for entry in every:
        if entry not in shown:
            counts[entry["status"]] = counts.get(entry["status"], 0) + 1
    text = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    return shown, f"settled: {text} — git coop list --all shows them" if counts else ""


def test_the_index_follows_every_write(ledger: Path) -> None:
    made = [add(f"work {k}") for k in range(5)]
    steps = [
        ("take", made[0]),
        ("done", made[0]),
        ("done", made[1]),
        ("abandon", made[2], "--reason", "not needed"),
        ("edit", made[1], "--title", "renamed after it was done"),
        ("edit", made[3], "--tag", "later"),
        ("take", made[4]),
        ("release", made[4], "--reason", "back"),
    ]
    for step in steps:
        assert coop(*step).code == 0, step
        assert plain_listing(ledger) == from_every_item(ledger), step
    assert (
        plain_listing(ledger)[1] == "settled: 1 abandoned, 2 done — git coop list --all shows them"
    )
    tagged = coop("list", "--tag", "later", "--json").json()
    assert [e["id"] for e in tagged] == [made[3]]


def test_settled_work_is_counted_under_the_kind_and_tag_filters(ledger: Path) -> None:
    done_ci = add("flaky test", None, "--tag", "ci")
    add("open ci work", None, "--tag", "ci")
    request = coop("add", "request", "a review", "--json").json()["id"]
    for item, verb in ((done_ci, "done"), (request, "close")):
        assert coop(verb, item).code == 0
    assert coop("list").code == 0  # the index holds them as counts only now
    assert "settled: 1 done —" in coop("list", "--tag", "ci").out
    assert "settled: 1 closed —" in coop("list", "--kind", "request").out
    assert "settled:" not in coop("list", "--holder", "alice@example.com").out
    assert "settled:" not in coop("list", "--tag", "other").out


def test_an_external_ref_update_is_seen_by_the_index(ledger: Path) -> None:
    item = add("comes and goes")
    before = git(ledger, "rev-parse", "refs/coop/ledger").strip()
    assert coop("done", item).code == 0
    after = git(ledger, "rev-parse", "refs/coop/ledger").strip()
    assert coop("list", "--json").json() == []
    git(ledger, "update-ref", "refs/coop/ledger", before)
    assert [e["id"] for e in coop("list", "--json").json()] == [item]
    assert "open" in coop("list").out
    git(ledger, "update-ref", "refs/coop/ledger", after)
    assert coop("list", "--json").json() == []
    assert plain_listing(ledger) == from_every_item(ledger)


def test_the_index_is_right_after_merges(clones: Clones) -> None:
    a, b = clones.clone("alice"), clones.clone("bob")
    assert coop_in(a, "init").code == 0
    shared = [coop_in(a, "add", "todo", f"shared {k}", "--json").json()["id"] for k in range(3)]
    assert coop_in(a, "sync").code == 0
    assert coop_in(b, "sync").code == 0
    for path in (a, b):
        assert coop_in(path, "list").code == 0  # both indexes warm before the race
    # alice finishes one; bob, offline, takes it later (his take loses on the merge
    # and leaves a conflict on a settled item) and closes another
    assert coop_in(a, "take", shared[0]).code == 0
    assert coop_in(a, "done", shared[0]).code == 0
    assert coop_in(b, "take", shared[0], env=LATER).code == 0
    assert coop_in(b, "done", shared[1], env=LATER).code == 0
    codes = [coop_in(path, "sync").code for path in (a, b, a)]
    assert sorted(codes) == [0, 0, 8], codes
    for path in (a, b):
        listed, counted = plain_listing(path)
        assert (listed, counted) == from_every_item(path)
        conflicted = [e for e in listed if e["conflicts"]]
        assert [e["id"] for e in conflicted] == [shared[0]]
        assert conflicted[0]["status"] == "done"
        assert re.search(r"settled: 1 done", counted)
    assert plain_listing(a) == plain_listing(b)


@pytest.mark.fast_only
def test_a_plain_read_opens_only_the_open_index(ledger: Path) -> None:
    made = [add(f"work {k}") for k in range(8)]
    for item in made[:6]:
        assert coop("done", item).code == 0
    assert coop("list", "--all").code == 0  # every kind of cache file is written
    root = Path(ItemCache(str(ledger / ".git")).root)
    others = sorted(p for p in root.iterdir() if p.suffix in (".settled", ".shard"))
    assert others
    for path in others:
        path.write_bytes(b"damaged")  # read as missing, and rewritten, by any read using it
    cache = ItemCache(str(ledger / ".git"))
    view = open_view(ledger, cache)
    assert sorted(row.item_id for row in view.rows) == sorted(made[6:])
    assert cache.parsed == 0
    for verb in (("list",), ("list", "--json"), ("owed",), ("ready",), ("blocked",), ("queue",)):
        assert coop(*verb).code == 0, verb
    assert all(path.read_bytes() == b"damaged" for path in others)  # never opened as needed
    assert coop("list", "--all").code == 0
    assert not any(path.read_bytes() == b"damaged" for path in others if path.suffix == ".shard")


def test_a_settled_file_needing_nothing_is_counted_unread_and_refused_when_shown(
    ledger: Path,
) -> None:
    """A settled item a plain read will never show is read for its status only: a bad
    field elsewhere in its file is found by `list --all`, which shows it."""
    from tests.rawledger import put

    done = add("finished")
    assert coop("done", done).code == 0
    path = f"items/{ids.fanout(done)}/{done}.yaml"
    text = git(ledger, "cat-file", "blob", f"refs/coop/ledger:{path}")
    put(
        ledger,
        path.split("/"),
        text.replace("created_by: alice@example.com", "created_by: []").encode(),
    )
    plain = coop("list")
    assert plain.code == 0 and "settled: 1 done" in plain.out
    every = coop("list", "--all")
    assert every.code == 4 and path in every.err


def test_text_listings_build_no_item(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`list`, `ready` and `blocked` print their lines from the cached summaries."""
    from gitcoop.domain.records import Item

    made = [add(f"work {k}") for k in range(4)]
    assert coop("take", made[0]).code == 0
    assert coop("dep", "add", made[1], "blocks", made[2]).code == 0
    expected = {args: coop(*args).out for args in (("list",), ("ready",), ("blocked",))}
    built: list[object] = []
    real = Item.from_data.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(
        Item, "from_data", classmethod(lambda cls, d: built.append(d) or real(cls, d))
    )
    for args, out in expected.items():
        assert coop(*args).out == out, args
    assert built == []
