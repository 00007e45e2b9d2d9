"""The user's side of the repository, as the hooks read it: commits, hooks dir.

Reading only; nothing here touches the ledger, HEAD, the index or files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import pygit2

from gitcoop.errors import NoLedger
from gitcoop.store.repository import Repo


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    message: str
    committer_email: str


def read_commit(repo: Repo, rev: str = "HEAD") -> CommitInfo:
    """The commit `rev` names (a sha or HEAD)."""
    try:
        commit = repo.raw.revparse_single(rev).peel(pygit2.Commit)
    except (KeyError, ValueError, pygit2.GitError):
        raise NoLedger(f"no commit {rev} in this repository") from None
    return CommitInfo(str(commit.id), commit.message, commit.committer.email)


def comment_char(repo: Repo) -> str | None:
    """git's comment prefix for commit messages; None when git picks it (`auto`)."""
    value = repo.config_value("core.commentString") or repo.config_value("core.commentChar")
    if value is None:
        return "#"
    return None if value == "auto" or not value.strip() else value


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
