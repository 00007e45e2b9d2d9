"""Merging a fetched ledger into the local one (DESIGN.md §6).

    remote tip in our history      nothing to do
    local tip in the remote's      fast-forward (after checking the remote)
    otherwise                      a merge commit, parents (local, remote):
                                   events united, every item touched on either
                                   side since the merge base replayed through
                                   the domain's fold, coop.yaml merged

The remote side is checked before anything else reads it, by the one module
that checks what a peer pushed (`store/inbound.py`): every fetched commit
once, then the tip. Any breach is a BadLedger naming the remote and the path;
the local ref does not move.

The merged items/ and events/ trees depend only on the set of events: event
blobs are copied, never re-encoded, and item files are folds.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import field, replace
from datetime import datetime
from typing import Any

from gitcoop.domain import progress, reconcile, rulebook
from gitcoop.domain.frozen import frozen
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Event, Item, LedgerConfig
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.settings import SETTINGS
from gitcoop.errors import BadLedger, ChangedUnderWrite, FetchedLedgerRefused, Refused
from gitcoop.store import codec, heap, inbound, lock, upkeep
from gitcoop.store.cache import ItemCache
from gitcoop.store.inbound import Entries, Reader, changed, entries
from gitcoop.store.layout import COOP_FILE, MODE_BLOB, MODE_TREE, event_dir, item_path
from gitcoop.store.lock import writer_lock
from gitcoop.store.repository import Oid, Repo, Sign, enable_fsync
from gitcoop.store.rows import OpenView, Row, conflicted
from gitcoop.store.snapshot import Known, Snapshot

MAX_ATTEMPTS = 5


@frozen
class Merged:
    """What a merge did: `kind` is new, up-to-date, ahead, fast-forward or merged."""

    kind: str
    before: Oid | None
    after: Oid | None
    items: tuple[ItemId, ...] = ()  # items whose file changed locally
    kept_out: tuple[EventId, ...] = ()  # events this merge newly keeps out (unsigned)
    # item data the merge already read or folded, by (item id, blob id): fills the cache
    known: Known = field(default_factory=dict, repr=False, compare=False)
    # the open rows of `after` whose items hold conflicts (what the notices read), when
    # the merge built its open index
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
) -> Merged:
    """Merge the commit `theirs` (fetched from `remote`) into refs/coop/ledger by CAS;
    a merge commit is signed with `sign` when given."""
    enable_fsync(fsync)
    result = _merge_locked(repo, remote, theirs, actor, at, sign)
    if result.after != result.before and result.after is not None:
        # outside the lock: the open index of the new ledger, from what the check read
        rows = result.conflicted  # a split first sync's halves built it
        if rows is None:
            after = Snapshot(repo, result.after)
            rows = conflicted(after.open_view(ItemCache(repo.common_dir), result.known).rows)
        upkeep.after_write(repo)
        return replace(result, conflicted=rows)
    return result


def _merge_locked(
    repo: Repo, remote: str, theirs: Oid, actor: str, at: datetime, sign: Sign | None
) -> Merged:
    with writer_lock(repo.common_dir):
        repo.clear_stale_ref_lock(time.time())  # a writer killed mid-swap left git's lock
        try:
            for _ in range(MAX_ATTEMPTS):
                ours = repo.tip()
                result = plan(repo, remote, ours, theirs, actor, at, sign)
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
) -> Merged:
    """The commit the ledger should move to; writes objects, never moves a ref."""
    if ours == theirs:
        return Merged("up-to-date", ours, ours)
    if ours is not None and repo.is_ancestor(theirs, ours):
        return Merged("ahead", ours, ours)
    base = repo.merge_base(ours, theirs) if ours is not None else None
    fill = _cache_filler(repo, theirs) if ours is None else None  # nothing local to evict
    arrival = inbound.check(repo, remote, ours, base, theirs, fill)  # hostile data first: exit 4
    heap.keep(arrival)  # a first sync's parsed events: freed by the process's end
    remote_side = arrival.touched
    if ours is not None and base is None:
        raise Refused(
            f"this clone's ledger and {remote}'s have no history in common — two separate "
            f"`git coop init`s. Keep {remote}'s: git update-ref -d refs/coop/ledger, then "
            f"git coop sync {remote} (events recorded only here are then lost)"
        )
    keep = arrival.kept_out
    news = tuple(sorted(keep - set(Snapshot(repo, ours).config.kept_out if ours else ())))
    if ours is None or base == ours:
        kind = "new" if ours is None else "fast-forward"
        if keep <= set(Snapshot(repo, theirs).config.kept_out):
            touched = tuple(sorted(remote_side))
            return Merged(kind, ours, theirs, touched, news, arrival.checked, arrival.conflicted)
        with repo.one_pack():
            commit, touched = _keep_out(arrival.reader, remote, theirs, keep, (actor, at, sign))
        return Merged(kind, ours, commit, tuple(sorted(remote_side | set(touched))), news)
    sides = (base, ours, theirs)
    known: Known = {}
    with repo.one_pack():  # one pack, synced once, instead of an fsync per object
        commit, touched = _merge_commit(
            arrival.reader, remote, sides, keep, (actor, at, sign), known
        )
    return Merged("merged", ours, commit, touched, news, known)


def _cache_filler(repo: Repo, theirs: Oid) -> inbound.Fill:
    """The open index of `theirs`, built by each half of a split check for its fan-outs
    (from the item data it checked), so that a first sync builds it on both cores."""

    def fill(known: Known, fans: Callable[[str], bool]) -> OpenView:
        cache = ItemCache(repo.common_dir)
        cache.parallel = False  # already one of two processes
        return Snapshot(repo, theirs).open_view(cache, known, fans)

    return fill


# -- writing the merge ----------------------------------------------------------


Author = tuple[str, datetime, Sign | None]  # who writes a commit, when, and how it is signed


def _merge_commit(
    reader: Reader,
    remote: str,
    sides: tuple[Oid | None, Oid, Oid],  # the merge base, ours, theirs
    keep: frozenset[EventId],
    author: Author,
    known: Known,
) -> tuple[Oid, tuple[ItemId, ...]]:
    repo = reader.repo
    actor, at, sign = author
    base, ours, theirs = sides
    old = Snapshot(repo, base) if base else None
    mine, yours = Snapshot(repo, ours), Snapshot(repo, theirs)
    config = reconcile.merge_config(mine.config, yours.config)
    config = replace(config, kept_out=tuple(sorted({*config.kept_out, *keep})))
    config = _merged_roles(reader, mine, yours, config)
    if all(reconcile.same_roles(config.roles, s.config.roles) for s in (mine, yours)):
        touched = changed(old, mine, "") | changed(old, yours, "")
    else:  # the rules now see other people: every item is replayed
        touched = changed(None, mine, "") | changed(None, yours, "")
    updates: dict[str, tuple[Any, int]] = {
        COOP_FILE: (repo.write_blob(codec.dump(config.to_data())), MODE_BLOB)
    }
    shown = progress.reporter()
    union = _Union(reader, remote, mine, yours)
    folds = rulebook.fold_items(sorted(touched), union.events, config.roles, config.kept_out)
    for done, (item_id, folded) in enumerate(folds):
        shown.step(f"merging the ledger of {remote}", done, len(touched))
        folder, item = _replay(union, item_id, folded, known)
        updates[event_dir(item_id)] = (folder, MODE_TREE)
        if item is not None:
            updates[item_path(item_id)] = (item, MODE_BLOB)
    shown.step(f"merging the ledger of {remote}", len(touched), len(touched))
    tree = _rewrite(repo, mine.tree, updates)
    message = f"merge {remote} by {actor}"
    commit = repo.write_commit(tree, [ours, theirs], actor, at, message, sign)
    return commit, tuple(sorted(touched))


def _merged_roles(
    reader: Reader, mine: Snapshot, yours: Snapshot, config: LedgerConfig
) -> LedgerConfig:
    """Roles and settings are the fold of the union of both sides' ledger events (DESIGN.md §6)."""
    ours = entries(mine, LEDGER_ID)
    events = reader.item_events(mine, LEDGER_ID)
    events += [reader.event(yours, LEDGER_ID, e) for e in _tree_entries(yours, LEDGER_ID, ours)]
    if not events:
        return config
    state, _refused = rulebook.fold_ledger(events, config.kept_out)
    newer = {k: v for k, v in config.settings.items() if k not in SETTINGS}
    return replace(config, roles=state.roles, settings={**newer, **state.settings})


