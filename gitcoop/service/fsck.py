"""`git coop fsck`: check every invariant of the ledger format (DESIGN.md §1-§3).

The tip is surveyed file by file (layout, names, modes, parsing), then its
meaning is checked (clocks, ids, obligations, identities), then history:
between each commit and its parents no event file is removed or changed, new
events carry clocks above their parents', and each commit on the first-parent
chain holds exactly its first parent's state plus the events it adds
(`store/boundary/joining.py`, the rule every fetch is checked by: H1-H3 of
docs/hardening.md). History is checked on the most recent commits unless
`full`. A format-1 ledger (or the format-1 part of a history) is checked as
format 1 was: every item the fold of its events.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from gitcoop.domain import ids, lifecycle, progress, rulebook
from gitcoop.domain.frozen import frozen
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Event, Item, LedgerConfig, Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.settings import SETTINGS
from gitcoop.errors import BadLedger, CoopError, NoLedger
from gitcoop.service.context import Context
from gitcoop.store.boundary import format1, joining
from gitcoop.store.boundary.history import History, Reader
from gitcoop.store.layout import EVENT_FILE_RE, EVENTS, REF
from gitcoop.store.repository import CommitInfo, Oid, Repo
from gitcoop.store.snapshot import Snapshot
from gitcoop.store.survey import survey

RECENT = 50  # commits whose history is checked without --full


@frozen
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
    """Every breach of the ledger's invariants; NoLedger/BadLedger when it cannot be read."""
    repo = ctx.repo()
    tip = repo.tip()
    if tip is None:
        raise NoLedger("no ledger in this repository yet — run: git coop init")
    report = Report(tip, full)
    found = survey(repo, tip)
    for problem in found.problems:
        report.add(problem.path, problem.rule, problem.message)
    _check_items(report, found.items, found.events, found.config)
    _check_ids(report, found.items, found.events)
    _check_identities(report, found.items, found.events, found.config)
    _check_history(report, repo, tip, None if full else RECENT)
    # a tip the survey found unreadable cannot be judged: its breaches are listed already
    _check_states(report, repo, tip, None if full else RECENT, judge_tip=not found.problems)
    report.items, report.events = len(found.items), sum(len(e) for e in found.events.values())
    return report


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
        if not item_events:
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


def _check_ids(
    report: Report,
    items: dict[ItemId, tuple[str, Item]],
    events: dict[ItemId, list[tuple[str, Event]]],
) -> None:
    for pairs in events.values():  # an older random id is unique within its folder (H5)
        seen: dict[str, str] = {}
        for path, event in pairs:
            if event.id in seen:
                report.add(path, "ids", f"event id {event.id} is also used by {seen[event.id]}")
            seen[event.id] = path
    by_random: dict[str, list[str]] = defaultdict(list)
    for item_id in items:
        by_random[ids.random_part(item_id)].append(item_id)
    for same in by_random.values():
        if len(same) > 1:
            report.add(items[ItemId(same[0])][0], "ids", f"ids collide: {', '.join(sorted(same))}")


def _check_identities(
    report: Report,
    items: dict[ItemId, tuple[str, Item]],
    events: dict[ItemId, list[tuple[str, Event]]],
    config: LedgerConfig | None,
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
    if config is not None:
        named += [("coop.yaml", who) for who in (*config.roles.owners, *config.roles.chiefs)]
    for path, who in named:
        problem = ids.identity_problem(who) if who is not None else None
        if problem:
            report.add(path, "identity", problem)


def _check_history(report: Report, repo: Repo, tip: Oid, limit: int | None) -> None:
    clocks: dict[Oid, int | None] = {}
    commits = repo.history(tip, limit)
    report.commits = len(commits)
    shown = progress.reporter()
    for done, commit in enumerate(commits):
        shown.step("checking the ledger's history", done, len(commits))
        parents = repo.commit_parents(commit)
        first = parents[0] if parents else None
        deltas = repo.changes(first, commit, EVENTS)
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
        _check_new_clocks(report, repo, commit, parents, sorted(d.path for d in added), clocks)
    shown.step("checking the ledger's history", len(commits), len(commits))


def _check_new_clocks(
    report: Report,
    repo: Repo,
    commit: Oid,
    parents: list[Oid],
    added: list[str],
    clocks: dict[Oid, int | None],
) -> None:
    before = [_clock(repo, p, clocks) for p in parents]
    floor = max((c for c in before if c is not None), default=0)
    after = _clock(repo, commit, clocks)
    if after is not None and before and before[0] is not None and after < before[0]:
        report.add("coop.yaml", "clock", f"clock went back from {before[0]} to {after} in {commit}")
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
    report: Report, repo: Repo, tip: Oid, limit: int | None, judge_tip: bool = True
) -> None:
    """Each commit on the first-parent chain (the last `limit`, or all) holds exactly its
    first parent's state plus the events it adds (H1-H3); the format-1 part of the
    history, with `limit` None, is checked at its last commit as format 1 was."""
    chain = list(itertools.islice(repo.first_parents(tip), limit))
    chain.reverse()
    reader = Reader(repo)
    history = History(repo, reader)
    shown = progress.reporter()
    for done, commit in enumerate(chain):
        shown.step("checking each commit's state", done, len(chain))
        if commit == tip and not judge_tip:
            continue
        try:
            after = Snapshot(repo, commit)
            if after.config.format < 2:
                if limit is None and (commit == tip or _format(repo, chain, done + 1) >= 2):
                    format1.check_tip(reader, None, commit, {})
                continue
            parents = repo.commit_parents(commit)
            # what every fetch checks of a commit (H5-H7): content ids among the rest
            author = repo.commit_author(commit) or ""
            history.check(CommitInfo(commit, tuple(parents), author))
            joined = joining.join(repo, reader, parents[0] if parents else None, commit)
            joining.holds_state(joined, after)
        except BadLedger as breach:  # "PATH: what is wrong", named here by its commit too
            path, _, what = breach.message.partition(": ")
            if not what or " " in path:
                path, what = REF, breach.message
            report.add(path, "state", f"in commit {commit[:12]}: {what}")
            continue
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
    shown.step("checking each commit's state", len(chain), len(chain))


def _format(repo: Repo, chain: list[Oid], at: int) -> int:
    """The format of the commit at `chain[at]` (2 past its end: none comes after)."""
    if at >= len(chain):
        return 2
    try:
        return Snapshot(repo, chain[at]).config.format
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
    scope = (
        f"all {report.commits}" if report.full or report.commits < RECENT else f"the last {RECENT}"
    )
    return (
        f"{REF} at {report.tip[:12]}: {report.items} items, {report.events} events, "
        f"{scope} commits checked"
    )
