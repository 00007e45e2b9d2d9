"""A duplicate verdict is judged against the item it names as of its place in the order.

Two clones can each call the other's item a duplicate offline; each verdict
is legal where it is written. The fold replays the items a duplicate names
in the one order of events, (clock, at, id), so whichever verdict comes
later finds the item it names already a duplicate and is unclear (issue 15,
point 7). No git: events built by hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain import rulebook
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Event, Item, Roles
from gitcoop.domain.verdict import Verdict, naming_open

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
A, B, C = (ItemId(f"it-{c * 12}") for c in "abc")
ROLES = Roles(owners=("owner@x",))
_ids = itertools.count(1)


def event(item: ItemId, verb: str, clock: int, minutes: int = 0, **args: Any) -> Event:
    n = next(_ids)
    at = T0 + timedelta(minutes=minutes)
    return Event(EventId(f"ev-{n:012d}"), item, clock, at, "bob@x", None, verb, args)


def added(item: ItemId) -> Event:
    return event(item, "add", 1, kind="item", title=f"Fix {item}", order_key=item[3:])


def called_duplicate(item: ItemId, of: str, clock: int, minutes: int) -> list[Event]:
    """A verification written offline from a ledger at `clock - 1`: verify, then verdict."""
    return [
        event(item, "verify", clock, minutes),
        event(
            item, "verdict", clock + 1, minutes, verdict="duplicate", duplicate_of=of, reason="same"
        ),
    ]


def by_item(events: Sequence[Event]) -> dict[ItemId, list[Event]]:
    found: dict[ItemId, list[Event]] = {}
    for e in events:
        found.setdefault(e.item, []).append(e)
    return found


def folded(events: Sequence[Event]) -> dict[ItemId, Item | None]:
    """Each item folded on its own, given the events of the others it names."""
    found = by_item(events)
    return {
        i: rulebook.fold(own, ROLES, events_of=lambda other: found.get(other, []))
        for i, own in found.items()
    }


def states(items: dict[ItemId, Item | None]) -> dict[ItemId, tuple[str, str | None]]:
    return {i: (x.status, x.duplicate_of) for i, x in items.items() if x is not None}


def mutual(first_minutes: int, second_minutes: int) -> list[Event]:
    return [
        added(A),
        added(B),
        *called_duplicate(A, B, 2, first_minutes),
        *called_duplicate(B, A, 2, second_minutes),
    ]


@pytest.mark.parametrize("shuffle", [0, 1, 2])
def test_of_two_mutual_duplicates_the_later_verdict_is_unclear(shuffle: int) -> None:
    events = mutual(0, 5)  # equal clocks: A's verdict was written first
    events = [events[::-1], events, events[1::2] + events[::2]][shuffle]
    items = folded(events)
    assert states(items) == {A: ("duplicate", B), B: ("draft", None)}
    loser = items[B]
    assert loser is not None and loser.reason is not None
    assert A in loser.reason and "duplicate" in loser.reason
    assert loser.lease is None and loser.conflicts == ()  # degraded, not refused
    assert rulebook.fold_together(by_item(events), ROLES) == items


def test_the_order_of_the_events_not_of_the_items_names_the_winner() -> None:
    assert states(folded(mutual(5, 0))) == {A: ("draft", None), B: ("duplicate", A)}


def test_a_cycle_of_three_never_settles() -> None:
    events = [
        *map(added, (A, B, C)),
        *called_duplicate(A, B, 2, 0),
        *called_duplicate(B, C, 2, 1),
        *called_duplicate(C, A, 2, 2),
    ]
    assert states(folded(events)) == {
        A: ("duplicate", B),
        B: ("duplicate", C),
        C: ("draft", None),
    }


def test_a_duplicate_of_an_item_settled_earlier_in_the_order_is_unclear() -> None:
    closed = event(B, "edit_item", 2, status="closed", reason="gone")
    item = folded([added(A), added(B), closed, *called_duplicate(A, B, 3, 0)])[A]
    assert item is not None and (item.status, item.duplicate_of) == ("draft", None)
    assert item.reason is not None and "closed" in item.reason


def test_a_later_change_of_the_named_item_does_not_reach_back() -> None:
    closed = event(B, "edit_item", 9, status="closed", reason="gone")
    item = folded([added(A), added(B), *called_duplicate(A, B, 2, 0), closed])[A]
    assert item is not None and (item.status, item.duplicate_of) == ("duplicate", B)


def test_without_the_item_it_names_a_duplicate_is_unclear() -> None:
    events = [added(A), *called_duplicate(A, B, 2, 0)]
    alone = rulebook.fold(events, ROLES)
    assert alone is not None and alone.status == "draft"
    assert alone.reason is not None and "not in the queue" in alone.reason


def test_an_item_named_as_a_duplicate_of_itself_is_unclear() -> None:
    item = folded([added(A), *called_duplicate(A, A, 2, 0)])[A]
    assert item is not None and (item.status, item.duplicate_of) == ("draft", None)


def test_the_write_and_the_fold_give_the_same_reason() -> None:
    """One rule: what a verdict written against a duplicate says is what the fold says."""
    events = mutual(0, 5)
    found = by_item(events)
    first = rulebook.fold(found[A], ROLES, events_of=lambda i: found.get(i, []))
    written = naming_open(Verdict("duplicate", duplicate_of=A, reason="same"), first, B)
    loser = folded(events)[B]
    assert loser is not None and written.verdict == "unclear"
    assert written.reason == loser.reason


def test_apply_sees_the_named_item_it_is_given() -> None:
    found = by_item(mutual(0, 5))
    item = rulebook.fold(found[A][:2], ROLES)  # added, verifying
    other = rulebook.fold(found[B][:1], ROLES)  # open: a draft
    assert item is not None and other is not None
    verdict = found[A][2]
    after = rulebook.apply(item, verdict, ROLES, named=lambda i: other if i == B else None)
    assert (after.status, after.duplicate_of) == ("duplicate", B)


# -- any verdicts, any order ---------------------------------------------------------------

ITEMS = tuple(ItemId(f"it-{c * 12}") for c in "abcdef")


@st.composite
def verifications(draw: st.DrawFn) -> list[Event]:
    """Items added, then offline verifications in several clones: each a verify and a
    verdict (a duplicate of any item, itself included, or unclear), with clocks that
    tie and times that tie, as clones writing from one tip do."""
    events = [added(i) for i in ITEMS]
    for item in draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=8)):
        clock = draw(st.integers(2, 6))
        minutes = draw(st.integers(0, 3))
        of = draw(st.sampled_from((*ITEMS, None)))
        if of is None:
            verdict = event(item, "verdict", clock + 1, minutes, verdict="unclear", reason="?")
            events += [event(item, "verify", clock, minutes), verdict]
        else:
            events += called_duplicate(item, of, clock, minutes)
    return events


@given(verifications(), st.randoms(use_true_random=False))
def test_no_listing_of_any_verdicts_settles_a_cycle(events: list[Event], rng: Any) -> None:
    items = folded(events)
    shuffled = list(events)
    rng.shuffle(shuffled)
    found = by_item(shuffled)
    assert dict(rulebook.fold_items(ITEMS, lambda i: found.get(i, []), ROLES)) == items
    assert rulebook.fold_together(found, ROLES) == items
    for start in ITEMS:  # follow duplicate_of: it never comes back
        seen, current = {start}, items[start]
        while current is not None and current.duplicate_of is not None:
            named = ItemId(current.duplicate_of)
            assert named not in seen, f"a cycle of duplicates through {start}"
            seen.add(named)
            current = items[named]


def test_a_long_chain_is_read_once_and_replayed_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Item k is a duplicate of item k+1, each verdict written in its own clone: folding
    them all reads each item's events once and applies each event once."""
    chain = [ItemId(f"it-{n:012d}") for n in range(300)]
    events = [added(i) for i in chain]
    for n, item in enumerate(chain[:-1]):
        events += called_duplicate(item, chain[n + 1], 2, n)  # each open when it was named
    found = by_item(events)
    reads: list[ItemId] = []
    applied = 0
    real_apply = rulebook.apply

    def counted(*args: Any, **kwargs: Any) -> Item:
        nonlocal applied
        applied += 1
        return real_apply(*args, **kwargs)

    def events_of(item_id: ItemId) -> list[Event]:
        reads.append(item_id)
        return found.get(item_id, [])

    monkeypatch.setattr(rulebook, "apply", counted)
    items = dict(rulebook.fold_items(chain, events_of, ROLES))
    assert sorted(reads) == sorted(chain) and applied == len(events)
    assert [items[i].status for i in chain if items[i] is not None] == ["duplicate"] * 299 + [
        "draft"
    ]
