"""The trust boundary: everything a peer can push is checked here before anything uses it.

A fetched ledger is data written by someone else, possibly hostile, possibly
buggy. `check` reads each commit the fetch brought that this clone does not
hold yet, once, and then the tip that would become the local ledger:

    each fetched commit   its root layout and coop.yaml (format, bounded settings);
                          no event of a parent dropped or rewritten;
                          the events it adds: names and modes, parsed safely, within
                          the bounds of domain/admission.py, each by the commit's
                          author, and none at all in a merge commit;
                          clocks: each added event above its parents' largest clock
                          and none above that plus the number of events it adds,
                          coop.yaml's clock between the two
    the fetched commits   under the owners' require_signed, each that adds events is
                          signed by its author's registered key (store/trust.py):
                          none good is a refusal; good and bad mixed keeps the bad
                          ones' events out
    the tip               coop.yaml's roles and settings are the fold of the ledger's
                          own events; what it keeps out, unsigned commits added (and
                          on a fast-forward, all this clone keeps out); every item
                          that changed since the merge base (every item, when the
                          roles changed) is the fold of its events (with no merge
                          base, the events its commits added: none dropped, no
                          empty folder, so the tip holds exactly those)

Any breach is a BadLedger naming the remote and the path (and the commit);
nothing is written and the local ref does not move. `sync`, `pull`, a
fast-forward and a first fetch all come through `store/merge.py`, which calls
`check` before it reads anything else of the remote side.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from gitcoop.domain import admission, progress, rulebook
from gitcoop.domain.frozen import frozen
from gitcoop.domain.ids import EventId, ItemId, fanout
from gitcoop.domain.records import Event, Item, LedgerConfig
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.settings import SETTINGS
from gitcoop.errors import BadLedger, FetchedLedgerRefused
from gitcoop.store import codec, heap, trust, twocores
from gitcoop.store.layout import (
    EVENT_FILE_RE,
    EVENTS,
    FANOUT_RE,
    ITEM_DIR_RE,
    ITEM_FILE_RE,
    ITEMS,
    MODE_BLOB,
    MODE_TREE,
    event_dir,
    item_path,
)
from gitcoop.store.repository import CommitInfo, Oid, Repo, fetched_reads
from gitcoop.store.rows import Data, OpenView, Row, conflicted
from gitcoop.store.snapshot import Known, Snapshot

Entries = dict[str, Any]  # file name -> blob id, inside one item's event folder


class Reader:
    """Parses each event blob once, whichever commit or side it is read from."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.events: dict[tuple[ItemId, str, str], Event] = {}

    def event(self, snapshot: Snapshot, item_id: ItemId, entry: Any) -> Event:
        return self.named(snapshot, item_id, entry.name, entry)

    def named(self, snapshot: Snapshot, item_id: ItemId, name: str, entry: Any) -> Event:
        key = (item_id, name, str(entry.id))
        if key not in self.events:
            self.events[key] = snapshot.read_event(item_id, entry)
        return self.events[key]

    def added(self, snapshot: Snapshot, files: list[_Added]) -> list[Event]:
        """The events of these added files, those not parsed yet read together
        (`Snapshot.read_events`: every blob, then every parse, each in one pass)."""
        keys = [(file.item_id, file.name, file.id) for file in files]
        events = self.events
        new = [(file, key) for file, key in zip(files, keys, strict=True) if key not in events]
        if new:  # each named as the layout allows by `_event_entry` already
            read = snapshot.read_events([(f.path, f.item_id, f) for f, _ in new], named=True)
            events.update(zip((key for _, key in new), read, strict=True))
        return [events[key] for key in keys]

    def item_events(self, snapshot: Snapshot, item_id: ItemId) -> list[Event]:
        tree = snapshot.subtree(event_dir(item_id))
        return [self.event(snapshot, item_id, e) for e in tree] if tree is not None else []


