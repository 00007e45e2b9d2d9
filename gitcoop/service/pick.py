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
from gitcoop.store.repository import Repo

REVERIFY_AFTER = 20  # commits touching the evidence paths since it was cached


@dataclass(frozen=True)
class Check:
    """What the cache said about one item at pick time."""

    label: str
    cache: str  # hit | moved | miss
    touching: int | None  # first-parent steps touching the evidence paths, for moved
    action: str  # use | reuse | verify
    why: str = ""  # why the evidence could not be reused, for verify


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
        return Check(label, "miss", None, "verify", "no evidence is cached for it")
    if not found.paths:
        return Check(label, "moved", 0, "reuse")
    cached = found.cached_head
    if cached is None or head is None or not history.exists(repo, cached):
        why = f"the HEAD its evidence was cached at ({(cached or '?')[:12]}) is not here"
        return Check(label, "moved", None, "verify", why)
    if not history.is_ancestor(repo, cached, head):
        why = (
            f"the HEAD its evidence was cached at ({cached[:12]}) is not an ancestor of HEAD "
            "(HEAD moved backwards, to another branch, or past a rebase)"
        )
        return Check(label, "moved", None, "verify", why)
    touching = history.count_touching(repo, cached, head, found.paths, REVERIFY_AFTER)
    if touching > REVERIFY_AFTER:
        why = f"more than {REVERIFY_AFTER} commits since then touch its evidence"
        return Check(label, "moved", touching, "verify", why)
    return Check(label, "moved", touching, "reuse")


def pick(ctx: Context) -> Picked:
    repo = ctx.repo()
    ctx.who(repo)
    asked: set[ItemId] = set()
    checks: list[Check] = []
    judged: list[Judged] = []
    verifier: Verifier | None = None
    for _ in range(64):
        snapshot = read_ledger(ctx)
        ready = [i for i in queue.in_order(snapshot.items()) if queue.pickable(i)]
        if not ready:
            return Picked(None, checks, judged)
        top = ready[0]
        head = history.current_head(repo)
        found = check(repo, top, head, snapshot.label(top.id))
        checks.append(found)
        if found.action == "verify" and top.id not in asked:
            asked.add(top.id)
            verifier = verifier or configured(repo, snapshot)
            judged.append(verify_item(ctx, top.id, verifier))
            continue  # re-read and start over
        reuse = found.action == "reuse" and head is not None
        taking = Intent(top.id, "pick", {"head": head} if reuse else {}, expect=top.version)
        try:
            written = write(ctx, [taking])
        except (ChangedUnderWrite, Refused):
            continue  # another picker was first: start over
        return Picked(written.first(), checks, judged)
    raise ChangedUnderWrite("the queue kept changing under this pick — run it again")
