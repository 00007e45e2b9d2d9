"""Several transitions in one transaction: one ledger commit for all of them.

A commit with three trailers makes one ledger commit, not three. Each request
goes through the same domain rules as `git coop done`; one that a rule
refuses (or whose id is unknown) is answered with the reason and the others
are still written.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gitcoop.domain import lifecycle, rulebook
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Event, Item
from gitcoop.errors import Ambiguous, NotFound, Refused
from gitcoop.service.context import Context, fsync_wanted, require_ledger
from gitcoop.service.ledger import Shown, new_event
from gitcoop.store import transaction
from gitcoop.store.lock import DEFAULT_TIMEOUT
from gitcoop.store.snapshot import Snapshot
from gitcoop.store.transaction import Change

RULE_ANSWERS = (Refused, NotFound, Ambiguous)


@dataclass(frozen=True)
class Request:
    ref: str  # an id or unique prefix
    verb: str
    args: Mapping[str, Any] = field(default_factory=dict)
    once: bool = False  # write nothing when the item already has this exact event


@dataclass(frozen=True)
class Answer:
    request: Request
    shown: Shown | None = None  # the item after the request (wrote=False: nothing to do)
    refusal: str | None = None  # why a rule said no


def act_all(
    ctx: Context, requests: list[Request], lock_timeout: float = DEFAULT_TIMEOUT
) -> list[Answer]:
    """Apply every request in order, in one ledger commit; answers in the same order."""
    repo = ctx.repo()
    actor = ctx.who(repo)
    answers: list[Answer] = []

    def decide(snapshot: Snapshot) -> Change | None:
        require_ledger(snapshot)
        answers.clear()
        config = snapshot.config
        clock = config.clock
        items: dict[ItemId, Item] = {}
        events: list[Event] = []
        for request in requests:
            try:
                item_id = snapshot.resolve(request.ref)
                before = items.get(item_id) or snapshot.item(item_id)
                label = snapshot.label(item_id)
                event = _event(ctx, snapshot, before, request, actor, clock + 1)
            except RULE_ANSWERS as answer:
                answers.append(Answer(request, refusal=answer.message))
                continue
            if event is None:
                assert before is not None
                answers.append(Answer(request, Shown(before, label, wrote=False)))
                continue
            try:
                after = rulebook.apply(before, event, config.roles)
            except Refused as refusal:
                answers.append(Answer(request, refusal=refusal.message.replace(item_id, label)))
                continue
            clock = event.clock
            items[item_id] = after
            events.append(event)
            answers.append(Answer(request, Shown(after, label)))
        if not events:
            return None
        done = ", ".join(
            f"{a.request.verb} {a.shown.label}" for a in answers if a.shown and a.shown.wrote
        )
        return Change(
            message=f"{done} by {actor}",
            actor=actor,
            at=ctx.now,
            items=items,
            events=events,
            config=replace(config, clock=clock),
        )

    transaction.write(repo, decide, fsync_wanted(repo), lock_timeout)
    return list(answers)


def _event(
    ctx: Context, snapshot: Snapshot, item: Item | None, request: Request, actor: str, clock: int
) -> Event | None:
    assert item is not None
    planned = lifecycle.plan(item, request.verb, request.args, actor, snapshot.config.roles)
    if planned is None:
        return None
    verb, args = planned
    if request.once and any(
        e.verb == verb and dict(e.args) == args for e in snapshot.events(item.id)
    ):
        return None
    return new_event(ctx, item.id, actor, verb, args, clock)
