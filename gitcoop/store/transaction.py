"""One transaction = one commit on refs/coop/ledger (DESIGN.md §3).

    lock -> read tip -> decide -> write blobs/trees -> commit(parent=tip)
         -> swap the ref only if it still points at tip -> unlock

A lost swap means a writer outside gitcoop's lock moved the ref: re-read and
decide again, a bounded number of times.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from gitcoop.domain.ids import ItemId, fanout
from gitcoop.domain.records import Event, Item, LedgerConfig
from gitcoop.errors import ChangedUnderWrite
from gitcoop.store import codec
from gitcoop.store.layout import COOP_FILE, EVENTS, ITEMS, MODE_BLOB, MODE_TREE, event_name
from gitcoop.store.lock import DEFAULT_TIMEOUT, writer_lock
from gitcoop.store.repository import Oid, Repo, enable_fsync
from gitcoop.store.snapshot import Snapshot

MAX_ATTEMPTS = 5


@dataclass
class Change:
    """What one transaction writes: new item states, new events, maybe a new config."""

    message: str
    actor: str
    at: datetime
    items: dict[ItemId, Item] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    config: LedgerConfig | None = None


Decide = Callable[[Snapshot], Change | None]


@dataclass(frozen=True)
class Outcome:
    snapshot: Snapshot  # the ledger after the write (or as read, when nothing changed)
    change: Change | None


def write(
    repo: Repo, decide: Decide, fsync: bool = True, lock_timeout: float = DEFAULT_TIMEOUT
) -> Outcome:
    """Run `decide` on the current tip and commit its change by compare-and-swap."""
    enable_fsync(fsync)
    with writer_lock(repo.common_dir, lock_timeout):
        for _ in range(MAX_ATTEMPTS):
            tip = repo.tip()
            snapshot = Snapshot(repo, tip)
            change = decide(snapshot)
            if change is None:
                return Outcome(snapshot, None)
            commit = commit_change(repo, snapshot, change)
            if repo.swap(tip, commit, change.message):
                return Outcome(Snapshot(repo, commit), change)
    raise ChangedUnderWrite("the ledger changed under this write — re-read and retry")


def commit_change(repo: Repo, base: Snapshot, change: Change) -> Oid:
    """Write the blobs and trees of `change` on top of `base`, and a commit; no ref moves."""
    items_by_fan: dict[str, dict[str, Any]] = defaultdict(dict)
    for item_id, item in change.items.items():
        blob = repo.write_blob(codec.dump(item.to_data()))
        items_by_fan[fanout(item_id)][f"{item_id}.yaml"] = blob
    events_by_item: dict[ItemId, dict[str, Any]] = defaultdict(dict)
    for event in change.events:
        events_by_item[event.item][event_name(event)] = repo.write_blob(codec.dump(event.to_data()))
    events_by_fan: dict[str, dict[str, Any]] = defaultdict(dict)
    for item_id, files in events_by_item.items():
        folder = base.subtree(f"{EVENTS}/{fanout(item_id)}/{item_id}")
        events_by_fan[fanout(item_id)][item_id] = _merge_tree(repo, folder, files, MODE_BLOB)
    root = repo.tree_builder(base.tree) if base.tree is not None else repo.tree_builder()
    if change.config is not None:
        root.insert(COOP_FILE, repo.write_blob(codec.dump(change.config.to_data())), MODE_BLOB)
    for top, groups, mode in ((ITEMS, items_by_fan, MODE_BLOB), (EVENTS, events_by_fan, MODE_TREE)):
        if not groups:
            continue
        fans = {
            fan: _merge_tree(repo, base.subtree(f"{top}/{fan}"), entries, mode)
            for fan, entries in groups.items()
        }
        root.insert(top, _merge_tree(repo, base.subtree(top), fans, MODE_TREE), MODE_TREE)
    parents = [base.commit] if base.commit else []
    return repo.write_commit(root.write(), parents, change.actor, change.at, change.message)


def _merge_tree(repo: Repo, tree: Any, entries: dict[str, Any], mode: int) -> Any:
    builder = repo.tree_builder(tree)
    for name, oid in entries.items():
        builder.insert(name, oid, mode)
    return builder.write()
