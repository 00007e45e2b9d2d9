"""Reading a peer's link graph costs what it shows, not the square of it (H7).

A peer pushes, in one ordinary commit within every bound, L queue items that are the
children of one item (`parent_id`, so the parent's own file does not grow), their ids in
the parent's own fan-out folder (ids are the writer's choice), and a chain of
`blocked-by` links through them back to the parent. The boundary checks it in about a
second. Then `show PARENT` labelled each child in a pass over the whole folder and read
the folder's index of incoming links once for each child, and `blocked` searched the
cycle once from each step of its smallest item: each the square of L (at L = 4,000, 45 s
and 4.8 s). H7 promised a check linear in what a fetch adds; a read of what was taken in
is bounded the same way: each fan-out's labels and incoming links are made once a read,
and a group's cycle is found in one search (`service/dependencies._Near`,
`domain/dependencies.Graph.cycles`). Counted here, not timed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitcoop.domain import dependencies, ids
from gitcoop.store.fast.read_cache import ItemCache
from tests.conftest import Clones, coop_in
from tests.hostile.forge import files, publish, team, with_events

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
PARENT = "it-000000000000"  # the smallest id: where `cycles` starts


def queue_id(n: int) -> str:
    text = ""
    for _ in range(12):
        text, n = ALPHABET[n % 32] + text, n // 32
    return "it-" + text


def spread_id(n: int) -> str:
    """Ids in many fan-out folders (as random ids are), above PARENT."""
    return queue_id((n * 0x9E3779B97F4A7C15) % (32**12 - 1) + 1)


def family(children: list[str], cycle: bool) -> list[dict[str, Any]]:
    shapes: list[dict[str, Any]] = [
        {"item": PARENT, "verb": "add", "kind": "item", "title": "parent"}
    ]
    shapes += [
        {"item": c, "verb": "add", "kind": "item", "title": "child", "parent_id": PARENT}
        for c in children
    ]
    if cycle:  # each child waits on the next, the last on the parent, which waits on them
        shapes += [
            {"item": a, "verb": "dep", "action": "add", "type": "blocked-by", "other": b}
            for a, b in zip(children, [*children[1:], PARENT], strict=True)
        ]
    return shapes


def pushed(clones: Clones, tmp_path: Path, shapes: list[dict[str, Any]]) -> Path:
    """The family pushed by mallory and synced by bob: bob's clone."""
    crew = team(clones, tmp_path)
    assert coop_in(crew.mallory, "sync").code == 0
    publish(crew.mallory, with_events(files(crew.mallory), shapes))
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 0, synced.err
    return crew.victim


def test_show_of_an_item_with_children_in_its_own_folder_reads_the_folder_once(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    children = [queue_id(n) for n in range(1, 301)]  # all in items/00/, as PARENT
    bob = pushed(clones, tmp_path, family(children, cycle=True))
    calls = {"labels": 0, "incoming": 0}

    def counted(name: str, real: Any) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            calls[name] += 1
            return real(*args, **kwargs)

        return call

    monkeypatch.setattr(ids, "shortest_unique", counted("labels", ids.shortest_unique))
    monkeypatch.setattr(ItemCache, "incoming", counted("incoming", ItemCache.incoming))
    shown = coop_in(bob, "show", PARENT, "--json")
    assert shown.code == 0, shown.err
    assert len(shown.json()["dependencies"]["children"]) == 300
    # one pass for the item shown, one for the first child; one read of the folder's index
    assert calls == {"labels": 2, "incoming": 1}, calls


def test_the_cycle_through_a_long_chain_is_found_in_one_search(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    children = [spread_id(n) for n in range(1, 301)]
    bob = pushed(clones, tmp_path, family(children, cycle=True))
    searched = {"paths": 0}
    real = dependencies._path

    def path(*args: Any) -> Any:
        searched["paths"] += 1
        return real(*args)

    monkeypatch.setattr(dependencies, "_path", path)
    listed = coop_in(bob, "blocked", "--json")
    assert listed.code == 0, listed.err
    [cycle] = listed.json()["cycles"]
    assert (cycle[0], cycle[1:]) == (PARENT, [children[-1], PARENT])  # the shortest way round
    assert searched["paths"] == 1, searched  # not one a step of PARENT
