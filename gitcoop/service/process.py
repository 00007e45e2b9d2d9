"""What one command's process asks of the store: memory, refusals, versions, cheap checks.

The interfaces (cli/, web/) reach the store only through the service; these are
the few things a process needs that are not a verb: how long what it read is
kept, how the machine's refusals read, the libraries' versions, and the checks
made before every command (journaled hook work waiting, the hooks hint given).
Each imports its store module when called, so start-up loads nothing more.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gitcoop.errors import EnvironmentFailed


def reference() -> bool:
    """Whether `COOP_REFERENCE=1`: every fast path takes the path it shadows, and a
    command's process leaves as Python's do (store/fast/__init__.py)."""
    from gitcoop.store import fast

    return fast.reference()


def keep_until_exit() -> None:
    """A one-command process: hold what it reads until it leaves (store/fast/memory.py)."""
    from gitcoop.store.fast import memory

    memory.keep_until_exit()


def keep_nothing() -> None:
    """A long-lived process (the MCP server): each call frees what it read."""
    from gitcoop.store.fast import memory

    memory.keep_nothing()


def environment_failure(error: BaseException, doing: str) -> EnvironmentFailed | None:
    """The machine's refusal (a full disk, a read-only repository) in a sentence, or None."""
    from gitcoop.store.git.environment import failure

    return failure(error, doing, wrote_nothing=False)


def library_versions() -> dict[str, str]:
    """pygit2's and libgit2's versions, for `git coop version`."""
    from gitcoop.store.repository import library_versions

    return library_versions()


def new_repository(path: str, email: str) -> None:
    """A new empty repository with an identity (the demo's throwaway one)."""
    from gitcoop.store.repository import init_repo

    init_repo(path, email)


def journal_waiting(common_dir: str) -> bool:
    """Whether journaled hook work waits to be replayed: one stat, no parsing."""
    from gitcoop.store.ledger import journal

    return journal.has_entries(common_dir)


def hooks_hinted(common_dir: str) -> bool:
    """Whether this clone was told once already how to install the hooks."""
    from gitcoop.store.ledger.layout import HOOKS_HINTED

    return os.path.exists(os.path.join(common_dir, HOOKS_HINTED))
