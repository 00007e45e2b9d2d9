"""The trust boundary: everything a peer can push is judged here, by the rules of one page.

docs/hardening.md, "The boundary on one page", states the model and its eight
rules; each check here names the rule it enforces:

    remembered.py   H4  the remote's history only grows: what this clone took
                        in last stays on the fetched tip's first-parent chain
    history.py      H5 H6 H7  each fetched commit once: at most two parents,
                        events never dropped or rewritten, none added by a
                        merge, each added one named, parsed, bounded, by the
                        commit's author, its clock above its parents', its id
                        its content's (format 2); one root
    tree.py         H7  every listing read is as the layout and git allow
    joining.py      H1 H2 H3  each commit on the fetched first-parent chain
                        holds exactly its first parent's state plus what it
                        adds, judged where it joins (keys and roles of the
                        first parent's state)
    format1.py      format-1 history, checked at its last commit as format 1 did
    signatures.py   git's verdict on the signatures H2 asks about

`check` runs them on a fetch; `store/merge.py` calls it before anything else
reads the remote side, and writes its merges with `joining.join`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from gitcoop.domain.ids import ItemId
from gitcoop.errors import BadLedger, FetchedLedgerRefused
from gitcoop.store.boundary import format1, joining
from gitcoop.store.boundary.history import History, Reader, check_one_root
from gitcoop.store.boundary.tree import changed

__all__ = ["Arrival", "changed", "check", "first_parent_chain"]
from gitcoop.store.repository import CommitInfo, Oid, Repo
from gitcoop.store.snapshot import Known, Snapshot


@dataclass
class Arrival:
    """A fetched ledger that passed: the items it changed since the local tip, the events
    parsed, and each checked item file's data by (item id, blob id), for the read cache."""

    touched: frozenset[ItemId]
    reader: Reader
    checked: Known = field(default_factory=dict)


def check(repo: Repo, remote: str, ours: Oid | None, theirs: Oid, related: bool) -> Arrival:
    """Check the commits of `theirs` that `ours` lacks; FetchedLedgerRefused names the commit
    and path, and nothing is written. `related`: the two share history."""
    where = f"remote {remote}: "
    reader = Reader(repo)
    checked: Known = {}
    try:
        commits = repo.commits_since(theirs, ours)
        check_one_root(commits, related)
        history = History(repo, reader)
        for info in commits:
            history.check(info)
        chain = first_parent_chain(commits, theirs)
        old = [info for info in chain if history.format(info.oid) < 2]
        if old:  # the format-1 part, checked at its last commit
            last = old[-1].oid
            base = repo.merge_base(ours, last) if ours is not None else None
            format1.check_tip(reader, base, last, checked, where)
        joining.check_chain(repo, reader, chain[len(old) :], checked, where)
        touched = changed(Snapshot(repo, ours) if ours else None, Snapshot(repo, theirs), where)
    except BadLedger as error:
        text = error.message.removeprefix(where)
        raise FetchedLedgerRefused(f"{where}{text} — the local ledger is unchanged") from None
    return Arrival(frozenset(touched), reader, checked)


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
