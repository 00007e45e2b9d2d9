"""`git coop fsck`: check every invariant of the ledger format (DESIGN.md §1-§3).

The tip is surveyed file by file (layout, names, modes, parsing), then its
meaning is checked (clocks, ids, obligations, identities), then history:
between each commit and its parents no event file is removed or changed, new
events carry clocks above their parents', and each commit on the first-parent
chain holds exactly its first parent's state plus the events it adds
(`store/boundary/joining.py`, the rule every fetch is checked by: H1-H3 of
docs/hardening.md). A format-1 ledger (or the format-1 part of a history) is
checked as format 1 was: every item the fold of its events.

It holds a window, not the ledger: the tip's files one fan-out folder at a
time, history a commit's changes one fan-out folder at a time, and it keeps
none of the checked files a fetch keeps for the read cache. A clean check
remembers its tip (`refs/coop/checked`), and the next one checks only the
commits after it and the files they changed, unless `full`, or unless that tip
left the ledger's history (rewound, rewritten), which a note says.
"""

from __future__ import annotations

import contextlib
import itertools
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gitcoop.domain import ids, lifecycle, progress, rulebook
from gitcoop.domain.ids import ItemId
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Item, LedgerConfig, Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.settings import SETTINGS
from gitcoop.errors import BadLedger, CoopError, EnvironmentFailed, NoLedger
from gitcoop.service.context import Context
from gitcoop.store.boundary import format1, joining, windows
from gitcoop.store.boundary.history import History, Reader
from gitcoop.store.boundary.windows import OBJECTS_CACHED, changed_names, top_entry
from gitcoop.store.ledger.layout import CHECKED, EVENT_FILE_RE, EVENTS, ITEMS, MODE_TREE, REF
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.survey import Window, survey
from gitcoop.store.repository import CommitInfo, Delta, Oid, Repo

CHECKED_WHOLE = "fsck: checked whole"  # the reflog message of the tip it remembers


@record_type
class Breach:
    path: str
    rule: str  # layout | parse | fold | clock | ids | identity | obligation | roles | history
    # | signature
    message: str


@dataclass
class Report:
    tip: Oid
    full: bool
    items: int = 0
    events: int = 0
    commits: int = 0
    # the tip checked whole before, from which this check went on (None: from the root)
    since: Oid | None = None
    breaches: list[Breach] = field(default_factory=list)
    # what is worth knowing and breaks nothing: events refused where they joined for want
    # of a signature (the owners settle them)
    notes: list[str] = field(default_factory=list)

    def add(self, path: str, rule: str, message: str) -> None:
        self.breaches.append(Breach(path, rule, message))


class BreachesFound(CoopError):
    """fsck found at least one breach (exit 1); the breaches themselves are printed."""

    exit_code = 1
    code = "breaches"


def fsck(ctx: Context, full: bool = False) -> Report:
    """Every breach of the ledger's invariants; NoLedger/BadLedger when it cannot be read.

    What the tip checked whole last (`refs/coop/checked`) holds was checked then: unless
    `full`, only the commits after it, and the files they changed, are checked. A clean
    check remembers its tip."""
    repo = ctx.repo()
    tip = repo.tip()
    if tip is None:
        raise NoLedger("no ledger in this repository yet — run: git coop init")
    with repo.objects_cached(OBJECTS_CACHED):  # a folder at a time: few trees again
        return _fsck(repo, tip, full)


def _fsck(repo: Repo, tip: Oid, full: bool) -> Report:
    report = Report(tip, full)
    found = survey(repo, tip)
    config = found.config
    old = config is not None and config.format < 2  # format 1: its folds need every item
    report.since = None if full or old else _since(repo, tip, report)
    if old:
        whole = Window("")
        for window in found.windows():
            whole.items.update(window.items)
            whole.events.update(window.events)
            whole.listed += window.listed
        _check_window(report, whole, config)
    else:
        for window in found.windows(report.since):
            _check_window(report, window, config)
    if config is not None:
        for who in (*config.roles.owners, *config.roles.chiefs):
            problem = ids.identity_problem(who)
            if problem:
                report.add("coop.yaml", "identity", problem)
    for found_problem in found.problems:
        report.add(found_problem.path, found_problem.rule, found_problem.message)
    commits = repo.commits_since(tip, report.since)
    _check_history(report, repo, commits)
    # a tip the survey found unreadable cannot be judged: its breaches are listed already
    _check_states(report, repo, tip, commits, judge_tip=not found.problems)
    if not report.breaches:
        # read-only: remembers nothing
        with contextlib.suppress(OSError, EnvironmentFailed), repo.shared_modes():
            repo.ensure_reflog(CHECKED)  # a move by anything but fsck is then seen
            repo.note_ref(CHECKED, tip, CHECKED_WHOLE)
    return report


