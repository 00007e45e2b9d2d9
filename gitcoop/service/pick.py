"""The pick: check the top ready item's evidence against HEAD, then take it.

The top ready item is the first of `git coop ready --kind item`: by priority,
then queue order, leaving out items that wait on unsettled work.

    hit   (cached at this HEAD)                      -> take
    moved (cached at an ancestor of HEAD)            -> count the first-parent steps
          since then that touch the evidence paths: <= 20 reuse, > 20 re-verify
    moved (cached at a HEAD that is not an ancestor, or not here) -> re-verify
    miss  (no evidence, never cached, or discarded)  -> verify

When nothing is ready, the pick verifies drafts (and stranded verifying
items) one at a time, in queue order, until one is ready. Every verifier
call of one pick counts against `max_verify`; reaching it ends the pick with
that said. After each verification the ledger is read again and the pick
starts over; an item verified once in this pick is not sent to the verifier
again. Its verifications are by the person picking, as the runner, and name
the pick (`for_pick`: a token minted before the first of them, which the
pick event carries as `run`; an event's own id is its content's).

The top item is chosen under the writer lock, by a plan the writer runs on
the ledger as it is then (read through the read cache: only ready items are
built), so two pickers never choose on a ledger one of them already moved.
With claims through a remote (coop.claims), that ledger is the remote's,
just merged, and the remote decides: a pick another clone made first is
never taken twice (docs/sync.md).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime

from gitcoop.domain import ids, queue
from gitcoop.domain.ids import ItemId
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import ChangedUnderWrite, Refused, UsageError
from gitcoop.service import dependencies
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.verify import Judged, Progress, Verifier, configured, for_pick, verify_item
from gitcoop.service.verify import waiting as waiting_for_verdict
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store.fast.read_cache import ItemCache
from gitcoop.store.git import ancestry
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo

REVERIFY_AFTER = 20  # first-parent steps touching the evidence paths since it was cached
MAX_VERIFY = 5  # verifier calls one pick makes unless told otherwise
MAX_LOST_TAKES = 10  # takes lost to other pickers before this pick gives up


@record_type
class Check:
    """What the cache said about one item at pick time."""

    label: str
    cache: str  # hit | moved | miss
    touching: int | None  # first-parent steps touching the evidence paths, for moved
    action: str  # use | reuse | verify
    why: str = ""  # why the evidence could not be reused, for verify


@dataclass
class Picked:
    shown: Shown | None = None  # None when nothing was picked
    checks: list[Check] = field(default_factory=list)
    judged: list[Judged] = field(default_factory=list)
    reason: str = ""  # why nothing was picked


def check(repo: Repo, item: Item, head: str | None, label: str) -> Check:
    found = queue.lookup(item.evidence, head)
    if found.state == "hit":
        return Check(label, "hit", None, "use")
    if found.state == "miss":
        return Check(label, "miss", None, "verify", "no evidence is cached for it")
    cached = found.cached_head
    if cached is None or head is None or not ancestry.exists(repo, cached):
        why = f"the HEAD its evidence was cached at ({(cached or '?')[:12]}) is not here"
        return Check(label, "moved", None, "verify", why)
    if not ancestry.is_ancestor(repo, cached, head):
        why = (
            f"the HEAD its evidence was cached at ({cached[:12]}) is not an ancestor of HEAD "
            "(HEAD moved backwards, to another branch, or past a rebase)"
        )
        return Check(label, "moved", None, "verify", why)
    touching = ancestry.count_touching(repo, cached, head, found.paths, REVERIFY_AFTER)
    if touching > REVERIFY_AFTER:
        why = f"more than {REVERIFY_AFTER} commits since then touch its evidence"
        return Check(label, "moved", touching, "verify", why)
    return Check(label, "moved", touching, "reuse")


class _Pick:
    """One pick's state: what it asked the verifier, and how much more it may ask."""

    def __init__(self, ctx: Context, max_verify: int, progress: Progress, result: Picked) -> None:
        self.ctx = ctx
        self.repo = ctx.repo()
        self.budget = max_verify
        self.max_verify = max_verify
        self.progress = progress
        self.result = result
        self.asked: set[ItemId] = set()
        # names this pick in its verifications and in the pick event (`run`): an event's id
        # is its content's, known only once it is written
        self.run = ids.mint_event_id(ctx.bits)
        self.verifier: Verifier | None = None
        self.seen: tuple[Item, Check] | None = None  # the top ready item the last plan found

    def verify(self, snapshot: Snapshot, item: Item) -> None:
        """Send one item to the verifier, as the runner of this pick."""
        item_id = item.id
        self.asked.add(item_id)
        self.verifier = self.verifier or configured(self.repo, snapshot)
        number = self.max_verify - self.budget + 1
        self.progress.starting(snapshot.label(item_id), number, self.max_verify)
        try:
            route = for_pick(self.run)
            judged = verify_item(self.ctx, item_id, self.verifier, route, item.version)
        except (Refused, ChangedUnderWrite):
            return  # another verification holds it, or it moved first
        self.budget -= 1
        self.result.judged.append(judged)
        self.progress.landed(judged)

    def draft_pass(self, snapshot: Snapshot, items: list[Item]) -> bool:
        """Nothing is ready: verify the next draft; False (and why) when none can be."""
        drafts = [i for i in waiting_for_verdict(items, self.ctx.now) if i.id not in self.asked]
        if not drafts or self.budget == 0:
            self.result.reason = _nothing_ready(items, drafts, self.result.judged, self.max_verify)
            return False
        self.verify(snapshot, drafts[0])
        return True

    def take(self) -> Shown | None:
        """Choose the top ready item under the writer lock and take it, unless it must
        be verified first; None when nothing was taken (`self.seen` says why)."""

        def plan(snapshot: Snapshot) -> list[Intent]:
            self.seen = None
            ready = ready_items(snapshot, self.ctx.now)
            if not ready:
                return []
            top, head = ready[0], ancestry.current_head(self.repo)
            found = check(self.repo, top, head, snapshot.label(top.id))
            self.seen = (top, found)
            if found.action == "verify" and top.id not in self.asked:
                return []  # verified outside the lock; then the pick starts over
            args = {"head": head} if found.action == "reuse" and head is not None else {}
            if self.asked:
                args["run"] = self.run  # the verifications of this pick name it so
            return [Intent(top.id, "pick", args)]

        written = write(self.ctx, plan, claim=True)
        return written.first() if written.answers else None


