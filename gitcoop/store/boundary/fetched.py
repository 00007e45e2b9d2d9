"""What a fetch brought, judged by every rule of the page (docs/hardening.md, H1-H8)."""

from __future__ import annotations

from dataclasses import dataclass, field

from gitcoop.domain import progress
from gitcoop.errors import BadLedger, FetchedLedgerRefused
from gitcoop.store.boundary import format1, joining, remembered, windows
from gitcoop.store.boundary.history import History, Reader, check_one_root
from gitcoop.store.git.commits import CommitInfo
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger.layout import EVENTS
from gitcoop.store.ledger.repo import Repo
from gitcoop.store.ledger.snapshot import CheckedFiles


@dataclass
class Arrival:
    """A fetched ledger that passed: the events parsed, and checked item files' data by
    (item id, blob id), for the read cache."""

    reader: Reader
    checked: CheckedFiles = field(default_factory=dict)


def check(repo: Repo, remote: str, ours: Oid | None, theirs: Oid, base: Oid | None) -> Arrival:
    """Check the commits of `theirs` that `ours` lacks; FetchedLedgerRefused names the commit
    and path, and nothing is written. `base`: the two's merge base (None: unrelated)."""
    where, label = f"remote {remote}: ", f"checking what arrived from {remote}"
    reader = Reader(repo)
    checked: CheckedFiles = {}
    try:
        commits = repo.commits_since(theirs, ours)
        check_one_root(commits, base is not None)
        history = History(repo, reader)
        chain = first_parent_chain(commits, theirs)
        below = chain[0].parents[0] if chain and chain[0].parents else None
        aside, meets = held_aside(repo, ours, below if chain else theirs)
        if not aside and windows.streamable(repo, history, chain):
            windows.check(repo, history, commits, chain, checked, where, label=label)
        else:
            _whole_commits(
                repo, history, commits, aside + chain, meets, ours, checked, where, label
            )
        if ours is not None and base == ours:  # a fast-forward loses no event of this clone's
            _holds_every_event(repo, ours, theirs)
    except BadLedger as error:
        text = error.message.removeprefix(where)
        raise FetchedLedgerRefused(f"{where}{text} — the local ledger is unchanged") from None
    return Arrival(reader, checked)


def _whole_commits(
    repo: Repo,
    history: History,
    commits: list[CommitInfo],
    chain: list[CommitInfo],
    meets: Oid | None,
    ours: Oid | None,
    checked: CheckedFiles,
    where: str,
    label: str,
) -> None:
    """The check a commit at a time, for a history with a format-1 part, commits this
    clone held aside, or signed writes required (`windows.streamable`)."""
    reader = history.reader
    shown, checking = progress.reporter(), label
    for done, info in enumerate(commits):
        shown.step(checking, done, len(commits))
        history.check(info)
    shown.step(checking, len(commits), len(commits))
    old = [info for info in chain if history.format(info.oid) < 2]
    if old:  # the format-1 part, checked at its last commit as format 1 was
        _format_1_joins(repo, history, ours, old[0])
        format1.check_tip(reader, meets, old[-1].oid, checked, where)
    joining.check_chain(repo, reader, chain[len(old) :], checked, where)


def _holds_every_event(repo: Repo, ours: Oid, theirs: Oid) -> None:
    """BadLedger unless `theirs` holds every event file of `ours` as it is (H5): a merge
    is checked against its first parent only, so a history can hold this clone's tip
    aside without its events; the ledger never moves to it."""
    for delta in repo.changes(ours, theirs, EVENTS, None):
        if delta.status != "added":
            raise BadLedger(
                f"commit {theirs[:12]}: {delta.path}: an event of this clone's ledger is "
                f"{delta.status} there — events are never dropped or rewritten"
            )


def held_aside(repo: Repo, ours: Oid | None, at: Oid | None) -> tuple[list[CommitInfo], Oid | None]:
    """The commits of `at`'s first-parent chain, oldest first, that this clone holds but
    never checked as states (H3): those it took in only aside, through a merge's second
    parent, before the chain meets this clone's own first-parent chain, whose every
    state was checked or written here; and the commit where it meets it (None: never)."""
    if ours is None or at is None:
        return [], None
    if remembered.keeps(repo, ours, at):
        return [], at
    checked = set(repo.first_parents(ours))  # rare: a side commit became a first parent
    aside = []
    while at is not None and at not in checked:
        parents = tuple(repo.commit_parents(at))
        aside.append(CommitInfo(at, parents, repo.commit_author(at) or ""))
        at = parents[0] if parents else None
    aside.reverse()
    return aside, at


def _format_1_joins(repo: Repo, history: History, ours: Oid | None, first: CommitInfo) -> None:
    """Format 1 is history once this clone has taken in format 2 (format 1's rules believed
    what a coop.yaml kept out): a format-1 commit joins a clone at format 2 only while
    every tip it took in from any remote was format 1 (a team still moving over; the
    previous release recorded none)."""
    if ours is None or history.format(ours) < 2:
        return
    for _, taken in repo.refs_under(remembered.TAKEN):
        if history.format(taken) >= 2:
            raise BadLedger(
                f"commit {first.oid[:12]}: a format-1 commit joining a ledger this clone holds "
                "at format 2, after it took in format 2 — format 1 is history here"
            )


def first_parent_chain(commits: list[CommitInfo], tip: Oid) -> list[CommitInfo]:
    """Of `commits` (parents first), those on `tip`'s first-parent chain, oldest first."""
    by_oid = {info.oid: info for info in commits}
    chain = []
    at: Oid | None = tip
    while at is not None and at in by_oid:
        info = by_oid[at]
        chain.append(info)
        at = info.parents[0] if info.parents else None
    chain.reverse()
    return chain
