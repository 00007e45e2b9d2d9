"""The code's history as the evidence cache needs it: which commits touched a path.

Reads commits of the user's branch (never the working tree or the index).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitcoop.store.repository import Repo


def current_head(repo: Repo) -> str | None:
    """The commit HEAD points at, or None in a repository with no commits yet."""
    return repo.head_sha()


def exists(repo: Repo, sha: str) -> bool:
    return repo.has_commit(sha)


def count_touching(repo: Repo, since: str, until: str, paths: Iterable[str], limit: int) -> int:
    """How many commits in since..until change any of `paths`, counting no further than limit+1.

    A commit touches a path when the path's tree entry differs from its first
    parent's (or the path appears in a root commit); a path may name a folder.
    """
    wanted = sorted(set(paths))
    if not wanted:
        return 0
    count = 0
    for commit in repo.commits_between(since, until):
        parent = commit.parents[0].tree if commit.parents else None
        if any(_entry(commit.tree, p) != _entry(parent, p) for p in wanted):
            count += 1
            if count > limit:
                break
    return count


def _entry(tree: Any, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str(tree[path].id)
    except KeyError:
        return None
