"""Links merge like every other event: two clones, a bare remote, real git.

Each clone adds half of a cycle offline (each half passed its own clone's
check); after the merge both links stand, the cycle shows as a conflict on
both items, neither is ready, and both clones hold byte-identical ledgers.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import Clones, coop_in
from tests.service.test_sync import add, ledger_trees, sync, two


def show(path: Path, item: str) -> dict[str, Any]:
    result = coop_in(path, "show", item, "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def test_a_cycle_formed_only_by_a_merge_is_a_conflict_on_both_items(clones: Clones) -> None:
    a, b = two(clones)
    first, second = add(a, "first"), add(a, "second")
    sync(a)
    sync(b)
    assert coop_in(a, "dep", "add", first, "blocks", second).code == 0  # offline, each
    assert coop_in(b, "dep", "add", second, "blocks", first).code == 0
    sync(a)
    sync(b)
    sync(a)
    assert ledger_trees(a) == ledger_trees(b)  # the same events fold to the same bytes
    for clone in (a, b):
        for item in (first, second):
            data = show(clone, item)
            assert len(data["links"]) == 1  # nothing dropped
            assert data["dependencies"]["cycles"] in (
                [[first, second, first]],
                [[second, first, second]],
            )
        text = coop_in(clone, "show", first).out
        assert "conflict" in text and "cycle" in text
        ready = [e["id"] for e in coop_in(clone, "ready", "--json").json()]
        assert first not in ready and second not in ready
        blocked = coop_in(clone, "blocked", "--json").json()
        assert len(blocked["cycles"]) == 1 and set(blocked["cycles"][0]) == {first, second}
    assert coop_in(b, "dep", "remove", first, "blocks", second).code == 0  # break it
    assert coop_in(b, "blocked", "--json").json()["cycles"] == []
    ready = [e["id"] for e in coop_in(b, "ready", "--json").json()]
    assert second in ready and first not in ready  # first still waits on second


def test_a_link_and_a_status_change_made_on_two_clones_merge_into_a_ready_list(
    clones: Clones,
) -> None:
    a, b = two(clones)
    first, second = add(a, "first"), add(a, "second")
    sync(a)
    sync(b)
    assert coop_in(a, "dep", "add", first, "blocks", second).code == 0
    assert coop_in(b, "done", first).code == 0  # meanwhile the blocker was finished
    sync(a)
    sync(b)
    sync(a)
    for clone in (a, b):
        ready = [e["id"] for e in coop_in(clone, "ready", "--json").json()]
        assert second in ready and first not in ready
