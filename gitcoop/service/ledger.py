"""The writing verbs of todos and requests: init, add, and every transition."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from gitcoop.domain import ids, lifecycle, rulebook
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Event, Item, LedgerConfig, Roles
from gitcoop.domain.roles import LEDGER_ID, apply_roles
from gitcoop.errors import ChangedUnderWrite, Refused, UsageError
from gitcoop.service.context import Context, commit_named, fsync_wanted, require_ledger
from gitcoop.store import transaction
from gitcoop.store.snapshot import Snapshot
from gitcoop.store.transaction import Change


@dataclass(frozen=True)
class Shown:
    """An item with the short id it is shown by, and whether this call wrote."""

    item: Item
    label: str
    wrote: bool = True


def init(ctx: Context) -> tuple[bool, LedgerConfig]:
    """Create the ledger with the acting person as its first owner; idempotent."""
    repo = ctx.repo()
    actor = ctx.who(repo)
    repo.ensure_reflog()

    def decide(snapshot: Snapshot) -> Change | None:
        if snapshot.commit is not None:
            snapshot.config  # noqa: B018 — an existing ledger must at least be readable
            return None
        first_owner = new_event(ctx, LEDGER_ID, actor, "roles", owner_args(actor), clock=1)
        config = LedgerConfig(roles=apply_roles(Roles(), first_owner), clock=first_owner.clock)
        return Change(
            message=f"init by {actor}", actor=actor, at=ctx.now, events=[first_owner], config=config
        )

    outcome = transaction.write(repo, decide, fsync_wanted(repo))
    return outcome.change is not None, outcome.snapshot.config


def owner_args(actor: str) -> dict[str, Any]:
    return {"action": "add", "role": "owner", "who": actor}


def new_event(
    ctx: Context,
    item_id: ItemId,
    actor: str,
    verb: str,
    args: Mapping[str, Any],
    clock: int,
    session: bool = True,
) -> Event:
    """A fresh event at `clock` (one past the largest the ledger holds when it is written).

    `session=False` for writes no session makes (the queue loop's own verdicts).
    """
    return Event(
        id=ids.mint_event_id(ctx.bits),
        item=item_id,
        clock=clock,
        at=ctx.now,
        actor=actor,
        session=ctx.session if session else None,
        verb=verb,
        args=dict(args),
    )


def change_roles(ctx: Context, action: str, role: str, who: str) -> Roles:
    """Add or remove an owner or chief (owners only); the change is an event."""
    problem = ids.identity_problem(who)
    if problem:
        raise UsageError(problem)
    repo = ctx.repo()
    actor = ctx.who(repo)

    def decide(snapshot: Snapshot) -> Change | None:
        require_ledger(snapshot)
        config = snapshot.config
        args = {"action": action, "role": role, "who": who}
        event = new_event(ctx, LEDGER_ID, actor, "roles", args, clock=config.clock + 1)
        roles = apply_roles(config.roles, event)
        if roles == config.roles:
            return None
        return Change(
            message=f"roles {action} {role} {who} by {actor}",
            actor=actor,
            at=ctx.now,
            events=[event],
            config=replace(config, roles=roles, clock=event.clock),
        )

    return transaction.write(repo, decide, fsync_wanted(repo)).snapshot.config.roles


def add(ctx: Context, kind: str, title: str, **fields: Any) -> Shown:
    """File a new todo, request or queue item."""
    args = {"kind": kind, "title": title, **{k: v for k, v in fields.items() if v is not None}}

    def target(snapshot: Snapshot) -> ItemId:
        return ids.mint_item_id(kind, ctx.bits)

    return _transition(ctx, target, "add", args, new=True)


def act(ctx: Context, ref: str, verb: str, args: Mapping[str, Any]) -> Shown:
    """take, release, done, close, abandon, note, report, review... on one item."""
    args = dict(args)
    if isinstance(args.get("commit"), str):
        args["commit"] = commit_named(ctx.repo(), args["commit"])
    return _transition(ctx, lambda snapshot: snapshot.resolve(ref), verb, args)


def _transition(
    ctx: Context, target: Any, verb: str, args: dict[str, Any], new: bool = False
) -> Shown:
    repo = ctx.repo()
    actor = ctx.who(repo)
    result: dict[str, Shown] = {}

    def decide(snapshot: Snapshot) -> Change | None:
        require_ledger(snapshot)
        item_id: ItemId = target(snapshot)
        item = None if new else snapshot.item(item_id)
        label = snapshot.label(item_id) if not new else ids.shortest_unique(item_id, [])
        if item is not None:
            _check_version(ctx, item, label)
        config = snapshot.config
        try:
            planned = lifecycle.plan(item, verb, args, actor, config.roles)
            if planned is None:
                assert item is not None
                result["shown"] = Shown(item, label, wrote=False)
                return None
            event = new_event(ctx, item_id, actor, *planned, clock=config.clock + 1)
            after = rulebook.apply(item, event, config.roles)
        except Refused as refusal:
            raise Refused(refusal.message.replace(item_id, label)) from None
        if new:
            label = snapshot.label(item_id)
        result["shown"] = Shown(after, label)
        return Change(
            message=f"{event.verb} {label} by {actor}",
            actor=actor,
            at=ctx.now,
            items={item_id: after},
            events=[event],
            config=replace(config, clock=event.clock),
        )

    transaction.write(repo, decide, fsync_wanted(repo))
    return result["shown"]


def _check_version(ctx: Context, item: Item, label: str) -> None:
    if ctx.expect_version is not None and item.version != ctx.expect_version:
        raise ChangedUnderWrite(
            f"{label} is at version {item.version}, not {ctx.expect_version} — re-read it and retry"
        )
