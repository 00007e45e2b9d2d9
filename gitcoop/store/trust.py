"""The owners' signing policy over a run of commits: which it covers, and which broke it.

Part of the boundary (`store/inbound.py` calls it for every fetch; `fsck
--full` for the whole history). A commit is covered when it adds events and
the ledger at its parent requires signed commits (`require_signed`); it
keeps the policy when git finds it signed by a key the ledger registered to
its author at that parent. The ledger at a parent is the fold of its own
events less those already kept out, so a forged key or setting change
cannot vouch for the commits after it.

Signatures are checked by git in one batch (`store/signatures.py`, loaded
only when some commit may be covered).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitcoop.domain import rulebook
from gitcoop.domain.frozen import frozen
from gitcoop.domain.ids import EventId
from gitcoop.domain.keys import Keys
from gitcoop.domain.records import Event
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.errors import BadLedger
from gitcoop.store.layout import EVENT_FILE_RE, EVENTS, event_dir
from gitcoop.store.repository import CommitInfo, Oid, Repo
from gitcoop.store.snapshot import Snapshot

if TYPE_CHECKING:
    from gitcoop.store.inbound import Reader
    from gitcoop.store.signatures import Checked


@frozen
class Candidate:
    """A commit that adds events on top of one parent: the policy may cover it."""

    info: CommitInfo
    events: frozenset[EventId]  # the events it adds


@frozen
class Broken:
    """A covered commit that broke the policy, and why (one line naming the commit)."""

    commit: Candidate
    message: str
    kept: frozenset[EventId] = frozenset()  # its events kept out: those nothing vouches for


@dataclass
class Judgement:
    covered: list[Candidate] = field(default_factory=list)  # the commits the policy covers
    broken: list[Broken] = field(default_factory=list)

    @property
    def kept_out(self) -> frozenset[EventId]:
        """The events the commits that broke the policy are kept out for (`Broken.kept`)."""
        return frozenset(e for b in self.broken for e in b.kept)


class LedgerStates:
    """The ledger's own fold (roles, settings, keys) at a commit, less the events kept out;
    folded once per version of the ledger's event folder."""

    def __init__(self, repo: Repo, reader: Reader) -> None:
        self.repo = repo
        self.reader = reader
        self.folded: dict[tuple[str, frozenset[EventId]], rulebook.LedgerState] = {}
        self.listed: dict[str, frozenset[str]] = {}
        self.files: dict[Oid, dict[str, tuple[EventId, str]]] = {}
        self.walked: dict[Oid, frozenset[str]] = {}

    def ancestors(self, commit: Oid) -> frozenset[str]:
        """`commit` and the commits in its history (walked once a commit)."""
        if commit not in self.walked:
            self.walked[commit] = self.repo.ancestors(commit)
        return self.walked[commit]

    def at(self, commit: Oid, kept_out: frozenset[EventId] = frozenset()) -> rulebook.LedgerState:
        snapshot = Snapshot(self.repo, commit)
        folder = snapshot.subtree(event_dir(LEDGER_ID))
        key = (str(folder.id) if folder is not None else "", kept_out)
        if key not in self.folded:
            events = self.reader.item_events(snapshot, LEDGER_ID) if key[0] else []
            self.folded[key] = rulebook.fold_ledger(events, kept_out)[0]
        return self.folded[key]

    def names(self, commit: Oid) -> frozenset[str]:
        """The names of the ledger's event files at `commit` (one listing per version)."""
        folder = Snapshot(self.repo, commit).subtree(event_dir(LEDGER_ID))
        if folder is None:
            return frozenset()
        if str(folder.id) not in self.listed:
            self.listed[str(folder.id)] = frozenset(entry.name for entry in folder)
        return self.listed[str(folder.id)]

    def added(self, candidate: Candidate) -> dict[str, tuple[EventId, str]]:
        """The event files `candidate` adds: path -> (event id, blob id)."""
        key = candidate.info.oid
        if key not in self.files:
            found: dict[str, tuple[EventId, str]] = {}
            for delta in self.repo.changes(_parent(candidate), key, EVENTS):
                named = EVENT_FILE_RE.match(delta.path.rsplit("/", 1)[-1])
                if delta.status == "added" and named:
                    found[delta.path] = (EventId(named.group(2)), delta.oid)
            self.files[key] = found
        return self.files[key]

    def files_of(self, candidate: Candidate, event: EventId) -> frozenset[tuple[str, str]]:
        """The files (path, blob id) of `event`'s id that `candidate` adds."""
        added = self.added(candidate).items()
        return frozenset((path, blob) for path, (e, blob) in added if e == event)

    def named(
        self, snapshot: Snapshot, events: frozenset[EventId]
    ) -> dict[EventId, set[tuple[str, str]]]:
        """The event files of `snapshot` whose names give one of these ids: id -> (path,
        blob id)s. Reads every event folder's listing (no file)."""
        found: dict[EventId, set[tuple[str, str]]] = {}
        for fan, tree in snapshot.fanouts(EVENTS):
            for folder in tree:
                for entry in self.repo.tree(folder.id, f"{EVENTS}/{fan}/{folder.name}"):
                    named = EVENT_FILE_RE.match(entry.name)
                    if named and named.group(2) in events:
                        path = f"{EVENTS}/{fan}/{folder.name}/{entry.name}"
                        found.setdefault(EventId(named.group(2)), set()).add((path, str(entry.id)))
        return found

    def ledger_events(self, commit: Oid) -> list[Event]:
        return self.reader.item_events(Snapshot(self.repo, commit), LEDGER_ID)

    def starts(self, commit: Oid) -> dict[str, EventId]:
        """The `require_signed true`s the fold of the ledger's events at `commit` applies
        (an owner's), by file name."""
        events = self.ledger_events(commit)
        refused = {(event.clock, event.id) for event, _ in rulebook.fold_ledger(events)[1]}
        return {
            f"{e.clock:012d}-{e.id}.yaml": e.id
            for e in events
            if rulebook.turns_signing_on(e) and (e.clock, e.id) not in refused
        }


