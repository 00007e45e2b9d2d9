"""Writing objects: blobs, trees and commits, signed or not.

Each write is tried again when a concurrent `git prune` took its loose-object
folder away (store/git/environment.py); a full disk or a read-only repository is
EnvironmentFailed. Whether libgit2 syncs what it writes is `enable_fsync`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from gitcoop.errors import ChangedUnderWrite
from gitcoop.store.git import environment
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.objects import Oid
from gitcoop.store.git.refs import Backoff

Sign = Callable[[bytes], str]  # a commit's bytes -> its armoured signature

WRITE_RETRIES = Backoff(attempts=8, first=0.005)  # a prune loop can strike a few times running

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"

_fsync = {"on": False}  # libgit2's own default, until a write says otherwise


def enable_fsync(enabled: bool) -> None:
    pygit2.settings.enable_fsync_gitdir(enabled)
    _fsync["on"] = enabled


def fsync_enabled() -> bool:
    """Whether libgit2 syncs what it writes now (`enable_fsync`)."""
    return _fsync["on"]


class Writes:
    """Objects written (a part of `Repo`, store/git/repo.py)."""

    raw: Any
    _batch: list[Any] | None  # objects written meanwhile, when a caller collects them

    def write_blob(self, data: bytes) -> Any:
        return self._writing(lambda: self.raw.create_blob(data))

    def tree_builder(self, tree: Any = None) -> Any:
        return self.raw.TreeBuilder(tree) if tree is not None else self.raw.TreeBuilder()

    def write_tree(self, builder: Any) -> Any:
        """The tree a `tree_builder` holds, written as an object."""
        return self._writing(builder.write)

    def write_commit(
        self,
        tree: Any,
        parents: Sequence[Oid],
        actor: str,
        when: datetime,
        message: str,
        sign: Sign | None = None,
    ) -> Oid:
        """A commit object by `actor`; with `sign`, signed in git's own format (gpgsig).

        The signature is made before anything is written, so a failure to sign
        leaves no commit behind.
        """
        signature = pygit2.Signature(actor, actor, int(when.timestamp()), 0)
        parent_ids = [pygit2.Oid(hex=p) for p in parents]
        if sign is None:
            oid = self._writing(
                lambda: self.raw.create_commit(
                    None, signature, signature, message, tree, parent_ids
                )
            )
            return Oid(str(oid))
        content = self.raw.create_commit_string(signature, signature, message, tree, parent_ids)
        armoured = sign(content.encode("utf-8"))
        oid = self._writing(lambda: self.raw.create_commit_with_signature(content, armoured))
        return Oid(str(oid))

    def commit_content(
        self,
        tree: bytes,
        beside: Any,
        parents: Sequence[Oid],
        actor: str,
        when: datetime,
        message: str,
    ) -> bytes:
        """The bytes of the unsigned commit of tree `tree` (a 20-byte id, of a `Pack` not
        yet written) that `write_commit` would write. libgit2 formats a commit only of a
        tree it can read, so it formats one of `beside` (a tree in the store; None: the
        empty tree, which libgit2 always has), and the first line, which names the
        tree, is then changed."""
        signature = pygit2.Signature(actor, actor, int(when.timestamp()), 0)
        parent_ids = [pygit2.Oid(hex=p) for p in parents]
        known = beside.id if beside is not None else pygit2.Oid(hex=EMPTY_TREE)
        made: str = self.raw.create_commit_string(signature, signature, message, known, parent_ids)
        first = f"tree {known}\n"
        if not made.startswith(first):
            raise ValueError("libgit2 wrote a commit that does not start with its tree")
        return f"tree {tree.hex()}\n".encode() + made[len(first) :].encode("utf-8")

    def _writing(self, write: Callable[[], Any]) -> Any:
        """One object write: again when a concurrent prune took its folder away
        (docs/hardening.md); a full disk or a read-only repository is EnvironmentFailed."""
        problem = ""
        for _ in WRITE_RETRIES.pauses():
            try:
                written = write()
                if self._batch is not None and written is not None:
                    self._batch.append(written)
                return written
            except (pygit2.GitError, OSError) as exc:
                failed = environment.failure(exc, "writing to the object store")
                if failed is not None:
                    raise failed from None
                if not environment.transient(exc):
                    raise
                problem = str(exc)
        raise ChangedUnderWrite(
            f"writing to the object store kept failing ({problem}) — is a git gc or prune "
            "running in a loop? nothing was recorded; retry"
        )
