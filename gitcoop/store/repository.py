"""The repository, as the layers above the store see it: one name for each piece.

The pieces live by purpose in store/git/ (git itself, knowing nothing of the
ledger) and store/ledger/repo.py (the repository the ledger is kept in):

- git/refs.py: refs and their compare-and-swap (`swap`), git's lock on a ref
- git/objects.py: objects read by id, each checked to be what is expected
- git/commits.py: commits and walks of their history
- git/trees.py: raw trees and the changes between two commits' trees
- git/writes.py: blobs, trees and commits written, and whether they are synced
- git/config.py: git config, `git -c` values (GIT_CONFIG_PARAMETERS) first
- git/repo.py: `Repo` composed of those; opening, the object format, versions
- ledger/repo.py: the ledger's `Repo`, `open_repo`, `init_repo`
"""

from __future__ import annotations

from gitcoop.store.git.commits import CommitInfo
from gitcoop.store.git.config import config_key, config_parameters
from gitcoop.store.git.objects import Oid
from gitcoop.store.git.refs import STALE_AFTER, Backoff, RefLocked
from gitcoop.store.git.repo import PACK_FILES_OPEN, Search, library_versions
from gitcoop.store.git.trees import Delta
from gitcoop.store.git.writes import WRITE_RETRIES, Sign, enable_fsync
from gitcoop.store.ledger.repo import Repo, init_repo, open_repo

__all__ = [
    "PACK_FILES_OPEN",
    "STALE_AFTER",
    "WRITE_RETRIES",
    "Backoff",
    "CommitInfo",
    "Delta",
    "Oid",
    "RefLocked",
    "Repo",
    "Search",
    "Sign",
    "config_key",
    "config_parameters",
    "enable_fsync",
    "init_repo",
    "library_versions",
    "open_repo",
]
