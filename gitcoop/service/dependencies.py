"""Links between items, and the answers that need them: dep, ready, blocked, a guarded take.

The graph is built from the open index (store/fast/read_cache.py): the summaries of
every unsettled item and the links of every settled one, so `ready` costs
about what a warm `list` does, and neither reads a settled item.
The rules are the domain's (`domain/dependencies.py`, `domain/readiness.py`);
what needs the whole ledger in view (a cycle, an item's blockers) is asked
here, on the ledger as read under the writer's lock when it decides a write.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any

from gitcoop.domain import dependencies, readiness
from gitcoop.domain.dependencies import PARENT_OF, WAITING, Graph, Node
from gitcoop.domain.ids import ItemId, fanout, shortest_labels
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import UsageError
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store.ledger.snapshot import Snapshot

if TYPE_CHECKING:  # a take loads this module, and never the read cache
    from gitcoop.store.fast.cache_rows import Row, Summary
    from gitcoop.store.fast.open_keys import Incoming


@record_type
class Open:
    """The open index of one ledger state, with the graph of every item's links."""

    snapshot: Snapshot
    rows: list[Row]  # every unsettled item (and settled ones that need attention)
    graph: Graph

    def other(self, item_id: str) -> Other:
        """An item on the other end of a link, as shown; a settled one is read from its file."""
        row = self.by_id.get(item_id)
        if row is not None:
            s = row.summary
            return Other(item_id, row.label, s.title, s.status)
        item = self.snapshot.item(ItemId(item_id)) if self.snapshot.has_item(item_id) else None
        if item is None:
            return Other(item_id, item_id, "", "missing")
        return Other(item_id, self.snapshot.label(item.id), item.title, item.status)

    @cached_property
    def by_id(self) -> dict[str, Row]:
        return {row.item_id: row for row in self.rows}


def open_index(snapshot: Snapshot) -> Open:
    """What the reading verbs need: the open rows and the graph, no settled item read."""
    from gitcoop.store.fast.read_cache import ItemCache

    view = snapshot.open_view(snapshot.cache or ItemCache(snapshot.repo.common_dir))
    nodes = [Node(s.id, s.kind, s.status, s.links, s.parent_id) for s in _summaries(view.rows)]
    nodes += [Node(n.id, n.kind, n.status, n.links, n.parent_id) for n in view.nodes]
    return Open(snapshot, view.rows, Graph(nodes, snapshot.has_item))


def _summaries(found: list[Row]) -> list[Summary]:
    return [row.summary for row in found]


# -- writes ----------------------------------------------------------------------


def link(ctx: Context, first: str, phrase: str, second: str, action: str = "add") -> Shown:
    """`dep add|remove A PHRASE B`: one `dep` event on the item that holds the link."""
    if phrase not in dependencies.PHRASES:
        raise UsageError(f"unknown link {phrase!r}: use one of {', '.join(dependencies.PHRASES)}")

    def plan(snapshot: Snapshot) -> list[Intent]:
        a, b = snapshot.resolve(first), snapshot.resolve(second)
        if a == b:
            raise UsageError(f"{snapshot.label(a)} cannot be linked to itself")
        holder, kind, other = dependencies.held(a, phrase, b)
        if action == "add" and kind in WAITING:
            _refuse_cycle(
                snapshot, holder, other, f"{snapshot.label(a)} {phrase} {snapshot.label(b)}"
            )
        args = {"action": action, "type": kind, "other": other}
        return [Intent(holder, "dep", args, ctx.expect_version)]

    return write(ctx, plan).first()


def _refuse_cycle(snapshot: Snapshot, holder: str, other: str, asked: str) -> None:
    found = open_index(snapshot)
    cycle = found.graph.cycle_closed_by(holder, other)
    if cycle is not None:
        labels = {item_id: found.other(item_id).label for item_id in cycle}
        raise dependencies.refuse_cycle(cycle, labels, asked)


# -- reads -----------------------------------------------------------------------


@record_type
class Ready:
    listed: list[Row]  # in readiness order
    blocked: int  # startable items held back by a blocker (what `blocked` lists)
    more: int = 0  # ready items the limit left out


def ready(
    ctx: Context, kind: str | None = None, tag: str | None = None, limit: int | None = None
) -> Ready:
    return ready_in(read_ledger(ctx), kind, tag, limit, format_instant(ctx.now))