@frozen
class Arrival:
    """A fetched ledger that passed: the items it changed, the events already parsed, and
    each checked item file's data by (item id, blob id), which fills the read cache."""

    touched: frozenset[ItemId]
    reader: Reader
    checked: Known
    # events kept out of every fold (docs/hardening.md): what this clone kept out already,
    # and the events of fetched commits that broke the owners' signing policy
    kept_out: frozenset[EventId] = frozenset()
    # the open rows of the fetched tip whose items hold conflicts, when `fill` built its
    # open index: what the merge's notices read
    conflicted: tuple[Row, ...] | None = None


# builds the read cache's open index of some fan-outs from the item data the check found
Fill = Callable[[Known, Callable[[str], bool]], OpenView]
# what a check (or a half of one) found: the items touched, the item files' data, the
# events each commit adds, the clocks' bounds, what was wrong with the tip if anything,
# and the open rows with conflicts among those `fill` built
Found = tuple[
    list[str], Known, list[tuple[str, frozenset[EventId]]], list["Bound"], str | None, Any
]


def check(
    repo: Repo,
    remote: str,
    ours: Oid | None,
    base: Oid | None,
    theirs: Oid,
    fill: Fill | None = None,
) -> Arrival:
    """Check the commits of `theirs` that `ours` lacks, then its tip; BadLedger names the path.

    A first sync of a large ledger is checked in two halves at once (`store/twocores.py`),
    each taking the events and items of half of the fan-out directories; the checks are
    the same, and a breach in either half refuses the whole. Each half then hands the
    data of the item files it checked, and which fan-outs it took, to `fill` (the read
    cache, which keys what it holds by object ids, so a refusal after leaves nothing
    wrong in it), and sends back only the open rows that hold conflicts.
    """
    where = f"remote {remote}: "
    reader = Reader(repo)
    try:
        commits = list(repo.commits_since(theirs, ours))
        _check_one_root(commits, related=base is not None)
        checking = f"checking what arrived from {remote}"

        def work(half: int | None) -> Found:
            part = None if half is None else _half(half)
            history = _History(repo, reader, part)
            shown = progress.reporter()
            for done, info in enumerate(commits):
                shown.step(checking, done, len(commits))
                history.check(info)
            shown.step(checking, len(commits), len(commits))
            checked: Known = {}
            try:
                touched = _check_tip(reader, base, theirs, where, checked, part)
            except BadLedger as refused:  # told after the clocks: a forged clock refolds
                return [], {}, [], history.bounds, refused.message, None
            rows = None
            if fill is not None and part is not None:
                rows = [tuple(row) for row in conflicted(fill(checked, part).rows)]
                heap.keep(checked)  # in the cache now: not marshalled back from the child,
                checked = {}  # and not freed one by one (`heap.keep`)
            added = [(str(c.info.oid), c.events) for c in history.candidates]
            return sorted(touched), checked, added, history.bounds, None, rows

        # events and items that live until the merge, no cyclic garbage; a first sync's
        # objects all came in the fetch just made
        with heap.bulk(), fetched_reads(ours is None):
            if base is None and _holds_items(repo, theirs, SPLIT_ITEMS):
                mine, other = twocores.halves(work)
                check_bounds(mine[3], other[3])
                problems = [mine[4], other[4]]
                touched = sorted({*mine[0], *other[0]})
                checked, added = {**mine[1], **other[1]}, mine[2] + other[2]
                rows = _joined(mine[5], other[5])
            else:
                touched, checked, added, bounds, problem, _ = work(None)
                check_bounds(bounds)
                problems, rows = [problem], None
            for problem in filter(None, problems):
                raise BadLedger(problem)
        config = Snapshot(repo, theirs).config
        trusted = frozenset(Snapshot(repo, ours).config.kept_out) if ours else frozenset()
        candidates = _candidates(commits, added)
        kept_out = _signatures(repo, reader, candidates, ours, theirs, trusted, config)
        if ours is not None and base == ours:
            _check_still_kept_out(config, trusted)
    except BadLedger as error:
        text = error.message.removeprefix(where)
        raise FetchedLedgerRefused(f"{where}{text} — the local ledger is unchanged") from None
    return Arrival(frozenset(ItemId(i) for i in touched), reader, checked, kept_out, rows)