def _since(repo: Repo, tip: Oid, report: Report) -> Oid | None:
    """The tip checked whole last, when the ledger still holds it and fsck itself put it
    there (its reflog says so: a fetch through a refspec naming it, `git clone --mirror`
    or a hand's `update-ref` moves it otherwise); else None, said in a note."""
    last = repo.tip(CHECKED)
    if last is not None and repo.noted(CHECKED, CHECKED_WHOLE) != last:
        report.notes.append(
            f"{CHECKED} names {last[:12]}, but fsck did not put it there: everything was "
            "checked again"
        )
        return None
    if last is None or last == tip or repo.is_ancestor(last, tip):
        return last
    report.notes.append(
        f"the tip checked whole last, {last[:12]}, is no longer in the ledger's history "
        "(rewound or rewritten): everything was checked again"
    )
    return None


def _check_window(report: Report, window: Window, config: LedgerConfig | None) -> None:
    """The checks of one fan-out folder's items and events."""
    _check_items(report, window.items, window.events, config)
    _check_ids(report, window)
    _check_identities(report, window.items, window.events)
    report.items += len(window.items)
    report.events += sum(len(e) for e in window.events.values())


def _check_items(
    report: Report,
    items: dict[ItemId, tuple[str, Item]],
    events: dict[ItemId, list[tuple[str, Event]]],
    config: LedgerConfig | None,
) -> None:
    roles = config.roles if config else Roles()
    clock = config.clock if config else None
    kept_out = frozenset(config.kept_out) if config else frozenset()
    every = sorted(set(items) | set(events))
    held = [i for i in every if i in items and i != LEDGER_ID]
    old = config is not None and config.format < 2  # from format 2: `_check_states`
    folded = dict(rulebook.fold_items(held, _events_of(events), roles, kept_out)) if old else {}
    shown = progress.reporter()
    for done, item_id in enumerate(every):
        shown.step("checking every item against its events", done, len(every))
        item_events = [event for _, event in events.get(item_id, [])]
        if item_id == LEDGER_ID:
            if old:
                _check_roles(report, item_events, config)
            continue
        if item_id not in items:
            if old and rulebook.of_no_item(item_events, kept_out):
                where = f"{EVENTS}/{ids.fanout(item_id)}/{item_id}"
                report.add(where, "fold", "events of no item")
            continue
        path, item = items[item_id]
        if not item_events:  # from format 2, the state breach of the commit that wrote it
            if old:
                report.add(path, "fold", "an item file with no events")
            continue
        if old:
            _check_fold(report, path, item, folded[item_id])
        _check_obligation(report, path, item)
        if clock is not None:
            for event_path, event in events[item_id]:
                if event.clock > clock:
                    report.add(
                        event_path, "clock", f"clock {event.clock} is above coop.yaml's {clock}"
                    )
    shown.step("checking every item against its events", len(every), len(every))


def _check_roles(report: Report, events: list[Event], config: LedgerConfig | None) -> None:
    """coop.yaml's roles and settings are the fold of the ledger's own events."""
    folded, refused = rulebook.fold_ledger(events, config.kept_out if config else ())
    roles = config.roles if config else Roles()
    if (set(folded.roles.owners), set(folded.roles.chiefs)) != (
        set(roles.owners),
        set(roles.chiefs),
    ):
        report.add("coop.yaml", "roles", "roles are not the fold of the ledger's role events")
    if config is not None and dict(folded.settings) != _known(config.settings):
        report.add("coop.yaml", "settings", "settings are not the fold of the ledger's events")
    for event, reason in refused:
        path = f"{EVENTS}/{ids.fanout(LEDGER_ID)}/{LEDGER_ID}/{event.clock:012d}-{event.id}.yaml"
        report.add(path, "roles", f"a change of the ledger the rules refuse: {reason}")


