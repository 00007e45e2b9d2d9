"""What a merge's replay refused: told to the people it touches, and kept in view.

A merge replays every touched item's events through the rules; an event the
rules refuse stays in the log and is named in the item's `conflicts`
(DESIGN.md §6). The person whose own event lost must stop working on an item
they no longer hold, so they are told at the merge that found it (`sync`
exits 8; service/notices.py), and `owed` and `list --mine` keep showing it
until they acknowledge it (`git coop ack ID`, the `ack` event that also
acknowledges takeovers).
"""

from __future__ import annotations

from dataclasses import replace

from gitcoop.domain import resolution
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Conflict, Item
from gitcoop.errors import NotFound
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.queries import ListFilter
from gitcoop.service.writer import Intent, Shown, write


@record_type
class Lost:
    """One of the acting person's own events that lost on replay, not yet acknowledged."""

    item: Item
    label: str
    conflict: Conflict


def lost_by(ctx: Context, actor: str | None = None) -> list[Lost]:
    """Every unacknowledged lost event of `actor` (default: who is acting), by item id."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    who = actor or ctx.who(snapshot.repo)
    found: list[Lost] = []
    for row in snapshot.open_view(snapshot.cache).rows:  # every item with a conflict is there
        if not row.summary.conflicts:
            continue
        item = Item.from_data(row.data())
        found += [Lost(item, row.label, c) for c in resolution.unacknowledged(item, who)]
    found.sort(key=lambda lost: (lost.item.id, lost.conflict.event))
    return found


def mine(ctx: Context, where: ListFilter) -> ListFilter:
    """`list --mine` also shows where the acting person's event lost unacknowledged."""
    lost = frozenset(lost.item.id for lost in lost_by(ctx))
    return replace(where, mine=True, lost=lost)


def acknowledge(ctx: Context, ref: str, event_ref: str | None = None) -> Shown:
    """`ack`: the acting person has seen what happened to their work on one item.

    Without `event_ref`, one `ack` event for everything waiting for them there:
    takeovers of their work and their lost events (nothing waiting: nothing is
    written, as for any repeat). With it, only the lost event it names (any
    unique prefix of its id); the conflict stays for the owners to settle.
    """
    if event_ref is None:
        return write(ctx, [Intent(ref, "ack", {}, expect=ctx.expect_version)]).first()
    snapshot = read_ledger(ctx)
    item_id = snapshot.resolve(ref)
    item = snapshot.item(item_id)
    assert item is not None
    wanted = event_ref.strip().lower()
    wanted = wanted if wanted.startswith("ev-") else f"ev-{wanted}"
    named = [c.event for c in item.conflicts if c.event.startswith(wanted)]
    if not named:
        raise NotFound(
            f"{snapshot.label(item_id)} has no lost event matching {event_ref!r} — "
            "git coop list --mine shows yours"
        )
    intents = [Intent(item_id, "ack", {"event": e}) for e in named]
    intents[0] = replace(intents[0], expect=ctx.expect_version)  # the version before them all
    return write(ctx, intents).first()
