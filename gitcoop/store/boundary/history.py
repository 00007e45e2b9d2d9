"""Each fetched commit on its own: what it adds, parsed and bounded (H5, H6, H7).

Every commit a fetch brings that this clone does not hold is read once,
parents before children. A commit never drops or changes an event file of
its first parent, a merge adds none of its own (what it adds to its first
parent is its second parent's, as it is), and each file it adds is named as
the layout allows, parses safely, is within the bounds of
`domain/admission.py`, is by the commit's author, carries a clock above its
parents' and (on a format-2 ledger) the id its content gives. Its tree's
listings are checked where they are read (`boundary/tree.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, NamedTuple

from gitcoop.domain import admission, bounds
from gitcoop.domain.ids import ItemId, fanout, is_content_id
from gitcoop.domain.memo import Memo
from gitcoop.domain.records import Event
from gitcoop.errors import BadLedger
from gitcoop.store.git.commits import CommitInfo
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger.layout import EVENT_FILE_RE, EVENTS, FANOUT_RE, ITEM_DIR_RE, MODE_BLOB
from gitcoop.store.ledger.repo import Repo
from gitcoop.store.ledger.snapshot import Snapshot

MAX_PARENTS = 2  # gitcoop writes no more: a merge joins the remote's tip and the local one
# events one fetched commit may add: an `import` of a whole tracker writes a few thousand
MAX_EVENTS = bounds.MAX_EVENTS


class Reader:
    """Parses each event blob once, whichever commit or side it is read from."""

    def __init__(self, repo: Repo) -> None:
        self.repo = repo
        self.events: dict[tuple[ItemId, str, str], Event] = {}

    def forget(self) -> None:
        """Hold no parsed event any longer: a check that reads a window at a time."""
        self.events = {}

    def event(self, snapshot: Snapshot, item_id: ItemId, entry: Any) -> Event:
        key = (item_id, entry.name, str(entry.id))
        if key not in self.events:
            self.events[key] = snapshot.read_event(item_id, entry)
        return self.events[key]

    def added(self, snapshot: Snapshot, files: list[Added]) -> list[Event]:
        """The events of these added files, those not parsed yet read together
        (`Snapshot.read_events`: every blob, then every parse, each in one pass)."""
        keys = [(file.item_id, file.name, file.id) for file in files]
        events = self.events
        new = [(file, key) for file, key in zip(files, keys, strict=True) if key not in events]
        if new:  # each named as the layout allows by `event_entry` already
            read = snapshot.read_events([(f.path, f.item_id, f) for f, _ in new], named=True)
            events.update(zip((key for _, key in new), read, strict=True))
        return [events[key] for key in keys]

    def item_events(self, snapshot: Snapshot, item_id: ItemId) -> list[Event]:
        from gitcoop.store.ledger.layout import event_dir

        tree = snapshot.subtree(event_dir(item_id))
        return [self.event(snapshot, item_id, e) for e in tree] if tree is not None else []


class Added(NamedTuple):
    """An added event file, and its tree entry as `Snapshot.read_events` reads it."""

    path: str
    item_id: ItemId
    name: str
    id: str
    filemode: int


_made_added = partial(tuple.__new__, Added)  # an Added from its fields, without a call


def added_files(repo: Repo, parent: Oid | None, commit: Oid, fan: str | None = None) -> list[Added]:
    """The event files `commit` holds and `parent` does not, by path (in the fan-out
    folder `fan`, when given); one of `parent`'s dropped or changed refuses (H5)."""
    found = []
    changes = (
        repo.changes(parent, commit, EVENTS, None, empty=True)
        if fan is None
        else repo.changes_in(parent, commit, EVENTS, fan, empty=True)
    )
    for delta in changes:
        if delta.status != "added":
            raise BadLedger(f"{delta.path}: an event was dropped or rewritten")
        found.append(event_entry(delta.path, delta.oid, delta.mode))
    return sorted(found)


