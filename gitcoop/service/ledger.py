"""The writing verbs of todos and requests: init, roles, add, and every transition.

Each is one intent handed to the writer (`service/writer.py`), the one path
every ledger write takes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gitcoop.domain import ids
from gitcoop.domain.dependencies import (
    DISCOVERED_FROM,
    FOLLOWS,
    WAITING,
    refuse_blocked,
    settled,
)
from gitcoop.domain.ids import ItemId
from gitcoop.domain.lifecycle import HELD
from gitcoop.domain.records import Item, LedgerConfig, Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.errors import CoopError, Refused, UsageError
from gitcoop.service.context import Context, commit_named
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store.ledger.snapshot import Snapshot


def init(ctx: Context) -> tuple[bool, LedgerConfig]:
    """Create the ledger with the acting person as its first owner; idempotent."""
    repo = ctx.repo()
    actor = ctx.who(repo)
    with repo.shared_modes():
        repo.ensure_reflog()
    written = write(ctx, [Intent(LEDGER_ID, "roles", owner_args(actor))], create=True)
    return written.wrote, written.config


def refuse_if_shared(ctx: Context) -> None:
    """Before `init` creates a ledger in a clone: Refused when a remote has one already
    (fetched, or asked for), or cannot be asked, so a clone does not start a second
    ledger by mistake: two ledgers started apart never merge. A ledger here already
    needs no asking."""
    from gitcoop.store.ledger import transport
    from gitcoop.store.ledger.layout import remote_ref

    repo = ctx.repo()
    if repo.tip() is not None:
        return
    for remote in repo.fetched_ledgers():
        raise Refused(
            f"a ledger was fetched from {remote} ({remote_ref(remote)}) — use it: "
            f"{_sync(remote)}; to start a separate ledger here anyway: git coop init --new",
            details={"remote": remote},
        )
    for remote in repo.remote_names():
        try:
            tip = transport.remote_ledger(repo, remote)
        except UsageError as error:  # a setting or a name to fix, not a remote to wait for
            raise UsageError(
                f"{error.message} — gitcoop asks every remote whether it has a ledger before "
                "it starts one; fix that, or start a separate ledger anyway: git coop init --new"
            ) from None
        except CoopError as error:
            raise Refused(
                f"could not ask {remote} whether it has a ledger ({error.message}) — a ledger "
                f"started here never merges with one there: run git coop init again once "
                f"{remote} answers, or start a separate ledger anyway: git coop init --new",
                details={"remote": remote},
            ) from None
        if tip is not None:
            raise Refused(
                f"{remote} has a ledger (refs/coop/ledger at {tip[:10]}) — share it: "
                f"git coop remote setup {remote} && {_sync(remote)}; to start a separate "
                "ledger here anyway: git coop init --new",
                details={"remote": remote, "ledger": tip},
            )


def _sync(remote: str) -> str:
    return f"git coop sync {remote}"  # named: with no name, sync takes coop.claims's remote


def owner_args(actor: str) -> dict[str, Any]:
    return {"action": "add", "role": "owner", "who": actor}


def change_roles(ctx: Context, action: str, role: str, who: str, force: bool = False) -> Roles:
    """Add or remove an owner or chief (owners only); the change is an event. An id added
    is held to the rule for ids written now, and to looking like no one the ledger knows
    (unless `force`)."""
    if action == "add":
        who = newcomer(who)
    problem = ids.identity_problem(who)
    if problem:
        raise UsageError(problem)
    args = {"action": action, "role": role, "who": who}

    def plan(snapshot: Snapshot) -> list[Intent]:
        if action == "add" and not force:
            refuse_look_alike(snapshot, who, "roles add")
        return [Intent(LEDGER_ID, "roles", args)]

    return write(ctx, plan).config.roles


def newcomer(who: str) -> str:
    """`who` as an id added to the ledger now (roles, keys): NFC, and writable as one."""
    who = ids.normal(who.strip())
    problem = ids.written_identity_problem(who)
    if problem:
        raise UsageError(problem)
    return who


def refuse_look_alike(snapshot: Snapshot, who: str, verb: str) -> None:
    """Refused when `who` looks like someone the ledger knows (an owner, a chief, a key's
    holder, who filed or holds open work) without being them (`likeness.skeleton`):
    `--force` if they are two people."""
    from gitcoop.domain.likeness import confusable_with

    state = snapshot.ledger_state()
    roles, keys = state.roles, state.keys
    known = {*roles.owners, *roles.chiefs, *keys.registered, *keys.proposed}
    for item in snapshot.open_items():
        known |= {item.created_by, *([item.taken_by] if item.taken_by else [])}
    like = confusable_with(who, known)
    if like is not None:
        raise Refused(
            f"{who!r} looks like {like}, whom the ledger already knows — if they are two "
            f"people, run git coop {verb} again with --force"
        )


def add(
    ctx: Context,
    kind: str,
    title: str,
    discovered_from: str | None = None,
    follows: str | None = None,
    **fields: Any,
) -> Shown:
    """File a new todo or request (tags, priority, body); with `discovered_from`, the
    link to the work it was found in is written in the same commit, and with `follows`
    the link to the settled item it carries on."""
    given = {k: v for k, v in fields.items() if v is not None and v != [] and v != ()}
    args = {"kind": kind, "title": title, **given}
    item_id = ids.mint_item_id(kind, ctx.bits)

    def plan(snapshot: Snapshot) -> list[Intent]:
        intents = [Intent(item_id, "add", args)]
        if discovered_from is not None:
            intents.append(discovered_intent(snapshot, item_id, discovered_from))
        if follows is not None:
            intents.append(follows_intent(snapshot, item_id, follows))
        return intents

    return write(ctx, plan).first()


def act(
    ctx: Context, ref: str, verb: str, args: Mapping[str, Any], commit_elsewhere: bool = False
) -> Shown:
    """take, release, done, close, abandon, note, report, review, edit... on one item.

    A `commit` must name a commit here, unless `commit_elsewhere` keeps a sha as given."""
    args = dict(args)
    if isinstance(args.get("commit"), str):
        args["commit"] = commit_named(ctx.repo(), args["commit"], commit_elsewhere)
    if verb == "take":  # a take of blocked work is refused unless --force
        return take(ctx, ref, args)
    return write(ctx, [Intent(ref, verb, args, expect=ctx.expect_version)]).first()


def change_setting(ctx: Context, key: str, value: int | str | None) -> Mapping[str, Any]:
    """Set (None: reset to the default) one of the ledger's settings (owners only)."""
    return write(ctx, [Intent(LEDGER_ID, "config", {"key": key, "value": value})]).config.settings