class _Union:
    """The events of each item on both sides, united: read once per item, whichever
    fold asks (an item's own, or one judging a duplicate verdict against it)."""

    def __init__(self, reader: Reader, remote: str, mine: Snapshot, yours: Snapshot) -> None:
        self.reader, self.remote, self.mine, self.yours = reader, remote, mine, yours
        self.found: dict[ItemId, tuple[Entries, list[Event]]] = {}

    def entries(self, item_id: ItemId) -> Entries:
        """File name -> blob of the item's united event folder."""
        return self._read(item_id)[0]

    def events(self, item_id: ItemId) -> list[Event]:
        return self._read(item_id)[1]

    def _read(self, item_id: ItemId) -> tuple[Entries, list[Event]]:
        if item_id not in self.found:
            ours, theirs = entries(self.mine, item_id), entries(self.yours, item_id)
            for name in ours.keys() & theirs.keys():
                if str(ours[name]) != str(theirs[name]):
                    raise BadLedger(
                        f"remote {self.remote}: {event_dir(item_id)}/{name}: differs from the "
                        "local event of the same name — events are never rewritten; the local "
                        "ledger is unchanged"
                    )
            events = self.reader.item_events(self.mine, item_id)
            skip = _tree_entries(self.yours, item_id, ours)
            events += [self.reader.event(self.yours, item_id, e) for e in skip]
            try:  # each side's folder held each id once; together they may not
                inbound.one_id_each(item_id, events)
            except BadLedger as twice:
                raise FetchedLedgerRefused(
                    f"remote {self.remote}: {twice.message} — the local ledger is unchanged"
                ) from None
            self.found[item_id] = ({**ours, **theirs}, events)
        return self.found[item_id]


