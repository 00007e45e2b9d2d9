"""A fetched history checked one fan-out folder at a time (H1-H3, H5-H7).

An item and its events share a fan-out folder (their id's random part names
it), and an item's state is the fold of its own events, judged in the
ledger's own state (roles, settings, keys: coop.yaml) and, for a duplicate
verdict, against the item it names. So each folder is checked along the
whole history before the next is read: each commit's events in the folder
on their own (H5-H7, `History`), and, on the first-parent chain, the items
they make against the tree (H1-H3, `joining.holds_items`), each item's state
carried from commit to commit within the folder. What is held at once is
one folder's events and items, the ledger's own events and a few numbers
per commit, never every item and event, nor a whole commit's.

The folders are independent, so past `SPLIT_FROM` windows (a commit's
changes in one folder) they are shared between this process and a forked one
(`split.halves`), every other folder each, and what the two find is put
together as one pass through every folder in order would find it (`_gather`):
the refusal of the first folder that has one, each commit's totals, the files
kept for the read cache.

A commit's totals (how many events it adds, its clocks' range) are added up
over the folders and judged once all are read; its coop.yaml is judged
before them. An item whose verdict names an item of another folder is set
aside and joined with the items it names, and those they name in turn, once
every folder is read, as a whole commit's join would. Every check of a
commit-at-once reading runs, in another order: a history with more than one
breach may be refused for another of them first.

`COOP_REFERENCE=1` in the environment sends every history to the whole-commit check
instead (`streamable` answers False): the reference the tests compare this one with.
"""

from __future__ import annotations

import contextlib
import marshal
from collections import OrderedDict, defaultdict
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from gitcoop.domain import progress, rulebook
from gitcoop.domain.ids import ItemId, fanout
from gitcoop.domain.records import Event, Item
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.errors import BadLedger
from gitcoop.store.boundary import joining
from gitcoop.store.boundary.history import MAX_EVENTS, Added, History, Reader, added_files
from gitcoop.store.boundary.joining import Holding, holds_items, ledger_before
from gitcoop.store.boundary.tree import tops_written
from gitcoop.store.fast import reference, split
from gitcoop.store.fast.cache_rows import quiet_summary
from gitcoop.store.git.commits import CommitInfo
from gitcoop.store.git.objects import Oid, version
from gitcoop.store.ledger.layout import EVENTS, ITEMS, MODE_TREE
from gitcoop.store.ledger.repo import Repo
from gitcoop.store.ledger.snapshot import CheckedFiles, Snapshot

# checked item files kept for the read cache, marshalled, in bytes (past it, the cache
# reads them again): ~0.16 KB a settled file's summary, ~0.9 KB an open one's data (~3.3 KB
# as objects), and what each costs besides (its key, its places in two dicts)
KEPT_BYTES = 128 * 1024 * 1024
ENTRY_BYTES = 400
OBJECTS_CACHED = 32 * 1024 * 1024  # libgit2's parsed objects, while a history is checked
LEDGERS_HELD = 64  # the ledger states of recent first parents, by commit
# windows (a commit's changes in one folder) from which the folders are checked in two
# processes, each folder in one of them (`split.halves`)
SPLIT_FROM = 512
_TOO_MANY = f"adds over {MAX_EVENTS:,} events — one commit adds at most that many"


class Stamp(NamedTuple):
    """What `History.closing` needs of a commit's coop.yaml."""

    clock: int
    format: int


@dataclass
class Step:
    """One fetched commit while its folders are read: what it adds so far."""

    info: CommitInfo
    stamp: Stamp
    floor: int
    content_ids: bool
    chain: bool
    count: int = 0
    top: tuple[int, str] = (0, "")
    ledger_files: list[Added] = field(default_factory=list)
    ledger_events: list[Event] = field(default_factory=list)  # on the chain: what joins
    held: tuple[Any, ...] = ()  # the first parent's conflicts of the ledger's own
    refused: list[tuple[Event, str]] = field(default_factory=list)  # its ledger events'
    aside: dict[ItemId, set[ItemId]] = field(default_factory=dict)  # item -> items it names


