"""Dependencies between items: the `dep` event, the graph, cycles, blockers, readiness.

Where a link lives. Each link is held by one item, as events on that item,
naming the other: the item whose readiness it decides, or that it describes.

    git coop dep add A blocks B           B holds  blocked-by A
    git coop dep add A parent-of B        A holds  parent-of B   (A waits on its children)
    git coop dep add A discovered-from B  A holds  discovered-from B
    git coop dep add A related B          A holds  related B
    git coop dep add A follows B          A holds  follows B     (B settled; B stays the record)

So everything that decides whether an item may be taken is in its own file
(a `take` reads no other item's links), and a merge replays each link's
events on one item in the one order of the fold: the union of events, as
for every other verb. Split queue children (`parent_id`) count as parent-of
links of their parent.

Cycles. Whether a link closes a cycle depends on every item's links, so it
is checked where the whole ledger is in view: a write that would close one
is refused naming the cycle (`cycle_closed_by`). Two clones can still each
add half of a cycle offline; after the merge both links stand (nothing is
dropped) and `cycles` finds the cycle from the links alone, so every item
on it shows the conflict, and none of them is ready (each waits on an
unsettled item) until someone removes a link.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gitcoop.domain.ids import ITEM_ID_RE
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Item, Link, Roles, replace
from gitcoop.errors import Refused

BLOCKED_BY, PARENT_OF, DISCOVERED_FROM, RELATED, FOLLOWS = (
    "blocked-by",
    "parent-of",
    "discovered-from",
    "related",
    "follows",
)
TYPES = (BLOCKED_BY, PARENT_OF, DISCOVERED_FROM, RELATED, FOLLOWS)
WAITING = (BLOCKED_BY, PARENT_OF)  # the links an item waits on
SETTLED = ("done", "closed", "abandoned", "stale", "duplicate")
# what `dep add A <phrase> B` says -> (which side holds the link, the stored type)
PHRASES = {
    "blocks": ("second", BLOCKED_BY),
    "blocked-by": ("first", BLOCKED_BY),
    "parent-of": ("first", PARENT_OF),
    "child-of": ("second", PARENT_OF),
    "discovered-from": ("first", DISCOVERED_FROM),
    "related": ("first", RELATED),
    "follows": ("first", FOLLOWS),
}


def settled(status: str) -> bool:
    return status in SETTLED


def held(first: str, phrase: str, second: str) -> tuple[str, str, str]:
    """`A blocks B` -> (B, blocked-by, A): the holder, the stored type, the other item."""
    if phrase not in PHRASES:
        raise Refused(f"unknown link {phrase!r}: use one of {', '.join(PHRASES)}")
    side, kind = PHRASES[phrase]
    return (first, kind, second) if side == "first" else (second, kind, first)


def spoken(holder: str, kind: str, other: str) -> tuple[str, str, str]:
    """The stored link as people say it: (holder, blocked-by, A) -> (A, blocks, holder)."""
    if kind == BLOCKED_BY:
        return other, "blocks", holder
    return holder, kind, other


# -- the event -------------------------------------------------------------------


def dep(item: Item | None, event: Event, roles: Roles) -> Item:
    """Add or remove one link the item holds. Adding one it has, or removing one it
    has not, changes nothing: two clones adding the same link offline merge to one."""
    assert item is not None
    action, kind, other = event.arg("action"), event.arg("type"), event.arg("other")
    if action not in ("add", "remove"):
        raise Refused(f"dep needs an action, add or remove, not {action!r}")
    if kind not in TYPES:
        raise Refused(f"unknown link type {kind!r}: one of {', '.join(TYPES)}")
    if not isinstance(other, str) or not ITEM_ID_RE.match(other):
        raise Refused(f"a link names an item id, not {other!r}")
    if other == item.id:
        raise Refused(f"{item.id} cannot be linked to itself")
    kept = tuple(link for link in item.links if (link.type, link.item) != (kind, other))
    if action == "remove":
        return replace(item, links=kept)
    if len(kept) != len(item.links):
        return item
    return replace(item, links=(*item.links, Link(kind, other, event.actor, event.at)))


def plan(item: Item | None, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a link request records: None when the item already is as asked; removing a
    link that is not there is refused (a typo should not pass as done)."""
    if item is None:
        raise Refused("a link needs an item that exists")
    present = any(
        (link.type, link.item) == (args.get("type"), args.get("other")) for link in item.links
    )
    if args.get("action") == "add":
        return None if present else dict(args)
    if not present:
        first, phrase, second = spoken(item.id, str(args.get("type")), str(args.get("other")))
        raise Refused(f"there is no link {first} {phrase} {second} — nothing to remove")
    return dict(args)


HANDLERS = {"dep": dep}


# -- the graph -------------------------------------------------------------------


@record_type
class Node:
    """What the graph needs of one item."""

    id: str
    kind: str
    status: str
    links: tuple[tuple[str, str], ...] = ()  # (type, other item)
    parent_id: str | None = None  # a split queue child's parent


def node(item: Item) -> Node:
    links = tuple((link.type, link.item) for link in item.links)
    return Node(item.id, item.kind, item.status, links, item.parent_id)


