"""The reading verbs: list, show, log. They never take the writer lock."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from gitcoop.domain import ids
from gitcoop.domain.ids import ItemId
from gitcoop.domain.lifecycle import TERMINAL
from gitcoop.domain.records import Event, Item
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.ledger import Shown
from gitcoop.store.snapshot import Snapshot


@dataclass(frozen=True)
class Listing:
    shown: list[Shown]
    settled: dict[str, int]  # status -> count of settled items left out


@dataclass(frozen=True)
class LogEntry:
    event: Event
    label: str
    refused: str | None  # the reason, when the fold refused this event


def labels(snapshot: Snapshot, item_ids: list[ItemId]) -> dict[ItemId, str]:
    """Shortest unique prefixes; ids only collide within their fan-out directory."""
    by_fan: dict[str, list[ItemId]] = defaultdict(list)
    for item_id in item_ids:
        by_fan[ids.fanout(item_id)].append(item_id)
    return {i: ids.shortest_unique(i, group) for group in by_fan.values() for i in group}


def list_items(ctx: Context, include_settled: bool = False) -> Listing:
    snapshot = read_ledger(ctx)
    all_ids = snapshot.item_ids()
    names = labels(snapshot, all_ids)
    shown: list[Shown] = []
    settled: dict[str, int] = defaultdict(int)
    for item in snapshot.items():
        if item.status in TERMINAL and not include_settled and not item.conflicts:
            settled[item.status] += 1
            continue
        shown.append(Shown(item, names[item.id], wrote=False))
    shown.sort(key=lambda s: (s.item.created_at, s.item.id))
    return Listing(shown, dict(settled))


def show(ctx: Context, ref: str) -> Shown:
    snapshot = read_ledger(ctx)
    item_id = snapshot.resolve(ref)
    item = snapshot.item(item_id)
    assert item is not None
    return Shown(item, snapshot.label(item_id), wrote=False)


def log(ctx: Context, ref: str | None = None) -> list[LogEntry]:
    """Events oldest first, each with whether the fold accepted it."""
    snapshot = read_ledger(ctx)
    if ref is not None:
        item_id = snapshot.resolve(ref)
        events = snapshot.events(item_id)
        names = {item_id: snapshot.label(item_id)}
    else:
        events = snapshot.all_events()
        names = labels(snapshot, snapshot.item_ids())
        names[LEDGER_ID] = "ledger"
    refusals: dict[str, str] = {}
    for item_id in {e.item for e in events}:
        item: Item | None = snapshot.item(item_id)
        for conflict in item.conflicts if item else ():
            refusals[conflict.event] = conflict.reason
    return [LogEntry(e, names.get(e.item, e.item), refusals.get(e.id)) for e in events]