class _Starts:
    """Each `require_signed true` the ledger applies, at the fetched tip or the local one,
    and the commits in the history of every commit that added it: a commit whose parent
    did not require signing wrote "before the policy" only if every start its parent does
    not hold came after it, in each commit that added it. One beside a start (a side
    branch forked before it and merged in after, by its author or by whoever merges it)
    is covered as if its parent required signing: otherwise anyone could write unsigned
    "by" anyone, on a fork of the commit before the policy began, and merge it in.

    A start is its file (name and so clock and id), held or not by a parent, and one
    commit adds it: a second adder is a copy, and refuses. Counted, a copy on a side
    branch vouched for the side; counted with the first, one on a fork from before the
    keys made the owner's own key registrations "beside" the start, and kept them out. A
    start the local ledger (`ours`) holds was added by a commit of its own, which has no
    fetched commit in its history: a fetched adder of it is a copy too."""

    def __init__(
        self, states: LedgerStates, candidates: list[Candidate], tip: Oid, ours: Oid | None
    ) -> None:
        self.states = states
        local = states.starts(ours) if ours else {}
        self.files = {**states.starts(tip), **local}
        self.local = frozenset(local)
        wanted = set(self.files.values())
        paths = {name: f"{event_dir(LEDGER_ID)}/{name}" for name in self.files}
        # by file name: two files of one id are two starts (the fetch refuses such twins)
        self.adders: dict[str, list[Oid]] = {name: [] for name in self.files}
        for candidate in candidates if wanted else ():
            if candidate.events & wanted:
                added = states.added(candidate)
                for name in self.files:
                    if paths[name] in added:  # the start's own file, not a twin id's
                        self.adders[name].append(candidate.info.oid)
        for name in self.files:  # one commit adds an event: others copy it
            adders = self.adders[name]
            if len(adders) > 1 or (adders and name in self.local):
                first = "this clone's ledger" if name in self.local else f"commit {adders[0][:12]}"
                raise BadLedger(
                    f"commit {adders[-1][:12]}: adds {paths[name]}, the policy's start, "
                    f"which {first} adds too — one commit adds an event, and another file "
                    "of the start's name (a copy or a forgery) would move where the policy "
                    "began"
                )
        self.histories: dict[str, frozenset[str]] = {}

    def beside(self, candidate: Candidate) -> bool:
        """Whether some start is neither in the candidate's parent's ledger nor after it."""
        if not self.files:
            return False
        held = self.states.names(_parent(candidate))
        return any(
            name not in held and str(candidate.info.oid) not in self._history(name)
            for name in self.files
        )

    def _history(self, name: str) -> frozenset[str]:
        """The commits its one adder has in its history (none when the local ledger holds
        it, or no commit among the candidates adds it)."""
        if name not in self.histories:
            adders = [] if name in self.local else self.adders[name]
            self.histories[name] = self.states.ancestors(adders[0]) if adders else frozenset()
        return self.histories[name]