class Graph:
    """Every item's links, both ways; `waits` is what each item waits on.

    `settled_elsewhere(id)` says whether an item that is not among the nodes is
    one the ledger holds as settled: a reader that builds the graph from the
    open index (every unsettled item, and every item holding a link) answers
    it from the ledger's tree. Without it, an item that is not a node counts as
    missing, hence unsettled.
    """

    def __init__(
        self, nodes: Iterable[Node], settled_elsewhere: Callable[[str], bool] | None = None
    ) -> None:
        self.nodes = {n.id: n for n in nodes}
        self.settled_elsewhere = settled_elsewhere
        self.waits: dict[str, list[str]] = {}
        self.incoming: dict[str, list[tuple[str, str]]] = {}  # id -> (type, holder)
        for n in self.nodes.values():
            for kind, other in n.links:
                self.incoming.setdefault(other, []).append((kind, n.id))
                if kind in WAITING:
                    self.waits.setdefault(n.id, []).append(other)
            if n.parent_id is not None:  # a split's children hold it open
                self.waits.setdefault(n.parent_id, []).append(n.id)
                self.incoming.setdefault(n.id, []).append((PARENT_OF, n.parent_id))

    def status(self, item_id: str) -> str | None:
        found = self.nodes.get(item_id)
        return found.status if found is not None else None

    def unsettled(self, item_id: str) -> bool:
        """Whether waiting on `item_id` holds work back (an item this ledger lacks does)."""
        found = self.nodes.get(item_id)
        if found is not None:
            return not settled(found.status)
        return self.settled_elsewhere is None or not self.settled_elsewhere(item_id)

    def blockers(self, item_id: str) -> list[str]:
        """What `item_id` waits on that is not settled (an item this ledger lacks counts)."""
        found: list[str] = []
        for other in self.waits.get(item_id, ()):
            if other not in found and self.unsettled(other):
                found.append(other)
        return found

    def cycle_closed_by(self, waiter: str, other: str) -> list[str] | None:
        """The cycle `waiter` waiting on `other` would close: waiter, other, ..., waiter."""
        back = _path(self.waits, other, waiter)
        return None if back is None else [waiter, *back]

    def cycles(self) -> list[list[str]]:
        """One cycle through each group of items that wait on each other, smallest id first:
        the shortest way back to it, from the first of its steps that has one that short.
        One search back from it over the group's reversed waits finds each step's
        distance, so a group costs its size, not its size for each of its steps."""
        groups = _strong_groups(self.waits)
        member = {item: n for n, group in enumerate(groups) for item in group}
        inside: list[dict[str, list[str]]] = [{} for _ in groups]
        back: list[dict[str, list[str]]] = [{} for _ in groups]
        for waiter, others in self.waits.items():
            n = member.get(waiter)
            if n is None:
                continue
            for other in others:
                if member.get(other) == n:
                    inside[n].setdefault(waiter, []).append(other)
                    back[n].setdefault(other, []).append(waiter)
        found = []
        for group, ahead, behind in zip(groups, inside, back, strict=True):
            start = min(group)
            far = _distances(behind, start)  # how many waits from each item back to start
            steps = [s for s in sorted(set(ahead.get(start, ()))) if s in far]
            nearest = min(steps, key=lambda s: far[s])  # the first of the shortest
            chain = _path(ahead, nearest, start)
            assert chain is not None  # `far` says there is one
            found.append([start, *chain])
        return sorted(found)


def _distances(waits: Mapping[str, list[str]], start: str) -> dict[str, int]:
    """How many steps of `waits` each item reachable from `start` is from it."""
    far = {start: 0}
    queue = deque([start])
    while queue:
        here = queue.popleft()
        for step in waits.get(here, ()):
            if step not in far:
                far[step] = far[here] + 1
                queue.append(step)
    return far


def _path(waits: Mapping[str, list[str]], start: str, goal: str) -> list[str] | None:
    """A shortest chain of waits from `start` to `goal`, both included."""
    before: dict[str, str] = {}
    queue = deque([start])
    seen = {start}
    while queue:
        here = queue.popleft()
        if here == goal:
            chain = [here]
            while chain[-1] != start:
                chain.append(before[chain[-1]])
            return chain[::-1]
        for step in sorted(set(waits.get(here, ()))):
            if step not in seen:
                seen.add(step)
                before[step] = here
                queue.append(step)
    return None


def _strong_groups(waits: Mapping[str, list[str]]) -> list[set[str]]:
    """Groups of two or more items that reach each other (Tarjan's, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []
    for root in sorted(waits):
        if root in index:
            continue
        work = [(root, iter(sorted(set(waits.get(root, ())))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            here, steps = work[-1]
            step = next(steps, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(set(waits.get(step, ()))))))
                elif step in on_stack:
                    low[here] = min(low[here], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[here])
            if low[here] == index[here]:
                group = set()
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    group.add(top)
                    if top == here:
                        break
                if len(group) > 1 or here in waits.get(here, ()):
                    groups.append(group)
    return groups


# -- refusals that need the whole graph ------------------------------------------


def refuse_cycle(cycle: list[str], label: Mapping[str, str], asked: str) -> Refused:
    shown = " → ".join(label.get(i, i) for i in cycle)
    return Refused(
        f"{asked} would close the cycle {shown} (each waits on the next) — "
        "remove a link first: git coop dep remove …",
        details={"cycle": list(cycle)},
    )


def refuse_blocked(item_id: str, blockers: list[tuple[str, str, str]]) -> Refused:
    """A take of blocked work: `blockers` are (id, label, status) of what it waits on."""
    named = ", ".join(f"{label} ({status})" for _, label, status in blockers)
    return Refused(
        f"{item_id} waits on {named} — take one of those first, or --force to take it anyway",
        details={"blockers": [i for i, _, _ in blockers]},
    )
