"""What a merge's replay refused: told to the people it touches, and kept in view.

A merge replays every touched item's events through the rules; an event the
rules refuse stays in the log and is named in the item's `conflicts`
(DESIGN.md §6). The person whose own event lost must stop working on an item
they no longer hold, so they are told at the merge that found it (`sync`
exits 8), and `list --mine` / `owed --mine` keep showing it until they
acknowledge it (`git coop ack ID`, an `ack` event).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from gitcoop.domain import reconcile
from gitcoop.domain.reconcile import Notice
from gitcoop.domain.records import Conflict, Item
from gitcoop.errors import NotFound
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.queries import ListFilter
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store import merge
from gitcoop.store.repository import Oid, Repo
from gitcoop.store.snapshot import Snapshot


def merge_notices(repo: Repo, start: Oid | None, tip: Oid | None, actor: str) -> list[Notice]:
    """The conflicts that appeared between `start` and `tip` and touch `actor`."""
    if tip is None or tip == start:
        return []
    before = Snapshot(repo, start) if start else None
    after = Snapshot(repo, tip)
    found: list[Notice] = []
    for item_id in sorted(merge.changed_items(repo, start, tip)):
        item = after.item(item_id)
        if item is None or not item.conflicts:
            continue
        old = before.item(item_id) if before else None
        seen = {c.event for c in old.conflicts} if old else set()
        new = [c for c in item.conflicts if c.event not in seen]
        if new:  # labels only now: a merge with nothing to tell reads no other item
            found += reconcile.notices(item, after.label(item_id), new, actor)
    return found


@dataclass(frozen=True)
class Lost:
    """One of the acting person's own events that lost on replay, not yet acknowledged."""

    item: Item
    label: str
    conflict: Conflict


def unacknowledged(item: Item, actor: str) -> list[Conflict]:
    """The conflicts of `item` that are `actor`'s own lost events they have not acknowledged."""
    return [c for c in item.conflicts if c.actor == actor and not c.acknowledged]


def lost_by(ctx: Context, actor: str | None = None) -> list[Lost]:
    """Every unacknowledged lost event of `actor` (default: who is acting), by item id."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    who = actor or ctx.who(snapshot.repo)
    found: list[Lost] = []
    for row in snapshot.rows(snapshot.cache):
        if not row.summary.conflicted:
            continue
        item = Item.from_data(row.data())
        found += [Lost(item, row.label, c) for c in unacknowledged(item, who)]
    found.sort(key=lambda lost: (lost.item.id, lost.conflict.event))
    return found


def mine(ctx: Context, where: ListFilter) -> ListFilter:
    """`list --mine`: what the acting person holds, and where their event lost unacknowledged."""
    who = ctx.who(ctx.repo())
    lost = frozenset(lost.item.id for lost in lost_by(ctx, who))
    return replace(where, mine=who, lost=lost)


def acknowledge(ctx: Context, ref: str, event_ref: str | None = None) -> Shown:
    """Record that the acting person knows their events on one item lost (`ack` events).

    Every unacknowledged lost event of theirs on the item, or only the one
    named (any unique prefix of its id). The conflicts stay for the owners.
    """
    snapshot = read_ledger(ctx)
    item_id = snapshot.resolve(ref)
    item = snapshot.item(item_id)
    assert item is not None
    label = snapshot.label(item_id)
    mine = unacknowledged(item, ctx.who(snapshot.repo))
    if event_ref is not None:
        wanted = event_ref.strip().lower()
        wanted = wanted if wanted.startswith("ev-") else f"ev-{wanted}"
        mine = [c for c in mine if c.event.startswith(wanted)]
    if not mine:
        which = f" matching {event_ref!r}" if event_ref is not None else ""
        raise NotFound(
            f"{label} has no lost event of yours{which} to acknowledge — "
            "git coop list --mine shows them"
        )
    if event_ref is None:  # one `ack` for all of them
        return write(ctx, [Intent(item_id, "ack", {})]).first()
    intents = [Intent(item_id, "ack", {"event": c.event}, once=True) for c in mine]
    return write(ctx, intents).first()
