"""A read-only view of one ledger commit: config, items, events, id prefixes.

Every tree entry is checked against the layout (names and modes) before it is
used, and every blob is size-checked before it is read.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, cast

from gitcoop.domain import aliases, ids, itemdata
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Event, Item, LedgerConfig, RecordError
from gitcoop.errors import Ambiguous, BadLedger, NotFound
from gitcoop.store import fast
from gitcoop.store.git.objects import Oid, entry_at, name_kept
from gitcoop.store.ledger import codec
from gitcoop.store.ledger.layout import (
    COOP_FILE,
    EVENT_FILE_RE,
    EVENTS,
    ITEMS,
    MODE_BLOB,
    MODE_TREE,
    ROOT_NAMES,
    event_dir,
    is_event_folder,
    is_fanout,
    is_item_file,
    is_root_entry,
    item_path,
    remote_ref,
)
from gitcoop.store.ledger.repo import Repo

if TYPE_CHECKING:  # a write never loads the read cache
    from gitcoop.domain import rulebook
    from gitcoop.domain.itemdata import PlainData
    from gitcoop.store.fast.cache_rows import OpenView, Row, Summary
    from gitcoop.store.fast.open_keys import Incoming, Keys
    from gitcoop.store.fast.read_cache import Entry, ItemCache

# checked item files by (item id, blob id): their data, or, for a settled one that needs
# nothing, the summary the open index counts it by (`cache_rows.quiet_summary`); either
# marshalled (a summary as a tuple), as a fetch check keeps them
CheckedFiles = dict[tuple[str, str], "PlainData | bytes | Summary"]
# the root's names and the 1,024 fan-out folders: found by pygit2's own lookup (`entry_at`)
name_kept([*ROOT_NAMES, *(a + b for a in ids.ALPHABET for b in ids.ALPHABET)])
READ_TOGETHER = 1024  # event files read, then parsed, then made records, as one part
# a fan-out's item ids by its tree id (content: never stale), the last few: a write resolves
# its item twice (as asked, then under the lock) and labels it, each from the same fan-out,
# ~1,000 ids at a million items
_FAN_IDS: dict[str, list[ItemId]] = {}
FAN_IDS_KEPT = 8


def _item_ids(tree: Any, fan: str) -> list[ItemId]:
    """The ids of the item files in fan-out folder `fan`; BadLedger for any other entry."""
    if not fast.reference():
        from gitcoop.store.fast.tree_bytes import item_ids

        found = item_ids(tree.read_raw())
        if found is not None:
            return cast("list[ItemId]", found)
    return [ItemId(item_id) for item_id, _ in _entry_by_entry(tree, fan)]


def _item_files(tree: Any, fan: str) -> list[Entry]:
    """`_item_ids`, with each file's blob id."""
    if not fast.reference():
        from gitcoop.store.fast.tree_bytes import item_files

        found = item_files(tree.read_raw())
        if found is not None:
            return found
    return _entry_by_entry(tree, fan)


def _entry_by_entry(tree: Any, fan: str) -> list[Entry]:
    """What the fast ways read, read entry by entry (a tree they cannot read plainly)."""
    found: list[Entry] = []
    for entry in tree:
        if not is_item_file(entry.name, entry.filemode):
            raise BadLedger(f"{ITEMS}/{fan}/{entry.name}: not an allowed item file")
        found.append((entry.name[:-5], str(entry.id)))
    return found


