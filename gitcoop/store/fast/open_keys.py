"""Shadows counting and searching every open row; gains `status` at 100,000 items (60,000 open)
in 365 ms of CPU, not 2,351, and `show` in 282, not 1,254 (docs/performance.md, "Reads that
cost what they show"); held equal by tests/store/fast/test_keys.py.

The open index's keys: what `status`, `owed` and `show` need without the rows.

The open index (store/fast/read_cache.py) holds a `Row` for every item in view: at 60,000
open items that is ~120 MB to load, which `status` and `owed` paid to print a few
lines, and `show` paid for the links of one item. So, beside each group's
`<x>.open` file, a `<x>.keys` file holds for each fan-out (by the same tree id):

- the tallies: the items in view by (kind, status), and the settled ones by
  (kind, status, tags), as `<x>.open` counts them;
- the holder index: (holder, taken at, id) of each item held now;
- the due index: an `Owing` of each item with a pending obligation, a conflict
  or a takeover notice (all `owed` looks at), with what decides whether it is
  due, escalated or parked or dated in the future, and who it concerns;
- the edges: (holder, in view, links, parent id) of every item holding a link
  or with a parent, in view or settled (the graph's nodes that matter);
- the due dates: the item's own due date of each unsettled item in view that
  has one (what `status` counts as overdue).

A reader then reads only the files of the few items it prints (one blob each).

And for `show`, beside each group, `<x>.in`: the links *into* each item of the
group, found from the edges of every fan-out, with the tree id of each fan-out
they came from. It is kept the same way as the rest of the cache: when a
fan-out's tree changed, only its edges are taken out and put back, from its
group's keys; an item's incoming links are then read from its own group's file,
and only its own fan-out's part of it is unmarshalled.
"""

from __future__ import annotations

import marshal
from collections import Counter
from typing import Any, NamedTuple

from gitcoop.domain.ids import ITEM_ID_RE, fanout
from gitcoop.domain.lifecycle import TERMINAL, bound
from gitcoop.store.fast.cache_rows import Row, Summary, Texts

CHILD = "child"  # an incoming entry of a split child: it names this item as its parent


class Owing(NamedTuple):
    """What `owed` decides on for one item in view, before reading its file."""

    id: str
    pending: bool  # its obligation is pending
    due: str | None  # instants as their fixed-width text
    since: str | None
    taken_at: str | None
    for_owners: str | None  # escalated or parked, waiting for the owners: the decision
    holder: str | None  # who holds what it owes
    conflicts: int
    notified: tuple[str, ...]


class Keys(NamedTuple):
    """One fan-out's keys (stored as a plain tuple)."""

    tree_id: str
    counts: list[tuple[str, str, int]]  # in view: (kind, status, how many), first seen first
    settled: list[tuple[str, str, tuple[str, ...], int]]  # the open file's tally
    held: dict[str, bytes]  # by holder, marshalled: (taken at, id) of the items held now
    owing: list[tuple[Any, ...]]  # Owing's fields
    edges: bytes  # marshalled: (holder, in view, links, parent id) of each item with links
    dated: list[str]  # the own due dates of the unsettled items in view

    def held_by(self, holder: str) -> list[tuple[str, str]]:
        raw = self.held.get(holder)
        return [] if raw is None else list(marshal.loads(raw))


class Incoming(NamedTuple):
    """A link into an item, as `<x>.in` keeps it."""

    target: str
    kind: str  # the link's type, or CHILD
    holder: str  # the item holding the link (for CHILD, the child)
    in_view: bool  # the holder is in the open rows (they come first in the graph)
    position: int  # the link's place among the holder's links
    source: str  # the holder's fan-out


_TYPE = {name: at for at, name in enumerate(Summary._fields)}
_KIND, _STATUS, _TAKEN_BY, _TAKEN_AT = (
    _TYPE[n] for n in ("kind", "status", "taken_by", "taken_at")
)
_OB_STATUS, _OB_DUE, _CONFLICTS, _NOTIFIED, _LINKS, _PARENT, _DUE = (
    _TYPE[n]
    for n in (
        "obligation_status",
        "obligation_due",
        "conflicts",
        "notified",
        "links",
        "parent_id",
        "due",
    )
)


