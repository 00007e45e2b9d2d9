"""Links between items: the `dep` fold, cycles, blockers, merges, and the order of `ready`."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.domain import dependencies, readiness, rulebook
from gitcoop.domain.dependencies import BLOCKED_BY, PARENT_OF, Graph, Node, node
from gitcoop.domain.ids import ItemId
from gitcoop.domain.readiness import Candidate
from gitcoop.domain.records import Event, Item
from gitcoop.errors import Refused
from tests.domain.builders import ALICE, BOB, ROLES, event, run

A, B, C = ItemId("td-aaaaaaaaaaaa"), ItemId("td-bbbbbbbbbbbb"), ItemId("td-cccccccccccc")


def make(item_id: ItemId, minutes: float = 0) -> Item:
    return run(
        None, event("add", item=item_id, kind="todo", title=f"work {item_id}", minutes=minutes)
    )


def dep(holder: ItemId, kind: str, other: str, action: str = "add", actor: str = ALICE) -> Event:
    return event("dep", actor, item=holder, action=action, type=kind, other=other)


def linked(item: Item, kind: str, other: str, action: str = "add", actor: str = ALICE) -> Item:
    return run(item, dep(item.id, kind, other, action, actor))


def test_held_puts_each_link_on_the_item_whose_state_it_decides() -> None:
    assert dependencies.held(A, "blocks", B) == (B, BLOCKED_BY, A)
    assert dependencies.held(A, "blocked-by", B) == (A, BLOCKED_BY, B)
    assert dependencies.held(A, "parent-of", B) == (A, PARENT_OF, B)
    assert dependencies.held(A, "child-of", B) == (B, PARENT_OF, A)
    assert dependencies.held(A, "discovered-from", B) == (A, "discovered-from", B)
    assert dependencies.spoken(B, BLOCKED_BY, A) == (A, "blocks", B)
    with pytest.raises(Refused, match="unknown link"):
        dependencies.held(A, "precedes", B)


def test_a_link_is_added_once_and_removed_and_records_who_and_when() -> None:
    a = linked(make(A), BLOCKED_BY, B, actor=BOB)
    assert [(x.type, x.item, x.by) for x in a.links] == [(BLOCKED_BY, B, BOB)]
    again = linked(a, BLOCKED_BY, B)
    assert again.links == a.links  # two clones adding one link offline merge to one
    assert again.version == a.version + 1  # accepted, not a conflict
    gone = linked(again, BLOCKED_BY, B, action="remove")
    assert gone.links == ()
    assert linked(gone, BLOCKED_BY, B, action="remove").links == ()  # a repeat changes nothing


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ({"action": "add", "type": "precedes", "other": B}, "unknown link type"),
        ({"action": "add", "type": BLOCKED_BY, "other": "not-an-id"}, "names an item id"),
        ({"action": "add", "type": BLOCKED_BY, "other": A}, "to itself"),
        ({"action": "flip", "type": BLOCKED_BY, "other": B}, "add or remove"),
    ],
)
def test_a_bad_link_is_refused_by_the_rule(args: dict[str, str], message: str) -> None:
    with pytest.raises(Refused, match=message):
        run(make(A), dep(A, args["type"], args["other"], args["action"]))


def test_plan_writes_nothing_for_a_link_that_is_there_and_refuses_removing_one_that_is_not() -> (
    None
):
    a = linked(make(A), BLOCKED_BY, B)
    assert (
        rulebook.plan(a, "dep", {"action": "add", "type": BLOCKED_BY, "other": B}, ALICE, ROLES)
        is None
    )
    with pytest.raises(Refused, match="no link td-cccccccccccc blocks td-aaaaaaaaaaaa"):
        rulebook.plan(a, "dep", {"action": "remove", "type": BLOCKED_BY, "other": C}, ALICE, ROLES)


def test_a_link_event_keeps_its_arguments_through_its_stored_form() -> None:
    stored = dep(A, BLOCKED_BY, B)
    assert Event.from_data(stored.to_data()) == stored  # `item` is the event's own field


def test_the_fold_of_link_events_does_not_depend_on_the_order_they_arrive_in() -> None:
    events = [
        event("add", item=A, kind="todo", title="a"),
        dep(A, BLOCKED_BY, B),
        dep(A, PARENT_OF, C),
        dep(A, BLOCKED_BY, B, "remove"),
    ]
    folded = [
        rulebook.fold(order, ROLES) for order in (events, events[::-1], events[1:] + events[:1])
    ]
    assert folded[0] == folded[1] == folded[2]
    assert folded[0] is not None and [(x.type, x.item) for x in folded[0].links] == [(PARENT_OF, C)]


def graph(*nodes: Node) -> Graph:
    return Graph(nodes)


def test_an_item_is_blocked_while_a_blocker_or_a_child_is_unsettled() -> None:
    g = graph(
        Node(A, "todo", "open", ((BLOCKED_BY, B),)),
        Node(B, "todo", "taken"),
        Node(C, "todo", "open", ((PARENT_OF, A),)),
    )
    assert g.blockers(A) == [B]
    assert g.blockers(C) == [A]  # a parent waits on its child
    settled = graph(Node(A, "todo", "open", ((BLOCKED_BY, B),)), Node(B, "todo", "done"))
    assert settled.blockers(A) == []
    missing = graph(Node(A, "todo", "open", ((BLOCKED_BY, B),)))
    assert missing.blockers(A) == [B]  # an item this ledger lacks is not known to be settled


def test_split_children_are_parent_of_links() -> None:
    parent, child = ItemId("it-pppppppppppp"), ItemId("it-qqqqqqqqqqqq")
    g = graph(Node(parent, "item", "split"), Node(child, "item", "draft", (), parent))
    assert g.blockers(parent) == [child]
    assert (PARENT_OF, parent) in g.incoming[child]


def test_a_link_that_would_close_a_cycle_is_named_with_the_whole_cycle() -> None:
    g = graph(
        Node(A, "todo", "open", ((BLOCKED_BY, B),)),
        Node(B, "todo", "open", ((BLOCKED_BY, C),)),
        Node(C, "todo", "open"),
    )
    assert g.cycle_closed_by(C, A) == [C, A, B, C]
    assert g.cycle_closed_by(A, C) is None  # another path to C closes nothing
    refusal = dependencies.refuse_cycle([C, A, B, C], {A: "td-aaaa"}, "td-aaaa blocks td-cccc")
    assert "td-cccccccccccc → td-aaaa → td-bbbbbbbbbbbb → td-cccccccccccc" in refusal.message
    assert refusal.details == {"cycle": [C, A, B, C]}


def test_a_cycle_formed_only_by_a_merge_shows_on_every_item_on_it_and_none_is_ready() -> None:
    # each clone adds one half offline; each half was checked against its own clone
    base = [event("add", item=i, kind="todo", title="w", minutes=n) for n, i in enumerate((A, B))]
    mine = [dep(A, BLOCKED_BY, B)]
    theirs = [dep(B, BLOCKED_BY, A)]
    for side in (mine, theirs):
        items = [rulebook.fold([e for e in base + side if e.item == i], ROLES) for i in (A, B)]
        assert Graph(node(x) for x in items if x).cycles() == []
    merged = [
        rulebook.fold([e for e in base + mine + theirs if e.item == i], ROLES) for i in (A, B)
    ]
    items = [x for x in merged if x is not None]
    assert all(x.links and not x.conflicts for x in items)  # nothing dropped by the merge
    g = Graph(node(x) for x in items)
    assert g.cycles() == [[A, B, A]]
    assert readiness.ready_items(items, lambda i: i.status == "open") == []


def test_cycles_are_found_in_long_chains_without_recursion() -> None:
    ids = [ItemId(f"td-{n:012d}") for n in range(3000)]
    nodes = [Node(i, "todo", "open", ((BLOCKED_BY, ids[n + 1]),)) for n, i in enumerate(ids[:-1])]
    g = Graph([*nodes, Node(ids[-1], "todo", "open", ((BLOCKED_BY, ids[0]),))])
    (cycle,) = g.cycles()
    assert len(cycle) == 3001 and cycle[0] == cycle[-1] == ids[0]


def cand(
    item_id: str, priority: int, created: str, kind: str = "todo", key: str | None = None
) -> Candidate:
    return Candidate(item_id, kind, priority, f"2026-11-29T10:{created}:00Z", key)


def test_ready_is_by_priority_then_queue_order_for_queue_items_and_age_for_the_rest() -> None:
    entries = [
        cand("td-old", 2, "00"),
        cand("it-second", 2, "01", "item", "b"),
        cand("it-first", 2, "05", "item", "a"),  # moved up the queue: keeps its queue place
        cand("rq-new", 2, "03", "request"),
        cand("td-urgent", 0, "09"),
        cand("td-later", 4, "00"),
    ]
    order = [c.id for c in readiness.ordered(entries)]
    # the queue head (it-first, filed at :05) waits behind rq-new (:03); queue order holds
    assert order == ["td-urgent", "td-old", "rq-new", "it-first", "it-second", "td-later"]


def test_ready_leaves_out_held_and_settled_work_and_what_waits() -> None:
    assert readiness.startable("todo", "open") and readiness.startable("item", "ready")
    assert not readiness.startable("todo", "taken") and not readiness.startable("item", "draft")
    g = graph(Node(A, "todo", "open", ((BLOCKED_BY, B),)), Node(B, "todo", "open"))
    listed = readiness.ready([cand(A, 0, "00"), cand(B, 2, "00")], g)
    assert [c.id for c in listed] == [B]


def test_a_follows_link_is_held_by_the_new_item_and_waits_on_nothing() -> None:
    assert dependencies.held(A, "follows", B) == (A, dependencies.FOLLOWS, B)
    g = graph(Node(A, "todo", "open", ((dependencies.FOLLOWS, B),)), Node(B, "todo", "done"))
    assert g.blockers(A) == []
    reopened = graph(Node(A, "todo", "open", ((dependencies.FOLLOWS, B),)), Node(B, "todo", "open"))
    assert reopened.blockers(A) == []  # carrying work on is not waiting on it


def _cycles_step_by_step(g: Graph) -> list[list[str]]:
    """`cycles` as it was first written: a search back to the group's smallest id from each
    of its steps, the shortest kept (one search a step: the square of a long cycle)."""
    found = []
    for group in dependencies._strong_groups(g.waits):
        start = min(group)
        inside = {k: [v for v in vs if v in group] for k, vs in g.waits.items() if k in group}
        steps = sorted(set(inside.get(start, ())))
        chains = [c for c in (dependencies._path(inside, s, start) for s in steps) if c]
        found.append([start, *min(chains, key=len)])
    return sorted(found)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 11), st.integers(0, 11), st.booleans()), max_size=40))
def test_cycles_are_the_shortest_back_to_each_groups_smallest_id(
    edges: list[tuple[int, int, bool]],
) -> None:
    """One search per group, not one per step of its smallest item: the same cycles."""
    ids = [f"td-{n:012d}" for n in range(12)]
    links: dict[str, list[tuple[str, str]]] = {i: [] for i in ids}
    parents: dict[str, str] = {}
    for a, b, as_child in edges:
        if as_child and ids[b] not in parents and a != b:
            parents[ids[b]] = ids[a]
        else:
            links[ids[a]].append((BLOCKED_BY, ids[b]))
    g = Graph(Node(i, "todo", "open", tuple(links[i]), parents.get(i)) for i in ids)
    assert g.cycles() == _cycles_step_by_step(g)
