"""The code's history as the evidence cache needs it: ancestry, and commits touching a path.

Reads commits of the user's branch (never the working tree or the index).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitcoop.domain.record_type import record_type
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.objects import Oid
from gitcoop.store.git.repo import Repo

READ_CAP = 8 * 1024 * 1024  # a cited file larger than this is checked for existence only
FILE_MODES = (0o100644, 0o100755, 0o120000)


@record_type
class FileAt:
    """A path in a commit's tree: whether it is a file, and its text when small enough."""

    exists: bool
    text: str | None = None  # None for a file over READ_CAP


def current_head(repo: Repo) -> str | None:
    """The commit HEAD points at, or None in a repository with no commits yet."""
    return repo.head_sha()


def exists(repo: Repo, sha: str) -> bool:
    return repo.has_commit(sha)


def file_at(repo: Repo, commit: str, path: str, cap: int = READ_CAP) -> FileAt:
    """The file `path` in `commit`'s tree (never the working tree), read only up to `cap`."""
    try:
        tree = repo.raw[commit].peel(pygit2.Tree)
        entry = tree[path]
    except (KeyError, ValueError, TypeError, pygit2.GitError):
        return FileAt(False)
    if entry.filemode not in FILE_MODES:
        return FileAt(False)  # a folder or a submodule is not a file
    _, size = repo.raw.odb.read_header(entry.id)
    if size > cap:
        return FileAt(True)
    return FileAt(True, repo.raw[entry.id].data.decode("utf-8", errors="replace"))


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