def _check_one_root(commits: list[CommitInfo], related: bool) -> None:
    """A ledger's history starts from one commit, its `init`, and every clone's from the
    same: a fetched commit with no parent beside it (an unrelated history merged in, whose
    events could sort before the ledger's own first ones) refuses. Fetched commits
    `related` to the local ledger (a merge base) start from its root, so they hold none;
    a new clone's, or an unrelated ledger's (which the merge then refuses), hold one."""
    roots = [info.oid for info in commits if not info.parents]
    if not related and len(roots) > 1:
        raise BadLedger(
            f"commit {roots[1][:12]}: a second first commit (no parent) beside commit "
            f"{roots[0][:12]} — a ledger's history starts from one commit"
        )
    if related and roots:
        raise BadLedger(
            f"commit {roots[0][:12]}: a first commit (no parent) of its own — this "
            "clone's ledger already starts from one, and a ledger's history has only one"
        )


def _joined(
    first: list[tuple[Any, ...]] | None, second: list[tuple[Any, ...]] | None
) -> tuple[Row, ...] | None:
    """The conflicted open rows of every fan-out, from those of the two halves (as plain
    tuples: what marshal takes from the child), in the order a whole build meets them:
    the first half's fan-outs (`_FIRST_HALF`: digits and a-f) all sort before the
    second's. Only these cross the pipe; the rest of the open index is in the cache."""
    if first is None or second is None:
        return None
    return tuple(Row._make(r) for r in (*first, *second))


def _candidates(
    commits: list[CommitInfo], added: list[tuple[str, frozenset[EventId]]]
) -> list[trust.Candidate]:
    """The commits that add events, in history order, each with all it adds (a check in
    halves finds each commit's events in two parts)."""
    events: dict[str, frozenset[EventId]] = {}
    for oid, ids in added:
        events[oid] = events[oid] | ids if oid in events else ids
    return [
        trust.Candidate(info, events[str(info.oid)]) for info in commits if str(info.oid) in events
    ]


def _signatures(
    repo: Repo,
    reader: Reader,
    candidates: list[trust.Candidate],
    ours: Oid | None,
    theirs: Oid,
    trusted: frozenset[EventId],
    fetched: LedgerConfig,
) -> frozenset[EventId]:
    """Under the owners' signing policy, the events to keep out: `trusted` (what this
    clone keeps out already) and those of every fetched commit not signed by its
    author's registered key. When no covered commit kept the policy, and the fetched
    tip does not keep them out already, BadLedger: there is nothing good to take. The
    fetched coop.yaml may keep out only these, and events this clone holds only through
    commits that broke the policy (`trust.held_breakers`: its own unsigned work from
    before the policy reached it, which the others judged)."""
    states = trust.LedgerStates(repo, reader)
    judged = trust.judge(states, candidates, theirs, trusted, ours)
    nothing_good = judged.broken and len(judged.broken) == len(judged.covered)
    if nothing_good and not judged.kept_out <= set(fetched.kept_out):
        raise BadLedger(judged.broken[0].message)
    kept_out = trusted | judged.kept_out
    unexplained = frozenset(fetched.kept_out) - kept_out
    if unexplained and ours is not None:  # events of commits this clone holds already
        kept_out |= trust.held_breakers(states, candidates, theirs, ours, trusted, unexplained)
    if not kept_out.issuperset(fetched.kept_out):
        wrong = sorted(set(fetched.kept_out) - kept_out)[0]
        raise BadLedger(
            f"coop.yaml: keeps {wrong} out, though no commit that broke the signing policy added it"
        )
    return kept_out


SPLIT_ITEMS = 2000  # items in a first sync from which two processes check it
_FIRST_HALF = frozenset("0123456789abcdef")  # fan-outs start with one of 32 characters


def _half(half: int) -> Callable[[str], bool]:
    """Whether a fan-out folder (and the items in it) is in this half: by its first
    character, as the read cache groups its files."""
    return lambda fan: (fan[:1] in _FIRST_HALF) == (half == 0)


