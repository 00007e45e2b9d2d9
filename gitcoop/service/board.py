"""What the board (`git coop serve`, gitcoop/web) reads: one view of the open index.

The board's columns, its graph of links, the ledger's recent commits, the tip
the live updates watch, and the lines a queue item's evidence cites. Every
read goes through the same snapshot and read cache as `list`: a plain board
reads only the open index, however long the ancestry.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from gitcoop.domain import obligations, readiness
from gitcoop.domain.dependencies import BLOCKED_BY, PARENT_OF, SETTLED
from gitcoop.domain.lifecycle import HELD, TERMINAL
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Evidence
from gitcoop.domain.timefmt import parse_instant
from gitcoop.service import dependencies
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.queries import ListFilter, list_rows

COLUMNS = ("ready", "progress", "blocked", "owed")
COLUMN_NAMES = {
    "ready": "Ready",
    "progress": "In progress",
    "blocked": "Blocked",
    "owed": "Owed",
}


@record_type
class Card:
    """One item on the board, as its card shows it."""

    id: str
    label: str
    title: str
    kind: str
    status: str
    priority: int
    tags: tuple[str, ...]
    holder: str | None
    taken_at: datetime | None
    due: datetime | None  # when what it owes is due
    deadline: datetime | None  # its own due date
    deadline_words: str | None  # "due in 3d", "overdue 2d" (as `list`'s mark); None if settled
    overdue: bool  # its own due date has passed
    marks: tuple[str, ...]  # due, escalated, parked, future; blocked (reported)
    conflicts: int
    version: int
    waiting_on: tuple[str, ...]  # labels of unsettled blockers


@record_type
class Board:
    tip: str | None
    viewer: str
    columns: dict[str, list[Card]]
    settled: dict[str, int]  # settled work counted, not listed
    kinds: tuple[str, ...]
    tags: tuple[str, ...]
    holders: tuple[str, ...]


def tip_reader(ctx: Context) -> Callable[[], str | None]:
    """A cheap question, asked again and again: which commit is refs/coop/ledger at now?
    The repository is opened once; each call reads the ref."""
    repo = ctx.repo()

    def tip() -> str | None:
        found = repo.tip()
        return str(found) if found is not None else None

    return tip


def viewer(ctx: Context) -> str:
    """Who the board acts as: the same answer the CLI gives with no --as (NoLedger when
    there is no ledger to show)."""
    return ctx.who(read_ledger(ctx).repo)


def may_review(ctx: Context) -> bool:
    """Whether the board's actor may make review decisions (an owner or a chief)."""
    snapshot = read_ledger(ctx)
    return snapshot.config.roles.can_review(ctx.who(snapshot.repo))


def board(ctx: Context, where: ListFilter | None = None) -> Board:
    """The open work in columns (ready, in progress, blocked, owed) and settled work counted.

    An item is in one column: owed when its obligation needs attention now, else blocked
    (waiting on unsettled work, or reported blocked), else in progress when held, else
    ready. Rows come from the open index (`list`'s plain read); a text search reads more.
    """
    snapshot = read_ledger(ctx)
    tip = str(snapshot.commit) if snapshot.commit is not None else None
    actor = ctx.who(snapshot.repo)
    roles = snapshot.config.roles
    found = list_rows(ctx, False, where or ListFilter())
    graph = dependencies.open_index(snapshot)
    columns: dict[str, list[Card]] = {name: [] for name in COLUMNS}
    kinds: set[str] = set()
    tags: set[str] = set()
    holders: set[str] = set()
    for row in found.listed:
        data = row.data()
        s = row.summary
        if s.status in TERMINAL and not s.conflicts:
            continue
        waiting = tuple(graph.other(b).label for b in graph.graph.blockers(row.item_id))
        card = _card(data, row.label, s.conflicts, waiting, ctx.now, actor, roles)
        kinds.add(card.kind)
        tags.update(card.tags)
        if card.holder:
            holders.add(card.holder)
        columns[_column(card, s.status)].append(card)
    for cards in columns.values():
        cards.sort(key=lambda c: (c.priority, c.due or c.taken_at or _FAR, c.id))
    return Board(
        tip,
        actor,
        columns,
        dict(sorted(found.settled.items())),
        tuple(sorted(kinds)),
        tuple(sorted(tags)),
        tuple(sorted(holders)),
    )


_FAR = parse_instant("9999-12-31T00:00:00Z")


def _card(
    data: dict[str, Any],
    label: str,
    conflicts: int,
    waiting: tuple[str, ...],
    now: datetime,
    actor: str,
    roles: Any,
) -> Card:
    from gitcoop.domain.records import Item

    item = Item.from_data(data)
    marks = list(obligations.pressing(item, now, actor, roles))
    ob = item.obligation
    latest = ob.latest_report if ob is not None and ob.pending else None
    if latest is not None and latest.get("status") == "blocked":
        marks.append("blocked")
    held = item.status in HELD
    said = readiness.due_words(item.due, item.status, now) if item.due is not None else None
    return Card(
        item.id,
        label,
        item.title,
        item.kind,
        item.status,
        item.priority,
        tuple(item.tags),
        item.taken_by if held else None,
        item.taken_at if held else None,
        ob.due if ob is not None and ob.pending else None,
        item.due,
        said[0] if said is not None else None,
        said is not None and said[1],
        tuple(marks),
        conflicts,
        item.version,
        waiting,
    )