def edit(
    ctx: Context,
    ref: str,
    shape: Mapping[str, Any],
    moved: Callable[[Snapshot, ItemId], dict[str, Any] | None] | None = None,
) -> Shown:
    """One `edit` event of what changed (title, body, tags, priority, due), and for a queue
    item an `edit_item` of its place or state (`moved`), in one commit."""

    def plan(snapshot: Snapshot) -> list[Intent]:
        item_id = snapshot.resolve(ref)
        intents = [Intent(item_id, "edit", dict(shape), ctx.expect_version)] if shape else []
        queue_args = moved(snapshot, item_id) if moved is not None else None
        if queue_args:
            expect = None if intents else ctx.expect_version
            intents.append(Intent(item_id, "edit_item", queue_args, expect))
        if not intents:
            raise UsageError(
                "nothing to edit: give --title, --body/--body-file/--editor, --tag, --untag, "
                "-p, --due, or for a queue item --before/--after/--state"
            )
        return intents

    written = write(ctx, plan)
    answers = [a.shown for a in written.answers if a.shown is not None]
    wrote = [s for s in answers if s.wrote]
    if not wrote:
        return answers[0]
    last = wrote[-1]
    notes = tuple(note for s in answers for note in s.notes)
    return Shown(last.item, last.label, True, wrote[0].verb, notes)


def discovered_intent(snapshot: Snapshot, new_id: str, ref: str) -> Intent:
    """The link `add … --discovered-from B` writes in the same commit as the add."""
    found = snapshot.resolve(ref)
    return Intent(new_id, "dep", {"action": "add", "type": DISCOVERED_FROM, "other": found})


def follows_intent(snapshot: Snapshot, new_id: str, ref: str) -> Intent:
    """The link `add … --follows B` writes with the add: B is settled and stays the
    record (seed 000: the first close is the record); the new item carries the work on."""
    found = snapshot.resolve(ref)
    item = snapshot.item(found)
    if item is not None and not settled(item.status):
        raise Refused(
            f"{item.kind} {snapshot.label(found)} is {item.status}, not settled — --follows "
            "carries on settled work; link open work with --discovered-from instead"
        )
    return Intent(new_id, "dep", {"action": "add", "type": FOLLOWS, "other": found})


def take(ctx: Context, ref: str, args: Mapping[str, Any]) -> Shown:
    """A take, refused while the item waits on unsettled work (unless --force)."""

    def plan(snapshot: Snapshot) -> list[Intent]:
        item_id = snapshot.resolve(ref)
        item = snapshot.item(item_id)
        if item is not None and not args.get("force"):
            actor = ctx.who(snapshot.repo)
            if not (item.status in HELD and item.taken_by == actor):
                _refuse_blocked(snapshot, item)
        return [Intent(item_id, "take", dict(args), ctx.expect_version)]

    return write(ctx, plan, claim=True).first()  # with claims on, found on the remote's ledger


def _refuse_blocked(snapshot: Snapshot, item: Item) -> None:
    """Everything a todo or request waits on is in its own file: a few reads, no scan."""
    found = []
    for other in dict.fromkeys(link.item for link in item.links if link.type in WAITING):
        there = snapshot.item(ItemId(other))
        if there is None or not settled(there.status):
            label = snapshot.label(ItemId(other)) if there else other
            found.append((other, label, there.status if there else "not in this ledger"))
    if found:
        raise refuse_blocked(snapshot.label(item.id), found)
