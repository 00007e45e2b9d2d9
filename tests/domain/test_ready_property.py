"""A property: `ready` never lists an item with an unsettled blocker, on random graphs and
merges of two clones' offline work (each clone checked its own links for cycles, as a write
does; their union may still hold one)."""

from __future__ import annotations

import random

from hypothesis import given, settings, target
from hypothesis import strategies as st

from gitcoop.domain import readiness, rulebook
from gitcoop.domain.dependencies import TYPES, WAITING, Graph, node, settled
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Event, Item
from gitcoop.errors import Refused
from tests.domain.builders import ALICE, BOB, ROLES, event

IDS = [ItemId(f"td-{n:012d}") for n in range(8)]

operations = st.lists(
    st.tuples(
        st.sampled_from(["link", "link", "link", "unlink", "done", "take"]),
        st.integers(0, 7),
        st.integers(0, 7),
        st.sampled_from([*WAITING, *TYPES]),  # links that wait, twice as often
    ),
    max_size=10,
)


def fold_all(events: list[Event], ids: list[ItemId]) -> dict[ItemId, Item]:
    folded = {i: rulebook.fold([e for e in events if e.item == i], ROLES) for i in ids}
    return {i: item for i, item in folded.items() if item is not None}


def clone_work(
    base: list[Event], ids: list[ItemId], ops: list, actor: str, clock: int
) -> list[Event]:
    """One clone's offline events: each checked as the write path checks it."""
    mine: list[Event] = []
    for n, (op, a, b, kind) in enumerate(ops):
        holder, other = ids[a % len(ids)], ids[b % len(ids)]
        items = fold_all(base + mine, ids)
        at = {"actor": actor, "item": holder, "minutes": n, "clock": clock + n}
        if op in ("link", "unlink") and holder != other:
            graph = Graph(node(i) for i in items.values())
            if op == "link" and kind in WAITING and graph.cycle_closed_by(holder, other):
                continue  # refused at write time, naming the cycle
            action = "add" if op == "link" else "remove"
            candidate = event("dep", action=action, type=kind, other=other, **at)
        elif op in ("done", "take"):
            candidate = event(op, **at)
        else:
            continue
        try:
            rulebook.apply(items[holder], candidate, ROLES)
        except Refused:
            continue
        mine.append(candidate)
    return mine


@settings(max_examples=100, deadline=None)
@given(
    size=st.integers(2, 6),
    shared=operations,
    left=operations,
    right=operations,
    seed=st.integers(0, 2**16),
    crossed=st.booleans(),
)
def test_ready_never_lists_an_item_with_an_unsettled_blocker(
    size: int, shared: list, left: list, right: list, seed: int, crossed: bool
) -> None:
    ids = IDS[:size]
    base = [event("add", item=i, kind="todo", title="w", clock=n + 1) for n, i in enumerate(ids)]
    base += clone_work(base, ids, shared, ALICE, len(ids) + 1)
    tip = max(e.clock for e in base)
    if crossed:  # the other clone links the same pairs the other way round: merges make cycles
        right = [*right, *((op, b, a, kind) for op, a, b, kind in left if op == "link")]
    ours = clone_work(base, ids, left, ALICE, tip + 1)
    theirs = clone_work(base, ids, right, BOB, tip + 1)
    union = base + ours + theirs
    random.Random(seed).shuffle(union)  # the order events arrive in does not matter
    merged = fold_all(union, ids)
    assert merged == fold_all(base + theirs + ours, ids)
    items = list(merged.values())
    graph = Graph(node(i) for i in items)
    listed = readiness.ready_items(items, lambda i: readiness.startable(i.kind, i.status))
    cycles = graph.cycles()
    live = {i for c in cycles if not any(settled(merged[ItemId(x)].status) for x in c) for i in c}
    for item in listed:
        assert item.id not in live  # a cycle of unsettled work holds every item on it
        for link in item.links:
            if link.type in WAITING:
                assert settled(merged[ItemId(link.item)].status), (item.id, link)
    for item in items:  # and every startable item it leaves out does wait on something
        if readiness.startable(item.kind, item.status) and item not in listed:
            waits = [x.item for x in item.links if x.type in WAITING]
            assert any(not settled(merged[ItemId(w)].status) for w in waits), item.id
    assert all(x.type in TYPES for i in items for x in i.links)
    target(float(len(live)), label="unsettled items on cycles formed by the merge")


@settings(max_examples=100, deadline=None)
@given(size=st.integers(2, 8), work=operations, missing=st.integers(0, 7))
def test_the_open_index_s_graph_answers_as_the_whole_ledger_s(
    size: int, work: list, missing: int
) -> None:
    """The reading verbs build the graph from the open index: every unsettled item, the
    settled ones holding a link, and the ledger's word for the rest. It gives the same
    blockers, readiness and cycles as the graph of every item."""
    ids = IDS[:size]
    base = [event("add", item=i, kind="todo", title="w", clock=n + 1) for n, i in enumerate(ids)]
    base += clone_work(base, ids, work, ALICE, len(ids) + 1)
    items = fold_all(base, ids)
    del items[ids[missing % size]]  # an item another clone has and this ledger lacks
    whole = Graph(node(i) for i in items.values())
    kept = [i for i in items.values() if not settled(i.status) or i.links or i.parent_id]
    index = Graph((node(i) for i in kept), lambda item_id: item_id in items)
    for item_id in ids:
        assert index.blockers(item_id) == whole.blockers(item_id)
        assert index.unsettled(item_id) == whole.unsettled(item_id)
    assert index.cycles() == whole.cycles()
    startable = [
        readiness.candidate(i) for i in items.values() if readiness.startable(i.kind, i.status)
    ]
    assert readiness.ready(startable, index) == readiness.ready(startable, whole)