class History:
    """The commit-by-commit checks; each commit's clock is read once."""

    def __init__(self, repo: Repo, reader: Reader) -> None:
        self.repo = repo
        self.reader = reader
        self.clocks: dict[Oid, int] = {}
        self.formats: dict[Oid, int] = {}

    def _read(self, commit: Oid) -> None:
        config = Snapshot(self.repo, commit).config
        self.clocks[commit], self.formats[commit] = config.clock, config.format

    def clock(self, commit: Oid) -> int:
        if commit not in self.clocks:
            self._read(commit)
        return self.clocks[commit]

    def format(self, commit: Oid) -> int:
        if commit not in self.formats:
            self._read(commit)
        return self.formats[commit]

    def check(self, info: CommitInfo) -> None:
        try:
            self._check(info)
        except BadLedger as error:
            raise BadLedger(f"commit {info.oid[:12]}: {error.message}") from None

    def _check(self, info: CommitInfo) -> None:
        config, floor, content_ids = self.opening(info)
        added = self.compared(info)
        snapshot = Snapshot(self.repo, info.oid)
        top, top_path = self.events(info, snapshot, added, floor, content_ids)
        self.closing(info, config, floor, len(added), (top, top_path))

    def opening(self, info: CommitInfo) -> tuple[Any, int, bool]:
        """A commit's own checks before its events: its parents, its format; its coop.yaml,
        the largest clock of its parents, and whether its events are named by content."""
        if len(info.parents) > MAX_PARENTS:
            raise BadLedger(
                f"has {len(info.parents)} parents — a ledger commit has at most {MAX_PARENTS}"
            )
        config = Snapshot(self.repo, info.oid).config
        if info.parents and config.format < max(self.format(p) for p in info.parents):
            raise BadLedger(f"coop.yaml: format {config.format} on a ledger of a later format")
        floor = max((self.clock(p) for p in info.parents), default=0)
        return config, floor, config.format >= 2  # a format-2 commit's own events

    def compared(self, info: CommitInfo, fan: str | None = None) -> list[Added]:
        """What the commit adds (in the fan-out folder `fan`, when given); a merge adds
        none of its own."""
        added = self._compared(list(info.parents) or [None], info.oid, fan)
        if added and len(info.parents) > 1:
            raise BadLedger(
                f"{added[0].path}: a merge commit adds an event of its own (one its second "
                "parent does not hold as it is)"
            )
        if len(added) > MAX_EVENTS:
            raise BadLedger(f"adds {len(added)} events — one commit adds at most {MAX_EVENTS:,}")
        return added

    def events(
        self,
        info: CommitInfo,
        snapshot: Snapshot,
        added: list[Added],
        floor: int,
        content_ids: bool,
        top: tuple[int, str] | None = None,
    ) -> tuple[int, str]:
        """Each added event checked on its own; the largest clock so far (`top`, else the
        floor), with its path."""
        events = self.reader.added(snapshot, added)
        high, high_path = top or (floor, "")
        for event, new in zip(events, added, strict=True):
            _check_event(event, new, info, floor, content_ids)
            if event.clock > high:
                high, high_path = event.clock, new.path
        return high, high_path

    def closing(
        self, info: CommitInfo, config: Any, floor: int, count: int, top: tuple[int, str]
    ) -> None:
        """The commit's totals: how many events it adds, and its clocks' range."""
        if count > MAX_EVENTS:
            raise BadLedger(f"adds {count} events — one commit adds at most {MAX_EVENTS:,}")
        high, clock = floor + count, config.clock
        if top[0] > high:
            raise BadLedger(
                f"{top[1]}: clock {top[0]} is outside {floor + 1}..{high} — a clock grows "
                "by one per event"
            )
        if not top[0] <= clock <= high:
            raise BadLedger(
                f"coop.yaml: clock {clock} is outside {top[0]}..{high} — a clock grows "
                "by one per event and is never below one of its events"
            )
        self.clocks[info.oid], self.formats[info.oid] = clock, config.format

    def _compared(
        self, bases: list[Oid | None], commit: Oid, fan: str | None = None
    ) -> list[Added]:
        """The event files `commit` adds to its first parent (one of that parent's dropped
        or changed refuses) that its second parent, if any, does not hold as they are:
        a merge's state is its first parent's plus what it adds, and what it adds comes
        from its second parent, so neither costs more than what it adds."""
        added = added_files(self.repo, bases[0], commit, fan)
        if len(bases) == 1 or not added:
            return added
        other = bases[1]
        assert other is not None
        return [f for f in added if self.repo.blob_at(other, f.path) != f.id]


def check_one_root(commits: list[CommitInfo], related: bool) -> None:
    """A ledger's history starts from one commit, its `init`, and every clone's from the
    same (H7): a fetched commit with no parent beside it (an unrelated history merged in)
    refuses. Fetched commits `related` to the local ledger start from its root, so they
    hold none; a new clone's, or an unrelated ledger's (which the merge then refuses),
    hold one."""
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


def event_entry(path: str, oid: str, mode: int) -> Added:
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


_FOLDERS: Memo[tuple[str, str], bool] = Memo()  # (fan-out, item folder) names found allowed


def _folder(fan: str, item: str) -> bool:
    """Whether `events/FAN/ITEM` is an allowed folder (an item's events share it)."""
    if (fan, item) in _FOLDERS:
        return True
    good = FANOUT_RE.match(fan) is not None and ITEM_DIR_RE.match(item) is not None
    if good and fanout(item) == fan:
        _FOLDERS.keep((fan, item), True)
        return True
    return False


def _check_event(
    event: Event, added: Added, info: CommitInfo, floor: int, content_ids: bool
) -> None:
    """One added event: admitted (H7), by the commit's author (H6), above its parents'
    clocks, and named by its content on a format-2 ledger (H5)."""
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
    # an id of format 2's form is its content's, whatever the commit's format: a format-1
    # commit cannot carry a format-2 event's id for content of its own
    content_ids = content_ids or is_content_id(event.id)
    if content_ids and (not is_content_id(event.id) or event.content_id() != event.id):
        raise BadLedger(
            f"{path}: its id is not the one its content gives — on a format-2 ledger an "
            "event is named by its content, so one id names one event"
        )


Fans = Callable[[str], bool]
