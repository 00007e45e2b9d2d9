"""Merging a fetched ledger into the local one (DESIGN.md §6, docs/sync.md).

    remote tip in our history      nothing to do
    local tip in the remote's      fast-forward (after checking the remote)
    otherwise                      a merge commit, parents (remote, local): the
                                   remote's state, and on top of it the events
                                   only the local side holds, joined in
                                   (clock, at, id) order and judged there

The remote is always the first parent (docs/hardening.md, H1): what it holds
was decided there first, and nothing that arrives later re-decides it. The
remote side is checked before anything else reads it (`store/boundary`); the
tip it last took in must stay first in its history (H4). Any breach is a
BadLedger naming the remote and the path; the local ref does not move.
"""

from __future__ import annotations

import time
from dataclasses import field, replace
from datetime import datetime
from typing import Any

from gitcoop.domain import progress
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.record_type import record_type
from gitcoop.domain.rulebook import config_of
from gitcoop.errors import ChangedUnderWrite, Refused
from gitcoop.store.boundary import fetched, joining, remembered
from gitcoop.store.boundary.history import Reader
from gitcoop.store.fast.cache_rows import Row, conflicted
from gitcoop.store.fast.read_cache import ItemCache
from gitcoop.store.git import lock
from gitcoop.store.git.lock import writer_lock
from gitcoop.store.git.objects import Oid
from gitcoop.store.git.writes import Sign, enable_fsync
from gitcoop.store.ledger import codec, upkeep
from gitcoop.store.ledger.layout import COOP_FILE, MODE_BLOB, MODE_TREE, event_dir, item_path
from gitcoop.store.ledger.notice import stderr_notice
from gitcoop.store.ledger.repo import Repo
from gitcoop.store.ledger.snapshot import CheckedFiles, Snapshot

MAX_ATTEMPTS = 5


@record_type
class Merged:
    """What a merge did: `kind` is new, up-to-date, ahead, fast-forward or merged."""

    kind: str
    before: Oid | None
    after: Oid | None
    unsigned: tuple[EventId, ...] = ()  # events this merge refused for want of a signature
    # item data the merge already read or folded, by (item id, blob id): fills the cache
    known: CheckedFiles = field(default_factory=dict, repr=False, compare=False)
    # the open rows of `after` whose items hold conflicts (what the notices read)
    conflicted: tuple[Row, ...] | None = field(default=None, repr=False, compare=False)


def prepare() -> None:
    """Load what a merge needs before it reads anything (the lock), while the fetch it
    follows runs: ~12 ms a sync would otherwise spend after the fetch."""
    lock.load()


def merge(
    repo: Repo,
    remote: str,
    theirs: Oid,
    actor: str,
    at: datetime,
    fsync: bool = True,
    sign: Sign | None = None,
    ours_first: bool = False,
    *,
    last: Oid | None,
) -> Merged:
    """Merge the commit `theirs` (fetched from `remote`) into refs/coop/ledger by CAS;
    a merge commit is signed with `sign` when given. The remote's tip is the first
    parent, unless `ours_first`: the local history is put back first, over a remote
    that lost it (`sync` repairing a rewritten remote, H4). `last`: the tip this clone
    had taken in from `remote` when the fetch of `theirs` began, which `theirs` must keep
    (H4); None holds it against nothing (none was taken in, or `theirs` is this clone's
    own claim, which the remote took). What is taken in is remembered, forward only."""
    enable_fsync(fsync)
    if not ours_first:
        remembered.check(repo, remote, theirs, last)
    result = _merge_locked(repo, remote, theirs, actor, at, sign, ours_first)
    if not ours_first:
        remembered.remember(repo, remote, theirs)
    if result.after != result.before and result.after is not None:
        after = Snapshot(repo, result.after)
        rows = conflicted(after.open_view(ItemCache(repo.common_dir), result.known).rows)
        with repo.shared_modes():
            upkeep.after_write(repo)
        return replace(result, conflicted=rows)
    return result


def _merge_locked(
    repo: Repo,
    remote: str,
    theirs: Oid,
    actor: str,
    at: datetime,
    sign: Sign | None,
    ours_first: bool,
) -> Merged:
    with repo.shared_modes(), writer_lock(repo.common_dir):
        repo.clear_stale_ref_lock(
            time.time(), notice=stderr_notice
        )  # a writer killed mid-swap left git's lock
        try:
            for _ in range(MAX_ATTEMPTS):
                ours = repo.tip()
                result = plan(repo, remote, ours, theirs, actor, at, sign, ours_first)
                if result.after == ours:
                    return result
                assert result.after is not None
                if ours is None:
                    repo.ensure_reflog()
                if repo.swap(ours, result.after, f"{result.kind} {remote} by {actor}"):
                    return result
        finally:
            repo.unkeep()  # the ref names the merge's objects now, or they were given up
    raise ChangedUnderWrite("the ledger changed under this merge — re-read and retry")


