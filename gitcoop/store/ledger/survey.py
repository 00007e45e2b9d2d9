"""Every file of one ledger commit, read the careful way, with each problem collected.

A Snapshot stops at the first thing it cannot use; a Survey, for `fsck`, keeps
going and records every breach of the layout or the format with its path.
Each blob is still size-checked before it is read and parsed by the safe codec.
It reads one fan-out folder at a time (`Survey.windows`), so what it holds is
one folder's items and events, not the ledger's; and, given the tip checked
last, only what differs from it.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from gitcoop.domain import progress
from gitcoop.domain.ids import ItemId, fanout
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Item, LedgerConfig, RecordError
from gitcoop.errors import BadLedger
from gitcoop.store.fast.tree_bytes import listing
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger import codec
from gitcoop.store.ledger.layout import (
    COOP_FILE,
    EVENTS,
    ITEMS,
    MODE_BLOB,
    MODE_TREE,
    is_event_file,
    is_event_folder,
    is_fanout,
    is_item_file,
    is_root_entry,
)
from gitcoop.store.ledger.repo import Repo


@record_type
class Problem:
    path: str
    rule: str  # layout | parse
    message: str


@dataclass
class Survey:
    """The tip's coop.yaml and every problem found so far; `windows` reads the rest."""

    repo: Repo
    config: LedgerConfig | None = None
    problems: list[Problem] = field(default_factory=list)
    # fan-out name -> (items/FAN tree id, events/FAN tree id), None where absent
    fans: dict[str, list[Any]] = field(default_factory=dict)

    def layout(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, "layout", message))

    def windows(self, since: Oid | None = None) -> Iterator[Window]:
        """The items and events of one fan-out folder at a time (an item and its events
        share one: their ids' random part names it), so no more than one is held; with
        `since`, only the item files and event folders that differ from its tree."""
        old = survey(self.repo, since).fans if since is not None else {}
        shown = progress.reporter()
        for done, fan in enumerate(sorted(self.fans)):
            shown.step("reading every item and event", done, len(self.fans))
            items_id, events_id = self.fans[fan]
            was = old.get(fan, [None, None])
            if since is not None and [str(x) for x in was] == [str(items_id), str(events_id)]:
                continue
            window = Window(fan)
            items = _tree(self.repo, self, items_id, f"{ITEMS}/{fan}") if items_id else None
            events = _tree(self.repo, self, events_id, f"{EVENTS}/{fan}") if events_id else None
            window.listed = _names(items)
            wanted = None
            if since is not None:  # an item is read with its events when either changed
                wanted = _differ(self.repo, items, was[0], f"{ITEMS}/{fan}", ".yaml")
                wanted |= _differ(self.repo, events, was[1], f"{EVENTS}/{fan}", "")
            _survey_items(self.repo, self, window, fan, f"{ITEMS}/{fan}", items, wanted)
            _survey_event_dirs(self.repo, self, window, fan, f"{EVENTS}/{fan}", events, wanted)
            if window.items or window.events or window.listed:
                yield window
        shown.step("reading every item and event", len(self.fans), len(self.fans))


@dataclass
class Window:
    """One fan-out folder's item files and event files, as read."""

    fan: str
    items: dict[ItemId, tuple[str, Item]] = field(default_factory=dict)
    events: dict[ItemId, list[tuple[str, Event]]] = field(default_factory=dict)
    listed: list[str] = field(default_factory=list)  # every item file's name in the folder


def survey(repo: Repo, commit: Oid) -> Survey:
    """Read `commit`'s root and coop.yaml and list its fan-out folders; BadLedger only
    when the commit itself is unreadable. `Survey.windows` reads the items and events."""
    found = Survey(repo)
    root = repo.commit_tree(commit)
    for entry in root:
        if not is_root_entry(entry.name, entry.filemode):
            found.layout(entry.name, f"not allowed at the root (mode {entry.filemode:o})")
    names = {entry.name: entry for entry in root}
    if COOP_FILE not in names:
        found.layout(COOP_FILE, "missing: not a gitcoop ledger")
    elif names[COOP_FILE].filemode == MODE_BLOB:
        data = _load(repo, found, names[COOP_FILE], COOP_FILE)
        found.config = _build(found, LedgerConfig.from_data, data, COOP_FILE)
    for at, top in enumerate((ITEMS, EVENTS)):
        if top in names and names[top].filemode == MODE_TREE:
            for fan, oid in _fanouts(repo, found, names[top], top):
                found.fans.setdefault(fan, [None, None])[at] = oid
    return found


