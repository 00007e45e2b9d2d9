"""edit, dep, ready, blocked: shaping work, linking it, and what is ready to start."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

from gitcoop.cli.compact import more_line
from gitcoop.cli.helptext import CoopGroup
from gitcoop.cli.ledger_commands import (
    DUE_HELP,
    BodyFileOpt,
    BodyOpt,
    IdArg,
    OnlyTagOpt,
    PriorityOpt,
    ReasonOpt,
    TagsOpt,
    checked_shape,
    due_instant,
    print_written,
)
from gitcoop.cli.options import (
    AsOpt,
    ExpectOpt,
    JsonOpt,
    KindOpt,
    LimitOpt,
    WideOpt,
    make_context,
)
from gitcoop.cli.terminal import Styled, printable, say, warn
from gitcoop.errors import UsageError

if TYPE_CHECKING:
    from gitcoop.service.context import Context

LINKS = ("blocks", "blocked-by", "parent-of", "child-of", "discovered-from", "related", "follows")
PHRASES = "blocks, blocked-by, parent-of, child-of, discovered-from, related or follows"
LinkArg = Annotated[
    str, typer.Argument(metavar="LINK", click_type=click.Choice(LINKS), help="|".join(LINKS) + ".")
]


NewTitleOpt = Annotated[str | None, typer.Option("--title", metavar="TITLE", help="A new title.")]
EditorOpt = Annotated[bool, typer.Option("-e", "--editor", help="Edit the body in git's editor.")]
UntagOpt = Annotated[list[str] | None, typer.Option("--untag", metavar="TAG", help="Remove a tag.")]
NewDueOpt = Annotated[
    str | None,
    typer.Option(
        "--due",
        metavar="DATE|DURATION|none",
        help=DUE_HELP.removesuffix(".") + "; none clears it.",
    ),
]
BeforeOpt = Annotated[
    str | None, typer.Option("--before", metavar="ID", help="Queue items: move before ID.")
]
AfterOpt = Annotated[
    str | None, typer.Option("--after", metavar="ID", help="Queue items: move after ID.")
]
StateOpt = Annotated[
    str | None,
    typer.Option(
        "--state",
        metavar="STATE",
        click_type=click.Choice(("ready", "blocked", "closed")),
        help="Queue items: ready, blocked (needs --reason) or closed.",
        show_default=False,
    ),
]


def edit(
    item: IdArg,
    title: NewTitleOpt = None,
    body: BodyOpt = None,
    body_file: BodyFileOpt = None,
    editor: EditorOpt = False,
    tag: TagsOpt = None,
    untag: UntagOpt = None,
    priority: PriorityOpt = None,
    due: NewDueOpt = None,
    before: BeforeOpt = None,
    after: AfterOpt = None,
    state: StateOpt = None,
    reason: ReasonOpt = None,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Change an item's title, body, tags, priority, due date; a queue item's place or state.

    One `edit` event names the previous values. With nothing else to change on a
    terminal, or with --editor, the body opens in git's editor. An edit that changes
    nothing writes nothing. --due is the item's own deadline, separate from the review
    due time of what a take owes."""
    from gitcoop.cli import body as bodies
    from gitcoop.service import ledger, queue

    text = bodies.from_options(body, body_file)
    checked_shape(title, tag, priority, text)
    ctx = make_context(actor, None, expect)
    due_at = _new_due(due, ctx.now) if due is not None else None
    given = (title, text, tag, untag, priority, due, before, after, state)
    if editor or (all(v is None for v in given) and bodies.interactive()):
        text = _edited_body(ctx, item)
    shape = _shape(title, text, priority, due_at, tag, untag)

    def moved(snapshot: Any, item_id: Any) -> dict[str, Any] | None:
        return queue.moves(snapshot, item_id, before, after, state, reason)

    queue_asked = before or after or state or reason
    shown = ledger.edit(ctx, item, shape, moved if queue_asked else None)
    print_written(shown, as_json, "edited")


def _new_due(due: str, now: datetime) -> str:
    """`edit --due`: the new deadline's instant, or "" for `none` (which clears it)."""
    from gitcoop.domain.fields import NO_DUE

    return "" if due.strip().lower() == NO_DUE else due_instant(due, now, clears=True)


def _shape(
    title: str | None,
    text: str | None,
    priority: int | None,
    due_at: str | None,
    tag: list[str] | None,
    untag: list[str] | None,
) -> dict[str, Any]:
    """The fields an edit changes: only those given, tags once each."""
    shape: dict[str, Any] = {
        "title": title.strip() if title is not None else None,
        "body": text,
        "priority": priority,
        "due": due_at,
        "tags": list(dict.fromkeys(tag)) if tag else None,
        "untag": list(dict.fromkeys(untag)) if untag else None,
    }
    return {k: v for k, v in shape.items() if v is not None}


