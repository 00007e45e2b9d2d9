"""One transaction = one commit on refs/coop/ledger (DESIGN.md §3).

    lock -> read tip -> decide -> write blobs/trees -> commit(parent=tip)
         -> swap the ref only if it still points at tip -> unlock

A lost swap means a writer outside gitcoop's lock moved the ref: re-read and
decide again, a bounded number of times.

git's own lock on the ref (`refs/coop/ledger.lock`) can be held briefly by a
live git process (pack-refs, gc, update-ref) or left behind by a writer that
was killed. While gitcoop's lock is held no other gitcoop writer can own it,
so a `.lock` older than `stale_after` seconds is a leftover: it is removed,
with a one-line notice. A younger one is waited for, with backoff, and then
reported by name.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import field, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from gitcoop.domain.ids import ItemId, fanout
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Item, LedgerConfig
from gitcoop.errors import ChangedUnderWrite
from gitcoop.store.git.lock import DEFAULT_TIMEOUT, writer_lock
from gitcoop.store.git.objects import Oid
from gitcoop.store.git.refs import STALE_AFTER, RefLocked
from gitcoop.store.git.writes import Sign, enable_fsync
from gitcoop.store.ledger import codec, upkeep
from gitcoop.store.ledger.layout import (
    COOP_FILE,
    EVENTS,
    ITEMS,
    MODE_BLOB,
    MODE_TREE,
    event_name,
    item_path,
)
from gitcoop.store.ledger.notice import stderr_notice
from gitcoop.store.ledger.repo import Repo
from gitcoop.store.ledger.snapshot import Snapshot

if TYPE_CHECKING:  # loaded by a write (zlib, hashlib): a read that imports this needs neither
    from gitcoop.store.fast.packwrite import Entry

MAX_ATTEMPTS = 5
LOCK_TIMEOUT_KEY = "coop.lockTimeout"


@record_type
class Policy:
    """How hard one write tries; clock, sleep and notice are injectable for tests."""

    fsync: bool = True
    lock_timeout: float = DEFAULT_TIMEOUT
    attempts: int = MAX_ATTEMPTS  # lost swaps before giving up
    stale_after: float = STALE_AFTER
    ref_lock_wait: float = STALE_AFTER + 2.0  # longest wait for a live git's ref lock
    first_pause: float = 0.01
    clock: Callable[[], float] = time.time
    sleep: Callable[[float], None] = time.sleep
    notice: Callable[[str], None] = stderr_notice

    @classmethod
    def for_repo(cls, repo: Repo, fsync: bool = True) -> Policy:
        """The defaults, with `git config coop.lockTimeout` (seconds) applied."""
        return cls(fsync=fsync, lock_timeout=repo.config_number(LOCK_TIMEOUT_KEY, DEFAULT_TIMEOUT))


@record_type
class Change:
    """What one transaction writes: new item states, new events, maybe a new config."""

    message: str
    actor: str
    at: datetime
    items: dict[ItemId, Item] = field(default_factory=dict)
    events: list[Event] = field(default_factory=list)
    config: LedgerConfig | None = None
    sign: Sign | None = None  # signs the commit (store/git/commit_signing.py); None: unsigned


Decide = Callable[[Snapshot], Change | None]


@record_type
class Outcome:
    snapshot: Snapshot  # the ledger after the write (or as read, when nothing changed)
    change: Change | None


def write(
    repo: Repo,
    decide: Decide,
    fsync: bool = True,
    lock_timeout: float | None = None,
    policy: Policy | None = None,
) -> Outcome:
    """Run `decide` on the current tip and commit its change by compare-and-swap.

    `lock_timeout` (seconds) overrides the policy's wait for gitcoop's lock: a hook
    waits briefly and journals what it could not record.
    """
    policy = policy or Policy.for_repo(repo, fsync)
    if lock_timeout is not None:
        policy = replace(policy, lock_timeout=lock_timeout)
    enable_fsync(policy.fsync)
    outcome = _write_locked(repo, decide, policy)
    if outcome.change is not None:
        with repo.shared_modes():  # outside the lock: a gc that is not detached is waited for
            upkeep.after_write(repo)
    return outcome


def _write_locked(repo: Repo, decide: Decide, policy: Policy) -> Outcome:
    with repo.shared_modes(), writer_lock(repo.common_dir, policy.lock_timeout):
        repo.ensure_reflog()  # a ledger that came by fetch or clone has none yet
        clear_stale_ref_lock(repo, policy)
        try:
            for _ in range(policy.attempts):
                tip = repo.tip()
                snapshot = Snapshot(repo, tip)
                change = decide(snapshot)
                if change is None:
                    return Outcome(snapshot, None)
                commit = commit_change(repo, snapshot, change)
                if _swap(repo, tip, commit, change.message, policy):
                    return Outcome(Snapshot(repo, commit), change)
        finally:
            repo.unkeep()  # the ref names the objects now, or they were given up
    raise ChangedUnderWrite(
        f"changed under this write — re-read and retry (the ledger moved {policy.attempts} times)"
    )


@record_type
class Prepared:
    """A decided change committed as objects only: the ref has not moved (see `land`)."""

    snapshot: Snapshot  # the ledger it was decided on
    commit: Oid | None  # None when nothing changes
    change: Change | None


def prepare(repo: Repo, decide: Decide, policy: Policy | None = None) -> Prepared:
    """Run `decide` on the current tip and write its commit, without moving the ref.

    A claim decided by a remote (docs/sync.md) is prepared, pushed, and landed
    only once the remote took it, so no local reader or writer ever sees, or
    builds on, a claim that may still lose.
    """
    policy = policy or Policy.for_repo(repo)
    enable_fsync(policy.fsync)
    with repo.shared_modes(), writer_lock(repo.common_dir, policy.lock_timeout):
        snapshot = Snapshot(repo, repo.tip())
        change = decide(snapshot)
        if change is None:
            return Prepared(snapshot, None, None)
        return Prepared(snapshot, commit_change(repo, snapshot, change), change)


def land(repo: Repo, prepared: Prepared, policy: Policy | None = None) -> bool:
    """Move the ref from the tip `prepared` was decided on to its commit; False if it moved."""
    assert prepared.commit is not None and prepared.change is not None
    policy = policy or Policy.for_repo(repo)
    enable_fsync(policy.fsync)
    with repo.shared_modes(), writer_lock(repo.common_dir, policy.lock_timeout):
        repo.ensure_reflog()
        clear_stale_ref_lock(repo, policy)
        tip = prepared.snapshot.commit
        landed = _swap(repo, tip, prepared.commit, prepared.change.message, policy)
    if landed:
        with repo.shared_modes():
            upkeep.after_write(repo)
    return landed


def _swap(repo: Repo, tip: Oid | None, commit: Oid, message: str, policy: Policy) -> bool:
    """The swap, waiting out a live git's ref lock and clearing a dead writer's."""
    waited, pause = 0.0, policy.first_pause
    while True:
        try:
            return repo.swap(tip, commit, message)
        except RefLocked as locked:
            if clear_stale_ref_lock(repo, policy):
                continue
            if waited >= policy.ref_lock_wait:
                raise RefLocked(
                    f"{locked.message} — {repo.ref_lock_path()} stayed locked for "
                    f"{waited:.1f}s; if no git command is running, remove that file"
                ) from None
            policy.sleep(pause)
            waited += pause
            pause = min(pause * 2, 0.5)


def clear_stale_ref_lock(repo: Repo, policy: Policy) -> bool:
    """Remove the ref's `.lock` left by a dead writer; call only under gitcoop's lock."""
    return repo.clear_stale_ref_lock(policy.clock(), policy.notice, policy.stale_after)


def commit_change(repo: Repo, base: Snapshot, change: Change) -> Oid:
    """Write the blobs and trees of `change` on top of `base`, and a commit; no ref moves.

    They go into the object store as one pack synced once (store/fast/packwrite.py), the
    commit too, signed or not."""
    from gitcoop.store.fast import packwrite

    pack = packwrite.Pack()
    cap = repo.max_file_bytes
    items_by_fan: dict[str, dict[str, Entry]] = defaultdict(dict)
    for item_id, item in change.items.items():
        blob = pack.blob(codec.within(codec.dump(item.to_data()), item_path(item_id), cap))
        items_by_fan[fanout(item_id)][f"{item_id}.yaml"] = (MODE_BLOB, blob)
    events_by_item: dict[ItemId, dict[str, Entry]] = defaultdict(dict)
    for event in change.events:
        blob = pack.blob(codec.dump(event.to_data()))
        events_by_item[event.item][event_name(event)] = (MODE_BLOB, blob)
    events_by_fan: dict[str, dict[str, Entry]] = defaultdict(dict)
    for item_id, files in events_by_item.items():
        folder = base.subtree(f"{EVENTS}/{fanout(item_id)}/{item_id}")
        events_by_fan[fanout(item_id)][item_id] = (MODE_TREE, pack.tree(_content(folder), files))
    root: dict[str, Entry] = {}
    if change.config is not None:
        config = codec.within(codec.dump(change.config.to_data()), COOP_FILE, cap)
        root[COOP_FILE] = (MODE_BLOB, pack.blob(config))
    for top, groups in ((ITEMS, items_by_fan), (EVENTS, events_by_fan)):
        if groups:
            fans = {
                fan: (MODE_TREE, pack.tree(_content(base.subtree(f"{top}/{fan}")), entries))
                for fan, entries in groups.items()
            }
            root[top] = (MODE_TREE, pack.tree(_content(base.subtree(top)), fans))
    tree = pack.tree(_content(base.tree), root)
    parents = [base.commit] if base.commit else []
    made = (change.actor, change.at, change.message)
    content = repo.commit_content(tree, base.tree, parents, *made)
    if change.sign is not None:  # signed before anything is written: a refusal leaves nothing
        content = packwrite.signed(content, change.sign(content))
    commit = pack.add(packwrite.COMMIT, content)
    repo.write_pack(pack)
    return Oid(commit.hex())


def _content(tree: Any) -> bytes:
    """A tree's bytes as stored, or none for a tree not there yet."""
    return b"" if tree is None else bytes(tree.read_raw())
