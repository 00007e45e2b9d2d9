"""The writing verbs of todos and requests: init, roles, add, and every transition.

Each is one intent handed to the writer (`service/writer.py`), the one path
every ledger write takes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitcoop.domain import ids
from gitcoop.domain.records import LedgerConfig, Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.errors import UsageError
from gitcoop.service.context import Context, commit_named
from gitcoop.service.writer import Intent, Shown, write


def init(ctx: Context) -> tuple[bool, LedgerConfig]:
    """Create the ledger with the acting person as its first owner; idempotent."""
    repo = ctx.repo()
    actor = ctx.who(repo)
    repo.ensure_reflog()
    written = write(ctx, [Intent(LEDGER_ID, "roles", owner_args(actor))], create=True)
    return written.wrote, written.config


def owner_args(actor: str) -> dict[str, Any]:
    return {"action": "add", "role": "owner", "who": actor}


def change_roles(ctx: Context, action: str, role: str, who: str) -> Roles:
    """Add or remove an owner or chief (owners only); the change is an event."""
    problem = ids.identity_problem(who)
    if problem:
        raise UsageError(problem)
    args = {"action": action, "role": role, "who": who}
    return write(ctx, [Intent(LEDGER_ID, "roles", args)]).config.roles


def add(ctx: Context, kind: str, title: str, **fields: Any) -> Shown:
    """File a new todo, request or queue item."""
    args = {"kind": kind, "title": title, **{k: v for k, v in fields.items() if v is not None}}
    return write(ctx, [Intent(ids.mint_item_id(kind, ctx.bits), "add", args)]).first()


def act(ctx: Context, ref: str, verb: str, args: Mapping[str, Any]) -> Shown:
    """take, release, done, close, abandon, note, report, review... on one item."""
    args = dict(args)
    if isinstance(args.get("commit"), str):
        args["commit"] = commit_named(ctx.repo(), args["commit"])
    return write(ctx, [Intent(ref, verb, args, expect=ctx.expect_version)]).first()


def change_setting(ctx: Context, key: str, value: int | str | None) -> Mapping[str, Any]:
    """Set (None: reset to the default) one of the ledger's settings (owners only)."""
    return write(ctx, [Intent(LEDGER_ID, "config", {"key": key, "value": value})]).config.settings
