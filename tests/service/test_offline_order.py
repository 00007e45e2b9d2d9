"""Two offline takes with equal Lamport clocks: the one made first by wall clock wins."""

from __future__ import annotations

from tests.conftest import Clones, coop_in
from tests.service.test_sync import race_syncs, seeds_with_ids_against_time, two


def test_equal_clocks_go_to_the_take_made_first_on_every_clone(clones: Clones) -> None:
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    later_seed, earlier_seed = seeds_with_ids_against_time()
    late = coop_in(
        a, "take", todo, env={"COOP_NOW": "2026-11-29T10:30:00Z", "COOP_SEED": later_seed}
    )
    early = {"COOP_NOW": "2026-11-29T10:05:00Z", "COOP_SEED": earlier_seed}
    assert late.code == 0 and coop_in(b, "take", todo, env=early).code == 0
    race_syncs(a, b)  # alice's take lost: her second sync exits 8 (issue 17)
    for path in (a, b):
        shown = coop_in(path, "show", todo, "--json").json()
        assert shown["taken_by"] == "bob@example.com", path
        assert [c["actor"] for c in shown["conflicts"]] == ["alice@example.com"]
    takes = [e for e in coop_in(a, "log", todo, "--json").json() if e["verb"] == "take"]
    assert len({e["clock"] for e in takes}) == 1  # the tie really was a tie of clocks
    by_actor = {e["actor"]: e["id"] for e in takes}
    assert by_actor["alice@example.com"] < by_actor["bob@example.com"]  # ids alone: alice
