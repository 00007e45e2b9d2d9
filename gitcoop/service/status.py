"""`status`: the ledger at a glance, for the person acting.

Counts per kind and status (and of overdue work: its own due date passed),
what they hold, what is due for them (and, for
owners, the conflicts waiting), how the ledger stands against each remote it
is shared with, and what the hooks journaled that still waits. Everything
comes from the read cache's open index (settled items are only counted) and
local refs: like `git status`, it compares with the remote as of the last
fetch and never asks the network.
"""

from __future__ import annotations

from collections import Counter, defaultdict

from gitcoop.domain import readiness
from gitcoop.domain.ids import ItemId
from gitcoop.domain.record_type import record_type
from gitcoop.domain.timefmt import format_instant
from gitcoop.service import owed as owing
from gitcoop.service.context import Context, claims_remote, read_ledger
from gitcoop.service.owed import OwedList
from gitcoop.store.fast.cache_rows import Row
from gitcoop.store.ledger import journal
from gitcoop.store.ledger.layout import remote_ref
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.transport import exact_refspec, fetch_refspec
from gitcoop.store.repository import Oid, Repo


@record_type
class Sharing:
    """The ledger against one remote's, as last fetched."""

    remote: str
    fetched: bool  # the remote's ledger has been fetched at least once
    ahead: int  # ledger commits here the remote's lacks
    behind: int  # and the other way round
    claims: bool  # this remote decides claims (coop.claims)

    def to_data(self) -> dict[str, object]:
        return {
            "remote": self.remote,
            "fetched": self.fetched,
            "ahead": self.ahead,
            "behind": self.behind,
            "claims": self.claims,
        }


@record_type
class Status:
    actor: str
    roles: tuple[str, ...]  # owner, chief
    tip: Oid | None
    counts: dict[str, dict[str, int]]  # kind -> status -> how many
    held: list[Row]  # what the actor holds, oldest take first (the first `limit` of it)
    owed: OwedList  # what needs the actor now: due, conflicts (owners), takeovers, lost
    sharing: list[Sharing]
    remotes: list[str]  # configured git remotes (for the hint when nothing is shared)
    journal: int  # hook journal entries waiting
    holding: int = 0  # how many items the actor holds
    overdue: int = 0  # unsettled work whose own due date has passed (anyone's)


def status(ctx: Context, limit: int | None = None) -> Status:
    """With `limit`, only the first `limit` held items and obligations are read (what a
    text status shows); the rest are counted."""
    snapshot = read_ledger(ctx)
    repo = snapshot.repo
    actor = ctx.who(repo)
    roles = snapshot.config.roles
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    held: list[tuple[str, str]] = []
    now, overdue = format_instant(ctx.now), 0
    fans = snapshot.keys(snapshot.cache) if snapshot.cache is not None else []
    settled: Counter[tuple[str, str]] = Counter()  # as the open index tallies them
    for fan in fans:
        for kind, state, _, number in fan.settled:
            settled[kind, state] += number
    for (kind, state), number in settled.items():  # settled: counted, never read
        counts[kind][state] += number
    for fan in fans:
        for kind, state, number in fan.counts:
            counts[kind][state] += number
        held += fan.held_by(actor)
        overdue += sum(1 for due in fan.dated if readiness.overdue(due, now))
    held.sort(key=lambda entry: entry[0])
    return Status(
        actor=actor,
        roles=tuple(
            r
            for r, on in (("owner", actor in roles.owners), ("chief", actor in roles.chiefs))
            if on
        ),
        tip=snapshot.commit,
        counts={kind: dict(by_status) for kind, by_status in sorted(counts.items())},
        held=[_row(snapshot, item_id) for _, item_id in held[:limit]],
        owed=owing.owed(ctx, include_not_due=False, mine=True, limit=limit),
        sharing=sharing(repo),
        remotes=repo.remote_names(),
        journal=len(journal.entries(repo.common_dir)),
        holding=len(held),
        overdue=overdue,
    )


def _row(snapshot: Snapshot, item_id: str) -> Row:
    """The row of an item the actor holds, from its own file."""
    from gitcoop.store.fast.cache_rows import make_row

    blob = snapshot.item_blob(ItemId(item_id))
    data = snapshot.item_data(item_id, blob)
    return make_row(item_id, str(blob), snapshot.label(ItemId(item_id)), data)


def sharing(repo: Repo) -> list[Sharing]:
    """Each remote the ledger is shared with: fetched, or set up to be fetched."""
    deciding = claims_remote(repo)
    local = repo.tip()
    found = []
    for remote in repo.remote_names():
        fetches = repo.config_values(f"remote.{remote}.fetch")
        set_up = fetch_refspec(remote) in fetches or exact_refspec(remote) in fetches
        theirs = repo.tip(remote_ref(remote))
        if theirs is None and not set_up and deciding != remote:
            continue
        ahead, behind = (0, 0)
        if theirs is not None and local is not None:
            ahead, behind = repo.ahead_behind(local, theirs)
        found.append(Sharing(remote, theirs is not None, ahead, behind, deciding == remote))
    return found
