"""Commits that reached a branch while git ran no hook: noticed by the next command.

git runs no hook when `git reset`, `git branch -f`, `git update-ref`, a fetch
into a branch or a checkout of a new branch moves a branch to commits no
hook saw. With gitcoop's hooks installed, the tips of the local branches are
noted in `coop-hooks/seen-tips` (by install, by post-commit and post-merge
when they saw all that moved the branch, and by this check);
before a command, a branch whose tip differs is walked back to what was
seen, and commits there with Coop trailers that no ledger event names and
the journal does not hold are reported, once, with the backfill that records
them. Reporting, not recording: they may be anyone's commits, and backfill
names each commit's author (docs/hooks.md).
"""

from __future__ import annotations

import contextlib
import os

from gitcoop.domain.record_type import record_type
from gitcoop.service.context import Context
from gitcoop.service.hook_setups import PRIVATE_DIR
from gitcoop.store.git import worktree
from gitcoop.store.git.worktree import CommitInfo
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo

SEEN_TIPS = "seen-tips"
WALK_AT_MOST = 500  # commits read per check; past that, backfill is named without a count


@record_type
class Unseen:
    """What reached the branches without a hook: commits with trailers nobody recorded."""

    commits: list[CommitInfo]
    more: bool  # the walk stopped at WALK_AT_MOST: there may be others


def check(ctx: Context) -> Unseen | None:
    """What reached a branch unseen since the last look; None when nothing did (or no hooks)."""
    repo = ctx.repo()
    path = _path(repo)
    if not os.path.isdir(os.path.dirname(path)):
        return None  # gitcoop's hooks are not installed here: `hooks status` says so
    tips = worktree.branch_tips(repo)
    seen = _read(path)
    if seen == tips:
        return None
    if seen is None:
        _write(path, tips)
        return None
    from gitcoop.domain import trailers  # here: every command asks; few find a branch moved

    moved = [sha for ref, sha in tips.items() if seen.get(ref) != sha]
    walked, more = worktree.commits_reaching(repo, moved, list(seen.values()), WALK_AT_MOST)
    comment = worktree.comment_char(repo) or "#"
    asking = [c for c in walked if trailers.coop_trailers(c.message, comment)]
    found = _unrecorded(repo, asking) if asking else []
    _write(path, tips)
    return Unseen(found[::-1], more) if found or more else None


def note_tips(repo: Repo) -> None:
    """Note every branch tip as seen (install: what is there was made before)."""
    path = _path(repo)
    if os.path.isdir(os.path.dirname(path)):
        _write(path, worktree.branch_tips(repo))


def note_branch(repo: Repo, came_from: str | None) -> None:
    """A hook saw its branch move from `came_from` to the tip: note the tip as seen.

    Only when `came_from` is what was seen there (or, for a new branch, a
    tip seen anywhere): a commit made on top of a reset the check has not
    looked at yet must not hide what the reset brought.
    """
    path = _path(repo)
    seen = _read(path)
    branch = worktree.current_branch(repo)
    if seen is None or branch is None or came_from is None:
        return
    known = seen.get(branch) == came_from or (branch not in seen and came_from in seen.values())
    tip = worktree.branch_tips(repo).get(branch)
    if known and tip is not None and tip != came_from:
        _write(path, {**seen, branch: tip})


def _unrecorded(repo: Repo, commits: list[CommitInfo]) -> list[CommitInfo]:
    from gitcoop.store.fast import blob_search
    from gitcoop.store.ledger import journal

    tip = repo.tip()
    if tip is None:
        return []  # no ledger yet: nothing to record them into; backfill after init
    named = blob_search.commits_named(Snapshot(repo, tip))
    named |= {
        str(e.get("commit"))
        for e in journal.entries(repo.common_dir)
        if e.get("kind") == "trailers"
    }
    return [c for c in commits if c.sha not in named]


def _path(repo: Repo) -> str:
    return os.path.join(repo.common_dir, PRIVATE_DIR, SEEN_TIPS)


def _read(path: str) -> dict[str, str] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return None
    pairs = (line.split(" ", 1) for line in lines)
    return {ref: sha for sha, ref in (p for p in pairs if len(p) == 2)}


def _write(path: str, tips: dict[str, str]) -> None:
    """Replace the file whole; a lost race only makes the next check walk again."""
    temporary = f"{path}.{os.getpid()}.tmp"
    with contextlib.suppress(OSError):
        with open(temporary, "w", encoding="utf-8") as handle:
            handle.write("".join(f"{sha} {ref}\n" for ref, sha in sorted(tips.items())))
        os.replace(temporary, path)
