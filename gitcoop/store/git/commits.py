"""Commits and their history: authors, parents, first-parent chains, ancestry, and
what one tip has that another lacks."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

from gitcoop.domain.record_type import record_type
from gitcoop.errors import BadLedger
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.objects import Objects, Oid


@record_type
class CommitInfo:
    """What a walk of history needs of one commit: its id, parents and author's email."""

    oid: Oid
    parents: tuple[Oid, ...]
    author: str


class Commits(Objects):
    """Commits read, and walks of their history (a part of `Repo`, store/git/repo.py)."""

    def commit_author(self, commit: Oid) -> str | None:
        """The email of a commit's author, when the commit is here."""
        try:
            return _email(self._commit(commit))
        except BadLedger:
            return None

    def commit_summary(self, commit: Oid) -> tuple[str, datetime, str, str, str, bool]:
        """(sha, when, author's email, subject, rest of the message, is a merge) of a
        commit: what the board's activity view shows of each ledger commit."""
        obj = self._commit(commit)
        at = when(obj.author)
        with contextlib.suppress(OverflowError, ValueError):  # past year 9999 there: UTC
            at = at.astimezone(timezone(timedelta(minutes=obj.author.offset)))
        subject, _, body = message(obj).partition("\n")
        merge = len(obj.parent_ids) > 1
        return str(obj.id), at, _email(obj), subject, body.strip(), merge

    def commit_parents(self, commit: Oid) -> list[Oid]:
        return [Oid(str(p)) for p in self._commit(commit).parent_ids]

    def first_parents(self, tip: Oid) -> Iterator[Oid]:
        """`tip` and its first parent's first parent, and so on, to the root."""
        at: Oid | None = tip
        while at is not None:
            yield at
            parents = self._commit(at).parent_ids
            at = Oid(str(parents[0])) if parents else None

    def history(self, tip: Oid, limit: int | None = None) -> list[Oid]:
        """Commits reachable from `tip`, newest first (topological), at most `limit`."""
        found: list[Oid] = []
        walker = self.raw.walk(pygit2.Oid(hex=tip), pygit2.enums.SortMode.TOPOLOGICAL)
        for commit in walker:
            if limit is not None and len(found) >= limit:
                break
            found.append(Oid(str(commit.id)))
        return found

    def merge_base(self, a: Oid, b: Oid) -> Oid | None:
        """The best common ancestor of two commits, or None for unrelated histories."""
        base = self.raw.merge_base(pygit2.Oid(hex=a), pygit2.Oid(hex=b))
        return Oid(str(base)) if base is not None else None

    def ahead_behind(self, local: Oid, upstream: Oid) -> tuple[int, int]:
        """Commits `local` has that `upstream` lacks, and the other way round."""
        ahead, behind = self.raw.ahead_behind(pygit2.Oid(hex=local), pygit2.Oid(hex=upstream))
        return int(ahead), int(behind)

    def is_ancestor(self, ancestor: Oid, descendant: Oid) -> bool:
        if ancestor == descendant:
            return True
        return bool(self.raw.descendant_of(pygit2.Oid(hex=descendant), pygit2.Oid(hex=ancestor)))

    def ancestors(self, commit: Oid) -> frozenset[str]:
        """The ids of `commit` and every commit in its history."""
        try:
            return frozenset(str(c.id) for c in self.raw.walk(pygit2.Oid(hex=commit)))
        except (pygit2.GitError, KeyError, ValueError) as exc:
            raise BadLedger(f"commit {commit[:12]}: cannot walk its history ({exc})") from None

    def commits_since(self, tip: Oid, known: Oid | None) -> list[CommitInfo]:
        """Commits reachable from `tip` but not from `known`, parents before children."""
        walker = self.raw.walk(
            pygit2.Oid(hex=tip), pygit2.enums.SortMode.TOPOLOGICAL | pygit2.enums.SortMode.REVERSE
        )
        if known is not None:
            walker.hide(pygit2.Oid(hex=known))
        found: list[CommitInfo] = []
        try:
            for commit in walker:
                parents = tuple(Oid(str(p)) for p in commit.parent_ids)
                found.append(CommitInfo(Oid(str(commit.id)), parents, _email(commit)))
        except (pygit2.GitError, KeyError, ValueError) as exc:
            raise BadLedger(
                f"{self.main_ref}: the history of {tip} cannot be walked ({exc})"
            ) from None
        if known is not None and any(not info.parents for info in found):
            # the walk stops hiding by commit dates, and commits dated in the past (an
            # offline clone's COOP_NOW=1970) make it list some of `known`'s own history,
            # down to the root every related ledger shares: filter by its whole history
            held = self.ancestors(known)
            found = [info for info in found if info.oid not in held]
        return found

    def commits_between(self, old: str, new: str) -> Iterator[Any]:
        """Commits reachable from `new` but not from `old` (git's old..new), newest first."""
        walker = self.raw.walk(pygit2.Oid(hex=new), pygit2.enums.SortMode.TOPOLOGICAL)
        walker.hide(pygit2.Oid(hex=old))
        yield from walker


# A commit's texts are read as git shows them: in the encoding its header names when
# Python knows it as a text encoding, else as UTF-8 (the header is its writer's word, git
# takes any name, and pygit2 raises LookupError on one Python does not know). Bytes that
# do not decode stay visible as escapes.


def message(commit: Any) -> str:
    """A commit's message as written."""
    return _text(commit.raw_message, commit.message_encoding)


def email(signature: Any, encoding: str | None) -> str:
    """An author's or committer's email as written, in its commit's `encoding`."""
    return _text(signature.raw_email, encoding)


def _email(commit: Any) -> str:
    return email(commit.author, commit.message_encoding)


def _text(raw: bytes, encoding: str | None) -> str:
    if encoding:
        try:
            return raw.decode(encoding, errors="backslashreplace")
        except LookupError:  # a name Python does not know, or not a text encoding
            pass
    return raw.decode("utf-8", errors="backslashreplace")


_EARLIEST = datetime.min.replace(tzinfo=UTC)
_LATEST = datetime.max.replace(microsecond=0, tzinfo=UTC)


def when(signature: Any) -> datetime:
    """An author's or committer's time (`instant`)."""
    return instant(signature.time)


def instant(seconds: int) -> datetime:
    """A commit's time, in UTC. git takes times Python's datetime cannot hold (past year
    9999): such a time is the nearest it can."""
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        return _LATEST if seconds > 0 else _EARLIEST