def _known(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The settings this gitcoop knows; a newer one's keys are not its to check."""
    return {k: v for k, v in settings.items() if k in SETTINGS}


def _events_of(
    events: dict[ItemId, list[tuple[str, Event]]],
) -> Callable[[ItemId], list[Event]]:
    """Another item's events, for the duplicate verdicts an item's fold judges against it."""
    return lambda item_id: [event for _, event in events.get(item_id, [])]


def _check_fold(report: Report, path: str, item: Item, folded: Item | None) -> None:
    """The item file is what its events fold to (`rulebook.fold_items`)."""
    if folded is None:
        report.add(path, "fold", "its events fold to no item (no accepted add)")
        return
    stored, expected = item.to_data(), folded.to_data()
    differ = sorted(k for k in stored.keys() | expected.keys() if stored.get(k) != expected.get(k))
    if differ:
        report.add(path, "fold", f"differs from the fold of its events in: {', '.join(differ)}")


def _check_obligation(report: Report, path: str, item: Item) -> None:
    held = lifecycle.held(item)
    if held and not item.owes:
        report.add(path, "obligation", f"{item.status} by {item.taken_by} but owes nothing")
    elif held and item.obligation is not None and item.obligation.holder != item.taken_by:
        report.add(
            path,
            "obligation",
            f"taken by {item.taken_by} but {item.obligation.holder} owes the outcome",
        )
    elif not held and item.owes:
        report.add(path, "obligation", f"{item.status}, yet an obligation is still pending")


def _check_ids(report: Report, window: Window) -> None:
    for pairs in window.events.values():  # an older random id is unique within its folder
        seen: dict[str, str] = {}
        for path, event in pairs:
            if event.id in seen:
                report.add(path, "ids", f"event id {event.id} is also used by {seen[event.id]}")
            seen[event.id] = path
    # ids sharing a random part share a fan-out folder: its listing holds them all
    by_random: dict[str, list[str]] = defaultdict(list)
    for name in window.listed:
        if name.endswith(".yaml"):
            by_random[ids.random_part(name[: -len(".yaml")])].append(name[: -len(".yaml")])
    for same in by_random.values():
        read = [i for i in same if i in window.items]
        if len(same) > 1 and read:
            path = f"{ITEMS}/{ids.fanout(same[0])}/{sorted(same)[0]}.yaml"
            report.add(path, "ids", f"ids collide: {', '.join(sorted(same))}")


def _check_identities(
    report: Report,
    items: dict[ItemId, tuple[str, Item]],
    events: dict[ItemId, list[tuple[str, Event]]],
) -> None:
    """Every name of a person is one that can sign a commit and be shown on a terminal."""
    named: list[tuple[str, str | None]] = []
    for path, event in (pair for pairs in events.values() for pair in pairs):
        named.append((path, event.actor))
    for path, item in items.values():
        holders = (item.obligation, item.previous_obligation)
        people = (item.created_by, item.taken_by, item.closed_by)
        named += [(path, who) for who in people]
        named += [(path, ob.holder) for ob in holders if ob is not None]
    for path, who in named:
        problem = ids.identity_problem(who) if who is not None else None
        if problem:
            report.add(path, "identity", problem)


def _check_history(report: Report, repo: Repo, commits: list[CommitInfo]) -> None:
    """Between each commit and its first parent no event file is dropped or changed, a
    merge adds none of its own, and every event added carries a clock above its parents'
    (H5): a commit's changes are listed one fan-out folder at a time, so that a window of
    one folder's is held, not a commit's."""
    clocks: dict[Oid, int | None] = {}
    report.commits = len(commits)
    shown = progress.reporter()
    for done, info in enumerate(commits):
        shown.step("checking the ledger's history", done, len(commits))
        commit, parents = info.oid, list(info.parents)
        first = parents[0] if parents else None
        floor, after = _clocks_around(report, repo, commit, parents, clocks)
        try:
            folders = _changed_folders(repo, first, commit)
        except BadLedger as breach:  # a listing git could not have written: named here
            _breach(report, "history", breach, commit)
            continue
        for fan in folders:  # one folder's breach hides none of another's
            try:
                deltas = (  # "": events/ is not a folder on one side, and compared whole
                    repo.changes_in(first, commit, EVENTS, fan)
                    if fan
                    else repo.changes(first, commit, EVENTS)
                )
            except BadLedger as breach:
                _breach(report, "history", breach, commit)
                continue
            _check_deltas(report, repo, info, deltas, floor, after)
    shown.step("checking the ledger's history", len(commits), len(commits))


def _breach(report: Report, rule: str, breach: BadLedger, commit: Oid, aside: bool = False) -> None:
    """A refusal met checking `commit`, reported at its path and naming the commit ("PATH:
    what is wrong"; a leading "commit X: " naming this commit is dropped, and a message
    naming no path is the ledger's)."""
    message = breach.message.removeprefix(f"commit {commit[:12]}: ")
    path, _, what = message.partition(": ")
    if not what or " " in path:
        path, what = REF, message
    report.add(path, rule, f"in commit {commit[:12]}{' (aside)' if aside else ''}: {what}")


def _check_deltas(
    report: Report,
    repo: Repo,
    info: CommitInfo,
    deltas: list[Delta],
    floor: int,
    after: int | None,
) -> None:
    """A commit's changes in one folder: only added event files, none of a merge's own,
    each with a clock above its parents' (H5)."""
    commit, parents = info.oid, info.parents
    first = parents[0] if parents else None
    for delta in deltas:  # a merge's state is its first parent's plus what it adds (H5)
        if delta.status != "added":
            report.add(
                delta.path, "history", f"event file {delta.status} between {first} and {commit}"
            )
    added = [d for d in deltas if d.status == "added"]
    if len(parents) > 1:  # what a merge adds is its second parent's, as it is
        added = [d for d in added if repo.blob_at(parents[1], d.path) != d.oid]
        for delta in added:
            report.add(delta.path, "history", f"added by the merge {commit} itself")
    _check_new_clocks(report, commit, sorted(d.path for d in added), floor, after)


def _changed_folders(repo: Repo, first: Oid | None, commit: Oid) -> list[str]:
    """The names under events/ whose entries differ between the two commits, in mode or
    in id, sorted (`windows.changed_names`); [""] when events/ is not a folder on one
    side or the other."""
    was, now = top_entry(repo, first, EVENTS), top_entry(repo, commit, EVENTS)
    if any(entry is not None and entry.filemode != MODE_TREE for entry in (was, now)):
        return [""]
    if now is not None:
        repo.check_written(now.id, EVENTS)  # as `changes` reads it: BadLedger unless git's
    return sorted(changed_names(repo, was, now, EVENTS))


def _clocks_around(
    report: Report, repo: Repo, commit: Oid, parents: list[Oid], clocks: dict[Oid, int | None]
) -> tuple[int, int | None]:
    """The largest clock of a commit's parents and its own clock; a clock that went back
    from its first parent's is a breach."""
    before = [_clock(repo, p, clocks) for p in parents]
    floor = max((c for c in before if c is not None), default=0)
    after = _clock(repo, commit, clocks)
    if after is not None and before and before[0] is not None and after < before[0]:
        report.add("coop.yaml", "clock", f"clock went back from {before[0]} to {after} in {commit}")
    return floor, after


def _check_new_clocks(
    report: Report, commit: Oid, added: list[str], floor: int, after: int | None
) -> None:
    for path in added:
        match = EVENT_FILE_RE.match(path.rsplit("/", 1)[-1])
        if match is None:
            continue  # a bad name; the layout check reports it where it matters
        value = int(match.group(1))
        if value <= floor:
            report.add(path, "clock", f"added in {commit} with clock {value}, not above {floor}")
        elif after is not None and value > after:
            report.add(path, "clock", f"added in {commit} with clock {value} above coop.yaml's")


def _check_states(
    report: Report, repo: Repo, tip: Oid, commits: list[CommitInfo], judge_tip: bool = True
) -> None:
    """Each commit on the first-parent chain not checked as a state before (of `commits`,
    and those the tip checked whole last held only aside, `_unchecked_chain`) holds
    exactly its first parent's state plus the events it adds (H1-H3); every other commit
    of `commits`, which only a merge's second parent reaches, passes on its own what a
    fetch checks of such a commit (H5-H7). The format-1 part of the history, when checked
    from the root, is checked at its last commit as format 1 was. Each commit's events
    are read for it alone: a window of one commit's."""
    fresh = {info.oid for info in commits}
    chain = _unchecked_chain(repo, tip, fresh, report.since)
    everything = _parents_first(repo, chain, fresh, commits)
    on_chain = set(chain)
    if judge_tip and chain and _in_windows(report, repo, everything, on_chain):
        return
    following = dict(itertools.pairwise(chain))  # each chain commit's next
    history = History(repo, Reader(repo))
    shown = progress.reporter()
    for done, info in enumerate(everything):
        shown.step("checking each commit's state", done, len(everything))
        if info.oid == tip and not judge_tip:
            continue
        history.reader = Reader(repo)
        if info.oid in on_chain:
            _check_state(report, repo, history, info, following.get(info.oid))
        else:
            _check_aside(report, history, info)
    shown.step("checking each commit's state", len(everything), len(everything))


def _parents_first(
    repo: Repo, chain: list[Oid], fresh: set[Oid], commits: list[CommitInfo]
) -> list[CommitInfo]:
    """The commits to check, parents first: the chain's commits the tip checked whole last
    held aside (below the fresh ones), then the fresh (`commits`, parents first)."""
    held = [
        CommitInfo(c, tuple(repo.commit_parents(c)), repo.commit_author(c) or "")
        for c in chain
        if c not in fresh
    ]
    return [*held, *commits]


def _check_aside(report: Report, history: History, info: CommitInfo) -> None:
    """A commit only a merge's second parent reaches: what a fetch checks of it on its
    own (H5-H7), its breach named "(aside)"."""
    try:
        history.check(info)
    except BadLedger as breach:
        _breach(report, "history", breach, info.oid, aside=True)


def _check_state(
    report: Report, repo: Repo, history: History, info: CommitInfo, following: Oid | None
) -> None:
    """A commit of the chain holds its first parent's state plus the events it adds; its
    events and the ledger changes refused where they joined are noted. A format-1 commit
    is checked as format 1 was, at the last format-1 commit of a check from the root
    (`following`: the chain's next commit, None at its end)."""
    commit, reader = info.oid, history.reader
    try:
        after = Snapshot(repo, commit)
        if after.config.format < 2:
            if report.since is None and _format_of(repo, following) >= 2:
                format1.check_tip(reader, None, commit, {})
            return
        history.check(info)  # what every fetch checks of a commit (H5-H7): content ids too
        joined = joining.join(repo, reader, info.parents[0] if info.parents else None, commit)
        joining.holds_state(joined, after)
    except BadLedger as breach:
        _breach(report, "state", breach, commit)
        return
    for event in joined.events:
        why = joined.unsigned.get(event.id)
        if why is not None:
            report.notes.append(
                f"commit {commit[:12]}: event {event.id} by {event.actor} was {why}"
            )
    for event, why in joined.state.refused:  # a change of roles, settings or keys
        if event.id not in joined.unsigned:
            report.notes.append(
                f"commit {commit[:12]}: the ledger change {event.id} by {event.actor} "
                f"was refused where it joined: {why}"
            )


def _unchecked_chain(repo: Repo, tip: Oid, fresh: set[Oid], since: Oid | None) -> list[Oid]:
    """The commits of `tip`'s first-parent chain, oldest first, never checked as states:
    the `fresh` ones, and below them those the tip checked whole last (`since`) held only
    aside, through a merge's second parent, back to where the chain meets that tip's own
    first-parent chain, whose every state was checked (H3, as a fetch's `held_aside`)."""
    chain = list(itertools.takewhile(fresh.__contains__, repo.first_parents(tip)))
    below = repo.commit_parents(chain[-1]) if chain else []
    at = below[0] if below else None
    if since is not None and at is not None and at != since:
        checked = set(repo.first_parents(since))  # rare: a side commit became a first parent
        while at is not None and at not in checked:
            chain.append(at)
            parents = repo.commit_parents(at)
            at = parents[0] if parents else None
    chain.reverse()
    return chain


def _in_windows(report: Report, repo: Repo, commits: list[CommitInfo], on_chain: set[Oid]) -> bool:
    """Whether the commits pass, checked a fan-out folder at a time as a fetch is
    (`boundary/windows.py`): those of the chain hold their states, the others pass on
    their own; the chain's refused changes of the ledger's own are noted. False when it
    cannot be (format 1, signed writes required) or holds a breach, which the check
    commit by commit then lists, each one."""
    chain = [info for info in commits if info.oid in on_chain]
    history = History(repo, Reader(repo))
    refused: list[tuple[Oid, Event, str]] = []
    try:
        if not windows.streamable(repo, history, chain):
            return False
        windows.check(repo, history, commits, chain, None, refused=refused)  # keeps no file
    except BadLedger:
        return False
    for commit, event, why in refused:
        report.notes.append(
            f"commit {commit[:12]}: the ledger change {event.id} by {event.actor} "
            f"was refused where it joined: {why}"
        )
    return True


def _format_of(repo: Repo, commit: Oid | None) -> int:
    """The format of `commit` (2 for None: nothing comes after)."""
    if commit is None:
        return 2
    try:
        return Snapshot(repo, commit).config.format
    except BadLedger:
        return 2


def _clock(repo: Repo, commit: Oid, clocks: dict[Oid, int | None]) -> int | None:
    if commit not in clocks:
        try:
            clocks[commit] = Snapshot(repo, commit).config.clock
        except BadLedger:
            clocks[commit] = None  # reported by the survey when it is the tip
    return clocks[commit]


def summary(report: Report) -> str:
    scope = f"all {report.commits}" if report.since is None else f"the {report.commits} new"
    after = f" since {report.since[:12]}" if report.since is not None else ""
    return (
        f"{REF} at {report.tip[:12]}: {report.items} items, {report.events} events, "
        f"{scope} commits checked{after}"
    )
