"""Shadows an `Item` built from each file and written as JSON for every listed item; gains a
text `list` at 10,000 items building no `Item` (0.78 s of a 1.15 s listing; docs/performance.md,
"The read cache", "What a row holds"); held equal by tests/store/fast/test_cache.py (rows
against the item files) and tests/domain/test_itemdata.py (a quiet summary against the full).

What the read cache keeps of one item: its row, and the rows' summaries.

A `Row` is one item file as the reading verbs need it: its id and blob id,
its shortest unique label, a `Summary` (the fields they filter, sort and
print on, as a flat tuple), and its texts: its canonical data (marshalled)
and its `--json` text as an element of a listing, nine tenths of a row's
bytes, kept in files of their own and read only when asked for
(store/fast/cache_texts.py). `in_view` says which items the open index holds
rows for (store/fast/read_cache.py).
"""

from __future__ import annotations

import marshal
from typing import Any, NamedTuple, Protocol

from gitcoop.domain.dependencies import SETTLED
from gitcoop.domain.itemdata import PlainData


class Summary(NamedTuple):
    """The fields the reading verbs filter, sort and print on, without the whole item."""

    id: str
    kind: str
    status: str
    created_at: str  # instants as their fixed-width text, so they compare as strings
    taken_by: str | None
    taken_at: str | None
    tags: tuple[str, ...]
    obligation_status: str | None
    obligation_due: str | None
    conflicts: int
    notified: tuple[str, ...]  # previous holders with a takeover they have not acknowledged
    priority: int
    order_key: str | None
    links: tuple[tuple[str, str], ...]  # (type, other item): what `ready` and `blocked` need
    parent_id: str | None
    title: str
    parked: bool  # of a pending obligation: what a listing marks
    escalated: bool
    reported_blocked: bool  # the pending obligation's latest report says blocked
    due: str | None  # the item's own due date (not its obligation's)


class Texts(Protocol):
    """Where a row's marshalled data (part 0) and `--json` text (part 1) are."""

    def text(self, row: Row, part: int) -> Any: ...


class Held(NamedTuple):
    """A row's texts, made with it (a rebuilt or a settled row)."""

    packed: bytes
    json: str

    def text(self, row: Row, part: int) -> Any:
        return self[part]


class Row(NamedTuple):
    """One cached item file. In the open index it is stored as its first four fields:
    its texts, the bulk of a row, are kept apart (store/fast/cache_texts.py) and read
    only when asked for. Two rows read apart compare unequal (their `texts` are compared
    as objects): compare their fields and texts instead."""

    item_id: str
    blob_id: str
    label: str
    brief: tuple[Any, ...]  # a Summary's fields
    texts: Texts

    @property
    def summary(self) -> Summary:
        return Summary._make(self.brief)

    @property
    def packed(self) -> bytes:
        """Its marshalled canonical data."""
        packed: bytes = self.texts.text(self, DATA)
        return packed

    @property
    def json(self) -> str:
        """`{**data, "short_id": label}` as a listing's element."""
        listed: str = self.texts.text(self, JSON)
        return listed

    def data(self) -> PlainData:
        data: PlainData = marshal.loads(self.packed)
        return data


DATA, JSON = 0, 1  # the parts of a row's texts


def rows_of(stored: list[tuple[Any, ...]], texts: Texts) -> list[Row]:
    """Stored rows (their first four fields) with where their texts are."""
    new = tuple.__new__  # what `Row._make` does, without a Python call per row
    return [new(Row, (*row, texts)) for row in stored]


class Tally(NamedTuple):
    """How many settled items outside the open rows share a kind, status and tags."""

    kind: str
    status: str
    tags: tuple[str, ...]
    number: int


class Node(NamedTuple):
    """A settled item outside the open rows that holds links or has a parent."""

    id: str
    kind: str
    status: str
    links: tuple[tuple[str, str], ...]
    parent_id: str | None


class OpenView(NamedTuple):
    """The open index of one ledger state: what plain reads need."""

    rows: list[Row]  # the items `in_view`, by fan-out and id
    settled: list[Tally]  # every other item, counted
    nodes: list[Node]  # the other items' links


def conflicted(rows: list[Row]) -> tuple[Row, ...]:
    """The rows whose item holds conflicts: all a merge's notices read of the open index,
    each with its own texts (kept past the read, they hold no other row's)."""
    at = _CONFLICTS
    return tuple(row._replace(texts=Held(row.packed, row.json)) for row in rows if row.brief[at])


_CONFLICTS = Summary._fields.index("conflicts")


def summarise(data: PlainData) -> Summary:
    ob = data.get("obligation") or {}
    pending = ob.get("status") == "pending"
    report = ob.get("latest_report") or {}
    return Summary(
        data["id"],
        data["kind"],
        data["status"],
        data["created_at"],
        data.get("taken_by"),
        data.get("taken_at"),
        tuple(data.get("tags") or ()),
        ob.get("status"),
        ob.get("due"),
        len(data.get("conflicts") or ()),
        tuple(t["holder"] for t in data.get("takeovers") or ()),
        data.get("priority", 2),
        data.get("order_key"),
        tuple((link["type"], link["item"]) for link in data.get("links") or ()),
        data.get("parent_id"),
        data["title"],
        pending and bool(ob.get("parked")),
        pending and bool(ob.get("escalated")),
        pending and report.get("status") == "blocked",
        data.get("due"),
    )


def in_view(summary: Summary) -> bool:
    """Whether a plain reading verb may show the item: the open index holds its row."""
    return (
        summary.status not in SETTLED
        or summary.conflicts > 0
        or bool(summary.notified)
        or summary.obligation_status == "pending"
    )


def make_row(
    item_id: str, blob_id: str, label: str, data: PlainData, summary: Summary | None = None
) -> Row:
    brief = tuple(summary or summarise(data))
    return Row(item_id, blob_id, label, brief, made_texts(data, label))


def made_texts(data: PlainData, label: str) -> Held:
    """An item's texts: its data marshalled, and its text as an element of a listing's
    array (a listing joins the kept texts)."""
    from gitcoop.store.fast import json_rows  # only when rows are built: writers load no json

    return Held(marshal.dumps(data), json_rows.element({**data, "short_id": label}))


def quiet_summary(item_id: str, data: PlainData) -> Summary | None:
    """The summary of an item file that is settled and needs nothing (not `in_view`), from
    its data as read, before the rest of it is checked; None when it is not, or when only
    a full check can say (an odd type, a legacy field).

    A plain read never shows such an item, only counts it by kind, status and tags and
    keeps its links; `--all` reads it in full, and refuses it there if it is bad.
    """
    try:
        if data["id"] != item_id or type(data["kind"]) is not str:
            return None
        if type(data["status"]) is not str or data["status"] not in SETTLED:
            return None
        if data["conflicts"] != [] or data["takeovers"] != []:
            return None
        obligation = data["obligation"]
        if obligation is not None and (
            type(obligation) is not dict or obligation.get("status") != "resolved"
        ):
            return None
        tags, links, parent = data["tags"], data["links"], data.get("parent_id")
        if type(tags) is not list or not all(type(t) is str for t in tags):
            return None
        if type(links) is not list or (parent is not None and type(parent) is not str):
            return None
        if not all(
            type(x) is dict and _text(x.get("type")) and _text(x.get("item")) for x in links
        ):
            return None
        summary = summarise(data)
    except (KeyError, TypeError, AttributeError):
        return None
    return None if in_view(summary) else summary


def _text(value: Any) -> bool:
    return type(value) is str and value != ""