def ready_in(
    snapshot: Snapshot,
    kind: str | None = None,
    tag: str | None = None,
    limit: int | None = None,
    now: str | None = None,
) -> Ready:
    """`ready` on one state of the ledger (a writer's plan reads it under the lock);
    work whose own due date is `now` or before goes first within its priority."""
    found = open_index(snapshot)
    by_id = {}
    candidates = []
    for row in found.rows:
        s = row.summary
        if not readiness.startable(s.kind, s.status):
            continue
        if (kind is not None and s.kind != kind) or (tag is not None and tag not in s.tags):
            continue
        by_id[s.id] = row
        candidates.append(
            readiness.Candidate(s.id, s.kind, s.priority, s.created_at, s.order_key, s.due)
        )
    listed = readiness.ready(candidates, found.graph, now)
    held_back = len(candidates) - len(listed)
    more = 0 if limit is None else max(0, len(listed) - limit)
    if limit is not None:
        listed = listed[:limit]
    return Ready([by_id[c.id] for c in listed], held_back, more)


@record_type
class Other:
    """An item on the other end of a link, as shown."""

    id: str
    label: str
    title: str
    status: str  # "missing" when this ledger lacks it

    def to_data(self) -> dict[str, Any]:
        return {"id": self.id, "short_id": self.label, "title": self.title, "status": self.status}


@record_type
class Waiting:
    row: Row
    blockers: list[Other]


@record_type
class Blocked:
    waiting: list[Waiting]  # unsettled items with an unsettled blocker, oldest first
    cycles: list[list[Other]]


def blocked(ctx: Context) -> Blocked:
    found = open_index(read_ledger(ctx))
    waiting = []
    for row in sorted(found.rows, key=lambda r: (r.summary.created_at, r.item_id)):
        if dependencies.settled(row.summary.status):
            continue
        blockers = found.graph.blockers(row.item_id)
        if blockers:
            waiting.append(Waiting(row, [found.other(b) for b in blockers]))
    cycles = [[found.other(i) for i in cycle] for cycle in found.graph.cycles()]
    return Blocked(waiting, cycles)


@record_type
class Links:
    """Both ends of every link of one item, for `show`."""

    outgoing: dict[str, list[Other]]  # blocked_by, children, discovered_from, related, follows
    incoming: dict[str, list[Other]]  # blocks, parent, discovered, related, followed_by
    waiting_on: list[str]  # unsettled blockers' ids
    cycles: list[list[Other]]  # the cycles this item is on

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for key, entries in (*self.outgoing.items(), *self.incoming.items()):
            data.setdefault(key, [])
            data[key] += [e.to_data() for e in entries if e.to_data() not in data[key]]
        data["waiting_on"] = self.waiting_on
        data["cycles"] = [[e.id for e in cycle] for cycle in self.cycles]
        return data


OUT_NAMES = {
    dependencies.BLOCKED_BY: "blocked_by",
    dependencies.PARENT_OF: "children",
    dependencies.DISCOVERED_FROM: "discovered_from",
    dependencies.RELATED: "related",
    dependencies.FOLLOWS: "follows",
}
IN_NAMES = {
    dependencies.BLOCKED_BY: "blocks",
    dependencies.PARENT_OF: "parent",
    dependencies.DISCOVERED_FROM: "discovered",
    dependencies.RELATED: "related",
    dependencies.FOLLOWS: "followed_by",
}