def derive(stored: tuple[Any, ...], texts: Texts) -> tuple[Any, ...]:
    """The keys of one fan-out from its entry in `<x>.open` (tree id, rows, tally, nodes)
    and its rows' texts."""
    tree_id, rows, tally, nodes = stored
    counts: Counter[tuple[str, str]] = Counter()
    held: dict[str, list[tuple[str, str]]] = {}
    owing: list[tuple[Any, ...]] = []
    edges: list[tuple[Any, ...]] = []
    dated: list[str] = []
    for stored_row in rows:
        row = Row._make((*stored_row, texts))
        brief = row.brief
        counts[brief[_KIND], brief[_STATUS]] += 1
        if bound(brief[_STATUS], brief[_TAKEN_BY]):
            held.setdefault(brief[_TAKEN_BY], []).append((brief[_TAKEN_AT] or "", row.item_id))
        pending = brief[_OB_STATUS] == "pending"
        if pending or brief[_CONFLICTS] or brief[_NOTIFIED]:
            ob = row.data().get("obligation") or {}
            owing.append(
                tuple(
                    Owing(
                        row.item_id,
                        pending,
                        brief[_OB_DUE],
                        ob.get("since"),
                        brief[_TAKEN_AT],
                        _decision(ob.get("for_owners")),
                        ob.get("holder"),
                        brief[_CONFLICTS],
                        brief[_NOTIFIED],
                    )
                )
            )
        if brief[_DUE] is not None and brief[_STATUS] not in TERMINAL:
            dated.append(brief[_DUE])
        if brief[_LINKS] or brief[_PARENT] is not None:
            edges.append((row.item_id, True, brief[_LINKS], brief[_PARENT]))
    for node in nodes:  # (id, kind, status, links, parent id) of settled items
        edges.append((node[0], False, node[3], node[4]))
    listed = [(kind, status, n) for (kind, status), n in counts.items()]
    by_holder = {holder: marshal.dumps(entries) for holder, entries in held.items()}
    return (tree_id, listed, list(tally), by_holder, owing, marshal.dumps(edges), dated)


def _decision(for_owners: Any) -> str | None:
    """What an obligation waiting for the owners asks them (`obligations.pressing`)."""
    if not for_owners:
        return None
    return str(for_owners.get("decision") or "")


def incoming_of(fan: str, keys: tuple[Any, ...], group: str) -> list[tuple[Any, ...]]:
    """The links the items of fan-out `fan` hold into the items of `group`."""
    found: list[tuple[Any, ...]] = []
    for holder, in_view, links, parent in marshal.loads(keys[5]):
        for position, (kind, other) in enumerate(links):
            if _in_group(other, group):
                found.append((other, kind, holder, in_view, position, fan))
        if parent is not None and _in_group(parent, group):
            found.append((parent, CHILD, holder, in_view, len(links), fan))
    return found


def _in_group(item_id: Any, group: str) -> bool:
    """Whether a link names an item of `group` (a link naming no item id names none)."""
    return type(item_id) is str and bool(ITEM_ID_RE.match(item_id)) and fanout(item_id)[:1] == group


def pack(entries: list[tuple[Any, ...]]) -> dict[str, bytes]:
    """Incoming entries by their target's fan-out, each part marshalled on its own."""
    by_fan: dict[str, list[tuple[Any, ...]]] = {}
    for entry in entries:
        by_fan.setdefault(fanout(entry[0]), []).append(entry)
    return {fan: marshal.dumps(part) for fan, part in by_fan.items()}


def unpack(parts: dict[str, bytes], fan: str) -> list[Incoming]:
    raw = parts.get(fan)
    return [] if raw is None else [Incoming._make(e) for e in marshal.loads(raw)]
