"""Every file of one ledger commit, read the careful way, with each problem collected.

A Snapshot stops at the first thing it cannot use; a Survey, for `fsck`, keeps
going and records every breach of the layout or the format with its path.
Each blob is still size-checked before it is read and parsed by the safe codec.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gitcoop.domain import progress
from gitcoop.domain.frozen import frozen
from gitcoop.domain.ids import ItemId, fanout
from gitcoop.domain.records import Event, Item, LedgerConfig, RecordError
from gitcoop.errors import BadLedger
from gitcoop.store import codec
from gitcoop.store.layout import (
    COOP_FILE,
    EVENT_FILE_RE,
    EVENTS,
    FANOUT_RE,
    ITEM_DIR_RE,
    ITEM_FILE_RE,
    ITEMS,
    MODE_BLOB,
    MODE_TREE,
    ROOT_NAMES,
)
from gitcoop.store.repository import Oid, Repo


@frozen
class Problem:
    path: str
    rule: str  # layout | parse
    message: str


@dataclass
class Survey:
    config: LedgerConfig | None = None
    items: dict[ItemId, tuple[str, Item]] = field(default_factory=dict)
    events: dict[ItemId, list[tuple[str, Event]]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def layout(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, "layout", message))


def survey(repo: Repo, commit: Oid) -> Survey:
    """Read every file of `commit`; BadLedger only when the commit itself is unreadable."""
    found = Survey()
    root = repo.commit_tree(commit)
    for entry in root:
        kind = ROOT_NAMES.get(entry.name)
        if kind is None or entry.filemode != (MODE_BLOB if kind == "blob" else MODE_TREE):
            found.layout(entry.name, f"not allowed at the root (mode {entry.filemode:o})")
    names = {entry.name: entry for entry in root}
    if COOP_FILE not in names:
        found.layout(COOP_FILE, "missing: not a gitcoop ledger")
    elif names[COOP_FILE].filemode == MODE_BLOB:
        data = _load(repo, found, names[COOP_FILE], COOP_FILE)
        found.config = _build(found, LedgerConfig.from_data, data, COOP_FILE)
    shown = progress.reporter()
    if ITEMS in names and names[ITEMS].filemode == MODE_TREE:
        fanouts = _fanouts(repo, found, names[ITEMS], ITEMS)
        for done, (fan, path, tree) in enumerate(fanouts):
            shown.step("reading every item", done, len(fanouts))
            _survey_items(repo, found, fan, path, tree)
        shown.step("reading every item", len(fanouts), len(fanouts))
    if EVENTS in names and names[EVENTS].filemode == MODE_TREE:
        fanouts = _fanouts(repo, found, names[EVENTS], EVENTS)
        for done, (fan, path, tree) in enumerate(fanouts):
            shown.step("reading every event", done, len(fanouts))
            _survey_event_dirs(repo, found, fan, path, tree)
        shown.step("reading every event", len(fanouts), len(fanouts))
    return found


def _tree(repo: Repo, found: Survey, oid: Any, path: str) -> Any:
    try:
        return repo.tree(oid, path)
    except BadLedger as exc:
        found.layout(path, _without_path(exc.message, path))
        return None


def _fanouts(repo: Repo, found: Survey, entry: Any, top: str) -> list[tuple[str, str, Any]]:
    tree = _tree(repo, found, entry.id, top)
    groups = []
    for fan in tree if tree is not None else ():
        path = f"{top}/{fan.name}"
        if not FANOUT_RE.match(fan.name) or fan.filemode != MODE_TREE:
            found.layout(path, f"not an allowed fan-out folder (mode {fan.filemode:o})")
            continue
        subtree = _tree(repo, found, fan.id, path)
        if subtree is not None:
            groups.append((fan.name, path, subtree))
    return groups


def _survey_items(repo: Repo, found: Survey, fan: str, base: str, tree: Any) -> None:
    for entry in tree:
        path = f"{base}/{entry.name}"
        if not ITEM_FILE_RE.match(entry.name) or entry.filemode != MODE_BLOB:
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
        found.items[item_id] = (path, item)


def _survey_event_dirs(repo: Repo, found: Survey, fan: str, base: str, tree: Any) -> None:
    for folder in tree:
        path = f"{base}/{folder.name}"
        if not ITEM_DIR_RE.match(folder.name) or folder.filemode != MODE_TREE:
            found.layout(path, f"not an allowed event folder (mode {folder.filemode:o})")
            continue
        item_id = ItemId(folder.name)
        if fanout(item_id) != fan:
            found.layout(path, f"{item_id} belongs in {EVENTS}/{fanout(item_id)}/")
        files = _tree(repo, found, folder.id, path)
        for entry in files if files is not None else ():
            _survey_event(repo, found, item_id, f"{path}/{entry.name}", entry)


def _survey_event(repo: Repo, found: Survey, item_id: ItemId, path: str, entry: Any) -> None:
    if not EVENT_FILE_RE.match(entry.name) or entry.filemode != MODE_BLOB:
        found.layout(path, f"not an allowed event file (mode {entry.filemode:o})")
        return
    event = _build(found, Event.from_data, _load(repo, found, entry, path), path)
    if event is None:
        return
    if event.item != item_id or entry.name != f"{event.clock:012d}-{event.id}.yaml":
        found.problems.append(Problem(path, "parse", "the file's name does not match its content"))
        return
    found.events.setdefault(item_id, []).append((path, event))


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