@dataclass
class Adds:
    """What one share of the folders finds of a commit: its events, its largest clock
    with that event's path, and the items it set aside."""

    top: tuple[int, str]
    count: int = 0
    aside: dict[ItemId, set[ItemId]] = field(default_factory=dict)

    def plain(self) -> list[Any]:
        aside = [[item_id, sorted(names)] for item_id, names in self.aside.items()]
        return [self.count, self.top[0], self.top[1], aside]

    @classmethod
    def of(cls, plain: list[Any]) -> Adds:
        count, clock, path, aside = plain
        return cls((clock, path), count, {item: set(names) for item, names in aside})


def streamable(repo: Repo, history: History, chain: list[CommitInfo]) -> bool:
    """Whether `chain` can be checked a folder at a time: format 2 throughout, and no
    commit joining a state that requires signed writes (whose check reads, for each event,
    the commits that wrote it: `joining._unsigned`), and `COOP_REFERENCE` not "1"."""
    if reference():
        return False
    for info in chain:
        with _named(info):  # each one's coop.yaml read first here: a problem names it
            if history.format(info.oid) < 2:
                return False
            first = info.parents[0] if info.parents else None
            if first is not None and Snapshot(repo, first).ledger_state().requires_signing:
                return False
    return True


def check(
    repo: Repo,
    history: History,
    commits: list[CommitInfo],
    chain: list[CommitInfo],
    checked: CheckedFiles | None,
    where: str = "",
    refused: list[tuple[Oid, Event, str]] | None = None,
    label: str = "checking the ledger's history",
) -> None:
    """BadLedger (naming the commit) unless every commit of `commits` (parents first)
    passes H5-H7 and every one of `chain` (their first-parent chain) holds its state
    (H1-H3); fills `checked` (unless None: a check that feeds no read cache) with some
    checked item files' data, and `refused` with the changes of the ledger's own the
    rules refused where they joined.

    A history with a breach is refused for the first breach of H5-H7 a commit-at-a-time
    check would name (each commit's events read for it alone), else for the breach
    found here: what a peer crafted with several is refused for the same one as before."""
    try:
        with repo.objects_cached(OBJECTS_CACHED):
            _check(repo, history, commits, chain, checked, where, refused, label)
    except BadLedger:
        first = History(repo, Reader(repo))
        for info in commits:
            first.check(info)
            first.reader.forget()
        raise


def _check(
    repo: Repo,
    history: History,
    commits: list[CommitInfo],
    chain: list[CommitInfo],
    checked: CheckedFiles | None,
    where: str,
    refused: list[tuple[Oid, Event, str]] | None,
    label: str,
) -> None:
    on_chain = {info.oid for info in chain}
    kept = Kept(checked)
    steps: list[Step] = []
    by_fan: dict[str, list[int]] = defaultdict(list)
    ledgers = Ledgers(repo, history)
    for info in commits:
        with _named(info):
            step = _open(repo, history, ledgers, info, info.oid in on_chain, where)
            if refused is not None and step.chain:
                refused += [(info.oid, event, why) for event, why in step.refused]
            for fan in _fans(repo, info, step.chain):
                by_fan[fan].append(len(steps))
        steps.append(step)
    fans = sorted(by_fan)
    shown, checking = progress.reporter(), label

    def share(k: int, of: int) -> list[Any]:
        """The folders k, k + of, ... checked along the chain, each on its own: what they
        add to each commit, and the files kept, as plain data (`split.halves`); or, at
        the first refusal, its folder's place and its message."""
        adds = [Adds(step.top) for step in steps]
        files = Kept({} if checked is not None else None, of)
        for done in range(k, len(fans), of):
            shown.step(checking, done, len(fans))
            carried: dict[ItemId, Item | None] = {}  # the folder's items as the chain left them
            try:
                for at in by_fan[fans[done]]:
                    with _named(steps[at].info):
                        _window(
                            repo,
                            history,
                            ledgers,
                            steps[at],
                            adds[at],
                            fans[done],
                            carried,
                            files,
                            where,
                        )
            except BadLedger as refused:
                return [done, refused.message]
            finally:
                history.reader.forget()
        return [len(fans), "", [a.plain() for a in adds], files.plain()]

    if sum(map(len, by_fan.values())) >= SPLIT_FROM:
        answers: tuple[list[Any], ...] = split.halves(lambda k: share(k, 2))
    else:
        answers = (share(0, 1),)
    shown.step(checking, len(fans), len(fans))
    _gather(steps, answers, kept)
    for step in steps:
        with _named(step.info):
            if step.aside:
                _aside(repo, history, ledgers, step, kept, where)
            history.closing(step.info, step.stamp, step.floor, step.count, step.top)
    history.reader.forget()