def _folders_of(part: Callable[[str], bool] | None) -> Callable[[str], bool] | None:
    """The folders a half opens: its own fan-outs, and any name that is not a fan-out
    (so both halves refuse it); None (every folder) for a check in one piece."""
    if part is None:
        return None
    return lambda name: not FANOUT_RE.match(name) or part(name)


def _holds_items(repo: Repo, commit: Oid, count: int) -> bool:
    """Whether a commit holds `count` item files or more, counted (up to `count`) without
    checking anything; False when its layout is odd."""
    try:
        items = Snapshot(repo, commit).subtree(ITEMS)
        found = 0
        for entry in items if items is not None else ():
            found += len(repo.tree(entry.id, ITEMS))
            if found >= count:
                return True
    except BadLedger:
        pass
    return False


# -- each commit ----------------------------------------------------------------------


class _Added(NamedTuple):
    """An added event file (a tuple: a first sync makes one for every event), and its
    tree entry as `Snapshot.read_events` reads it (`name`, `id`, `filemode`)."""

    path: str
    item_id: ItemId
    name: str
    id: str
    filemode: int


_made_added = partial(tuple.__new__, _Added)  # an _Added from its fields, without a call


# What one commit's check leaves for the clocks' upper bound, which needs the number of
# events the commit adds in all (a half of a first sync sees only its own): the commit,
# its parents' largest clock, the events it adds here, its largest clock here and that
# event's path, and coop.yaml's clock.
Bound = tuple[str, int, int, int, str, int]


class _History:
    """The commit-by-commit checks; each commit's clock is read once. With `part`, only
    the events of the items it takes are read (the other half checks the rest), and the
    clocks' upper bound is left to `check_bounds`, once both halves have counted."""

    def __init__(
        self, repo: Repo, reader: Reader, part: Callable[[str], bool] | None = None
    ) -> None:
        self.repo = repo
        self.reader = reader
        self.fans = _folders_of(part)  # a half names the events of its own folders only
        self.clocks: dict[Oid, int] = {}
        self.candidates: list[trust.Candidate] = []  # what the signing policy may cover
        self.bounds: list[Bound] = []

    def clock(self, commit: Oid) -> int:
        if commit not in self.clocks:
            self.clocks[commit] = Snapshot(self.repo, commit).config.clock
        return self.clocks[commit]

    def check(self, info: CommitInfo) -> None:
        try:
            snapshot = Snapshot(self.repo, info.oid)
            config = snapshot.config
            merge = len(info.parents) > 1
            added = self._compared(
                list(info.parents) or [None], info.oid, None if merge else self.fans
            )
            if added and merge:
                raise BadLedger(f"{added[0].path}: a merge commit adds an event of its own")
            floor = max((self.clock(p) for p in info.parents), default=0)
            events = self.reader.added(snapshot, added)
            top, top_path = floor, ""
            for event, new in zip(events, added, strict=True):
                _check_event(event, new, info, floor)
                if event.clock > top:
                    top, top_path = event.clock, new.path
        except BadLedger as error:
            raise BadLedger(f"commit {info.oid[:12]}: {error.message}") from None
        self.clocks[info.oid] = config.clock
        self.bounds.append((str(info.oid), floor, len(added), top, top_path, config.clock))
        if added and info.parents:
            ids = frozenset(EventId(e.id) for e in events)
            self.candidates.append(trust.Candidate(info, ids))

    def _compared(
        self, bases: list[Oid | None], commit: Oid, only: Callable[[str], bool] | None
    ) -> list[_Added]:
        """The event files under `only`'s folders of events/ in `commit` that no parent has;
        a dropped or changed one refuses."""
        if len(bases) == 1:  # what all but merges have
            return sorted(self._added_files(bases[0], commit, only))  # by path
        new_everywhere: dict[str, _Added] | None = None
        for parent in bases:
            added = {file.path: file for file in self._added_files(parent, commit, only)}
            if new_everywhere is None:
                new_everywhere = added
            else:
                new_everywhere = {k: v for k, v in new_everywhere.items() if k in added}
        return sorted((new_everywhere or {}).values())  # by path

    def _added_files(
        self, parent: Oid | None, commit: Oid, only: Callable[[str], bool] | None
    ) -> list[_Added]:
        found = []
        for delta in self.repo.changes(parent, commit, EVENTS, only, empty=True):
            if delta.status != "added":
                raise BadLedger(f"{delta.path}: an event was dropped or rewritten")
            found.append(_event_entry(delta.path, delta.oid, delta.mode))
        return found


