"""Claims decided by the shared remote (`coop.claims=REMOTE`, docs/sync.md).

Inside one clone a take is atomic. Across machines, the remote every clone
pushes to is the one place that sees every claim, and a push with a lease is
an atomic compare-and-swap there (receive-pack locks the ref and checks it
still points where the lease says). So, with `coop.claims` set, the writer
(service/writer.py) hands every write here, through its routing
(service/claim_routing.py, which says what counts as a claim):

    a claim (take, takeover, pick), in its turn among this clone's processes
        fetch -> merge -> decide and commit, objects only (writer lock)
        (or, when this clone took the remote's tip in moments ago, no fetch:
        decided on it; anything but a landing is then fetched and decided again)
        -> push --force-with-lease=refs/coop/ledger:<the remote tip merged>
           accepted   move the local ref to the claim (writer lock): done
           rejected   the claim was never seen by anyone, not even this
                      clone (the local ref never moved): fetch, merge,
                      decide again, a bounded number of times, with jitter
           cut off    git cannot say whether it landed: fetch again, and
                      the claim is ours only if the remote now holds it
        the remote cannot be reached: RemoteUnreachable, nothing recorded

    any other write
        committed locally as always, then published: a push leased on the
        remote tip last seen; rejected: fetch, merge, push again; the
        remote unreachable: it stays here, and the next write or `sync`
        pushes it

The writer lock is never held across the network: the fetch and the push run
without it, and merge, prepare and land each take it for their local step. The
claims of one clone take turns (store/git/lock.py `turn`): racing each other at the
remote, they would only cost each other retries; the turn is a courtesy with a
bounded wait, never what makes a claim safe.
"""

from __future__ import annotations

import contextlib
import random
import time
from collections.abc import Callable
from datetime import datetime

from gitcoop.domain.record_type import record_type
from gitcoop.errors import (
    ChangedUnderWrite,
    CoopError,
    EnvironmentFailed,
    RemoteRewritten,
    RemoteUnreachable,
)
from gitcoop.service.notices import merge_notices
from gitcoop.service.signing import merge_sign
from gitcoop.store.boundary import remembered
from gitcoop.store.git import lock
from gitcoop.store.ledger import merge, transport
from gitcoop.store.ledger.layout import remote_ref
from gitcoop.store.ledger.notice import stderr_notice
from gitcoop.store.ledger.transport import TimedOut, TransportFailed
from gitcoop.store.repository import Oid, Repo

CLAIM_ATTEMPTS = 10
RECENT_VIEW = 1.0  # seconds: a remote tip taken in this recently is leased on unfetched
PUBLISH_ATTEMPTS = 3


@record_type
class Tries:
    """How hard the remote is tried: bounded attempts, jittered pauses; injectable for tests."""

    attempts: int = CLAIM_ATTEMPTS
    first_pause: float = 0.02  # seconds, at least; doubles per attempt, up to longest_pause
    longest_pause: float = 1.0  # or two round trips, when one takes longer (a busy machine)
    sleep: Callable[[float], None] = time.sleep
    jitter: Callable[[float, float], float] = random.uniform
    clock: Callable[[], float] = time.monotonic
    notice: Callable[[str], None] = stderr_notice

    def pause(self, attempt: int, round_trip: float = 0.0) -> None:
        """Nothing before the first attempt; then a random share of a doubling bound.

        The bound starts at the last attempt's own duration (at least
        first_pause): a remote that answers slowly, or a machine that is busy,
        means the others racing for it are slow too, and a loser that comes
        back sooner only costs them all another round. Random, so clones that
        lost the same race do not all come back at once.
        """
        if attempt:
            start = max(self.first_pause, round_trip)
            longest = max(self.longest_pause, 2 * start)  # never shorter than a slow round
            bound = min(longest, start * 2 ** (attempt - 1))
            self.sleep(self.jitter(0.0, bound))


@record_type
class Sharing:
    """Where and as whom a write is shared."""

    repo: Repo
    remote: str
    actor: str
    now: datetime
    fsync: bool
    tries: Tries = Tries()

    def claim(self, prepare: Callable[[], Oid | None], land: Callable[[], bool]) -> int:
        return claim(self, prepare, land)

    def publish(self) -> bool:
        return publish(self)

    def offline_notice(self) -> None:
        self.tries.notice(
            f"--offline: this claim is recorded here only; {self.remote} decides it when this "
            f"clone next syncs (git coop sync {self.remote}), and a loser is told then"
        )