def _gather(steps: list[Step], answers: tuple[list[Any], ...], kept: Kept) -> None:
    """What each share of the folders found, put together as one pass through them all in
    order would have: its first refusal (the one in the first folder), each commit's
    count of events, its largest clock (the first folder's, of equal ones) and the items
    it set aside, and the files kept."""
    first = min(answers, key=lambda answer: int(answer[0]))
    if first[1]:
        raise BadLedger(first[1])
    for at, step in enumerate(steps):
        found = [Adds.of(answer[2][at]) for answer in answers]
        step.count += sum(adds.count for adds in found)
        step.top = min((adds.top for adds in found), key=lambda top: (-top[0], top[1]))
        for adds in found:
            for item_id, names in adds.aside.items():
                step.aside.setdefault(item_id, set()).update(names)
        if step.count > MAX_EVENTS:
            with _named(step.info):
                raise BadLedger(_TOO_MANY)
    for answer in answers:
        kept.take(answer[3])


class Ledgers:
    """The ledger's own state at recent commits (a folder at a time reads each commit
    once per folder)."""

    def __init__(self, repo: Repo, history: History) -> None:
        self.repo = repo
        self.history = history
        self.states: OrderedDict[Oid | None, rulebook.LedgerState] = OrderedDict()

    def at(self, commit: Oid | None) -> rulebook.LedgerState:
        if commit not in self.states:
            self.states[commit] = ledger_before(Snapshot(self.repo, commit), self.history.reader)
            if len(self.states) > LEDGERS_HELD:
                self.states.popitem(last=False)
        return self.states[commit]


def _open(
    repo: Repo, history: History, ledgers: Ledgers, info: CommitInfo, chain: bool, where: str
) -> Step:
    """A commit's own checks, its ledger events' and its coop.yaml's, before its folders."""
    config, floor, content_ids = history.opening(info)
    step = Step(info, Stamp(config.clock, config.format), floor, content_ids, chain)
    ledger_fan = fanout(LEDGER_ID)
    files = history.compared(info, ledger_fan)
    step.ledger_files = [f for f in files if f.item_id == LEDGER_ID]
    after = Snapshot(repo, info.oid)
    step.top = history.events(info, after, step.ledger_files, floor, content_ids)
    step.count = len(step.ledger_files)
    if chain:
        first = info.parents[0] if info.parents else None
        if len(info.parents) > 1:  # a merge's state files: all it adds to its first parent
            added = added_files(repo, first, info.oid, ledger_fan)
            step.ledger_files = [f for f in added if f.item_id == LEDGER_ID]
        before = Snapshot(repo, first)
        step.held = tuple(before.config.conflicts) if first is not None else ()
        step.ledger_events = history.reader.added(after, step.ledger_files)
        state = rulebook.join(_none, ledgers.at(first), step.ledger_events, {}, step.held)
        joining.holds_config(state, after)  # once a commit (H3)
        step.refused = state.refused
        tops_written(before if first is not None else None, after, where)
    step.ledger_files = []
    return step


def _none(item_id: ItemId) -> Item | None:
    return None


def _fans(repo: Repo, info: CommitInfo, chain: bool) -> set[str]:
    """The folders under events/ (and items/, on the chain) a commit changes. Each listing
    read is checked as git writes it (`Repo.written`), as a commit-at-a-time reading
    checks it (H7; on the chain, `tops_written` has checked it already, names first)."""
    first = info.parents[0] if info.parents else None
    found: set[str] = set()
    for top in (EVENTS, ITEMS) if chain else (EVENTS,):
        was, now = top_entry(repo, first, top), top_entry(repo, info.oid, top)
        found |= changed_names(repo, was, now, top)
    return found


def top_entry(repo: Repo, commit: Oid | None, top: str) -> Any:
    """The entry `top` (events/, items/) of a commit's tree, or None."""
    if commit is None:
        return None
    try:
        return repo.commit_tree(commit)[top]
    except KeyError:
        return None