def check_bounds(*halves: list[Bound]) -> None:
    """Each commit's clocks: none above its parents' largest plus the number of events it
    adds (in all halves), and coop.yaml's between its largest event and that bound."""
    for bounds in zip(*halves, strict=True):
        commit, floor = bounds[0][0], bounds[0][1]
        high = floor + sum(b[2] for b in bounds)
        top, path = max((b[3], b[4]) for b in bounds)
        config_clock = bounds[0][5]
        if top > high:
            raise BadLedger(
                f"commit {commit[:12]}: {path}: clock {top} is outside {floor + 1}..{high} — "
                "a clock grows by one per event"
            )
        if not top <= config_clock <= high:
            raise BadLedger(
                f"commit {commit[:12]}: coop.yaml: clock {config_clock} is outside "
                f"{top}..{high} — a clock grows by one per event and is never below one "
                "of its events"
            )


def _event_entry(path: str, oid: str, mode: int) -> _Added:
    """An added path under events/, checked against the layout before it is read."""
    parts = path.split("/")
    good = (
        len(parts) == 4
        and (_folder(parts[1], parts[2]))
        and EVENT_FILE_RE.match(parts[3]) is not None
        and mode == MODE_BLOB
    )
    if not good:
        raise BadLedger(f"{path}: not an allowed name or mode for the ledger layout")
    return _made_added((path, parts[2], parts[3], oid, mode))  # (parts[2] is an item id)


_FOLDERS: set[tuple[str, str]] = set()  # (fan-out, item folder) names found allowed


def _folder(fan: str, item: str) -> bool:
    """Whether `events/FAN/ITEM` is an allowed folder (an item's events share it)."""
    if (fan, item) in _FOLDERS:
        return True
    good = FANOUT_RE.match(fan) is not None and ITEM_DIR_RE.match(item) is not None
    if good and fanout(item) == fan:
        if len(_FOLDERS) < 100_000:
            _FOLDERS.add((fan, item))
        return True
    return False


def _check_event(event: Event, added: _Added, info: CommitInfo, floor: int) -> None:
    """One added event: admitted, by the commit's author, and above its parents' clocks
    (the upper bound needs every half's count: `check_bounds`)."""
    path = added.path
    problem = admission.event_problem(event)
    if problem:
        raise BadLedger(f"{path}: {problem}")
    if event.actor != info.author:
        raise BadLedger(
            f"{path}: an event by {event.actor!r} in a commit authored by {info.author!r} — "
            "each event is written by the author of the commit that adds it"
        )
    if event.clock <= floor:
        raise BadLedger(
            f"{path}: clock {event.clock} is not above {floor}, the largest clock of its "
            "commit's parents — a clock grows by one per event"
        )


# -- the tip ------------------------------------------------------------------------


