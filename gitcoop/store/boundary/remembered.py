"""The remote's history only grows (H4): what this clone took in stays first.

Each clone remembers the last tip of each remote's ledger it took in
(`refs/coop/taken/REMOTE`, which no fetch refspec moves). A fetched tip must
keep that commit on its first-parent chain: a tip forced back to an older
commit, a deleted ref, or a merge that put it on a second parent would let
later claims overrule ones the remote had confirmed, so none is taken in
silently (`RemoteRewritten`, exit 10).

Two kinds are told apart. A tip that lost the commit (forced back, deleted,
replaced) lost history, and a clone that holds it puts it back (`sync`). A
tip that holds it only aside, on a second parent, lost nothing but the order,
and no clone can tell from the graph whether that merge is a repair of an
earlier rewrite or an attack: the clone stops, and a person decides (take it
with `--accept-rewrite`, or put this clone's order back with `--put-back`).
A format-1 tip, written by the previous release (whose merges had the local
side first), need only hold the commit.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from gitcoop.errors import ChangedUnderWrite, EnvironmentFailed, RemoteRewritten
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger.layout import taken_ref
from gitcoop.store.ledger.repo import Repo

TAKEN = taken_ref("")  # the folder of every remote's remembered tip


def remembered(repo: Repo, remote: str) -> Oid | None:
    return repo.tip(taken_ref(remote))


def remember(repo: Repo, remote: str, tip: Oid) -> None:
    """Record `tip` as the last of `remote`'s tips taken in: forward only, along its
    first-parent chain (another process of this clone may have taken a later tip in
    already); a lost race with one recording a tip of the same chain is left alone."""
    old = remembered(repo, remote)
    if old == tip or (old is not None and not keeps(repo, tip, old)):
        return
    # a repository that cannot be written now (read-only, full) remembers at its next fetch;
    # what was pushed or taken in is not undone for it, nor said not to have happened
    with contextlib.suppress(ChangedUnderWrite, EnvironmentFailed), repo.shared_modes():
        repo.swap(old, tip, f"took in {remote}", ref=taken_ref(remote))


def forget(repo: Repo, remote: str) -> None:
    repo.delete_ref(taken_ref(remote))


@contextlib.contextmanager
def set_aside(repo: Repo, remote: str, accepting: bool) -> Iterator[None]:
    """While `accepting` a rewrite, remember no tip of `remote`; a block that fails before
    it took a new tip in remembers the old one again (a refused rewrite forgets nothing)."""
    old = remembered(repo, remote) if accepting else None
    if old is None:
        yield
        return
    forget(repo, remote)
    try:
        yield
    except BaseException:
        if remembered(repo, remote) is None:
            remember(repo, remote, old)
        raise


def keeps(repo: Repo, tip: Oid, commit: Oid) -> bool:
    """Whether `commit` is on `tip`'s first-parent chain; costs what came after it."""
    if tip == commit:
        return True
    if not repo.is_ancestor(commit, tip):
        return False
    parents = {info.oid: info.parents for info in repo.commits_since(tip, commit)}
    at: Oid | None = tip
    while at != commit and at in parents:
        firsts = parents[at]
        at = firsts[0] if firsts else None
    return at == commit


class HistoryLost(RemoteRewritten):
    """The remote's tip does not hold the commit this clone took in last at all."""


class HistoryAside(RemoteRewritten):
    """The remote's tip holds it, but not first in its history."""


def check(repo: Repo, remote: str, theirs: Oid | None, last: Oid | None) -> None:
    """HistoryLost or HistoryAside unless `theirs` (None: the remote has no ledger) keeps
    `last` on its first-parent chain: the tip this clone had taken in from `remote` when
    the fetch of `theirs` began (read before it: another process of this clone may take
    a later one in meanwhile, and `theirs` is then only older, not rewritten)."""
    if last is None or (theirs is not None and keeps(repo, theirs, last)):
        return
    if theirs is None or not repo.is_ancestor(last, theirs):
        raise HistoryLost(rewritten(repo, remote, last, theirs))
    from gitcoop.store.ledger.snapshot import Snapshot

    if Snapshot(repo, theirs).config.format < 2:
        return  # the previous release merged with the local side first
    raise HistoryAside(rewritten(repo, remote, last, theirs))


def rewritten(repo: Repo, remote: str, last: Oid, theirs: Oid | None) -> str:
    """What happened to `remote`'s ledger, in one line."""
    if theirs is None:
        what = "was deleted"
    elif repo.is_ancestor(theirs, last):
        what = f"was forced back to the older {theirs[:12]}{_by(repo, theirs)}"
    elif repo.is_ancestor(last, theirs):
        what = f"moved to {theirs[:12]}{_by(repo, theirs)}, which holds it only aside"
    else:
        what = f"was replaced by {theirs[:12]}{_by(repo, theirs)}"
    return (
        f"{remote}'s ledger was rewritten: it no longer holds {last[:12]}, the tip this "
        f"clone took in last, first in its history ({what})"
    )


def _by(repo: Repo, commit: Oid) -> str:
    who = repo.commit_author(commit)
    return f", committed by {who}" if who else ""