def changed_names(repo: Repo, was: Any, now: Any, top: str) -> set[str]:
    """The names under `top` whose entry differs between two of its versions (entries, or
    None): in mode or in id, as a whole commit's reading compares them (`Repo.changes`).
    A `top` that is not a folder is listed as one entry named ""."""
    if not _differs(was, now):
        return set()  # one entry: nothing changed below it
    old, new = _listing(repo, was, top, checked=False), _listing(repo, now, top)
    return {name for name, _ in old.items() ^ new.items()}


def _differs(was: Any, now: Any) -> bool:
    """Whether two versions of one entry (or None) differ, in mode or in id."""
    return was is None or now is None or version(was) != version(now)


def _listing(repo: Repo, entry: Any, top: str, checked: bool = True) -> dict[str, tuple[int, str]]:
    """Each entry's (mode, id) by name; refused unless as git writes it, but for the
    first parent's side (not `checked`): judged where it joined, or, by fsck, reported
    there, and not again under each commit after it."""
    if entry is None:
        return {}
    if entry.filemode != MODE_TREE:
        return {"": version(entry)}  # not a folder: `changed` names it
    return repo.written(entry.id, top) if checked else repo.listed(entry.id, top)


def _window(
    repo: Repo,
    history: History,
    ledgers: Ledgers,
    step: Step,
    adds: Adds,
    fan: str,
    carried: dict[ItemId, Item | None],
    kept: Kept,
    where: str,
) -> None:
    """One commit's events in one folder: each on its own, and, on the chain, the items
    they make against the commit's tree; what it finds is added to `adds`."""
    info = step.info

    after = Snapshot(repo, info.oid)
    mine = [f for f in history.compared(info, fan) if f.item_id != LEDGER_ID]
    adds.count += len(mine)
    if step.count + adds.count > MAX_EVENTS:
        raise BadLedger(_TOO_MANY)
    adds.top = history.events(info, after, mine, step.floor, step.content_ids, adds.top)
    if not step.chain:
        return
    first = info.parents[0] if info.parents else None
    before = Snapshot(repo, first)
    if len(info.parents) > 1:
        files = [f for f in added_files(repo, first, info.oid, fan) if f.item_id != LEDGER_ID]
    else:
        files = mine
    events = history.reader.added(after, files)
    naming = _naming(events, fan)

    def item(item_id: ItemId) -> Item | None:
        if item_id in carried:
            return carried[item_id]
        return before.item(item_id) if before.commit is not None else None

    joined = [*step.ledger_events, *(e for e in events if e.item not in naming)]
    state = rulebook.join(item, ledgers.at(first), joined, {}, step.held)
    items = {k: v for k, v in state.items.items() if k != LEDGER_ID}
    holding = Holding(before, item, files, events, items)
    aside = frozenset(naming)
    kept.add(holds_items(holding, after, where, fan, aside))
    carried.update(items)
    for named_by in naming:  # read from the tree next time: joined once all are read
        carried.pop(named_by, None)
        adds.aside.setdefault(named_by, set()).update(naming[named_by])


def _naming(events: list[Event], fan: str) -> dict[ItemId, set[ItemId]]:
    """The items set aside, with the items they name: those whose verdict names an item
    of another folder, and those whose verdict names an item set aside (its state as it
    stands at that event is known only once the commit is joined whole)."""
    named = [(e.item, rulebook.names(e)) for e in events]
    pairs = [(item, other) for item, other in named if other is not None and other != item]
    naming_it: dict[ItemId, list[ItemId]] = {}  # each item, and the items whose verdict names it
    for item, other in pairs:
        naming_it.setdefault(other, []).append(item)
    # set aside: naming an item of another folder, or, in turn, naming one set aside; each
    # item is reached once, so the cost is linear in the verdicts (H7), however they chain
    aside = {item for item, other in pairs if fanout(other) != fan}
    reached = list(aside)
    while reached:
        for item in naming_it.get(reached.pop(), ()):
            if item not in aside:
                aside.add(item)
                reached.append(item)
    naming: dict[ItemId, set[ItemId]] = {}
    for item, other in pairs:
        if fanout(other) != fan or other in aside:
            naming.setdefault(item, set()).add(other)
    return naming