def _check_tip(
    reader: Reader,
    base: Oid | None,
    theirs: Oid,
    where: str,
    checked: Known,
    part: Callable[[str], bool] | None = None,
) -> set[ItemId]:
    """Each item changed since `base` (of `part`, when given) is the fold of its events,
    without the events its coop.yaml keeps out; each is read once, and its data kept in
    `checked` by (item id, blob id) for the cache."""
    repo = reader.repo
    side = Snapshot(repo, theirs)
    config = side.config
    if part is None or part(fanout(LEDGER_ID)):
        _check_ledger_fold(reader, side, config)
    old = Snapshot(repo, base) if base else None
    if old is not None and not _same_roles(old.config, config):
        old = None  # other roles change every fold: check every item
    touched = changed(old, side, where, _folders_of(part))
    if old is not None:  # an event newly kept out changes its item's fold
        listed = set(config.kept_out) - set(old.config.kept_out)
        touched |= {item for (item, _, _), event in reader.events.items() if event.id in listed}
    mine = [i for i in sorted(touched - {LEDGER_ID}) if part is None or part(fanout(i))]
    added = _added_by_item(reader) if base is None else None

    def events_of(item_id: ItemId) -> list[Event]:
        if added is not None and (part is None or part(fanout(item_id))):
            found = added.get(item_id, [])
        else:
            found = reader.item_events(side, item_id)  # since `base`: the tip's folder, checked
        one_id_each(item_id, found)
        return found

    shown = progress.reporter()
    folds: list[tuple[ItemId, Any, Item | None]] = []
    for item_id, folded in rulebook.fold_items(mine, events_of, config.roles, config.kept_out):
        if len(folds) % 64 == 0:
            shown.step("checking each item is the fold of its events", len(folds), len(mine))
        folds.append((item_id, side.item_blob(item_id), folded))
    for item_id, blob, folded in folds:  # each kind of work in a loop of its own
        if blob is None or folded is None:
            if (blob is None) != (folded is None):
                raise BadLedger(f"{item_path(item_id)}: is not the fold of its events")
            if rulebook.of_no_item(events_of(item_id), config.kept_out):  # as fsck says
                raise BadLedger(
                    f"{event_dir(item_id)}: events of no item — an event folder needs its "
                    "item's file, unless its first event is an add kept out"
                )
            continue
        checked[item_id, str(blob)] = _as_folded(side, item_id, blob, folded.to_data())
    shown.step("checking each item is the fold of its events", len(mine), len(mine))
    heap.keep(folds)  # a first sync's every item: freed by the process's end
    return touched


def one_id_each(item_id: ItemId, events: list[Event]) -> None:
    """BadLedger naming an event id an item's folder holds in two files: an id names one
    event (`fsck` says so of the whole ledger; a sync refuses it where it arrives)."""
    if len({event.id for event in events}) == len(events):
        return
    seen: set[str] = set()
    for event in sorted(events, key=lambda e: e.order):
        if event.id in seen:
            raise BadLedger(
                f"{event_dir(item_id)}: holds event {event.id} in two files — an event id "
                "names one event"
            )
        seen.add(event.id)


def _added_by_item(reader: Reader) -> dict[ItemId, list[Event]]:
    """The events the history check read, by item: with no merge base, each item's events
    at the fetched tip (of the fan-outs it read). Every commit down to the root was
    checked: none drops or rewrites an event file, a merge adds none, and none adds an
    empty folder (`Repo.changes(empty=True)` names it, and no layout allows it), so the
    tip's event folders hold exactly the files its commits added, each parsed already."""
    by_item: dict[ItemId, list[Event]] = {}
    for (item_id, _, _), event in reader.events.items():
        by_item.setdefault(item_id, []).append(event)
    return by_item


def _as_folded(side: Snapshot, item_id: ItemId, blob: Any, folded: Data) -> Data:
    """The item file's data when it is the fold of its events, else BadLedger.

    A file gitcoop wrote is exactly `codec.dump` of the fold, so its blob id says so
    without reading it; any other file (an earlier gitcoop's way of writing, or a
    forgery) is read, checked, and compared with the fold as data."""
    written = codec.dump(folded)
    if len(written) <= side.cap and side.repo.blob_id(written) == str(blob):
        return folded
    stored = side.item_data(item_id, blob)  # validated, in `Item.to_data` form
    if stored != folded:
        raise BadLedger(f"{item_path(item_id)}: is not the fold of its events")
    return stored


def _check_still_kept_out(config: LedgerConfig, trusted: frozenset[EventId]) -> None:
    """A ledger built on this one keeps out what this one keeps out: the list only grows."""
    dropped = sorted(trusted - set(config.kept_out))
    if dropped:
        raise BadLedger(
            f"coop.yaml: no longer keeps {dropped[0]} out, though the ledger it was built "
            "on did — what a merge keeps out stays out"
        )


