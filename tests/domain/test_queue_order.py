"""Queue states, triage order, order keys, the evidence cache lookup, top-up."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain.ids import ItemId
from gitcoop.domain.queue import (
    DIGITS,
    invalidated,
    key_between,
    lookup,
    needs_top_up,
    time_key,
    triage,
)
from gitcoop.domain.records import Evidence, Item

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


def item(n: int, status: str, key: str | None = None) -> Item:
    item_id = ItemId(f"it-{'abcdefghjkmn'[n % 12]}{'0' * 10}{n % 10}")
    return Item(item_id, "item", f"t{n}", status, T0, "a", order_key=key or f"k{n}")


def test_triage_groups_then_orders_by_key_and_hides_settled() -> None:
    items = [
        item(1, "draft", "a"),
        item(2, "ready", "z"),
        item(3, "done", "b"),
        item(4, "ready", "c"),
        item(5, "blocked", "a"),
        item(6, "in_progress", "y"),
        item(7, "stale", "a"),
        item(8, "split", "a"),
        item(9, "verifying", "a"),
    ]
    assert [i.title for i in triage(items)] == ["t4", "t2", "t6", "t9", "t1", "t5", "t8"]


def test_time_keys_sort_by_creation_time() -> None:
    early = time_key(T0, "it-zzzzzzzzzzzz")
    late = time_key(T0 + timedelta(seconds=1), "it-000000000001")
    assert early < late
    assert not late.endswith("0")


keys = st.text(alphabet=DIGITS, min_size=1, max_size=12).filter(lambda k: not k.endswith("0"))


@given(keys, keys)
def test_key_between_lies_strictly_between(a: str, b: str) -> None:
    if a == b:
        return
    low, high = min(a, b), max(a, b)
    middle = key_between(low, high)
    assert low < middle < high
    assert not middle.endswith("0")


@given(keys)
def test_key_between_open_ends(a: str) -> None:
    assert key_between(a, None) > a
    assert key_between(None, a) < a


def test_repeated_inserts_before_one_key_never_renumber() -> None:
    high = "m"
    low = "l"
    for _ in range(50):
        high = key_between(low, high)
        assert low < high


def test_cache_lookup_hit_moved_miss() -> None:
    cited = (Evidence("a.py", 3, None, "h1"), Evidence("b.py", 9, None, "h1"))
    assert lookup(cited, "h1").state == "hit"
    moved = lookup(cited, "h2")
    assert (moved.state, moved.cached_head, moved.paths) == ("moved", "h1", ("a.py", "b.py"))
    assert lookup(invalidated(cited), "h1").state == "miss"
    assert lookup((), "h1").state == "miss"  # nothing cited: verified before it is picked


def test_top_up_counts_ready_draft_verifying_never_blocked() -> None:
    live = [item(1, "ready"), item(2, "draft"), item(3, "verifying")]
    blocked = [item(n, "blocked") for n in range(4, 9)]
    assert needs_top_up([*live, *blocked], threshold=4)
    assert not needs_top_up(live, threshold=3)