def plan(
    repo: Repo,
    remote: str,
    ours: Oid | None,
    theirs: Oid,
    actor: str,
    at: datetime,
    sign: Sign | None = None,
    ours_first: bool = False,
) -> Merged:
    """The commit the ledger should move to; writes objects, never moves a ref."""
    if ours == theirs:
        return Merged("up-to-date", ours, ours)
    if ours is not None and repo.is_ancestor(theirs, ours):
        # ahead, when this clone's history has the remote's tip first; otherwise (it came
        # in through a merge of another remote's ledger) the remote's tip is put first
        if ours_first or remembered.keeps(repo, ours, theirs):
            return Merged("ahead", ours, ours)
        arrival = fetched.check(repo, remote, ours, theirs, theirs)  # held aside so far
        with repo.one_pack():
            commit, unsigned = _merge_commit(
                arrival.reader, remote, theirs, ours, (actor, at, sign), {}
            )
        return Merged("merged", ours, commit, unsigned)
    base = repo.merge_base(ours, theirs) if ours is not None else None
    arrival = fetched.check(repo, remote, ours, theirs, base)
    if ours is not None and base is None:
        raise Refused(
            f"this clone's ledger and {remote}'s have no history in common — two separate "
            f"`git coop init`s. Keep {remote}'s: git update-ref -d refs/coop/ledger, then "
            f"git coop sync {remote} (events recorded only here are then lost)"
        )
    if ours is None or base == ours:
        kind = "new" if ours is None else "fast-forward"
        return Merged(kind, ours, theirs, (), arrival.checked)
    first, second = (ours, theirs) if ours_first else (theirs, ours)
    known: CheckedFiles = {}
    with repo.one_pack():  # one pack, synced once, instead of an fsync per object
        commit, unsigned = _merge_commit(
            arrival.reader, remote, first, second, (actor, at, sign), known
        )
    return Merged("merged", ours, commit, unsigned, known)


# -- writing the merge ----------------------------------------------------------


Author = tuple[str, datetime, Sign | None]  # who writes a commit, when, and how it is signed


def _merge_commit(
    reader: Reader,
    remote: str,
    first: Oid,
    second: Oid,
    author: Author,
    known: CheckedFiles,
) -> tuple[Oid, tuple[EventId, ...]]:
    """A commit with parents (first, second): `first`'s state and the events only `second`
    holds joined onto it (`boundary/joining.py`, the same function every clone checks it
    with)."""
    repo = reader.repo
    actor, at, sign = author
    joined = joining.join(repo, reader, first, second)
    clock = max(Snapshot(repo, first).config.clock, Snapshot(repo, second).config.clock)
    config = config_of(joined.state.ledger, clock, joined.state.conflicts)
    cap = repo.max_file_bytes
    written = codec.within(codec.dump(config.to_data()), COOP_FILE, cap)
    updates: dict[str, tuple[Any, int] | None] = {COOP_FILE: (repo.write_blob(written), MODE_BLOB)}
    shown = progress.reporter()
    folders: dict[ItemId, list[Any]] = {}
    for file in joined.added:
        folders.setdefault(file.item_id, []).append(file)
    items = joined.state.items
    total = len(folders)
    for done, (item_id, files) in enumerate(sorted(folders.items())):
        shown.step(f"merging the ledger of {remote}", done, total)
        old = joined.first.subtree(event_dir(item_id))
        builder = repo.tree_builder(old)
        for file in files:
            builder.insert(file.name, file.id, MODE_BLOB)
        updates[event_dir(item_id)] = (repo.write_tree(builder), MODE_TREE)
    for item_id, item in items.items():
        if item is None:
            continue  # its add was refused where it joined: no item file (H2)
        data = item.to_data()
        blob = repo.write_blob(codec.within(codec.dump(data), item_path(item_id), cap))
        known[item_id, str(blob)] = data
        updates[item_path(item_id)] = (blob, MODE_BLOB)
    shown.step(f"merging the ledger of {remote}", total, total)
    tree = _rewrite(repo, joined.first.tree, updates)
    message = f"merge {remote} by {actor}"
    commit = repo.write_commit(tree, [first, second], actor, at, message, sign)
    return commit, joining.unsigned_ids(joined)


def _rewrite(repo: Repo, tree: Any, updates: dict[str, tuple[Any, int] | None]) -> Any:
    """A copy of `tree` with each path set to (object id, mode), or removed (None); parents
    are rebuilt."""
    here: dict[str, tuple[Any, int] | None] = {}
    below: dict[str, dict[str, tuple[Any, int] | None]] = {}
    for path, value in updates.items():
        head, _, rest = path.partition("/")
        if rest:
            below.setdefault(head, {})[rest] = value
        else:
            here[head] = value
    builder = repo.tree_builder(tree)
    for name, nested in below.items():
        existing = builder.get(name) if tree is not None else None
        child = repo.read_tree(existing.id) if existing is not None else None
        builder.insert(name, _rewrite(repo, child, nested), MODE_TREE)
    for name, value in here.items():
        if value is not None:
            builder.insert(name, *value)
        elif builder.get(name) is not None:
            builder.remove(name)
    return repo.write_tree(builder)
