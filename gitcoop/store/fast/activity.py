"""Shadows parsing every event file at each `list --grep`, `--since` or `--sort updated`; gains
a search of 10,000 items in ~376 ms against 7.6 s for the first (docs/performance.md,
"Searching `list`"); held equal by tests/store/fast/test_keys.py and
tests/store/fast/test_reference.py.

When each item last changed, and its text to search: from its events, cached by object ids.

An item file says what an item is, not when it last moved nor what was noted
on it: those are in its events (`events/<xx>/<id>/`). `list --since` and
`--sort updated` need the first for every item they list, `list --grep` the
title, body and notes of every item it searches; parsing every event file for that (five per item)
would cost seconds at 10,000 items. So, like the read cache of item files
(store/fast/read_cache.py, whose shard files this shares), what is kept is keyed by git
object ids and cannot go stale: for each events fan-out directory, the tree
id it was read from and, for each item folder in it, the folder's tree id,
the id of the item file the text was taken from, the latest instant of its
events, and its title, body and notes, case-folded for searching.

A lookup starts from the ref's current trees. A fan-out whose tree id is the
one stored keeps its entries; one that changed is listed and only the folders
whose tree id changed are read again. An entry whose item file is not the one
its text came from (a merge that replayed the item under new roles) is made
again. So after a write one item's few events are parsed, and a warm search
loads one shard per first character of the fan-outs and compares strings.

The index is split as the open index is: `act-<x>.open` holds the entries of
the items in view (`cache_rows.in_view`), `act-<x>.settled` the others'. A plain
`list --grep` gives only rows in view and reads only the open part, so it costs
what the work in view costs, however long the history; `--all` reads both.
The files sit beside the item shards and go with them when the cache's format
changes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, NamedTuple

from gitcoop.domain import progress
from gitcoop.domain.ids import ItemId
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import BadLedger
from gitcoop.store.fast.cache_rows import Row, in_view
from gitcoop.store.fast.read_cache import ItemCache
from gitcoop.store.ledger.layout import (
    EVENTS,
    event_dir,
    is_event_folder,
    is_fanout,
)
from gitcoop.store.ledger.snapshot import Snapshot

READING = "reading events into the read cache"


class Activity(NamedTuple):
    """What is kept of one item (a plain tuple in the shards)."""

    folder: str  # the tree id of its events folder
    blob: str  # the blob id of the item file its title and body came from
    updated: str  # the latest instant of its events, as its fixed-width text
    text: str  # title, body and notes, case-folded, one after another on their own lines


Entry = tuple[str, str, str, str]  # an Activity as marshal keeps it
Fan = tuple[str, dict[str, Entry]]  # the fan-out's tree id, its items' entries


def activity(snapshot: Snapshot, cache: ItemCache, rows: Sequence[Row]) -> dict[str, Entry]:
    """Each item's entry (an Activity's fields; `rows` say which item files are current).

    The index is split as the open index is: `act-<x>.open` holds the entries of the
    items in view, `act-<x>.settled` the others'. When every row given is in view (a
    plain `list --grep`), only the open part is read, so a search of the work in view
    costs what that work does, however long the history."""
    events = snapshot.subtree(EVENTS)
    if events is None:
        return {}
    by_id = {row.item_id: row for row in rows}
    shown = {row.item_id for row in rows if in_view(row.summary)}
    index = _Index(snapshot, cache, by_id)
    for entry in events:
        if not is_fanout(entry.name, entry.filemode):
            raise BadLedger(f"{EVENTS}/{entry.name}: not an allowed fan-out directory name or mode")
        index.fans[entry.name] = str(entry.id)
    found = index.found("open", shown.__contains__)
    if len(shown) < len(by_id):
        found.update(index.found("settled", lambda item_id: item_id not in shown))
    for item_id in by_id.keys() - found.keys():  # it changed parts, its events did not
        folder = snapshot.subtree(event_dir(ItemId(item_id)))  # (a refold): made here
        if folder is not None:
            found[item_id] = index._entry(ItemId(item_id), str(folder.id))
    return found


class _Index:
    def __init__(self, snapshot: Snapshot, cache: ItemCache, rows: Mapping[str, Row]) -> None:
        self.snapshot = snapshot
        self.cache = cache
        self.rows = rows
        self.fans: dict[str, str] = {}  # fan-out -> its tree id now
        self.made = 0  # entries made (read from the events): for the progress shown

    def found(self, part: str, holds: Callable[[str], bool]) -> dict[str, Entry]:
        """The entries of one part of the index: of the items `holds` takes."""
        kept: dict[str, Entry] = {}
        shown = progress.reporter()
        order = {fan: at for at, fan in enumerate(sorted(self.fans))}
        for first in sorted({fan[:1] for fan in self.fans}):
            stored = self.cache.read(f"act-{first}.{part}")
            shard: dict[str, Fan] = stored if isinstance(stored, dict) else {}
            made = self.made
            fresh: dict[str, Fan] = {}
            for fan in (fan for fan in self.fans if fan[:1] == first):
                old = shard.get(fan)
                if old is None or old[0] != self.fans[fan]:
                    shown.step(READING, order[fan], len(self.fans))
                fresh[fan] = self._fan(fan, old, holds)
                kept.update(self._checked(fresh[fan][1], holds))
            if self.made > made or fresh.keys() != shard.keys():
                self.cache.files.write(f"act-{first}.{part}", fresh)
        if self.made:
            shown.step(READING, len(self.fans), len(self.fans))
        return kept

    def _checked(self, entries: dict[str, Entry], holds: Callable[[str], bool]) -> dict[str, Entry]:
        """The entries of the items the part holds now, with any whose item file changed
        alone (a merge that replayed it under new roles) made again from its row."""
        rows = self.rows
        found = {}
        for item, entry in entries.items():
            if not holds(item):  # it moved to the other part since its fan-out was read
                continue
            row = rows.get(item)
            if row is not None and row.blob_id != entry[1]:
                entry = entries[item] = self._entry(ItemId(item), entry[0])
            found[item] = entry
        return found

    def _fan(self, fan: str, old: Fan | None, holds: Callable[[str], bool]) -> Fan:
        """One fan-out's entries: all kept if its tree is unchanged, else folder by folder."""
        tree_id = self.fans[fan]
        if old is not None and old[0] == tree_id:
            return old
        before = old[1] if old is not None else {}
        entries: dict[str, Entry] = {}
        for folder in self.snapshot.subtree(f"{EVENTS}/{fan}") or ():
            if not is_event_folder(folder.name, folder.filemode):
                raise BadLedger(f"{EVENTS}/{fan}/{folder.name}: not an allowed event folder")
            if folder.name == LEDGER_ID or not holds(folder.name):
                continue
            entry = before.get(folder.name)
            if entry is None or entry[0] != str(folder.id):
                entry = self._entry(ItemId(folder.name), str(folder.id))
            entries[folder.name] = entry
        return tree_id, entries

    def _entry(self, item_id: ItemId, folder_id: str) -> Entry:
        """Read one item's events and its title and body (from its row, else its file)."""
        self.made += 1
        events = self.snapshot.events(item_id)
        row = self.rows.get(item_id)
        if row is not None:
            data: dict[str, Any] = row.data()
            blob = row.blob_id
        else:
            item = self.snapshot.item(item_id)
            data = item.to_data() if item is not None else {}
            blob = ""  # not known here: made again when it is looked up with its row
        notes = [str(e.arg("text")) for e in events if e.verb == "note" and e.arg("text")]
        texts = [str(data.get("title") or ""), str(data.get("body") or ""), *notes]
        updated = max((e.at for e in events), default=None)
        at = format_instant(updated) if updated else ""
        return folder_id, blob, at, "\n".join(texts).casefold()