def ready_items(snapshot: Snapshot, now: datetime | None = None) -> list[Item]:
    """The ready queue items in pick order (`git coop ready --kind item`), through the
    read cache's summaries: only they are built."""
    if snapshot.commit is None:
        return []
    cached = Snapshot(snapshot.repo, snapshot.commit, ItemCache(snapshot.repo.common_dir))
    due_by = format_instant(now) if now is not None else None
    found = dependencies.ready_in(cached, kind="item", now=due_by)
    return [i for i in (Item.from_data(r.data()) for r in found.listed) if queue.pickable(i)]


def pick(
    ctx: Context,
    max_verify: int = MAX_VERIFY,
    progress: Progress | None = None,
    result: Picked | None = None,
) -> Picked:
    """Take the topmost ready item, verifying first what needs it; `result` fills as it goes."""
    if max_verify < 0:
        raise UsageError("--max-verify must be 0 or more")
    ctx.who(ctx.repo())
    result = result if result is not None else Picked()
    run = _Pick(ctx, max_verify, progress or Progress(), result)
    lost = 0
    while True:
        try:
            result.shown = run.take()
        except (ChangedUnderWrite, Refused):
            lost += 1  # another picker was first: start over
            if lost >= MAX_LOST_TAKES:
                raise ChangedUnderWrite(
                    f"other pickers took the top item {lost} times in a row — run it again"
                ) from None
            continue
        if run.seen is None:  # nothing is ready
            snapshot = read_ledger(ctx)
            if not run.draft_pass(snapshot, list(snapshot.open_items())):
                return result
            continue
        top, found = run.seen
        result.checks.append(found)
        if result.shown is not None:
            return result
        if run.budget == 0:
            result.reason = (
                f"{found.label} must be verified again ({found.why}), and this pick has "
                f"made its {max_verify} verifier calls (--max-verify {max_verify})"
            )
            return result
        run.verify(read_ledger(ctx), top)


def _nothing_ready(
    items: list[Item], drafts: list[Item], judged: list[Judged], max_verify: int
) -> str:
    """Why nothing was picked, with a count of what the queue holds."""
    live = Counter(i.status for i in items if i.kind == "item" and not queue.settled(i))
    if not live:
        return "the queue is empty — import findings with: git coop scan --from FILE"
    held = ", ".join(f"{n} {status}" for status, n in sorted(live.items()))
    if live["ready"]:
        held += f" (the {live['ready']} ready waiting on unsettled work: git coop blocked)"
    verified = ""
    if judged:
        became = Counter(j.status for j in judged)
        verdicts = ", ".join(f"{n} {status}" for status, n in sorted(became.items()))
        verified = f"; verified {len(judged)} in this pick ({verdicts})"
    if drafts:
        return (
            f"nothing is ready and this pick has made its {max_verify} verifier calls "
            f"(--max-verify {max_verify}); the queue holds {held}{verified}"
        )
    return f"nothing is ready to pick; the queue holds {held}{verified}"
