"""Checking a peer's chain of verdicts costs what the peer pushed, not its square (H7).

A verdict that names an item of another fan-out folder sets its item aside: its state is
known only once the commit is joined whole, and so is that of every item whose verdict
names one set aside, and of every item those name in turn. A peer pushes, in ordinary
commits within every bound, N queue items of one folder and a chain of `duplicate`
verdicts through them (the first named from another folder; each is refused, as the
items are drafts, and the ledger stays valid). The check found the items set aside one
pass over every verdict at a time, and the files they name one pass over every file at a
time: N passes (at N = 8,000, 115 s to sync, and every later fsck paid it again). Counted
here, not timed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitcoop.domain import rulebook
from tests.conftest import Clones, coop_in
from tests.hostile.forge import files, publish, team, with_events
from tests.hostile.test_link_graph_cost import queue_id

N = 300


def chain(n: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The items (the first in folder 00, the rest in folder zz), and each one's verdict
    naming the next."""
    first, rest = queue_id(7), [f"it-zz{queue_id(k)[5:]}" for k in range(n)]
    items = [first, *rest]
    adds = [{"item": i, "verb": "add", "kind": "item", "title": "t"} for i in items]
    named = [*rest, "td-0000000000zz"]
    verdicts = [
        {"item": i, "verb": "verdict", "verdict": "duplicate", "duplicate_of": other}
        for i, other in zip(items, named, strict=True)
    ]
    return adds, verdicts


@pytest.mark.parametrize("commits", [1, 2], ids=["added-with-the-verdicts", "added-before"])
def test_a_chain_of_verdicts_is_checked_in_one_pass(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, commits: int
) -> None:
    crew = team(clones, tmp_path)
    assert coop_in(crew.mallory, "sync").code == 0
    adds, verdicts = chain(N)
    if commits == 2:
        publish(crew.mallory, with_events(files(crew.mallory), adds))
        adds = []
    publish(crew.mallory, with_events(files(crew.mallory), [*adds, *verdicts]))
    asked = {"names": 0}
    real = rulebook.names

    def names(event: Any) -> Any:
        asked["names"] += 1
        return real(event)

    monkeypatch.setattr(rulebook, "names", names)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 0, synced.err
    assert asked["names"] <= 10 * N, asked  # N passes over N verdicts: ~N * N / 2
    shown = coop_in(crew.victim, "show", verdicts[0]["item"], "--json").json()
    assert shown["status"] == "draft" and shown["conflicts"], shown
