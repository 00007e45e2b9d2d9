"""`git coop export`: every item of the ledger (and, asked, its events) as plain data.

Items come oldest first (by creation, then id); each item's events in the
order of its fold. The data is exactly what the item files and event files
hold, the same field names as `--json` everywhere (DESIGN.md §9), so an
export loses nothing the ledger knows about the work.
"""

from __future__ import annotations

from gitcoop.domain import ids
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Item, PlainData
from gitcoop.service.context import Context, read_ledger


@record_type
class Exported:
    item: Item
    label: str
    events: tuple[Event, ...] = ()


def export(ctx: Context, with_events: bool) -> list[Exported]:
    snapshot = read_ledger(ctx)
    items = sorted(snapshot.items(), key=lambda i: (i.created_at, i.id))
    labels = ids.shortest_labels(i.id for i in items)
    return [
        Exported(item, labels[item.id], tuple(snapshot.events(item.id)) if with_events else ())
        for item in items
    ]


def item_data(exported: Exported, with_events: bool) -> PlainData:
    data = exported.item.to_data()
    data["short_id"] = exported.label
    if with_events:
        data["events"] = [event.to_data() for event in exported.events]
    return data