def judge(
    states: LedgerStates,
    candidates: list[Candidate],
    tip: Oid,
    trusted: Collection[EventId] = (),
    ours: Oid | None = None,
) -> Judgement:
    """Walk `candidates` (parents first: the history of `tip` since `ours`, the local
    ledger's tip, if any): each covered one is judged with the ledger as it stands once
    every earlier breaker's events (and `trusted`, already kept out) are out. A commit is
    covered when the ledger at its parent requires signing, or when a start of the
    policy is beside it (`_Starts`).

    A breaker's events are kept out at once, but those whose very files (path and
    blob) the local ledger holds, or another commit adds that wrote before the policy or
    is signed by its author's key: a copy of someone's authentic event in a forged
    commit must not keep theirs out, and an event of another file with the same id
    vouches for nothing. A breaker's event whose id another authentic file holds, not
    written after it, refuses (BadLedger): an event id names one event."""
    if not candidates:
        return Judgement()
    starts = _Starts(states, candidates, tip, ours)
    first = [c for c in candidates if states.at(_parent(c)).requires_signing or starts.beside(c)]
    if not first:
        return Judgement()
    return _Judging(states, candidates, starts, frozenset(trusted), ours).run(first)


class _Judging:
    """One walk of `judge`: what the breakers found so far keep out, and the checks that
    read it (which other files vouch for a breaker's, and which earlier ones it twins)."""

    def __init__(
        self,
        states: LedgerStates,
        candidates: list[Candidate],
        starts: _Starts,
        trusted: frozenset[EventId],
        ours: Oid | None,
    ) -> None:
        self.states, self.candidates, self.starts = states, candidates, starts
        self.verdicts = _Verdicts(states.repo, candidates, states)
        self.by_id: dict[EventId, list[Candidate]] = {}
        for candidate in candidates:
            for event in candidate.events:
                self.by_id.setdefault(event, []).append(candidate)
        self.kept = trusted
        self.local = Snapshot(states.repo, ours) if ours is not None else None
        self.local_files: dict[EventId, set[tuple[str, str]]] | None = None

    def run(self, first: list[Candidate]) -> Judgement:
        self.verdicts.fetch(first)
        found = Judgement()
        for candidate in self.candidates:
            state = self.states.at(_parent(candidate), self.kept)
            if not state.requires_signing and not self.starts.beside(candidate):
                continue
            found.covered.append(candidate)
            why = _problem(self.verdicts.of(candidate), candidate.info.author, state.keys)
            if why is None:
                continue
            out = frozenset(candidate.events) - self.vouched(candidate)
            for event in out:
                held = self.twin(candidate, event)
                if held is not None:
                    raise BadLedger(_twin_message(candidate, event, held))
            found.broken.append(Broken(candidate, _message(candidate, why), out))
            self.kept = self.kept | out
        return found

    def authentic(self, other: Candidate) -> bool:
        """Written before the policy (as the history says), or signed by its author's key."""
        state = self.states.at(_parent(other), self.kept)
        if not state.requires_signing and not self.starts.beside(other):
            return True
        return _problem(self.verdicts.of(other), other.info.author, state.keys) is None

    def copied(self, candidate: Candidate, path: str, file: tuple[EventId, str]) -> bool:
        """Whether the local ledger holds this very file, or another commit adds it that
        wrote before the policy or is signed by its author's key: a copy of an authentic
        event (the first key's own `keys add` is never signed by a key registered before
        it, so only its place before the policy vouches for a copy of it)."""
        if self.local is not None and self.local.file_id(path) == file[1]:
            return True
        return any(
            self.authentic(c)
            for c in self.by_id[file[0]]
            if c is not candidate and self.states.added(c).get(path) == file
        )

    def vouched(self, candidate: Candidate) -> set[EventId]:
        """The breaker's events each of whose files it adds is a copy of an authentic one."""
        files = self.states.added(candidate).items()
        copies = {path for path, file in files if self.copied(candidate, path, file)}
        doubted = {event for path, (event, _) in files if path not in copies}
        return {event for _, (event, _) in files} - doubted

    def twin(self, candidate: Candidate, event: EventId) -> str | None:
        """Another file of `event`'s id not written after the breaker's: in the local
        ledger, or added by an authentic commit that does not have the breaker in its
        history. Keeping the id out would keep that one out too, and taking it would take
        the breaker's: neither can be done."""
        states = self.states
        own = states.files_of(candidate, event)
        if self.local is not None:
            if self.local_files is None:  # read once, and only for a breaker's kept events
                wanted = frozenset(e for c in self.candidates for e in c.events)
                self.local_files = states.named(self.local, wanted)
            held = sorted(self.local_files.get(event, set()) - own)
            if held:
                return held[0][0]
        for other in self.by_id.get(event, ()):
            if other is candidate:
                continue
            theirs = states.files_of(other, event)
            # another authentic file, not written after the breaker's (before it, or on a
            # branch beside it): the id is not the breaker's to give away
            if (
                theirs - own
                and self.authentic(other)
                and _oid(candidate) not in states.ancestors(_oid(other))
            ):
                return sorted(theirs - own)[0][0]
        return None