def claim(share: Sharing, prepare: Callable[[], Oid | None], land: Callable[[], bool]) -> int:
    """Decide a claim through the remote; the attempts it took. Raises unless it landed.

    `prepare` decides on the local ledger and writes the claim's commit without
    moving the ref (None: nothing to write); `land` moves the local ref to the
    last prepared commit (False: the local ledger moved meanwhile).
    """
    try:
        return _claim(share, prepare, land)
    except RemoteRewritten as rewrite:
        raise RemoteRewritten(
            f"{rewrite.message} — no claim is decided on it, and nothing was recorded; "
            f"git coop sync {share.remote} puts this clone's history back (or takes the "
            "rewrite with --accept-rewrite)"
        ) from None
    finally:
        share.repo.unkeep()  # the packs of what was prepared (store/fast/packwrite.py)


def _claim(share: Sharing, prepare: Callable[[], Oid | None], land: Callable[[], bool]) -> int:
    with lock.turn(share.repo.common_dir, transport.remote_timeout(share.repo)):
        return _attempts(share, prepare, land)


def _attempts(share: Sharing, prepare: Callable[[], Oid | None], land: Callable[[], bool]) -> int:
    tries, doubt, detail, took, hung = share.tries, None, "", 0.0, False
    view = _recent_view(share)
    for attempt in range(tries.attempts):
        tries.pause(attempt, took)
        started, viewed = tries.clock(), view is not None
        if view is None:
            last = remembered.remembered(share.repo, share.remote)  # before the fetch (H4)
            try:
                theirs = transport.fetch(share.repo, share.remote)
            except TransportFailed as failed:
                hung = hung or isinstance(failed, TimedOut)  # then asked once, and no more
                again = (doubt is not None or failed.passing) and not hung
                if again and attempt + 1 < tries.attempts:
                    continue  # it went away mid-push, or reset the connection: ask it again
                raise _unreachable(share.remote, failed.message, doubt) from None
            if doubt is not None and theirs is not None and share.repo.is_ancestor(doubt, theirs):
                _landed(share, doubt, land, theirs, last)  # the cut-off push did land
                remembered.remember(share.repo, share.remote, theirs)  # confirmed: kept (H4)
                return attempt + 1
            if hung:  # a push that took past the timeout, and did not land: not pushed again
                bound = f"{transport.remote_timeout(share.repo):g}s"
                setting = f"git config {transport.REMOTE_TIMEOUT_KEY}"
                why = f"a push got no answer in time, and it did not land ({bound}, {setting})"
                raise _unreachable(share.remote, why, None)
            doubt = None
            _merge(share, theirs, last)
            commit = prepare()
            if commit is None:
                return attempt + 1
        else:  # a lease on the view: anything but a landing is decided again, fetched
            theirs, view = view, None
            try:
                commit = prepare()
            except CoopError:
                commit = None
            if commit is None:
                took = 0.0
                continue
        try:
            pushed = transport.push_leased(share.repo, share.remote, commit, theirs)
        except TransportFailed as failed:
            doubt, detail = commit, failed.message
            hung = hung or isinstance(failed, TimedOut)
            continue
        if pushed.accepted:
            _remember(share.repo, share.remote, theirs, commit)
            remembered.remember(share.repo, share.remote, commit)
            _landed(share, commit, land)
            return attempt + 1
        # a view that was out of date: fetched at once; a race lost: a pause as long as it
        detail, took = pushed.detail, 0.0 if viewed else tries.clock() - started
    raise ChangedUnderWrite(
        f"gave up after {tries.attempts} attempts: {share.remote} kept moving while this claim "
        f"was decided ({detail}) — nothing was recorded; run it again"
    )


def _recent_view(share: Sharing) -> Oid | None:
    """The remote's tip as this clone took it in moments ago (RECENT_VIEW), when the local
    ledger holds it: a claim leased on it is pushed without fetching first. A lease that
    no longer holds costs one refused push, then the claim is fetched and decided again;
    a lease that holds means the remote was there, so the claim is decided on its state.

    Taken in, not only fetched: the tip must be the one remembered (H4). A fetch notes
    every tip it brings, a rewound one too (a claim refused on it with exit 10, a plain
    `git fetch`), and a lease on that would decide the claim where H4 refuses to."""
    ref = remote_ref(share.remote)
    age = share.repo.ref_age(ref)
    if age is None or age > RECENT_VIEW:
        return None
    seen, tip = share.repo.tip(ref), share.repo.tip()
    if seen is None or tip is None or seen != remembered.remembered(share.repo, share.remote):
        return None
    if not share.repo.is_ancestor(seen, tip):
        return None
    return seen


