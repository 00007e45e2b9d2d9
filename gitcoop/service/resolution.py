"""Settling a merge conflict: `git coop resolve ID EVENT --apply|--dismiss --reason R`."""

from __future__ import annotations

from gitcoop.domain import resolution
from gitcoop.errors import Ambiguous, NotFound
from gitcoop.service import ledger
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.writer import Shown


def resolve(ctx: Context, ref: str, event_ref: str, decision: str, reason: str) -> Shown:
    """Record an owner's decision on one refused event, as a `resolve` event."""
    snapshot = read_ledger(ctx)
    item_id = snapshot.resolve(ref)
    item = snapshot.item(item_id)
    label = snapshot.label(item_id)
    wanted = event_ref.strip().lower()
    wanted = wanted if wanted.startswith("ev-") else f"ev-{wanted}"
    matches = [c for c in (item.conflicts if item else ()) if c.event.startswith(wanted)]
    if not matches:
        raise NotFound(
            f"{label} has no open conflict for event {event_ref!r} — git coop show {label} "
            "lists its conflicts"
        )
    if len(matches) > 1:
        raise Ambiguous(f"{event_ref!r} matches {len(matches)} conflicts of {label} — give more")
    refused = next(e for e in snapshot.events(item_id) if e.id == matches[0].event)
    args = resolution.resolve_args(refused, decision, reason)
    return ledger.act(ctx, item_id, "resolve", args)