def history(repo: Repo, tip: Oid) -> list[Candidate]:
    """The commits of the ledger's history, parents first, that add events to one parent."""
    found: list[Candidate] = []
    for info in repo.commits_since(tip, None):
        if len(info.parents) != 1:
            continue  # a root holds no policy yet; a merge adds no events
        added = [d for d in repo.changes(info.parents[0], info.oid, EVENTS) if d.status == "added"]
        names = (EVENT_FILE_RE.match(d.path.rsplit("/", 1)[-1]) for d in added)
        events = frozenset(EventId(m.group(2)) for m in names if m is not None)
        if added:  # a file of no event's name still needs a signature (the survey names it)
            found.append(Candidate(info, events))
    return found


def held_breakers(
    states: LedgerStates,
    fetched: list[Candidate],
    tip: Oid,
    ours: Oid,
    trusted: frozenset[EventId],
    events: frozenset[EventId],
) -> frozenset[EventId]:
    """Of `events`, which a fetched `tip` keeps out and this clone's judgement of the
    `fetched` commits did not: those this clone must keep out too, because every commit
    of its own history that adds them broke the policy, judged as this clone judges
    (the keys and settings of its ledger less what it keeps out, `trusted`). Such a
    commit is one this clone wrote, or merged in, before the policy's start reached it
    (work forked before the policy and merged in after), so it never judged it; the
    clones that fetched it judged it and kept its events out.

    An event counts only when each of its local adders is covered (its parent requires
    signing, or a start is beside it) and not signed by its author's key, and no other
    commit adds the same file signed by its author or before the policy: a copy of an
    authentic event never counts, and neither does an event of an id an authentic
    commit also adds, but for a file of that id written after the first (in a commit
    that has an adder of another file of the id in its history): an id is the first
    file's, and a later twin is kept out with it, as the clones that judged the first
    did. Signatures are checked for those commits only."""
    repo = states.repo
    mine = history(repo, ours)
    adders = {e: _first_files(states, [c for c in mine if e in c.events], e) for e in events}
    adders = {e: found for e, found in adders.items() if found}
    if not adders:
        return frozenset()
    every = list({c.info.oid: c for c in (*mine, *fetched)}.values())
    files = {
        e: frozenset().union(*(states.files_of(c, e) for c in found)) for e, found in adders.items()
    }
    copies = {
        e: [
            o
            for o in every
            if e in o.events and o not in adders[e] and files[e] & states.files_of(o, e)
        ]
        for e in adders
    }
    judged = list({c.info.oid: c for e in adders for c in (*adders[e], *copies[e])}.values())
    # where the policy began as this clone's own history says: the starts it holds, each
    # added by a commit of that history (a fetched start, or a fetched copy of one, would
    # make its own commits from before the policy "beside" it); judged with this clone's
    # keys and settings, less what it keeps out (nothing more is kept out meanwhile)
    judging = _Judging(states, judged, _Starts(states, mine, ours, None), trusted, None)
    judging.verdicts.fetch(judged)
    authentic = judging.authentic
    return frozenset(
        e for e, found in adders.items() if not any(authentic(c) for c in (*found, *copies[e]))
    )


