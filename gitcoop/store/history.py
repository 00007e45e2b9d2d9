"""The code's history as the evidence cache needs it: ancestry, and commits touching a path.

Reads commits of the user's branch (never the working tree or the index).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitcoop.store.repository import Oid, Repo


def current_head(repo: Repo) -> str | None:
    """The commit HEAD points at, or None in a repository with no commits yet."""
    return repo.head_sha()


def exists(repo: Repo, sha: str) -> bool:
    return repo.has_commit(sha)


def is_ancestor(repo: Repo, ancestor: str, descendant: str) -> bool:
    """Whether `ancestor` is in `descendant`'s history (a commit is its own ancestor).

    False when either is missing, or when a shallow history cuts the path between them.
    """
    if not (exists(repo, ancestor) and exists(repo, descendant)):
        return False
    return repo.is_ancestor(Oid(ancestor), Oid(descendant))


def count_touching(repo: Repo, since: str, until: str, paths: Iterable[str], limit: int) -> int:
    """First-parent steps from `until` back to `since` that change any of `paths`.

    Only commits in since..until count, one per step along `until`'s first
    parents: a merge counts once for everything it brought in, and the side
    commits it merged are not counted again. A step touches a path when the
    path's tree entry (a file or a folder) differs from its first parent's.
    Counting stops past `limit`.
    """
    wanted = sorted(set(paths))
    if not wanted:
        return 0
    count = 0
    expected = until  # the next commit on the first-parent chain
    for commit in repo.commits_between(since, until):  # children before parents
        if str(commit.id) != expected:
            continue  # a side commit a merge brought in
        parent = commit.parents[0].tree if commit.parents else None
        if any(_entry(commit.tree, p) != _entry(parent, p) for p in wanted):
            count += 1
            if count > limit:
                break
        if not commit.parent_ids:
            break
        expected = str(commit.parent_ids[0])
    return count


def _entry(tree: Any, path: str) -> str | None:
    if tree is None:
        return None
    try:
        return str(tree[path].id)
    except KeyError:
        return None
