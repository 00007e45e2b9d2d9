"""The repository the ledger is kept in: git's `Repo` (store/git/repo.py) that
knows which ref is the ledger's, the cap on the ledger's files, where fetched
ledgers are kept, and writes the objects of a transition as packs
(store/fast/packwrite.py).
"""

from __future__ import annotations

import contextlib
import functools
import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from gitcoop.errors import ChangedUnderWrite
from gitcoop.store.fast import memory
from gitcoop.store.git import environment
from gitcoop.store.git import repo as git
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.refs import Backoff
from gitcoop.store.git.writes import enable_fsync, fsync_enabled
from gitcoop.store.ledger.codec import MAX_BYTES
from gitcoop.store.ledger.layout import REF

if TYPE_CHECKING:  # a write loads it (zlib, hashlib)
    from gitcoop.store.fast import packwrite

MAX_FILE_BYTES_KEY = "coop.maxFileBytes"


class Repo(git.Repo):
    """The git repository that holds the ledger: its ref methods mean the ledger's ref
    unless told another, and its blob reads name the setting that raises their cap."""

    main_ref = REF
    cap_setting = MAX_FILE_BYTES_KEY

    def __init__(
        self, raw: Any, backoff: Backoff | None = None, overrides: dict[str, str] | None = None
    ) -> None:
        super().__init__(raw, backoff, overrides)
        self._max_file_bytes: int | None = None
        self._keeps: list[str] = []  # of the packs written whose objects no ref names yet

    @property
    def max_file_bytes(self) -> int:
        """The per-file cap on ledger blobs: git config coop.maxFileBytes, else 1 MiB.

        Local git config only: a ledger fetched from elsewhere cannot loosen it.
        """
        if self._max_file_bytes is None:
            self._max_file_bytes = int(self.config_number(MAX_FILE_BYTES_KEY, MAX_BYTES))
        return self._max_file_bytes

    def fetched_ledgers(self) -> list[str]:
        """Remotes whose ledger has been fetched into refs/coop/remotes/<remote>/ledger."""
        prefix, suffix = "refs/coop/remotes/", "/ledger"
        names = [r for r in self.raw.references if r.startswith(prefix) and r.endswith(suffix)]
        return sorted(r[len(prefix) : -len(suffix)] for r in names)

    def write_pack(self, pack: packwrite.Pack) -> None:
        """The objects of `pack` into the object store, as one pack (store/fast/packwrite.py);
        synced when fsync is on. A full disk or a read-only repository is EnvironmentFailed."""
        if not pack.objects:
            return
        from gitcoop.store import fast

        if fast.reference():  # each object written loose by libgit2, as a merge writes
            for kind, content in pack.objects.values():
                self._writing(functools.partial(self.raw.write, kind, content))
            return
        folder = os.path.join(self.common_dir, "objects", "pack")
        # again when a plain `git prune` took a temporary file away (it removes every tmp_)
        from gitcoop.store.fast import packwrite  # zlib, hashlib: no read needs them

        self._writing(lambda: packwrite.write(pack, folder, fsync_enabled(), self._keeps) and None)

    def unkeep(self) -> None:
        """Let a repack have the packs `write_pack` made: call once the ref names their
        objects, or once they are given up (store/fast/packwrite.py says why they are kept)."""
        if self._keeps:
            from gitcoop.store.fast import packwrite

            packwrite.unkeep(self._keeps)

    @contextmanager
    def one_pack(self) -> Iterator[None]:
        """Objects written inside go into one pack: written loose without fsync, then
        packed together (libgit2 syncs the pack and its index once, when fsync is on),
        and their loose copies removed. A merge writes a few objects for every item it
        replays; an fsync for each was most of a large merge's time. The pack is kept
        until `unkeep`, as `write_pack`'s are."""
        synced, self._batch = fsync_enabled(), []
        enable_fsync(False)
        try:
            yield
            written = list(dict.fromkeys(str(oid) for oid in self._batch))
        finally:
            self._batch = None
            enable_fsync(synced)
        if not written:
            return
        builder = pygit2.PackBuilder(self.raw)
        try:
            for oid in written:
                builder.add(pygit2.Oid(hex=oid))
        except KeyError:  # a `git prune --expire=now` took them while they were loose
            raise _pruned() from None
        import tempfile  # it loads `random`: only a merge needs it

        from gitcoop.store.fast import packwrite

        objects = os.path.join(self.common_dir, "objects")
        built = ""
        try:  # built beside the packs, where no prune looks, then moved in, kept
            built = tempfile.mkdtemp(prefix=packwrite.INCOMING, dir=objects)
            try:
                self._writing(lambda: builder.write(built))
            except KeyError:
                raise _pruned() from None
            packwrite.adopt(built, os.path.join(objects, "pack"), fsync_enabled(), self._keeps)
        except OSError as exc:
            failed = environment.failure(exc, "writing to the object store")
            if failed is not None:
                raise failed from None
            raise
        finally:
            if built:
                shutil.rmtree(built, ignore_errors=True)
        loose = os.path.join(self.common_dir, "objects")
        for oid in written:  # now in the pack (git's prune-packed does the same)
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(loose, oid[:2], oid[2:]))


def open_repo(path: str, git_parameters: str = "", search: git.Search | None = None) -> Repo:
    """The repository at or above `path` (store/git/repo.py's `opened`), held until a
    one-command process leaves (store/fast/memory.py)."""
    repo = git.opened(Repo, path, git_parameters, search)
    memory.keep(repo)  # its caches are freed by the process's end, not one by one
    return repo


def init_repo(path: str, email: str) -> Repo:
    """A new empty repository with an identity, for the demo's throwaway repo."""
    return git.initialised(Repo, path, email)


def _pruned() -> ChangedUnderWrite:
    return ChangedUnderWrite(
        "objects this merge had just written were removed under it — is a "
        "`git prune --expire=now` running? nothing was recorded; retry"
    )