def _first_files(states: LedgerStates, adders: list[Candidate], event: EventId) -> list[Candidate]:
    """Those of `adders` (commits adding a file of `event`'s id) with no adder of another
    file of that id in their history: the adders of the id's first file, or files."""

    files = states.files_of
    return [
        c
        for c in adders
        if not any(
            files(o, event) != files(c, event) and _oid(o) in states.ancestors(_oid(c))
            for o in adders
            if o is not c
        )
    ]


class _Verdicts:
    """git's verdicts, fetched in batches: first for the commits the policy may cover, and
    for the rest of the run if a kept-out change turns the policy back on."""

    def __init__(self, repo: Repo, candidates: list[Candidate], states: LedgerStates) -> None:
        self.repo = repo
        self.candidates = candidates
        self.found: dict[Oid, Checked] = {}
        parents = {_parent(c) for c in candidates}
        self.keys = frozenset(k for p in parents for k in states.at(p).keys.every_key())

    def fetch(self, wanted: list[Candidate]) -> None:
        from gitcoop.store import signatures

        oids = [c.info.oid for c in wanted if c.info.oid not in self.found]
        self.found.update(signatures.check(self.repo, oids, self.keys))

    def of(self, candidate: Candidate) -> Checked:
        if candidate.info.oid not in self.found:
            at = self.candidates.index(candidate)
            self.fetch(self.candidates[at:])
        return self.found[candidate.info.oid]


def _parent(candidate: Candidate) -> Oid:
    return candidate.info.parents[0]


def _oid(candidate: Candidate) -> Oid:
    return candidate.info.oid


def _twin_message(candidate: Candidate, event: EventId, held: str) -> str:
    return (
        f"commit {candidate.info.oid[:12]}: adds an event {event}, the id of {held} "
        "written before it, without the signature the policy requires — an event id "
        "names one event, and keeping this one out would keep that one out too"
    )


def _problem(checked: Checked, author: str, keys: Keys) -> str | None:
    from gitcoop.store.signatures import GOOD, UNKNOWN_KEY

    if checked.status == GOOD and checked.fingerprint in keys.fingerprints(author):
        return None
    if checked.status in (GOOD, UNKNOWN_KEY):
        holder = keys.signer(checked.fingerprint)
        whose = f" (it is {holder}'s)" if holder else ""
        return f"signed by {checked.fingerprint}{whose}, not by a key registered to {author}"
    return f"{checked.meaning}, where a key registered to {author} must sign"


def _message(candidate: Candidate, why: str) -> str:
    return (
        f"commit {candidate.info.oid[:12]}: {why} — the ledger requires signed commits "
        "(require_signed): every commit that adds events is signed by its author's key"
    )