def links(snapshot: Snapshot, item: Item) -> Links:
    """Both ends of `item`'s links, reading what they show: its own links from its file,
    the links into it from its group's index of incoming links (`Snapshot.incoming`),
    and each item on the other end from its own file. What it waits on, and the cycles
    it is on, are those of the whole graph: an item's cycles lie among what it reaches
    by waiting, so only that part of the graph is read."""
    from gitcoop.store.fast.open_keys import CHILD

    near = _Near(snapshot)
    outgoing: dict[str, list[Other]] = {name: [] for name in OUT_NAMES.values()}
    for link_ in item.links:
        if link_.type in OUT_NAMES:  # a type this gitcoop does not know means nothing here
            outgoing[OUT_NAMES[link_.type]].append(near.other(link_.item))
    into = near.incoming(item.id)
    children = sorted(
        {entry.holder for entry in into if entry.kind == CHILD},
        key=lambda child: (fanout(child), child),
    )
    outgoing["children"] += [near.other(child) for child in children]
    # the graph lists the items in view first, then the others, each by fan-out and id
    placed = [(_place(e.in_view, e.holder), e.position, e.kind, e.holder) for e in into]
    placed = [entry for entry in placed if entry[2] != CHILD]
    own = near.node(item.id)  # as the graph has it: a parent only where its kind has one
    if own is not None and own.parent_id is not None:
        place = _place(near.in_view(item.id), item.id)
        placed.append((place, len(own.links), PARENT_OF, own.parent_id))
    incoming: dict[str, list[Other]] = {name: [] for name in IN_NAMES.values()}
    for _, _, kind, holder in sorted(placed, key=lambda entry: entry[:2]):
        if kind in IN_NAMES:
            incoming[IN_NAMES[kind]].append(near.other(holder))
    graph = near.reached(item.id)
    cycles = [[near.other(i) for i in cycle] for cycle in graph.cycles() if item.id in cycle]
    return Links(outgoing, incoming, graph.blockers(item.id), cycles)


def _place(in_view: bool, item_id: str) -> tuple[bool, str, str]:
    return (not in_view, fanout(item_id), item_id)


class _Near:
    """The items around one item, each read from its own file once."""

    def __init__(self, snapshot: Snapshot) -> None:
        from gitcoop.store.fast.read_cache import ItemCache

        self.snapshot = snapshot
        self.cache = snapshot.cache or ItemCache(snapshot.repo.common_dir)
        self.summaries: dict[str, Summary | None] = {}
        self.into: dict[str, dict[str, list[Incoming]]] = {}  # by fan-out, by item
        self.labels: dict[str, dict[str, str] | None] = {}  # by fan-out, once asked twice

    def summary(self, item_id: str) -> Summary | None:
        if item_id not in self.summaries:
            self.summaries[item_id] = self.snapshot.item_summary(item_id)
        return self.summaries[item_id]

    def node(self, item_id: str) -> Node | None:
        s = self.summary(item_id)
        return None if s is None else Node(s.id, s.kind, s.status, s.links, s.parent_id)

    def in_view(self, item_id: str) -> bool:
        from gitcoop.store.fast.cache_rows import in_view

        s = self.summary(item_id)
        return s is not None and in_view(s)

    def incoming(self, item_id: str) -> list[Incoming]:
        """The links into an item: its fan-out's index is read once, for all its items."""
        fan = fanout(item_id)
        if fan not in self.into:
            self.into[fan] = self.snapshot.incoming(self.cache, fan)
        return self.into[fan].get(item_id, [])

    def other(self, item_id: str) -> Other:
        """An item on the other end of a link, as shown, from its own file."""
        item = self.snapshot.item(ItemId(item_id)) if self.snapshot.has_item(item_id) else None
        if item is None:
            return Other(item_id, item_id, "", "missing")
        return Other(item_id, self.label(item.id), item.title, item.status)

    def label(self, item_id: ItemId) -> str:
        """An item's label: the first of a fan-out from one pass over its ids, every other
        from the labels of them all, made once (an item with thousands of links into one
        fan-out labels each in one lookup, not one pass each)."""
        fan = fanout(item_id)
        if fan not in self.labels:
            self.labels[fan] = None
            return self.snapshot.label(item_id)
        labels = self.labels[fan]
        if labels is None:
            labels = self.labels[fan] = shortest_labels(self.snapshot.item_ids(fan))
        return labels[item_id]

    def reached(self, start: str) -> Graph:
        from gitcoop.store.fast.open_keys import CHILD

        """The graph of every item `start` reaches by waiting (on what it is blocked by, on
        its children), each with its links and its children: every cycle through `start`
        and each of its blockers are in it as in the whole graph."""
        nodes: list[Node] = []
        seen = {start}
        todo = [start]
        while todo:
            here = todo.pop()
            node = self.node(here)
            steps = [entry.holder for entry in self.incoming(here) if entry.kind == CHILD]
            if node is not None:
                nodes.append(node)
                steps += [other for kind, other in node.links if kind in WAITING]
            for step in steps:
                if step not in seen:
                    seen.add(step)
                    todo.append(step)
        nodes.sort(key=lambda n: _place(self.in_view(n.id), n.id))  # the graph's own order
        return Graph(nodes, self.snapshot.has_item)
