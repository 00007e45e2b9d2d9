"""Events built by hand, so domain tests need no git, no YAML and no clock."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta
from typing import Any

from gitcoop.domain import lifecycle, rulebook
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Event, Item, Roles

T0 = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
TODO = ItemId("td-7k2m9x4q1c8v")
REQUEST = ItemId("rq-9x3a0000abcd")
ALICE, BOB, CAROL = "alice@example.com", "bob@example.com", "carol@example.com"
ROLES = Roles(owners=(ALICE,), chiefs=(CAROL,))

_ids = itertools.count(1)


def event(
    verb: str,
    actor: str = ALICE,
    item: ItemId = TODO,
    minutes: float = 0,
    session: str | None = None,
    clock: int | None = None,
    **args: Any,
) -> Event:
    n = next(_ids)
    return Event(
        id=EventId(f"ev-{n:012d}"),
        item=item,
        clock=clock if clock is not None else n,
        at=T0 + timedelta(minutes=minutes),
        actor=actor,
        session=session,
        verb=verb,
        args=args,
    )


def added(item: ItemId = TODO, kind: str = "todo") -> Item:
    return rulebook.apply(None, event("add", item=item, kind=kind, title="Fix it"), ROLES)


def run(item: Item | None, *events: Event, roles: Roles = ROLES) -> Item:
    for e in events:
        item = rulebook.apply(item, e, roles)
    assert item is not None
    return item


def request(
    item: Item | None,
    verb: str,
    actor: str = ALICE,
    session: str | None = None,
    minutes: float = 0,
    **args: Any,
) -> Item | None:
    """Plan and apply a request the way the service does; None when nothing is written."""
    planned = lifecycle.plan(item, verb, args, actor, ROLES, session)
    if planned is None:
        return None
    recorded = event(planned[0], actor=actor, session=session, minutes=minutes, **planned[1])
    return rulebook.apply(item, recorded, ROLES)


def typed(value: Any) -> Any:
    """`value` with every scalar's type beside it: True and 1 must not compare equal."""
    if isinstance(value, dict):
        return {k: typed(v) for k, v in value.items()}
    if isinstance(value, list):
        return [typed(v) for v in value]
    return (type(value).__name__, value)
