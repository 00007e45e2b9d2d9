"""`git coop hooks backfill`: commits whose Coop trailers the ledger never recorded.

Commits made where the hooks were not installed (a fresh clone, a GUI, a
machine without gitcoop) say `Coop-Done: td-…` and the ledger knows nothing
of it. Backfill looks at the commits on local branches since the ledger was
created (or since a revision), keeps those that carry Coop trailers and that
no event names, and, when asked, records them through the same path as the
hook (`service/recording.py`), one ledger commit per code commit, oldest
first.

The events are honest about what happened: their actor is whoever runs
backfill (the author of the ledger commit, like every event), and their
arguments name the code commit, its author, its committer and its time. The
usual rules apply; what they refuse is listed with the command that would
record it.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gitcoop.domain import trailers
from gitcoop.domain.record_type import record_type
from gitcoop.domain.trailers import CoopTrailer
from gitcoop.errors import UsageError
from gitcoop.service import replay
from gitcoop.service.commit_hooks import commit_entry
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.recording import Outcome, attempt
from gitcoop.store.fast import blob_search
from gitcoop.store.git import worktree
from gitcoop.store.git.worktree import CommitInfo
from gitcoop.store.ledger import journal
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo

BACKFILL_LOCK_TIMEOUT = 30.0
EARLIEST = datetime(1970, 1, 1, tzinfo=UTC)


@record_type
class Unrecorded:
    commit: CommitInfo
    trailers: list[CoopTrailer]

    @property
    def subject(self) -> str:
        return trailers.subject(self.commit.message)


@record_type
class Backfilled:
    found: Unrecorded
    outcomes: list[Outcome]


def find(ctx: Context, since: str | None = None) -> list[Unrecorded]:
    """Unrecorded commits with Coop trailers, oldest first.

    From the ledger's creation on; with `since`, every commit not reachable from it.
    """
    snapshot = read_ledger(ctx)
    repo = snapshot.repo
    start = None
    if since is not None:
        start = repo.commit_sha(since)
        if start is None:
            raise UsageError(f"--since {since!r} names no commit here — give a sha or a revision")
    replay.ingest(ctx)  # notes the hooks left when gitcoop could not start: journaled now
    named = blob_search.commits_named(snapshot) | _journaled(repo)
    comment = worktree.comment_char(repo) or "#"
    found: list[Unrecorded] = []
    not_before = _created_at(snapshot) - CLOCK_SKEW if start is None else EARLIEST
    for commit in worktree.branch_commits(repo, start, not_before):
        if commit.sha in named or "coop-" not in commit.message.lower():
            continue
        asked = trailers.coop_trailers(commit.message, comment)
        if asked:
            found.append(Unrecorded(commit, asked))
    found.sort(key=lambda u: u.commit.committed_at)  # oldest first, as they were made
    return found


def apply(ctx: Context, found: list[Unrecorded]) -> list[Backfilled]:
    """Record each commit's trailers as the one running backfill; one ledger commit each."""
    repo = ctx.repo()
    actor = ctx.who(repo)
    done: list[Backfilled] = []
    for unrecorded in found:
        entry = commit_entry(ctx, repo, unrecorded.commit, actor, backfill=True)
        assert entry is not None, "found only commits with Coop trailers"
        outcomes, _ = attempt(ctx, entry, BACKFILL_LOCK_TIMEOUT)
        done.append(Backfilled(unrecorded, outcomes))
    return done


# Commits dated this much before the ledger's first commit are looked at too: the
# machines that made them need not agree on the time.
CLOCK_SKEW = timedelta(days=1)


def _created_at(snapshot: Snapshot) -> datetime:
    """When the ledger began: the time of the first commit of refs/coop/ledger."""
    assert snapshot.commit is not None
    first = snapshot.repo.history(snapshot.commit)[-1]
    return worktree.read_commit(snapshot.repo, first).committed_at


def _journaled(repo: Repo) -> set[str]:
    """Commits the journal already holds: `git coop hook replay` records them."""
    return {
        str(e["commit"])
        for e in journal.entries(repo.common_dir)
        if e.get("kind") == "trailers" and isinstance(e.get("commit"), str)
    }