def _tree(repo: Repo, found: Survey, oid: Any, path: str) -> Any:
    try:
        return repo.tree(oid, path)
    except BadLedger as exc:
        found.layout(path, _without_path(exc.message, path))
        return None


def _names(tree: Any) -> list[str]:
    return [entry.name for entry in tree] if tree is not None else []


def _differ(repo: Repo, tree: Any, oid: Any, path: str, suffix: str) -> set[str]:
    """The item ids whose entry in `tree` differs, in mode or in id, from the one in the
    tree `oid` (the remembered tip's, surveyed and checked then)."""
    if tree is None:
        return set()
    before: dict[str, tuple[int, str]] = {}
    if oid is not None:
        with contextlib.suppress(BadLedger):
            before = listing(repo.tree(oid, path))
    names = (name for name, now in listing(tree).items() if before.get(name) != now)
    return {name.removesuffix(suffix) for name in names}


def _fanouts(repo: Repo, found: Survey, entry: Any, top: str) -> list[tuple[str, Any]]:
    tree = _tree(repo, found, entry.id, top)
    groups = []
    for fan in tree if tree is not None else ():
        path = f"{top}/{fan.name}"
        if not is_fanout(fan.name, fan.filemode):
            found.layout(path, f"not an allowed fan-out folder (mode {fan.filemode:o})")
            continue
        groups.append((fan.name, fan.id))
    return groups


def _survey_items(
    repo: Repo,
    found: Survey,
    window: Window,
    fan: str,
    base: str,
    tree: Any,
    wanted: set[str] | None,
) -> None:
    for entry in tree if tree is not None else ():
        if wanted is not None and entry.name.removesuffix(".yaml") not in wanted:
            continue  # as the tip checked last holds it, with its events
        path = f"{base}/{entry.name}"
        if not is_item_file(entry.name, entry.filemode):
            found.layout(path, f"not an allowed item file (mode {entry.filemode:o})")
            continue
        item_id = ItemId(entry.name[: -len(".yaml")])
        if fanout(item_id) != fan:
            found.layout(path, f"{item_id} belongs in {ITEMS}/{fanout(item_id)}/")
        item = _build(found, Item.from_data, _load(repo, found, entry, path), path)
        if item is None:
            continue
        if item.id != item_id:
            found.problems.append(Problem(path, "parse", f"holds item {item.id}"))
        window.items[item_id] = (path, item)


def _survey_event_dirs(
    repo: Repo,
    found: Survey,
    window: Window,
    fan: str,
    base: str,
    tree: Any,
    wanted: set[str] | None,
) -> None:
    for folder in tree if tree is not None else ():
        if wanted is not None and folder.name not in wanted:
            continue
        path = f"{base}/{folder.name}"
        if not is_event_folder(folder.name, folder.filemode):
            found.layout(path, f"not an allowed event folder (mode {folder.filemode:o})")
            continue
        item_id = ItemId(folder.name)
        if fanout(item_id) != fan:
            found.layout(path, f"{item_id} belongs in {EVENTS}/{fanout(item_id)}/")
        files = _tree(repo, found, folder.id, path)
        for entry in files if files is not None else ():
            _survey_event(repo, found, window, item_id, f"{path}/{entry.name}", entry)


def _survey_event(
    repo: Repo, found: Survey, window: Window, item_id: ItemId, path: str, entry: Any
) -> None:
    if not is_event_file(entry.name, entry.filemode):
        found.layout(path, f"not an allowed event file (mode {entry.filemode:o})")
        return
    event = _build(found, Event.from_data, _load(repo, found, entry, path), path)
    if event is None:
        return
    if event.item != item_id or entry.name != f"{event.clock:012d}-{event.id}.yaml":
        found.problems.append(Problem(path, "parse", "the file's name does not match its content"))
        return
    window.events.setdefault(item_id, []).append((path, event))


def _load(repo: Repo, found: Survey, entry: Any, path: str) -> dict[str, Any] | None:
    try:
        raw = repo.blob_bytes(entry.id, path, repo.max_file_bytes)
        return codec.load(raw, path, repo.max_file_bytes)
    except BadLedger as exc:
        found.problems.append(Problem(path, "parse", _without_path(exc.message, path)))
        return None


def _build(found: Survey, build: Any, data: dict[str, Any] | None, path: str) -> Any:
    if data is None:
        return None
    try:
        return build(data)
    except RecordError as exc:
        found.problems.append(Problem(path, "parse", str(exc)))
        return None


def _without_path(message: str, path: str) -> str:
    return message[len(path) + 2 :] if message.startswith(f"{path}: ") else message
