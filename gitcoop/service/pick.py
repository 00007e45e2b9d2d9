"""The pick: check the top ready item's evidence against HEAD, then take it.

    hit   (cached at this HEAD)                      -> take
    moved (cached at another HEAD)                   -> count commits since then
          that touch the evidence paths: <= 20 reuse, > 20 re-verify;
          no paths: reuse; the cached HEAD is gone: re-verify
    miss  (never cached, or discarded)               -> verify

After a verification the ledger is read again and the pick starts over; an
item verified once in this pick is not sent to the verifier again.
"""

from __future__ import annotations

from dataclasses import dataclass

from gitcoop.domain import queue
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Item
from gitcoop.errors import ChangedUnderWrite, Refused
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.verify import Judged, Verifier, configured, verify_item
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store import history
from gitcoop.store.cache import ItemCache
from gitcoop.store.repository import Repo
from gitcoop.store.snapshot import Snapshot

REVERIFY_AFTER = 20  # commits touching the evidence paths since it was cached


@dataclass(frozen=True)
class Check:
    """What the cache said about one item at pick time."""

    label: str
    cache: str  # hit | moved | miss
    touching: int | None  # commits touching the evidence paths, for moved
    action: str  # use | reuse | verify


@dataclass(frozen=True)
class Picked:
    shown: Shown | None  # None when nothing was ready
    checks: list[Check]
    judged: list[Judged]


def check(repo: Repo, item: Item, head: str | None, label: str) -> Check:
    found = queue.lookup(item.evidence, head)
    if found.state == "hit":
        return Check(label, "hit", None, "use")
    if found.state == "miss":
        return Check(label, "miss", None, "verify")
    if not found.paths:
        return Check(label, "moved", 0, "reuse")
    cached = found.cached_head
    if cached is None or head is None or not history.exists(repo, cached):
        return Check(label, "moved", None, "verify")  # the cached HEAD no longer exists
    touching = history.count_touching(repo, cached, head, found.paths, REVERIFY_AFTER)
    return Check(label, "moved", touching, "reuse" if touching <= REVERIFY_AFTER else "verify")


def ready_items(snapshot: Snapshot) -> list[Item]:
    """The ready queue items in pick order, through the read cache: only they are built."""
    cache = ItemCache(snapshot.repo.common_dir)
    cached = Snapshot(snapshot.repo, snapshot.commit, cache)
    rows = cached.rows(cache) if snapshot.commit is not None else []
    ready = [Item.from_data(r.data()) for r in rows if r.summary.status == "ready"]
    return [i for i in queue.in_order(ready) if queue.pickable(i)]


def pick(ctx: Context) -> Picked:
    """Take the topmost ready item, chosen on the ledger as read under the writer lock.

    With claims through a remote (coop.claims) that ledger is the remote's,
    just merged, and the remote decides: a pick another clone made first is
    never taken twice.
    """
    repo = ctx.repo()
    ctx.who(repo)
    asked: set[ItemId] = set()
    checks: list[Check] = []
    judged: list[Judged] = []
    verifier: Verifier | None = None
    seen: list[tuple[Item, Check]] = []  # the top item the last plan found

    def plan(snapshot: Snapshot) -> list[Intent]:
        seen.clear()
        ready = ready_items(snapshot)
        if not ready:
            return []
        top, head = ready[0], history.current_head(repo)
        found = check(repo, top, head, snapshot.label(top.id))
        seen.append((top, found))
        if found.action == "verify" and top.id not in asked:
            return []  # verified outside the lock; then the pick starts over
        reuse = found.action == "reuse" and head is not None
        return [Intent(top.id, "pick", {"head": head} if reuse else {})]

    for _ in range(64):
        try:
            written = write(ctx, plan, claim=True)
        except (ChangedUnderWrite, Refused):
            continue  # another picker was first: start over
        if not seen:
            return Picked(None, checks, judged)
        top, found = seen[0]
        checks.append(found)
        if written.answers:
            return Picked(written.first(), checks, judged)
        asked.add(top.id)
        verifier = verifier or configured(repo, read_ledger(ctx))
        judged.append(verify_item(ctx, top.id, verifier))
    raise ChangedUnderWrite("the queue kept changing under this pick — run it again")