def _link(action: str, first: str, phrase: str, second: str, **flags: Any) -> None:
    from gitcoop.service import dependencies

    ctx = make_context(flags["actor"], None, flags["expect"])
    shown = dependencies.link(ctx, first, phrase, second, action)
    if flags["as_json"] or not shown.wrote:
        print_written(shown, flags["as_json"], "linked")
        return
    past = "linked" if action == "add" else "unlinked"
    say(printable(f"{past}: {first} {phrase} {second}"))


def dep_add(
    first: Annotated[str, typer.Argument(metavar="A", help="An item id or prefix.")],
    phrase: LinkArg,
    second: Annotated[str, typer.Argument(metavar="B", help="An item id or prefix.")],
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Add a link from A to B.

    `A blocks B`: B waits until A is settled; `A parent-of B`: A waits on its child B.
    A link that would close a cycle is refused, naming it."""
    _link("add", first, phrase, second, **_flags(actor, expect, as_json))


def dep_remove(
    first: Annotated[str, typer.Argument(metavar="A", help="An item id or prefix.")],
    phrase: LinkArg,
    second: Annotated[str, typer.Argument(metavar="B", help="An item id or prefix.")],
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Remove a link."""
    _link("remove", first, phrase, second, **_flags(actor, expect, as_json))


def ready(
    kind: KindOpt = None,
    tag: OnlyTagOpt = None,
    limit: LimitOpt = None,
    wide: WideOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """What can be started now, best first.

    Open todos and requests and ready queue items that wait on nothing unsettled, by
    priority (0 first); within one priority, overdue work first (its own due date
    passed, soonest first), then queue order or age."""
    from gitcoop.cli import render
    from gitcoop.service import dependencies

    if limit is not None and limit < 0:
        raise UsageError("-n must be 0 or more")
    ctx = make_context()
    found = dependencies.ready(ctx, kind, tag, limit)
    if as_json:
        render.emit_listing([row.json for row in found.listed])
        if found.more:
            warn(more_line(found.more))
        return
    if found.listed:
        say(Styled("\n".join(_lines(found.listed, ctx, wide, priority=True))))
    if found.more:
        say(more_line(found.more).removeprefix("gitcoop: "))
    if not found.listed:
        say("nothing is ready" + (" — git coop blocked shows what waits" if found.blocked else ""))
    elif found.blocked:
        more = f"{found.blocked} more wait{'s' if found.blocked == 1 else ''} on unsettled work"
        say(f"{more} — git coop blocked shows what on")


def blocked(wide: WideOpt = False, as_json: JsonOpt = False) -> None:
    """What waits on what, and any cycle of links.

    Every unsettled item with an unsettled blocker, and each cycle of links (each
    item on it waits on the next: remove a link to break it)."""
    from gitcoop.cli import render
    from gitcoop.service import dependencies

    ctx = make_context()
    found = dependencies.blocked(ctx)
    if as_json:
        render.emit_json(
            {
                "waiting": [
                    {**row_json(w.row), "waiting_on": [b.to_data() for b in w.blockers]}
                    for w in found.waiting
                ],
                "cycles": [[e.id for e in cycle] for cycle in found.cycles],
            }
        )
        return
    lines = _lines([waiting.row for waiting in found.waiting], ctx, wide)
    for line, waiting in zip(lines, found.waiting, strict=True):
        say(line)
        for other in waiting.blockers:
            say(printable(f"    waits on {other.label} ({other.status}) {other.title}"))
    for cycle in found.cycles:
        loop = " → ".join(e.label for e in cycle)
        say(f"conflict: cycle {loop} — each waits on the next; break it with git coop dep remove")
    if not found.waiting and not found.cycles:
        say("nothing is blocked")


def register(app: typer.Typer) -> None:
    app.command()(edit)

    dep_app = typer.Typer(
        cls=CoopGroup,
        suggest_commands=False,
        help=f"Link items, or remove a link.\n\ngit coop dep add|remove A LINK B: {PHRASES}.",
        no_args_is_help=True,
    )
    app.add_typer(dep_app, name="dep")
    dep_app.command("add")(dep_add)
    dep_app.command("remove")(dep_remove)
    app.command()(ready)
    app.command()(blocked)


def _flags(actor: str | None, expect: int | None, as_json: bool) -> dict[str, Any]:
    return {"actor": actor, "expect": expect, "as_json": as_json}


def _edited_body(ctx: Context, ref: str) -> str:
    from gitcoop.cli import body as bodies
    from gitcoop.service import queries

    shown = queries.show(ctx, ref)
    return bodies.from_editor(shown.item.body, shown.label)


def row_json(row: Any) -> dict[str, Any]:
    return {**row.data(), "short_id": row.label}


def _lines(rows: list[Any], ctx: Context, wide: bool, priority: bool = False) -> list[Styled]:
    """Cached rows as one table (with their priority first, for `ready`), as `list` lays
    them out: from their summaries, no item is built."""
    from gitcoop.cli import render

    return render.summary_lines(rows, ctx.now, wide, priority=priority)
