"""The claim routing: where a write is decided, here alone or by the remote that decides claims.

With `git config coop.claims REMOTE` (docs/sync.md), the writer
(service/writer.py) decides a write as always and hands its commit here:

    a claim (take, takeover, pick), or, once the ledger is read, a finish, or a
    done or close of an item still open here (an implicit take)
        decided by the remote (service/claims.py): prepared here, pushed with a
        lease, landed once the remote took it; refused: decided again
    anything else
        committed here as always, then published (best effort)
    --offline
        committed here; a claim is told it is decided at the next sync

The writer loads this module only when coop.claims is set, so a write with
claims off loads none of the sharing code. It imports the sharing code
(service/claims.py) and the transaction, and never the writer: the imports
run one way, writer -> claim routing -> claims.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from gitcoop.errors import Ambiguous, NotFound
from gitcoop.service.claims import Sharing
from gitcoop.service.context import Context, checked_claims_remote
from gitcoop.store.ledger import transaction
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.transaction import Change
from gitcoop.store.repository import Oid, Repo

CLAIM_VERBS = frozenset({"take", "takeover", "pick"})  # the events that bind a holder
# what else the remote decides, like a claim: a finish, and a done or close of an item
# still open (the fast path, an implicit take: a stale clone must not finish away a
# claim the remote confirmed)
FINISH_VERBS = frozenset({"done", "close", "finish"})


class Asked(Protocol):
    """What the routing reads of an intent (service/writer.py `Intent`)."""

    @property
    def target(self) -> str: ...

    @property
    def verb(self) -> str: ...


class NeedsRemote(Exception):
    """Raised while a write is decided here when it asks for a claim: the remote must
    decide it, and nothing was written here."""


def route(ctx: Context, repo: Repo, who: str, fsync: bool) -> Route | None:
    """How a write by `who` is shared: None unless coop.claims names a remote."""
    remote = checked_claims_remote(repo)
    if remote is None:
        return None
    return Route(Sharing(repo, remote, who, ctx.now, fsync), ctx.offline)


@dataclass
class Route:
    """Where a write is decided: here alone, or (a claim) by the remote."""

    share: Sharing
    offline: bool
    remote_decides: bool = False

    @staticmethod
    def asks_claim(intents: Sequence[Asked]) -> bool:
        """Whether these intents claim, before the ledger is read: the remote is asked
        first."""
        return asks_claim(intents)

    def defer_claims(self, intents: Sequence[Asked], snapshot: Snapshot) -> None:
        """NeedsRemote for a claim found while deciding here, unless the remote already
        decides this write, or the write is offline."""
        if not (self.offline or self.remote_decides) and asks_claim(intents, snapshot):
            raise NeedsRemote

    def commit(
        self,
        repo: Repo,
        decide: transaction.Decide,
        fsync: bool,
        lock_timeout: float | None,
        claiming: bool,
    ) -> transaction.Outcome:
        if self.offline:
            outcome = transaction.write(repo, decide, fsync, lock_timeout)
            if _claims_in(outcome.change):
                self.share.offline_notice()
            return outcome
        if not claiming:
            try:
                outcome = transaction.write(repo, decide, fsync, lock_timeout)
            except NeedsRemote:
                pass  # it claims after all: nothing was written here
            else:
                if outcome.change is not None:
                    self.share.publish()
                return outcome
        self.remote_decides = True
        return _claim(repo, decide, fsync, self.share)


def _claim(
    repo: Repo, decide: transaction.Decide, fsync: bool, share: Sharing
) -> transaction.Outcome:
    """A claim through the remote: prepared here, pushed with a lease, landed once taken."""
    prepared: list[transaction.Prepared] = []
    policy = transaction.Policy.for_repo(repo, fsync)

    def prepare() -> Oid | None:
        prepared.append(transaction.prepare(repo, decide, policy))
        return prepared[-1].commit

    def land() -> bool:
        return transaction.land(repo, prepared[-1], policy)

    share.claim(prepare, land)
    last = prepared[-1]
    if last.commit is None:
        return transaction.Outcome(last.snapshot, None)
    return transaction.Outcome(Snapshot(repo, last.commit), last.change)


def asks_claim(intents: Sequence[Asked], snapshot: Snapshot | None = None) -> bool:
    """Whether the remote decides these intents: a claim; and, once the ledger is read, a
    finish, or a done or close of an item still open (an implicit take)."""
    if any(intent.verb in CLAIM_VERBS for intent in intents):
        return True
    if snapshot is None or snapshot.commit is None:
        return False
    return any(
        intent.verb in FINISH_VERBS and (intent.verb == "finish" or _open_here(snapshot, intent))
        for intent in intents
    )


def _open_here(snapshot: Snapshot, intent: Asked) -> bool:
    """Open here, or not here at all: the remote's ledger may hold it (then it is found
    there, or the write says it is nowhere)."""
    try:
        item = snapshot.item(snapshot.resolve(intent.target))
    except NotFound:
        return True
    except Ambiguous:
        return False  # the write itself says so
    return item is not None and item.status == "open"


def _claims_in(change: Change | None) -> bool:
    return change is not None and any(e.verb in CLAIM_VERBS for e in change.events)
