"""Sharing the ledger with a remote: setup, pull, push, and sync (DESIGN.md §6).

sync = fetch -> merge -> push. A push the remote rejects (someone pushed
first) fetches, merges and pushes again, a bounded number of times.

The remote's history only grows (docs/hardening.md, H4): when it no longer
holds the tip this clone took in last first in its history, sync puts this
clone's history back first (a merge with the local tip as first parent, or the
local tip itself) and pushes it, saying what happened; `accept_rewrite` takes
the remote's history as it now is instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gitcoop.domain.reconcile import Notice
from gitcoop.errors import ChangedUnderWrite, NoLedger, Refused, RemoteRewritten
from gitcoop.service.context import (
    CLAIMS_KEY,
    Context,
    checked_claims_remote,
    claims_remote,
    fsync_wanted,
)
from gitcoop.service.signing import merge_sign
from gitcoop.store.boundary import remembered
from gitcoop.store.ledger import transport
from gitcoop.store.repository import Oid, Repo

if TYPE_CHECKING:
    from gitcoop.store.fast.cache_rows import Row

MAX_ATTEMPTS = 5


@dataclass
class SyncReport:
    """What one pull, push or sync did, and the conflicts it brought to the actor."""

    remote: str
    merged: str = "none"  # the merge's kind; "none" when the remote has no ledger
    pushed: bool = False
    attempts: int = 0
    tip: Oid | None = None
    notices: list[Notice] = field(default_factory=list)
    unsigned: list[str] = field(default_factory=list)  # events refused for want of a signature
    rewritten: str | None = None  # what happened to the remote's history, when it was rewritten
    # the last merge's open rows with conflicts, and the tip they are of (the notices read them)
    conflicted: tuple[Oid, tuple[Row, ...]] | None = field(default=None, repr=False)

    @property
    def lost(self) -> list[Notice]:
        """The acting person's own events the merge's replay refused."""
        return [n for n in self.notices if n.mine]


def setup_remote(ctx: Context, remote: str) -> tuple[bool, str | None]:
    """Make plain `git fetch REMOTE` bring the ledger too: True when the refspec was added,
    and the refspec. None in a partial clone, where a plain fetch would bring the ledger
    without its blobs (gitcoop's own fetch brings it whole): none is set there."""
    repo = ctx.repo()
    transport.check_remote(repo, remote)
    refspec = transport.fetch_refspec(remote)
    key = f"remote.{remote}.fetch"
    repo.remove_config_value(key, transport.exact_refspec(remote))  # an earlier setup's
    if transport.is_partial(repo, remote):
        repo.remove_config_value(key, refspec)
        return False, None
    if refspec in repo.config_values(key):
        return False, refspec
    repo.add_config_value(key, refspec)
    return True, refspec


def pull(ctx: Context, remote: str | None, accept_rewrite: bool = False) -> SyncReport:
    """Fetch the remote's ledger and merge it into the local one (None: `_open` says)."""
    repo, actor, remote = _open(ctx, remote)
    start = repo.tip()
    report = SyncReport(remote, tip=start)
    with remembered.set_aside(repo, remote, accept_rewrite):
        _fetch_and_merge(ctx, repo, actor, report)
    if report.tip is None:
        raise NoLedger(f"neither this clone nor {remote} has a ledger — run: git coop init")
    return _told(repo, report, actor, start)


def push(ctx: Context, remote: str | None) -> SyncReport:
    """Offer the local ledger to the remote; refused when the remote has events we lack."""
    repo, _, remote = _open(ctx, remote)
    tip = repo.tip()
    if tip is None:
        raise NoLedger("no ledger in this repository yet — run: git coop init")
    pushed = transport.push(repo, remote, tip)
    if not pushed.accepted:
        raise Refused(
            f"{remote} has ledger events this clone lacks ({pushed.detail}) — run: git coop sync"
        )
    remembered.remember(repo, remote, tip)  # what the remote holds now (H4)
    return SyncReport(remote, pushed=True, attempts=1, tip=tip)


def sync(
    ctx: Context, remote: str | None, accept_rewrite: bool = False, put_back: bool = False
) -> SyncReport:
    """Fetch, merge, push; a rejected push starts again, up to MAX_ATTEMPTS times.

    `accept_rewrite` takes a rewritten remote's history as it is; `put_back` puts this
    clone's history back first even over a remote that holds it aside (H4)."""
    repo, actor, remote = _open(ctx, remote)
    mode = "always" if put_back else "lost"
    start = repo.tip()
    report = SyncReport(remote, tip=start)
    detail = ""
    while report.attempts < MAX_ATTEMPTS:
        report.attempts += 1
        with remembered.set_aside(repo, remote, accept_rewrite and report.attempts == 1):
            theirs = _fetch_and_merge(ctx, repo, actor, report, put_back=mode)
        if report.tip is None:
            raise NoLedger(f"neither this clone nor {remote} has a ledger — run: git coop init")
        if report.tip == theirs:
            return _told(repo, report, actor, start)
        pushed = transport.push_leased(repo, remote, report.tip, theirs)
        if pushed.accepted:
            report.pushed = True
            remembered.remember(repo, remote, report.tip)
            return _told(repo, report, actor, start)
        detail = pushed.detail
    # what the merges so far decided stays merged: tell its loser now, since the next sync
    # starts from it and finds nothing new to tell
    lost = _told(repo, report, actor, start).lost
    told = (
        f"; meanwhile {len(lost)} of your own events lost on merge "
        f"({', '.join(sorted({n.label or n.item for n in lost}))}): git coop list --mine"
        if lost
        else ""
    )
    raise ChangedUnderWrite(
        f"gave up after {MAX_ATTEMPTS} attempts: {remote} kept moving while this clone "
        f"pushed ({detail}); the local ledger holds everything merged so far{told} — "
        "run git coop sync again"
    )


def _open(ctx: Context, remote: str | None) -> tuple[Repo, str, str]:
    """The repository, who acts, and the remote: the one named, else the one that decides
    claims (`git config coop.claims`, checked there), else origin."""
    repo = ctx.repo()
    claims = None if remote else checked_claims_remote(repo)
    remote = remote or claims or "origin"
    if claims is None:
        transport.check_remote(repo, remote)
    return repo, ctx.who(repo), remote


def _prepare() -> None:
    """What the merge and its notices need, loaded while git fetches, not before it starts
    (~6 ms of modules) nor after it ends (the lock's, ~12 ms)."""
    from gitcoop.service import notices  # noqa: F401
    from gitcoop.store.ledger import merge

    merge.prepare()


def _put_back(
    ctx: Context,
    repo: Repo,
    actor: str,
    report: SyncReport,
    rewrite: RemoteRewritten,
    theirs: Oid | None,
) -> None:
    """The remote lost the history this clone took in (H4): put this clone's back first,
    over what the remote now holds (`theirs`; None: no ledger), for the push that
    follows. RemoteRewritten (exit 10) when this clone cannot."""
    remote = report.remote
    ours = repo.tip()
    last = remembered.remembered(repo, remote)
    if ours is None or last is None or not remembered.keeps(repo, ours, last):
        raise RemoteRewritten(
            f"{rewrite.message} — this clone does not hold that history to put back; "
            f"take {remote}'s as it is with: git coop sync {remote} --accept-rewrite"
        )
    if theirs is not None and repo.merge_base(ours, theirs) is None:
        raise RemoteRewritten(
            f"{rewrite.message} — and it shares no history with this clone's ledger, so "
            "nothing was merged or pushed; this clone keeps its own (to take the remote's "
            f"instead: git update-ref -d refs/coop/ledger, then git coop sync {remote}; "
            "events recorded only here are then lost)"
        )
    report.rewritten = rewrite.message
    if theirs is not None and not repo.is_ancestor(theirs, ours):
        from gitcoop.store.ledger import merge

        sign = merge_sign(repo, actor)
        merged = merge.merge(
            repo, remote, theirs, actor, ctx.now, fsync_wanted(repo), sign, True, last=None
        )
        report.merged, report.tip = merged.kind, merged.after
        report.unsigned += [e for e in merged.unsigned if e not in report.unsigned]
    else:  # the remote holds an older tip of ours, or nothing: ours goes back as it is
        report.merged, report.tip = ("none" if theirs is None else "ahead"), ours


def _fetch_and_merge(
    ctx: Context, repo: Repo, actor: str, report: SyncReport, put_back: str = "never"
) -> Oid | None:
    """Fetch and merge; the remote's tip. A rewritten remote (H4) is RemoteRewritten, but
    this clone's history is put back first, for the push that follows, when the remote
    lost it and `put_back` is "lost", or whenever it is "always"."""
    last = remembered.remembered(repo, report.remote)  # before the fetch begins (H4)
    theirs = transport.fetch(repo, report.remote, meanwhile=_prepare)
    try:
        if theirs is None:
            remembered.check(repo, report.remote, None, last)  # a ledger deleted there
            report.tip = repo.tip()
            return None
        from gitcoop.store.ledger import merge  # loaded by `_prepare` while git fetched

        sign = merge_sign(repo, actor)
        merged = merge.merge(
            repo, report.remote, theirs, actor, ctx.now, fsync_wanted(repo), sign, last=last
        )
    except RemoteRewritten as rewrite:
        lost = isinstance(rewrite, remembered.HistoryLost)
        if put_back == "always" or (put_back == "lost" and lost):
            _put_back(ctx, repo, actor, report, rewrite, theirs)
            return theirs
        remote = report.remote
        if lost:
            todo = f"git coop sync {remote} puts this clone's history back"
        else:
            todo = (
                "nobody can tell from the history whether that merge repairs an earlier "
                f"rewrite or overrules this clone's: take it with git coop sync {remote} "
                f"--accept-rewrite, or put this clone's order back with git coop sync "
                f"{remote} --put-back"
            )
        raise RemoteRewritten(
            f"{rewrite.message} — nothing was taken in; {todo} (or take the rewrite: "
            f"git coop sync {remote} --accept-rewrite)"
            if lost
            else f"{rewrite.message} — nothing was taken in; {todo}"
        ) from None
    if report.merged in ("none", "up-to-date", "ahead") or merged.kind == "merged":
        report.merged = merged.kind
    report.tip = merged.after
    if merged.conflicted is not None and merged.after is not None:
        report.conflicted = (merged.after, merged.conflicted)
    report.unsigned += [e for e in merged.unsigned if e not in report.unsigned]
    return theirs


def _told(repo: Repo, report: SyncReport, actor: str, start: Oid | None) -> SyncReport:
    """Attach the conflicts that appeared between `start` and the final tip and touch `actor`."""
    from gitcoop.service.notices import merge_notices

    known = report.conflicted
    rows = known[1] if known is not None and known[0] == report.tip else None
    report.notices += merge_notices(repo, start, report.tip, actor, rows)
    return report


def set_claims(ctx: Context, remote: str, on: bool) -> str | None:
    """Have `remote` decide claims (`git config coop.claims REMOTE`), or stop; the new value."""
    repo = ctx.repo()
    transport.check_remote(repo, remote)
    if on:
        repo.set_config_value(CLAIMS_KEY, remote)
        return remote
    if claims_remote(repo) == remote:
        repo.unset_config_value(CLAIMS_KEY)
    return claims_remote(repo)
