"""The user's side of the repository, as the hooks read it: commits, branches, hooks dir.

Reading only; nothing here touches the ledger, HEAD, the index or files.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from gitcoop.domain.record_type import record_type
from gitcoop.errors import NoLedger
from gitcoop.store.git.commits import email, instant, message, when
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.repo import Repo

REBASE_DIRS = ("rebase-merge", "rebase-apply")
OLDER_SLOP = 5  # commits older than the cut-off read before the walk stops (git's own slop)


@record_type
class CommitInfo:
    sha: str
    message: str
    author_email: str
    committer_email: str
    committed_at: datetime  # the committer's time, UTC
    first_parent: str | None = None


def read_commit(repo: Repo, rev: str = "HEAD") -> CommitInfo:
    """The commit `rev` names (a sha or HEAD)."""
    try:
        commit = repo.raw.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        raise NoLedger(f"no commit {rev} in this repository") from None
    return _info(commit)


def _info(commit: Any) -> CommitInfo:
    at = when(commit.committer)
    parents = commit.parent_ids
    first = str(parents[0]) if parents else None
    encoding = commit.message_encoding
    texts = message(commit), email(commit.author, encoding), email(commit.committer, encoding)
    return CommitInfo(str(commit.id), *texts, at, first)


def on_a_branch(repo: Repo, sha: str) -> bool:
    """Whether a local branch holds the commit (its tip or an ancestor).

    False for a commit this clone does not have (another clone recorded it on
    a branch it never pushed): no ancestry is asked of an object that is not
    here, and a branch whose history is cut short here holds only what it has.
    """
    if not repo.has_commit(sha):
        return False
    target = pygit2.Oid(hex=sha)
    for tip in _branch_tips(repo):
        try:
            if tip == target or repo.raw.descendant_of(tip, target):
                return True
        except pygit2.GitError:
            continue  # a parent this clone lacks (a shallow or broken history)
    return False


def _branch_tips(repo: Repo) -> Iterator[pygit2.Oid]:
    """The commits the local branches point at; a branch that points at nothing is skipped."""
    for name in repo.raw.references:
        if not name.startswith("refs/heads/"):
            continue
        try:
            yield repo.raw.references[name].resolve().target
        except (KeyError, pygit2.GitError):
            continue  # a symbolic branch to a branch that does not exist


def rebasing(repo: Repo) -> bool:
    """A rebase is under way in this worktree: post-rewrite will name each rewrite."""
    return any(os.path.isdir(os.path.join(repo.git_dir, d)) for d in REBASE_DIRS)


def branch_commits(repo: Repo, since: str | None, not_before: datetime) -> Iterator[CommitInfo]:
    """Commits on local branches, committed at or after `not_before`, not reachable from `since`.

    Newest first. The walk stops a few commits past the first older one, as
    `git log --since` does, so a long history is not read to its root.
    """
    walker = repo.raw.walk(None, pygit2.enums.SortMode.TIME)
    for tip in _branch_tips(repo):
        if repo.has_commit(str(tip)):
            walker.push(tip)
    if since is not None:
        walker.hide(pygit2.Oid(hex=since))
    older = 0
    for commit in walker:
        info = _info(commit)
        if info.committed_at < not_before:
            older += 1
            if older > OLDER_SLOP:
                return
            continue
        yield info


def merged_commits(
    repo: Repo, limit: int, since: str = "ORIG_HEAD"
) -> tuple[list[CommitInfo], bool]:
    """What the last merge brought onto HEAD (`since`..HEAD), oldest first, at most `limit`.

    The bool says whether there was more than `limit`. Without `since`, HEAD alone.
    """
    try:
        tip = repo.raw.revparse_single("HEAD").peel(pygit2.Commit).id
    except (KeyError, ValueError, pygit2.GitError):
        return [], False
    walker = repo.raw.walk(tip, pygit2.enums.SortMode.TOPOLOGICAL)
    try:
        walker.hide(repo.raw.revparse_single(since).peel(pygit2.Commit).id)
    except (KeyError, ValueError, pygit2.GitError):
        return [_info(repo.raw[tip])], False
    found: list[CommitInfo] = []
    for commit in walker:
        if len(found) == limit:
            return found[::-1], True
        found.append(_info(commit))
    return found[::-1], False


def comment_char(repo: Repo) -> str | None:
    """git's comment prefix for commit messages; None when git picks it (`auto`), or when
    which one git takes is not known here."""
    return _comment(repo.config_value("core.commentString"), repo.config_value("core.commentChar"))


def _comment(string: str | None, char: str | None) -> str | None:
    """`core.commentString` (git 2.45 and later) and `core.commentChar` name one setting:
    git before 2.45 reads only the second, later ones the last of the two in the config.
    When they say different things, which one the git that commits takes is unknown, and
    so is the prefix (None): a line meant as a comment might stay in the message."""
    if string is not None and _comment_of(string) != _comment_of(char):
        return None
    return _comment_of(char if string is None else string)


def _comment_of(value: str | None) -> str | None:
    if value is None:
        return "#"
    return None if value == "auto" or not value.strip() else value


# -- through the git CLI, where libgit2 cannot open the repository (SHA-256) --------------

GIT_TIMEOUT = 10.0  # seconds: a hook must not hang the commit


def git_says(*args: str) -> str | None:
    """What `git ARGS` prints about the repository this process is in (its GIT_DIR, or the
    current directory), or None when git fails or is not found."""
    import subprocess  # only a repository libgit2 cannot open asks git itself

    try:
        done = subprocess.run(
            ["git", *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            check=False,
            timeout=GIT_TIMEOUT,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "surrogateescape")


def config_by_git(key: str) -> str | None:
    found = git_says("config", "--get", key)
    return None if found is None else found.rstrip("\n")


def comment_char_by_git() -> str | None:
    """`comment_char`, asking git."""
    return _comment(config_by_git("core.commentString"), config_by_git("core.commentChar"))


def common_dir_by_git() -> str | None:
    found = git_says("rev-parse", "--path-format=absolute", "--git-common-dir")
    return None if not found or not found.strip() else found.strip()


def read_commit_by_git(rev: str = "HEAD") -> CommitInfo | None:
    """`read_commit`, asking git; None when git cannot say."""
    found = git_says(
        "log", "-1", "--no-show-signature", "--format=%H%x00%ae%x00%ce%x00%ct%x00%B", rev
    )
    parts = None if found is None else found.split("\0", 4)
    if parts is None or len(parts) != 5 or not parts[3].isdigit():
        return None
    sha, author, committer, at, message = parts
    return CommitInfo(sha, message.removesuffix("\n"), author, committer, instant(int(at)))


def merged_commits_by_git(limit: int, since: str) -> tuple[list[CommitInfo], bool]:
    """`merged_commits`, asking git (every commit it can read)."""
    listed = git_says("rev-list", "--topo-order", f"--max-count={limit + 1}", "HEAD", f"^{since}")
    if listed is None:
        listed = git_says("rev-parse", "HEAD")
    shas = (listed or "").split()
    found = [c for c in map(read_commit_by_git, shas[:limit]) if c is not None]
    return found[::-1], len(shas) > limit


def hooks_dir(repo: Repo) -> str:
    """Where git runs hooks from: core.hooksPath, else the common dir's `hooks`.

    A relative core.hooksPath is relative to where git runs hooks: the top of
    the worktree (the git dir in a bare repository), as git documents.
    """
    configured = repo.config_value("core.hooksPath")
    if not configured:
        return os.path.join(repo.common_dir, "hooks")
    path = os.path.expanduser(configured)
    base = repo.raw.workdir or repo.git_dir
    return os.path.normpath(os.path.join(base, path))


def tracked(repo: Repo, path: str) -> bool:
    """Whether the index holds the file at `path` (a file of the worktree someone committed)."""
    top = repo.workdir()
    if top is None:
        return False
    relative = os.path.relpath(os.path.realpath(path), os.path.realpath(top))
    if relative.startswith(os.pardir):
        return False
    try:
        return relative.replace(os.sep, "/") in repo.raw.index
    except pygit2.GitError:
        return False


def branch_tips(repo: Repo) -> dict[str, str]:
    """Each local branch and the commit it points at."""
    tips: dict[str, str] = {}
    for name in repo.raw.references:
        if name.startswith("refs/heads/"):
            with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
                tips[name] = str(repo.raw.references[name].resolve().target)
    return tips


def revision(repo: Repo, rev: str) -> str | None:
    """The commit `rev` names (ORIG_HEAD, a branch), or None."""
    with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
        return str(repo.raw.revparse_single(rev).peel(pygit2.Commit).id)
    return None


def current_branch(repo: Repo) -> str | None:
    """The branch HEAD is on (refs/heads/...), or None when detached or unborn."""
    with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
        if not repo.raw.head_is_detached:
            return str(repo.raw.head.name)
    return None


def commits_reaching(
    repo: Repo, tips: list[str], seen: list[str], limit: int
) -> tuple[list[CommitInfo], bool]:
    """Commits reachable from `tips` and from none of `seen`, newest first, at most `limit`.

    The bool says whether there were more. A seen commit that is gone is left out.
    """
    walker = repo.raw.walk(None, pygit2.enums.SortMode.TIME)
    for sha in tips:
        walker.push(pygit2.Oid(hex=sha))
    for sha in seen:
        with contextlib.suppress(KeyError, ValueError, pygit2.GitError):
            walker.hide(pygit2.Oid(hex=sha))
    found: list[CommitInfo] = []
    for commit in walker:
        if len(found) == limit:
            return found, True
        found.append(_info(commit))
    return found, False
