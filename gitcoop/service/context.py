"""Who is asking, when, and with what: everything a verb needs from outside.

Only the CLI reads the environment; it builds a Context and passes it down.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime

from gitcoop.domain.ids import RandomBits, identity_problem
from gitcoop.errors import NoLedger, UsageError
from gitcoop.store.cache import ItemCache
from gitcoop.store.repository import Repo, open_repo
from gitcoop.store.snapshot import Snapshot


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


@dataclass(frozen=True)
class Context:
    path: str = "."
    actor: str | None = None
    session: str | None = None
    now: datetime = field(default_factory=_now)
    bits: RandomBits = secrets.randbits
    expect_version: int | None = None

    def repo(self) -> Repo:
        return open_repo(self.path)

    def who(self, repo: Repo) -> str:
        actor = self.actor or repo.config_value("user.email")
        if not actor or not actor.strip():
            raise UsageError("who is acting? set --as ACTOR, COOP_ACTOR, or git config user.email")
        problem = identity_problem(actor.strip())
        if problem:
            raise UsageError(problem)
        return actor.strip()


def fsync_wanted(repo: Repo) -> bool:
    """Durable by default; `git config coop.fsync false` trades that away."""
    value = repo.config_value("coop.fsync")
    return value is None or value.lower() not in ("false", "no", "off", "0")


def require_ledger(snapshot: Snapshot) -> None:
    """A ledger exists and its coop.yaml is of a format this gitcoop reads."""
    if snapshot.commit is None:
        raise NoLedger("no ledger in this repository yet — run: git coop init")
    snapshot.config  # noqa: B018 — parsing it checks the format version


def read_ledger(ctx: Context) -> Snapshot:
    """The ledger as of the ref's current tip; NoLedger when there is none."""
    repo = ctx.repo()
    snapshot = Snapshot(repo, repo.tip(), ItemCache(repo.common_dir))
    require_ledger(snapshot)
    snapshot.config  # noqa: B018 — a safe coop.yaml of a known format comes before any read
    return snapshot