class Snapshot:
    """The ledger as of one commit (or an empty ledger when `commit` is None)."""

    def __init__(self, repo: Repo, commit: Oid | None, cache: ItemCache | None = None) -> None:
        self.repo = repo
        self.commit = commit
        self.cache = cache  # parsed files by blob id, for reads that may skip the YAML parser
        self.tree: Any = repo.commit_tree(commit) if commit else None
        self.cap = repo.max_file_bytes
        self._config: LedgerConfig | None = None
        if self.tree is not None:
            _check_root(self.tree)  # names and modes first: its message names the entry
            repo.check_written(self.tree.id, "the ledger's root")

    # -- config ---------------------------------------------------------------

    @property
    def config(self) -> LedgerConfig:
        if self._config is None:
            if self.tree is None:
                self._config = LedgerConfig()
            else:
                data = self._parsed(self._entry(COOP_FILE), COOP_FILE)
                self._config = _record(LedgerConfig.from_data, data, COOP_FILE)
        return self._config

    def ledger_state(self) -> rulebook.LedgerState:
        """The ledger's own state here: roles, settings and keys (`rulebook.state_of`)."""
        from gitcoop.domain import rulebook  # the rules load only where a state is needed
        from gitcoop.domain.roles import LEDGER_ID

        if self.tree is None:
            return rulebook.LedgerState()
        return rulebook.state_of(self.config, lambda: self.events(LEDGER_ID))

    # -- trees ------------------------------------------------------------------

    def _entry(self, path: str) -> Any:
        if self.tree is None:
            return None
        return entry_at(self.tree, path)  # not `self.tree[path]`: see `entry_at`

    def _parsed(self, entry: Any, path: str) -> dict[str, Any]:
        """A file's data, from the read cache when one is given (keyed by blob id)."""
        if entry is None:
            raise BadLedger(f"{path}: missing from the ledger")
        if self.cache is None or entry.filemode != MODE_BLOB:
            return self._load(entry, path)
        return self.cache.document(path, str(entry.id), lambda: self._load(entry, path))

    def _load(self, entry: Any, path: str) -> dict[str, Any]:
        if entry.filemode != MODE_BLOB:
            raise BadLedger(f"{path}: mode {entry.filemode:o} is not allowed (only 100644)")
        return codec.load(self.repo.blob_bytes(entry.id, path, self.cap), path, self.cap)

    def file_id(self, path: str) -> str | None:
        """The blob id of the file at `path`, or None when there is none."""
        entry = self._entry(path)
        return str(entry.id) if entry is not None and entry.filemode == MODE_BLOB else None

    def subtree(self, path: str) -> Any:
        entry = self._entry(path)
        if entry is None:
            return None
        if entry.filemode != MODE_TREE:
            raise BadLedger(f"{path}: must be a tree (mode 040000)")
        return self.repo.tree(entry.id, path)

    # -- items ------------------------------------------------------------------

    def item_blob(self, item_id: ItemId, files: dict[str, tuple[int, str]] | None = None) -> Any:
        """The blob id of an item's file, or None when the ledger has no such file. `files`:
        its fan-out folder's listing (name: (mode, id)), when the caller holds it checked as
        git writes it (`Repo.written`): looked up by name, it finds what a lookup by path
        finds, without walking the tree again."""
        if files is None:
            entry = self._entry(item_path(item_id))
            found = None if entry is None else (entry.filemode, entry.id)
        else:
            found = files.get(f"{item_id}.yaml")
        if found is None:
            return None
        if found[0] != MODE_BLOB:
            path = item_path(item_id)
            raise BadLedger(f"{path}: mode {found[0]:o} is not allowed (only 100644)")
        return found[1]

    def item_data(self, item_id: str, blob_id: Any) -> dict[str, Any]:
        """An item file's validated data in the form `Item.to_data` writes."""
        return self._item_data(item_id, blob_id)

    def item_summary(self, item_id: str) -> Summary | None:
        """An item's summary from its own file (None when the ledger has none): only
        the summary's fields are checked when it is settled and needs nothing."""
        from gitcoop.store.fast.cache_rows import Summary, summarise

        blob = self.item_blob(ItemId(item_id)) if self.has_item(item_id) else None
        if blob is None:
            return None
        read = self._item_quick(item_id, blob)
        return read if isinstance(read, Summary) else summarise(read)

    def item(self, item_id: ItemId) -> Item | None:
        path = item_path(item_id)
        entry = self._entry(path)
        if entry is None:
            return None
        item: Item = _record(Item.from_data, self._load(entry, path), path)
        if item.id != item_id:
            raise BadLedger(f"{path}: holds item {item.id}, not {item_id}")
        return item

    def fanouts(self, root: str) -> Iterator[tuple[str, Any]]:
        tree = self.subtree(root)
        if tree is None:
            return
        for entry in tree:
            path = f"{root}/{entry.name}"
            if not is_fanout(entry.name, entry.filemode):
                raise BadLedger(f"{path}: not an allowed fan-out directory name or mode")
            yield entry.name, self.repo.tree(entry.id, path)

    def item_ids(self, fanout: str | None = None) -> list[ItemId]:
        """Every item id (or those of one fan-out directory), checked against the layout."""
        found: list[ItemId] = []
        if fanout is not None:
            tree = self.subtree(f"{ITEMS}/{fanout}")
            listed = _FAN_IDS.get(str(tree.id)) if tree is not None else None
            if listed is not None:
                return list(listed)
            groups = [(fanout, tree)] if tree is not None else []
        else:
            groups = list(self.fanouts(ITEMS))
        for name, tree in groups:
            found.extend(_item_ids(tree, name))
        if fanout is not None and groups:
            if len(_FAN_IDS) >= FAN_IDS_KEPT:
                _FAN_IDS.clear()
            _FAN_IDS[str(groups[0][1].id)] = list(found)
        return found

    def rows(self, cache: ItemCache) -> list[Row]:
        """Every item's cached `Row` (id, blob id, label, summary, and its texts: data and
        JSON text).

        Starts from this commit's tree, so the cache can only save work, never
        answer for another state of the ledger.
        """
        fanouts = list(self._fanout_ids())
        return cache.rows(fanouts, self._item_entries, self._item_data, self._item_quick)

    def open_view(
        self,
        cache: ItemCache,
        known: CheckedFiles | None = None,
        fans: Callable[[str], bool] | None = None,
    ) -> OpenView:
        """The open index: rows of the items a plain read may show, the rest counted.

        A settled item whose file is unchanged since the index last saw it is not read;
        nor is a file in `known` (data by (item id, blob id), as a fetch check read it).
        A new settled file that needs nothing is read for its summary only (under
        `COOP_REFERENCE=1` `known` is not used: every file is read). With `fans`,
        only the fan-outs it takes (whole groups of the cache's files: `read_cache._groups`).
        """
        quick = self._item_quick
        if known and not fast.reference():  # by reference, each file is read from the commit
            from gitcoop.store.fast.cache_rows import Summary

            def quick(item_id: str, blob_id: Any) -> PlainData | Summary:
                found = known.get((item_id, str(blob_id)))
                if found is None:
                    return self._item_quick(item_id, blob_id)
                if type(found) is not bytes:
                    return cast("PlainData | Summary", found)
                kept = marshal.loads(found)  # as a check kept it (`windows.Kept`)
                return Summary(*kept) if type(kept) is tuple else cast("PlainData", kept)

        fanouts = [fan for fan in self._fanout_ids() if fans is None or fans(fan[0])]
        return cache.open_view(fanouts, self._item_entries, self._item_data, quick)

    def keys(self, cache: ItemCache) -> list[Keys]:
        """The open index's keys of every fan-out (store/fast/open_keys.py): tallies, the holder
        and due indexes and the links, without the rows."""
        fanouts = list(self._fanout_ids())
        return cache.keys(fanouts, self._item_entries, self._item_data, self._item_quick)

    def incoming(self, cache: ItemCache, fan: str) -> dict[str, list[Incoming]]:
        """The links into each item of one fan-out from every other, by the item they lead
        to, from its own group's index."""
        fanouts = list(self._fanout_ids())
        return cache.incoming(fan, fanouts, self._item_entries, self._item_data, self._item_quick)

    def has_item(self, item_id: str) -> bool:
        """Whether the ledger holds an item file for this id (its tree entry; nothing read)."""
        if not ids.ITEM_ID_RE.match(item_id):
            return False
        return self._entry(item_path(ItemId(item_id))) is not None

    def _fanout_ids(self) -> Iterator[tuple[str, str]]:
        tree = self.subtree(ITEMS)
        for entry in tree if tree is not None else ():
            if not is_fanout(entry.name, entry.filemode):
                path = f"{ITEMS}/{entry.name}"
                raise BadLedger(f"{path}: not an allowed fan-out directory name or mode")
            yield entry.name, str(entry.id)

    def _item_entries(self, fan: str) -> list[Entry]:
        tree = self.subtree(f"{ITEMS}/{fan}")
        return _item_files(tree, fan) if tree is not None else []

    def _item_data(self, item_id: str, blob_id: Any) -> dict[str, Any]:
        """An item file's validated data in the form `Item.to_data` writes."""
        path = item_path(ItemId(item_id))
        data = codec.load(self.repo.blob_bytes(blob_id, path, self.cap), path, self.cap)
        return _checked(item_id, data, path)

    def _item_quick(self, item_id: str, blob_id: Any) -> PlainData | Summary:
        """An item file's validated data, or its summary only when it is settled and needs
        nothing (`cache_rows.quiet_summary`): the open index counts such a file, never shows it."""
        from gitcoop.store.fast.cache_rows import (
            quiet_summary,
        )  # only reads load the cache's modules

        path = item_path(ItemId(item_id))
        data = codec.load(self.repo.blob_bytes(blob_id, path, self.cap), path, self.cap)
        quiet = quiet_summary(item_id, data)
        return quiet if quiet is not None else _checked(item_id, data, path)

    def items(self) -> Iterator[Item]:
        """Every item, from the read cache's rows (settled ones too)."""
        from gitcoop.store.fast.read_cache import ItemCache

        for row in self.rows(self.cache or ItemCache(self.repo.common_dir)):
            yield Item.from_data(row.data())

    def open_items(self) -> Iterator[Item]:
        """The items of the open index: every unsettled one, and the settled ones that
        carry a conflict, a takeover notice or a pending obligation. No settled item
        whose file the index has seen before is read."""
        from gitcoop.store.fast.read_cache import ItemCache

        for row in self.open_view(self.cache or ItemCache(self.repo.common_dir)).rows:
            yield Item.from_data(row.data())

    # -- events -----------------------------------------------------------------

    def events(self, item_id: ItemId) -> list[Event]:
        """One item's events in (clock, at, event id) order: the order of the fold."""
        tree = self.subtree(event_dir(item_id))
        if tree is None:
            return []
        events = [self.read_event(item_id, entry) for entry in tree]
        events.sort(key=lambda e: e.order)
        return events

    def read_event(self, item_id: ItemId, entry: Any) -> Event:
        """One event file of `item_id`'s folder, its name checked against its content."""
        return self.read_events([(f"{event_dir(item_id)}/{entry.name}", item_id, entry)])[0]

    def read_events(self, files: list[tuple[str, ItemId, Any]], named: bool = False) -> list[Event]:
        """`read_event` of many (path, item id, tree entry)s: the names and modes checked
        (unless the caller has: `named`) and every blob read first, then each parsed (a
        loop of each kind of work keeps what it uses in the processor's caches: ~30% less
        time for a first sync's events)."""
        if len(files) > READ_TOGETHER:  # in parts: only one part's bytes and data held at once
            return [
                event
                for at in range(0, len(files), READ_TOGETHER)
                for event in self.read_events(files[at : at + READ_TOGETHER], named)
            ]
        cap = self.cap
        for path, _, entry in () if named else files:
            if not EVENT_FILE_RE.match(entry.name):
                raise BadLedger(f"{path}: not an allowed event file name")
            if entry.filemode != MODE_BLOB:
                raise BadLedger(f"{path}: mode {entry.filemode:o} is not allowed (only 100644)")
        blobs = self.repo.blobs_bytes([(entry.id, path) for path, _, entry in files], cap)
        loaded = [codec.load(raw, file[0], cap) for raw, file in zip(blobs, files, strict=True)]
        events = []
        for data, (path, item_id, entry) in zip(loaded, files, strict=True):
            event: Event = _record(Event.from_data, data, path)
            if event.item != item_id or entry.name != f"{event.clock:012d}-{event.id}.yaml":
                raise BadLedger(f"{path}: the file's name does not match its content")
            events.append(event)
        return events

    def event_item_ids(self) -> list[ItemId]:
        found: list[ItemId] = []
        for name, tree in self.fanouts(EVENTS):
            for entry in tree:
                if not is_event_folder(entry.name, entry.filemode):
                    raise BadLedger(f"{EVENTS}/{name}/{entry.name}: not an allowed event folder")
                found.append(ItemId(entry.name))
        return found

    def all_events(self) -> list[Event]:
        events = [e for item_id in self.event_item_ids() for e in self.events(item_id)]
        events.sort(key=lambda e: e.order)
        return events

    # -- ids ----------------------------------------------------------------------

    def resolve(self, text: str) -> ItemId:
        """The one item id that `text` (a full id, any unique prefix, or an alias) names."""
        if aliases.is_alias(text.strip()):
            return self._aliased(text.strip())
        kind, rest = ids.normalise_prefix(text)
        if kind is not None and kind not in ids.PREFIX_KIND:
            raise NotFound(f"{text!r} is not an id: ids start with td-, rq- or it-")
        if not rest and kind is None:
            raise NotFound("an empty id matches nothing — see git coop list")
        if len(rest) < ids.MIN_SHORT:  # short ids are shown with at least this many
            raise NotFound(
                f"{text!r} is too short to name an item — give at least {ids.MIN_SHORT} "
                "characters of its id, as git coop list shows it"
            )
        candidates = self.item_ids(rest[:2])
        matches = ids.matching(candidates, text)
        if not matches:
            fetched = self._fetched_with(text, rest[:2])
            if fetched is not None:
                pull = f"git coop pull {fetched}"  # named: unnamed, it is coop.claims's remote
                raise NotFound(
                    f"no item matches {text!r} here, but the ledger fetched from {fetched} "
                    f"has it — merge it first: {pull}"
                )
            raise NotFound(f"no item matches {text!r} — see git coop list")
        if len(matches) > 1:
            shown = ", ".join(self.label(m, candidates) for m in matches[:10])
            more = f" and {len(matches) - 10} more" if len(matches) > 10 else ""
            raise Ambiguous(
                f"{text!r} matches {len(matches)} items: {shown}{more} — give more of the id"
            )
        return matches[0]

    def _aliased(self, alias: str) -> ItemId:
        """The one item imported under `alias` (TW-12, gh#42): a read of every item's row,
        from the read cache, since no file is named by an alias."""
        from gitcoop.store.fast.read_cache import ItemCache

        wanted = aliases.key(alias)
        matches = sorted(
            ItemId(row.item_id)
            for row in self.rows(self.cache or ItemCache(self.repo.common_dir))
            if any(aliases.key(a) == wanted for a in row.data().get("aliases") or ())
        )
        if not matches:
            raise NotFound(
                f"no item matches {alias!r}, as an id or as a name an import kept — "
                "see git coop list"
            )
        if len(matches) > 1:
            shown = ", ".join(self.label(m) for m in matches[:10])
            raise Ambiguous(f"{alias!r} names {len(matches)} items: {shown} — give an id")
        return matches[0]

    def _fetched_with(self, text: str, fan: str) -> str | None:
        """The remote whose fetched, unmerged ledger holds an item `text` names (a plain
        `git fetch` brought it), if any."""
        for remote in self.repo.fetched_ledgers():
            tip = self.repo.tip(remote_ref(remote))
            if tip is None or tip == self.commit:
                continue
            try:
                fetched = Snapshot(self.repo, tip).item_ids(fan)
            except BadLedger:  # not checked yet: only a sync takes it in
                continue
            if any(ids.matches(i, text) for i in fetched):
                return remote
        return None

    def label(self, item_id: ItemId, neighbours: list[ItemId] | None = None) -> str:
        """The shortest unique prefix, at least 4 characters, like a short sha."""
        if neighbours is None:
            neighbours = self.item_ids(ids.fanout(item_id))
        return ids.shortest_unique(item_id, neighbours)


def _check_root(tree: Any) -> None:
    for entry in tree:
        if not is_root_entry(entry.name, entry.filemode):
            raise BadLedger(
                f"{entry.name}: not an allowed entry at the ledger's root with mode "
                f"{entry.filemode:o} (only coop.yaml 100644, items/ and events/ 040000)"
            )
    if COOP_FILE not in [e.name for e in tree]:
        raise BadLedger(f"{COOP_FILE}: missing from the ledger's root — not a gitcoop ledger")


def _checked(item_id: str, data: dict[str, Any], path: str) -> dict[str, Any]:
    """Read data as `Item.to_data` writes it, or BadLedger naming the path."""
    data = _record(itemdata.checked, data, path)
    if data["id"] != item_id:
        raise BadLedger(f"{path}: holds item {data['id']}, not {item_id}")
    return data


def _record(build: Any, data: dict[str, Any], path: str) -> Any:
    try:
        return build(data)
    except RecordError as exc:
        raise BadLedger(f"{path}: {exc}") from None
