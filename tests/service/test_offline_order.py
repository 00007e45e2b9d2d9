"""Two offline takes of one todo: the one that reached the remote first wins (H1).

Until format 2 the take made first by wall clock won, wherever it was pushed
from; now the history decides, and a later wall clock or a smaller id changes
nothing (docs/sync.md, "Merge: the shared history is the order").
"""

from __future__ import annotations

from tests.conftest import Clones, coop_in
from tests.service.test_sync import two


def test_the_take_that_reached_the_remote_first_wins_on_every_clone(clones: Clones) -> None:
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    late = coop_in(a, "take", todo, env={"COOP_NOW": "2026-11-29T10:30:00Z"})
    early = coop_in(b, "take", todo, env={"COOP_NOW": "2026-11-29T10:05:00Z"})
    assert late.code == 0 and early.code == 0
    assert coop_in(a, "sync").code == 0  # alice's take reaches the remote first
    lost = coop_in(b, "sync")
    assert lost.code == 8, lost.err  # bob's take, made earlier by the clock, lost
    assert coop_in(a, "sync").code == 0
    for path in (a, b):
        shown = coop_in(path, "show", todo, "--json").json()
        assert shown["taken_by"] == "alice@example.com", path
        assert [c["actor"] for c in shown["conflicts"]] == ["bob@example.com"]
    takes = [e for e in coop_in(a, "log", todo, "--json").json() if e["verb"] == "take"]
    assert len({e["clock"] for e in takes}) == 1  # a tie of clocks, which no longer decides