def _column(card: Card, status: str) -> str:
    if any(m in ("due", "escalated", "parked") for m in card.marks):
        return "owed"
    if status in TERMINAL:  # settled, yet shown: a conflict the owners owe a decision on
        return "owed"
    if card.waiting_on or "blocked" in card.marks or status == "blocked":
        return "blocked"
    if status in HELD or status in ("verifying",):
        return "progress"
    return "ready"


# -- the graph of open work --------------------------------------------------------


@record_type
class Edge:
    source: dependencies.Other  # `source kind target`: source blocks / is parent of target
    kind: str  # "blocks" or "parent-of"
    target: dependencies.Other
    on_cycle: bool


@record_type
class Graph:
    edges: list[Edge]
    cycles: list[list[dependencies.Other]]
    alone: int  # open items with no blocking or parent link


def graph(ctx: Context) -> Graph:
    """The dependencies of the open work (blocks, parent-of), cycles marked."""
    found = dependencies.open_index(read_ledger(ctx))
    cycles = found.graph.cycles()
    cycle_pairs = set()
    for cycle in cycles:
        for at, item in enumerate(cycle):
            cycle_pairs.add((item, cycle[(at + 1) % len(cycle)]))
    edges: list[Edge] = []
    linked: set[str] = set()
    for row in sorted(found.rows, key=lambda r: (r.summary.created_at, r.item_id)):
        s = row.summary
        if s.status in SETTLED:
            continue
        for kind, other in s.links:
            if kind != BLOCKED_BY:
                continue  # `A blocked-by B`: B blocks A
            edges.append(
                Edge(
                    found.other(other),
                    "blocks",
                    found.other(row.item_id),
                    (row.item_id, other) in cycle_pairs,
                )
            )
            linked.update((row.item_id, other))
        if s.parent_id:
            on = (s.parent_id, row.item_id) in cycle_pairs
            edges.append(Edge(found.other(s.parent_id), PARENT_OF, found.other(row.item_id), on))
            linked.update((row.item_id, s.parent_id))
    open_ids = {r.item_id for r in found.rows if r.summary.status not in SETTLED}
    shown = [[found.other(i) for i in cycle] for cycle in cycles]
    return Graph(edges, shown, len(open_ids - linked))


# -- activity ------------------------------------------------------------------------


@record_type
class Commit:
    sha: str
    at: datetime
    author: str
    subject: str
    body: str
    merge: bool


def activity(ctx: Context, limit: int = 50) -> list[Commit]:
    """The ledger's latest commits, newest first (merges from syncs among them)."""
    snapshot = read_ledger(ctx)
    assert snapshot.commit is not None
    repo = snapshot.repo
    return [Commit(*repo.commit_summary(sha)) for sha in repo.history(snapshot.commit, limit)]


# -- which ledger commit recorded each event ------------------------------------------

COMMITS_WALKED = 1000  # an item's timeline names the commits of its events this far back


def event_commits(ctx: Context, item_id: str, wanted: set[str]) -> dict[str, str]:
    """event id -> the ledger commit that brought it to this ledger's first-parent line
    (for an event made in another clone, the merge that brought it). The walk stops
    when every wanted event is found, or COMMITS_WALKED commits back."""
    from gitcoop.store.ledger.layout import event_dir

    snapshot = read_ledger(ctx)
    repo = snapshot.repo
    assert snapshot.commit is not None
    folder = event_dir(item_id)
    found: dict[str, str] = {}
    for walked, commit in enumerate(repo.first_parents(snapshot.commit)):
        if walked >= COMMITS_WALKED or wanted <= found.keys():
            break
        parents = repo.commit_parents(commit)
        for delta in repo.deltas(parents[0] if parents else None, commit, folder):
            if delta.status == "added":
                name = delta.path.rsplit("/", 1)[-1].removesuffix(".yaml")
                found.setdefault(name.split("-", 1)[-1], str(commit))
    return found


# -- evidence ------------------------------------------------------------------------


@record_type
class Cited:
    evidence: Evidence
    head: str | None  # the commit read: the evidence's HEAD, else the repository's HEAD
    lines: list[tuple[int, str]]  # (number, text) around the cited line, read at `head`
    problem: str | None


CONTEXT_LINES = 2


def evidence(ctx: Context, items: list[Evidence]) -> list[Cited]:
    """Each entry's lines, read from git at the HEAD it was recorded at (never the work
    tree); an entry recorded without one (a person's --evidence) is read at HEAD."""
    from gitcoop.store.git import ancestry

    if not items:
        return []
    repo = ctx.repo()
    current = repo.head_sha()
    found: list[Cited] = []
    for entry in items:
        head = entry.head or current
        if head is None:
            found.append(Cited(entry, None, [], "there is no commit to read it at"))
            continue
        at = ancestry.file_at(repo, head, entry.path)
        if not at.exists or at.text is None:
            found.append(Cited(entry, head, [], f"not in {head[:12]}"))
            continue
        lines = at.text.splitlines()
        if entry.line is None:
            found.append(Cited(entry, head, [], None))
            continue
        low = max(1, entry.line - CONTEXT_LINES)
        high = min(len(lines), entry.line + CONTEXT_LINES)
        shown = [(n, lines[n - 1]) for n in range(low, high + 1)]
        problem = None if shown else f"line {entry.line} is past the end"
        found.append(Cited(entry, head, shown, problem))
    return found