def _aside(
    repo: Repo, history: History, ledgers: Ledgers, step: Step, kept: Kept, where: str
) -> None:
    """The items set aside in a commit, joined with the items they name and every item
    those name in turn (in any folder: a verdict of a named item that names one of its
    own folder reads that one's state too), as a whole commit's join judges them."""
    info = step.info
    first = info.parents[0] if info.parents else None
    before, after = Snapshot(repo, first), Snapshot(repo, info.oid)
    wanted = set(step.aside) | {named for names in step.aside.values() for named in names}
    by_item: dict[ItemId, list[Added]] = {}  # the added files of each folder read, by item
    read: set[str] = set()
    found: list[Added] = []
    frontier = set(wanted)
    while frontier:  # and every item a joined verdict names, in any folder, to the chain's end
        for fan in sorted({fanout(item_id) for item_id in frontier} - read):
            read.add(fan)
            for added in added_files(repo, first, info.oid, fan):
                by_item.setdefault(added.item_id, []).append(added)
        more = sorted(f for item_id in frontier for f in by_item.get(item_id, ()))
        found += more
        # each item's files are read once: linear in what the commit adds, however its
        # verdicts chain (H7)
        names = {rulebook.names(e) for e in history.reader.added(after, more)}
        frontier = {item_id for item_id in names if item_id is not None} - wanted
        wanted |= frontier
    files = sorted(found)
    events = history.reader.added(after, files)

    def item(item_id: ItemId) -> Item | None:
        return before.item(item_id) if before.commit is not None else None

    joined = [*step.ledger_events, *events]
    state = rulebook.join(item, ledgers.at(first), joined, {}, step.held)
    items = {k: v for k, v in state.items.items() if k in step.aside}
    mine = [f for f in files if f.item_id in step.aside]
    holding = Holding(before, item, mine, [e for e in events if e.item in step.aside], items)
    kept.add(holds_items(holding, after, where, moved=False))
    history.reader.forget()


class Kept:
    """Checked item files for the read cache, marshalled, up to a bound in bytes (past it,
    the cache reads them again; a share of the folders keeps its part of it): a settled
    one that needs nothing as the summary the cache counts it by, another as its data
    (`Snapshot.open_view` reads each back). An item is kept once, at the version checked
    last: a file a later commit replaced is one the cache never asks for, and a long
    history replaces most of its files. Bytes, not files, are bounded: a peer's items of
    64K-character bodies hold no more than small ones do."""

    def __init__(self, checked: CheckedFiles | None, shares: int = 1) -> None:
        self.checked = checked
        self.held = 0
        self.most = KEPT_BYTES // shares
        self.latest: dict[str, str] = {}  # the blob each item is kept at

    def add(self, found: dict[ItemId, tuple[str, Any]]) -> None:
        if self.checked is None:
            return
        for item_id, (blob, data) in found.items():
            quiet = quiet_summary(item_id, data)
            self._keep(item_id, blob, marshal.dumps(data if quiet is None else tuple(quiet)))

    def _keep(self, item_id: str, blob: str, file: bytes) -> None:
        """Keep this version of the item in place of the one kept before, within the bound."""
        checked = self.checked
        assert checked is not None
        was = self.latest.pop(item_id, None)
        if was is not None:  # its place is free again
            gone = checked.pop((item_id, was), None)
            if type(gone) is bytes:
                self.held -= len(gone) + ENTRY_BYTES
        size = len(file) + ENTRY_BYTES
        if self.held + size > self.most:
            return
        self.held += size
        checked[item_id, blob] = file
        self.latest[item_id] = blob

    def plain(self) -> list[Any] | None:
        """The files kept, as plain data."""
        if self.checked is None:
            return None
        return [[key, file] for key, file in self.checked.items() if type(file) is bytes]

    def take(self, plain: list[Any] | None) -> None:
        """Files another `Kept` kept (`plain`), within this one's bound."""
        if self.checked is None or plain is None:
            return
        for (item_id, blob), file in plain:
            self._keep(item_id, blob, file)


@contextlib.contextmanager
def _named(info: CommitInfo) -> Iterator[None]:
    try:
        yield
    except BadLedger as error:
        raise BadLedger(f"commit {info.oid[:12]}: {error.message}") from None