def publish(share: Sharing) -> bool:
    """Push the local ledger after a write; False (and a notice) when it stays local."""
    repo, tries = share.repo, share.tries
    seen = repo.tip(remote_ref(share.remote))
    detail, unknown = "", False
    for attempt in range(PUBLISH_ATTEMPTS):
        tries.pause(attempt)
        tip = repo.tip()
        try:
            if attempt or seen is None or tip is None or not repo.is_ancestor(seen, tip):
                last = remembered.remembered(repo, share.remote)  # before the fetch (H4)
                seen = transport.fetch(repo, share.remote)
                tip = _merge(share, seen, last) or tip
            if tip is None or (seen is not None and repo.is_ancestor(tip, seen)):
                return True  # the remote already holds everything here
            pushed = transport.push_leased(repo, share.remote, tip, seen)
        except RemoteRewritten as rewrite:
            detail = f"{rewrite.message}; git coop sync {share.remote} says what to do"
            break
        except CoopError as failed:  # the write is recorded here whatever stops its sharing
            detail = failed.message
            unknown = isinstance(failed, TimedOut) and failed.pushing
            break
        if pushed.accepted:
            _remember(repo, share.remote, seen, tip)
            remembered.remember(repo, share.remote, tip)
            return True
        detail = pushed.detail
    where = f"{share.remote} may or may not have it" if unknown else f"not yet on {share.remote}"
    tries.notice(
        f"recorded here, {where} ({detail}); the next write or "
        f"git coop sync {share.remote} pushes it"
    )
    return False


def _merge(share: Sharing, theirs: Oid | None, last: Oid | None) -> Oid | None:
    """Merge the fetched remote tip into the local ledger, telling the actor what lost;
    `last`: the tip this clone had taken in when the fetch began (H4)."""
    if theirs is None:
        remembered.check(share.repo, share.remote, None, last)  # a ledger deleted there
        return None
    sign = merge_sign(share.repo, share.actor)
    merged = merge.merge(
        share.repo, share.remote, theirs, share.actor, share.now, share.fsync, sign, last=last
    )
    if merged.unsigned:
        share.tries.notice(
            f"refused {len(merged.unsigned)} events from {share.remote} for want of a "
            "signature (require_signed): an owner settles them"
        )
    notices = merge_notices(share.repo, merged.before, merged.after, share.actor, merged.conflicted)
    for notice in notices:
        if notice.mine:
            share.tries.notice(f"{notice.text} (git coop ack {notice.label} once you have stopped)")
        else:
            share.tries.notice(notice.text)
    return merged.after


def _landed(
    share: Sharing,
    commit: Oid,
    land: Callable[[], bool],
    remote_tip: Oid | None = None,
    last: Oid | None = None,
) -> None:
    """The remote holds `commit`: bring the local ledger to it (a merge if it moved here),
    and to the remote's tip when that has more (a cut-off push found landed later)."""
    if not land():
        sign = merge_sign(share.repo, share.actor)
        merge.merge(
            share.repo, share.remote, commit, share.actor, share.now, share.fsync, sign,
            last=None,  # this clone's own claim, which the remote took
        )  # fmt: skip
    if remote_tip is not None and remote_tip != commit:
        _merge(share, remote_tip, last)


def _remember(repo: Repo, remote: str, seen: Oid | None, tip: Oid) -> None:
    """Record the remote's new tip in refs/coop/remotes/REMOTE/ledger, as a fetch would.

    Only bookkeeping (the next fetch corrects it): a swap lost to a concurrent
    fetch, or a busy ref, is left alone.
    """
    # RefLocked, the ref moved, or a repository that cannot be written now
    with contextlib.suppress(ChangedUnderWrite, EnvironmentFailed), repo.shared_modes():
        repo.swap(seen, tip, f"pushed to {remote}", ref=remote_ref(remote))


def _unreachable(remote: str, why: str, doubt: Oid | None) -> RemoteUnreachable:
    if doubt is None:
        return RemoteUnreachable(
            f"cannot reach {remote}, which decides claims ({why}) — nothing was recorded; "
            "retry when it is back, or claim here only with --offline (decided at the next "
            f"git coop sync {remote})"
        )
    return RemoteUnreachable(  # a push that failed may have failed before or after landing
        f"cannot reach {remote} ({why}), and this claim's push failed: whether {remote} "
        f"took it is not known — nothing was recorded here; if it did, git coop sync "
        f"{remote} shows the item as yours (git coop list --mine); if not, retry when it is "
        "back, or claim here only with --offline"
    )