def _check_ledger_fold(reader: Reader, side: Snapshot, config: LedgerConfig) -> None:
    """coop.yaml's roles and settings are what the ledger's own events fold to."""
    events = reader.item_events(side, LEDGER_ID)
    one_id_each(LEDGER_ID, events)
    state, _refused = rulebook.fold_ledger(events, config.kept_out)
    if not _same_roles(LedgerConfig(roles=state.roles), config):
        raise BadLedger("coop.yaml: its roles are not the fold of the ledger's role events")
    known = {k: v for k, v in config.settings.items() if k in SETTINGS}
    if known != dict(state.settings):
        raise BadLedger("coop.yaml: its settings are not the fold of the ledger's config events")


def _same_roles(a: LedgerConfig, b: LedgerConfig) -> bool:
    return (set(a.roles.owners), set(a.roles.chiefs)) == (set(b.roles.owners), set(b.roles.chiefs))


# -- what differs between two commits ---------------------------------------------------


def entries(snapshot: Snapshot | None, item_id: ItemId) -> Entries:
    tree = snapshot.subtree(event_dir(item_id)) if snapshot else None
    return {e.name: e.id for e in tree} if tree is not None else {}


def changed(
    old: Snapshot | None,
    new: Snapshot | None,
    where: str,
    fans: Callable[[str], bool] | None = None,
) -> set[ItemId]:
    """Item ids under items/ or events/ whose entry differs (in the fan-out folders `fans`
    takes, when given); `new`'s names are checked."""
    found: set[ItemId] = set()
    for top in (ITEMS, EVENTS):
        before = _listing(old.subtree(top) if old else None)
        tree = new.subtree(top) if new else None
        after = _listing(tree, f"{where}{top}")  # names first: the message names the entry
        _written(new, tree, f"{where}{top}")
        for fan in sorted(before.keys() | after.keys()):
            if (fans is not None and not fans(fan)) or str(before.get(fan)) == str(after.get(fan)):
                continue
            inner_before = _listing(_tree(old, before.get(fan), f"{top}/{fan}"))
            here = f"{where}{top}/{fan}"
            inner = _tree(new, after.get(fan), here)
            inner_after = _listing(inner, here, top)
            _written(new, inner, here)
            for name in inner_before.keys() | inner_after.keys():
                if str(inner_before.get(name)) != str(inner_after.get(name)):
                    found.add(ItemId(name[:-5] if top == ITEMS else name))
    return found


def _tree(snapshot: Snapshot | None, oid: Any, path: str) -> Any:
    return snapshot.repo.tree(oid, path) if snapshot is not None and oid is not None else None


def _written(snapshot: Snapshot | None, tree: Any, path: str) -> None:
    """BadLedger unless `tree`'s entries are as git writes them, so that a listing and a
    lookup by path find the same entries (`Repo.check_written`)."""
    if snapshot is not None and tree is not None:
        snapshot.repo.check_written(tree.id, path)


def _listing(tree: Any, path: str | None = None, top: str | None = None) -> dict[str, Any]:
    """name -> object id of a tree's entries; with `path`, their names are checked: fan-outs,
    or with `top` (a fan-out's own listing), the names and modes of what `top` holds."""
    if tree is None:
        return {}
    listing = {}
    for entry in tree:
        name = entry.name
        if path is not None:
            if top is not None:
                _check_entry(entry, path, top)
            elif not FANOUT_RE.match(name):  # items/ and events/ hold fan-outs only
                raise BadLedger(f"{path}/{name}: not an allowed name or mode for the ledger layout")
        listing[name] = entry.id
    return listing


def _check_entry(entry: Any, path: str, top: str | None) -> None:
    name = entry.name
    fan = path.rsplit("/", 1)[-1]
    if top == ITEMS:
        good = ITEM_FILE_RE.match(name) and entry.filemode == MODE_BLOB
    else:
        good = ITEM_DIR_RE.match(name) and entry.filemode == MODE_TREE
    if not good or not FANOUT_RE.match(fan) or fanout(name) != fan:
        raise BadLedger(f"{path}/{name}: not an allowed name or mode for the ledger layout")
