"""Where a commit joins: its state from its first parent's and what it adds (H1, H2, H3).

    state(C) = join(state(first parent), the events C holds and its first parent
               does not), in (clock, at, event id) order, each judged by the
               rules in the state it joins; under that state's require_signed,
               an event counts only if a commit that adds its file is signed by
               a key the first parent registers to its actor

`join` computes it, for the merge gitcoop writes (the remote's tip first, the
local work second) and for each fetched commit on the remote's first-parent
chain, which `check_chain` then holds against its tree: items and coop.yaml
must be exactly that state. `fsck` walks the same function along the local
ledger's first-parent chain.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from gitcoop.domain import rulebook
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.keys import Keys
from gitcoop.domain.records import Event, Item
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.errors import BadLedger
from gitcoop.store.boundary.history import Added, Reader, added_files
from gitcoop.store.boundary.tree import changed, changed_in
from gitcoop.store.git.commits import CommitInfo
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger import codec
from gitcoop.store.ledger.layout import (
    EVENT_FILE_RE,
    EVENTS,
    ITEMS,
    MODE_TREE,
    event_dir,
    item_path,
)
from gitcoop.store.ledger.repo import Repo
from gitcoop.store.ledger.snapshot import CheckedFiles, Snapshot

Lookup = Callable[[ItemId], Item | None]


@dataclass
class Joining:
    """What `other` adds to `first`, and the state it makes."""

    first: Snapshot
    added: list[Added]  # the event files `other` holds and `first` does not, by path
    events: list[Event]  # their events, in the same order
    state: rulebook.Joined
    before: Lookup  # an item as `first` holds it
    unsigned: dict[str, str] = field(default_factory=dict)  # event id -> why refused


def ledger_before(snapshot: Snapshot, reader: Reader) -> rulebook.LedgerState:
    """The ledger's own state at a commit (the empty ledger's, for none)."""
    if snapshot.commit is None:
        return rulebook.LedgerState()
    return rulebook.state_of(snapshot.config, lambda: reader.item_events(snapshot, LEDGER_ID))


def join(
    repo: Repo,
    reader: Reader,
    first: Oid | None,
    other: Oid,
    items: Lookup | None = None,
    files: list[Added] | None = None,
) -> Joining:
    """`other`'s events joined onto `first`'s state. `items` gives an item as `first`
    holds it (by default read from its tree); `files` are the added event files when
    the caller listed them already."""
    before = Snapshot(repo, first)
    added = files if files is not None else _added_between(repo, first, other)
    events = reader.added(Snapshot(repo, other), added)
    ledger = ledger_before(before, reader)
    unsigned: dict[str, str] = {}
    if ledger.requires_signing and events:
        unsigned = _unsigned(repo, first, other, added, events, ledger.keys)
    lookup = items if items is not None else _items_of(before)
    held = before.config.conflicts if before.commit is not None else ()
    state = rulebook.join(lookup, ledger, events, unsigned, held)
    return Joining(before, added, events, state, lookup, unsigned)


def _items_of(snapshot: Snapshot) -> Lookup:
    def item(item_id: ItemId) -> Item | None:
        return snapshot.item(item_id) if snapshot.commit is not None else None

    return item


def _added_between(repo: Repo, first: Oid | None, other: Oid) -> list[Added]:
    """The event files `other` holds and `first` does not. `first`'s own (ones `other`
    lacks) are its state already; one of a name both hold with other content refuses."""
    from gitcoop.store.boundary.history import event_entry

    found = []
    for delta in repo.changes(first, other, EVENTS, None):
        if delta.status == "added":
            found.append(event_entry(delta.path, delta.oid, delta.mode))
        elif delta.status != "deleted":
            raise BadLedger(
                f"{delta.path}: differs from the local event of the same name — events are "
                "never rewritten"
            )
    return sorted(found)


# -- who wrote an event (H2) ---------------------------------------------------------


def _unsigned(
    repo: Repo,
    first: Oid | None,
    other: Oid,
    added: list[Added],
    events: list[Event],
    keys: Keys,
) -> dict[str, str]:
    """The joining events no commit that writes them signs with a key `keys` registers to
    their actor, with the reason: refused where they join (H2)."""
    from gitcoop.store.boundary import signatures

    wanted = {(file.path, file.id) for file in added}  # a writer adds this very file
    writers: dict[tuple[str, str], list[CommitInfo]] = {}
    for info in repo.commits_since(other, first):
        if len(info.parents) > 1:
            continue  # a merge adds no event of its own
        parent = info.parents[0] if info.parents else None
        for file in added_files(repo, parent, info.oid):
            if (file.path, file.id) in wanted:
                writers.setdefault((file.path, file.id), []).append(info)
    oids = sorted({info.oid for found in writers.values() for info in found})
    verdicts = signatures.check(repo, oids, keys.every_key())
    unsigned: dict[str, str] = {}
    for file, event in zip(added, events, strict=True):
        why = None
        for info in writers.get((file.path, file.id), []):
            why = _problem(verdicts[info.oid], event.actor, info.author, keys)
            if why is None:
                break
        if why is not None or (file.path, file.id) not in writers:
            reason = why or "no commit that writes it is on this history"
            settle = (
                "an owner makes the change again if it was meant"
                if event.item == LEDGER_ID
                else "an owner settles it: resolve --apply or --dismiss"
            )
            unsigned[event.id] = f"refused where it joined: {reason} (require_signed) — {settle}"
    return unsigned


def _problem(checked: Any, actor: str, author: str, keys: Keys) -> str | None:
    from gitcoop.store.boundary.signatures import GOOD, UNKNOWN_KEY

    if author != actor:
        return f"its commit is by {author}, not {actor}"
    if checked.status == GOOD and checked.fingerprint in keys.fingerprints(actor):
        return None
    if checked.status in (GOOD, UNKNOWN_KEY):
        holder = keys.signer(checked.fingerprint)
        whose = f" ({holder}'s)" if holder else ""
        return f"signed by {checked.fingerprint}{whose}, not by a key registered to {actor}"
    return f"{checked.meaning}, where a key registered to {actor} must sign"


# -- the tree is the state (H3) ------------------------------------------------------


def check_chain(
    repo: Repo, reader: Reader, chain: list[CommitInfo], checked: CheckedFiles, where: str = ""
) -> dict[ItemId, Item | None]:
    """Each commit of `chain` (a first-parent chain, oldest first, each one's first parent
    the one before, the first's held already) holds exactly its joined state; BadLedger
    names the commit and the path. Returns the items the chain changed, as the last
    commit holds them, and fills `checked` with their data by (item id, blob id)."""
    known: dict[ItemId, Item | None] = {}
    blobs: dict[ItemId, tuple[str, Any]] = {}
    snapshot: Snapshot | None = None

    def item(item_id: ItemId) -> Item | None:
        if item_id in known:
            return known[item_id]
        return snapshot.item(item_id) if snapshot is not None and snapshot.commit else None

    for info in chain:
        first = info.parents[0] if info.parents else None
        snapshot = Snapshot(repo, first)
        try:
            joining = join(repo, reader, first, info.oid, item)
            blobs.update(holds_state(joining, Snapshot(repo, info.oid), where))
        except BadLedger as error:
            raise BadLedger(f"commit {info.oid[:12]}: {error.message}") from None
        known.update(joining.state.items)
    for item_id, (blob, data) in blobs.items():
        checked[item_id, blob] = data
    return known


def holds_state(
    joining: Joining, after: Snapshot, where: str = ""
) -> dict[ItemId, tuple[str, Any]]:
    """BadLedger unless `after`'s items and coop.yaml are the joined state; the data of each
    item file it checked, by item id: (blob id, data)."""
    state = joining.state
    holds_config(state, after)
    return holds_items(
        Holding(joining.first, joining.before, joining.added, joining.events, state.items),
        after,
        where,
    )


def holds_config(state: rulebook.Joined, after: Snapshot) -> None:
    """BadLedger unless `after`'s coop.yaml is the ledger's joined state."""
    expected = rulebook.config_of(state.ledger, after.config.clock, state.conflicts)
    if after.config.to_data() != expected.to_data():
        raise BadLedger(
            "coop.yaml: is not the state its first parent and the events it adds make "
            "(roles, settings and keys are the fold of the ledger's own events)"
        )


class Holding(NamedTuple):
    """What `holds_items` holds a tree against: the first parent, an item as it holds it,
    the added event files and their events, and the items they make."""

    first: Snapshot
    before: Lookup
    added: list[Added]
    events: list[Event]
    items: dict[ItemId, Item | None]


def holds_items(
    held: Holding,
    after: Snapshot,
    where: str = "",
    fan: str | None = None,
    aside: frozenset[ItemId] = frozenset(),
    moved: bool = True,
) -> dict[ItemId, tuple[str, Any]]:
    """BadLedger unless `after`'s item files are `held.items` (in the fan-out folder `fan`,
    when given: `tree.tops_written` checked the levels above; and but for the items
    `aside`, judged elsewhere); unless `moved` is False, an item file that changed though
    none of its events joined refuses too."""
    first = held.first
    found: dict[ItemId, tuple[str, Any]] = {}
    old = first if first.commit is not None else None
    # the listings of `fan`'s folders that `changed_in` read, by top (items/, events/)
    listed: dict[str, dict[str, tuple[int, str]]] = {}
    if not moved:
        changed_here: set[ItemId] = set()
    elif fan is None:
        changed_here = changed(old, after, where)
    else:
        changed_here = changed_in(old, after, where, fan, listed)
    files = listed.get(ITEMS)
    for item_id in sorted(changed_here - set(held.items) - {LEDGER_ID} - aside):
        # none of its events joined: it stays as it was, though it may be written otherwise
        was, blob = held.before(item_id), after.item_blob(item_id, files)
        if was is None or blob is None:
            raise BadLedger(
                f"{item_path(item_id)}: is not the state its events make (it changed, though "
                "none of its events joined here)"
            )
        found[item_id] = (str(blob), as_state(after, item_id, blob, was.to_data()))
    for item_id in {f.item_id for f in held.added}:  # an older random id: once a folder
        names = _event_names(after, item_id, listed.get(EVENTS))
        ids_held = [m.group(2) for m in map(EVENT_FILE_RE.match, names) if m is not None]
        if len(ids_held) != len(set(ids_held)):
            twice = sorted(i for i in ids_held if ids_held.count(i) > 1)[0]
            raise BadLedger(
                f"{event_dir(item_id)}: holds event {twice} in two files — an event id "
                "names one event"
            )
    # a folder without an item file is honest only where its item's add was refused;
    # a `cf-` id is no item's but the ledger's own
    adds = {e.item for e in held.events if e.verb == "add" and not e.item.startswith("cf-")}
    for item_id, item in held.items.items():
        if item_id in aside:
            continue
        blob = after.item_blob(item_id, files)
        if item is None:
            if blob is not None:
                raise BadLedger(f"{item_path(item_id)}: is not the state its events make")
            had = first.commit is not None and first.subtree(event_dir(item_id)) is not None
            if item_id not in adds and not had:
                raise BadLedger(
                    f"{event_dir(item_id)}: events of no item — an event folder needs its "
                    "item's file, unless its add was refused where it joined"
                )
            continue
        if blob is None:
            raise BadLedger(f"{item_path(item_id)}: missing, though its events make an item")
        found[item_id] = (str(blob), as_state(after, item_id, blob, item.to_data()))
    return found


def _event_names(
    after: Snapshot, item_id: ItemId, fan: dict[str, tuple[int, str]] | None
) -> list[str]:
    """The file names in an item's event folder, in the tree's order. A folder its fan-out
    folder's listing (`fan`, checked as git writes it, or None) shows is listed as the
    comparison of what the commit adds listed it (`History.compared`: checked, and kept
    while recent), not parsed again; any other is read by path."""
    folder = fan.get(item_id) if fan is not None else None
    if folder is not None and folder[0] == MODE_TREE:
        try:
            return list(after.repo.written(folder[1], event_dir(item_id)))
        except BadLedger:  # not as git writes it: read as libgit2 reads it, below
            pass
    return [e.name for e in after.subtree(event_dir(item_id)) or ()]


def as_state(side: Snapshot, item_id: ItemId, blob: Any, state: dict[str, Any]) -> dict[str, Any]:
    """The item file's data when it is `state`, else BadLedger.

    A file gitcoop wrote is exactly `codec.dump` of the state, so its blob id says so
    without reading it; any other file (an earlier gitcoop's way of writing, or a
    forgery) is read, checked, and compared with the state as data."""
    written = codec.dump(state)
    if len(written) <= side.cap and side.repo.blob_id(written) == str(blob):
        return state
    stored = side.item_data(item_id, blob)  # validated, in `Item.to_data` form
    if stored != state:
        differ = sorted(k for k in stored.keys() | state.keys() if stored.get(k) != state.get(k))
        raise BadLedger(
            f"{item_path(item_id)}: is not the state its events make (it differs in: "
            f"{', '.join(differ)})"
        )
    return stored


def unsigned_ids(joining: Joining) -> tuple[EventId, ...]:
    return tuple(sorted(EventId(e) for e in joining.unsigned))
