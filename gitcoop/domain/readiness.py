"""What is ready to start, and in which order: the one answer to "what next".

Ready: an open todo or request (nobody holds it) or a ready queue item, with
no unsettled blocker (`Graph.blockers`). Order: priority first (0 highest);
within one priority, overdue work first (its own due date passed; the soonest
due first), then todos and requests oldest first and queue items in queue
order, the two interleaved by when they were filed. `ready`, `pick`, `prime`
and the MCP server all use this order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from itertools import groupby

from gitcoop.domain.dependencies import Graph, node
from gitcoop.domain.lifecycle import TERMINAL
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant, human_span


@record_type
class Candidate:
    id: str
    kind: str
    priority: int
    created_at: str  # ISO 8601 text of one fixed width: compares as the instant
    order_key: str | None
    due: str | None = None  # the item's own due date, as the same text


def candidate(item: Item) -> Candidate:
    due = format_instant(item.due) if item.due else None
    return Candidate(
        item.id, item.kind, item.priority, format_instant(item.created_at), item.order_key, due
    )


def ready_items(
    items: list[Item], wanted: Callable[[Item], bool], now: str | None = None
) -> list[Item]:
    """Of `items` (the whole ledger), those `wanted` with no unsettled blocker, in order."""
    graph = Graph(node(i) for i in items)
    by_id: dict[str, Item] = {i.id: i for i in items}
    found = ready((candidate(i) for i in items if wanted(i)), graph, now)
    return [by_id[c.id] for c in found]


def startable(kind: str, status: str) -> bool:
    """Work nobody holds that may be started, blockers aside."""
    return (kind in ("todo", "request") and status == "open") or (
        kind == "item" and status == "ready"
    )


def ready(candidates: Iterable[Candidate], graph: Graph, now: str | None = None) -> list[Candidate]:
    """The startable candidates with no unsettled blocker, in the order above (overdue
    as of `now`, an instant's text; None: nothing is overdue)."""
    return ordered((c for c in candidates if not graph.blockers(c.id)), now)


def overdue(due: str | None, now: str | None) -> bool:
    """Whether an item's own due date (instants as their fixed-width text) has passed."""
    return due is not None and now is not None and due <= now


def ordered(candidates: Iterable[Candidate], now: str | None = None) -> list[Candidate]:
    by_priority = sorted(candidates, key=lambda c: c.priority)
    result: list[Candidate] = []
    for _, group in groupby(by_priority, key=lambda c: c.priority):
        members = list(group)
        late = [c for c in members if overdue(c.due, now)]
        if late:
            result += sorted(late, key=lambda c: (c.due or "", c.created_at, c.id))
            members = [c for c in members if not overdue(c.due, now)]
        queue = sorted((c for c in members if c.kind == "item"), key=_queue_key)
        rest = sorted((c for c in members if c.kind != "item"), key=_age_key)
        result += _interleaved(queue, rest)
    return result


def _queue_key(c: Candidate) -> tuple[str, str]:
    return (c.order_key or "", c.id)


def _age_key(c: Candidate) -> tuple[str, str]:
    return (c.created_at, c.id)


def _interleaved(queue: list[Candidate], rest: list[Candidate]) -> Iterator[Candidate]:
    """Both lists keep their own order; at each step the one filed earlier goes first."""
    i = j = 0
    while i < len(queue) and j < len(rest):
        if _age_key(queue[i]) <= _age_key(rest[j]):
            yield queue[i]
            i += 1
        else:
            yield rest[j]
            j += 1
    yield from queue[i:]
    yield from rest[j:]


def due_words(due: datetime, status: str, now: datetime) -> tuple[str, bool] | None:
    """How an item's own due date is said, and whether it has passed: ("due in 3d", False)
    or ("overdue 2d", True). None for settled work, which is never overdue. `list` shows it
    as `[due in 3d]`; the board's cards and item view show the same words."""
    if status in TERMINAL:
        return None
    if due <= now:
        return f"overdue {human_span(now - due)}", True
    return f"due in {human_span(due - now)}", False