def _replay(union: _Union, item_id: ItemId, folded: Item | None, known: Known) -> tuple[Any, Any]:
    """The united event folder of one item and its folded item's blob (None: no item yet)."""
    repo = union.reader.repo
    builder = repo.tree_builder()
    for name, blob in sorted(union.entries(item_id).items()):
        builder.insert(name, blob, MODE_BLOB)
    blob = None
    if folded is not None:
        data = folded.to_data()
        blob = repo.write_blob(codec.dump(data))
        known[item_id, str(blob)] = data
    return repo.write_tree(builder), blob


def _keep_out(
    reader: Reader, remote: str, theirs: Oid, keep: frozenset[EventId], author: Author
) -> tuple[Oid, tuple[ItemId, ...]]:
    """A commit on top of `theirs` that keeps `keep` out of every fold: coop.yaml lists them,
    and the items that hold them (every item, when the roles change) are folded again. It
    adds no events, so it is what a fast-forward becomes when the remote kept too little out.
    """
    repo = reader.repo
    actor, at, sign = author
    side = Snapshot(repo, theirs)
    kept_out = tuple(sorted({*side.config.kept_out, *keep}))
    config = replace(side.config, kept_out=kept_out)
    config = _merged_roles(reader, side, side, config)
    if reconcile.same_roles(config.roles, side.config.roles):
        fresh = keep - set(side.config.kept_out)
        touched = {item for (item, _, _), event in reader.events.items() if event.id in fresh}
        # a duplicate verdict judged against one of those may fold otherwise now; only a
        # fetched event comes after a fetched one in the order, so only the items of
        # fetched duplicate verdicts are folded again too
        touched |= {item for (item, _, _), event in reader.events.items() if rulebook.names(event)}
    else:
        touched = changed(None, side, "")
    updates: dict[str, tuple[Any, int] | None] = {
        COOP_FILE: (repo.write_blob(codec.dump(config.to_data())), MODE_BLOB)
    }

    def events_of(item_id: ItemId) -> list[Event]:
        return reader.item_events(side, item_id)

    ordered = sorted(touched - {LEDGER_ID})
    for item_id, item in rulebook.fold_items(ordered, events_of, config.roles, config.kept_out):
        blob = repo.write_blob(codec.dump(item.to_data())) if item is not None else None
        updates[item_path(item_id)] = (blob, MODE_BLOB) if blob is not None else None
    tree = _rewrite(repo, side.tree, updates)
    message = f"keep unsigned events from {remote} out, by {actor}"
    commit = repo.write_commit(tree, [theirs], actor, at, message, sign)
    return commit, tuple(sorted(touched - {LEDGER_ID}))


def _tree_entries(snapshot: Snapshot, item_id: ItemId, skip: Entries) -> list[Any]:
    tree = snapshot.subtree(event_dir(item_id))
    return [e for e in tree if e.name not in skip] if tree is not None else []


def _rewrite(repo: Repo, tree: Any, updates: Mapping[str, tuple[Any, int] | None]) -> Any:
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
