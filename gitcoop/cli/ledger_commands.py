"""init, add, list, show, log, and the transitions of todos and requests.

Service and render modules are imported inside the commands, so a command
loads only what it runs (reads never load the writer's lock or YAML dumper).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gitcoop.cli.options import AsOpt, ExpectOpt, ForceOpt, JsonOpt, SessionOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.errors import UsageError

if TYPE_CHECKING:
    from gitcoop.service.writer import Shown

IdArg = Annotated[str, typer.Argument(metavar="ID", help="An item id or any unique prefix.")]
SummaryOpt = Annotated[
    str | None, typer.Option("--summary", help="What was done (the result summary).")
]
CommitOpt = Annotated[str | None, typer.Option("--commit", help="The commit sha that did it.")]
EvidenceOpt = Annotated[
    list[str] | None,
    typer.Option("--evidence", metavar="PATH:LINE[:QUOTE]", help="Where the code shows it."),
]
SourceOpt = Annotated[
    str | None, typer.Option("--source", help="Queue items: scan, human (default), loop, undo.")
]
ReasonOpt = Annotated[str | None, typer.Option("--reason", help="Why.")]


def print_written(shown: Shown, as_json: bool, verb: str) -> None:
    if as_json:
        from gitcoop.cli import render

        render.emit_json(render.item_json(shown))
    elif not shown.wrote:
        say(f"{shown.label} unchanged — it already records that")
    else:
        say(f"{verb} {shown.label}: {printable(shown.item.title)} [{shown.item.status}]")


def register(app: typer.Typer) -> None:
    @app.command()
    def init(actor: AsOpt = None, as_json: JsonOpt = False) -> None:
        """Create the ledger on refs/coop/ledger (idempotent); you become an owner."""
        from gitcoop.cli import render
        from gitcoop.service import ledger

        created, config = ledger.init(make_context(actor))
        if as_json:
            render.emit_json({"created": created, **config.to_data()})
        elif created:
            say(f"initialised refs/coop/ledger; owners: {', '.join(config.roles.owners)}")
        else:
            say("refs/coop/ledger already exists; nothing changed")

    @app.command()
    def add(
        kind: Annotated[str, typer.Argument(metavar="KIND", help="todo, request or item.")],
        title: Annotated[str, typer.Argument(help="A one-line title.")],
        body: Annotated[str | None, typer.Option("--body", help="Longer description.")] = None,
        tag: Annotated[str | None, typer.Option("--tag", help="A tag.")] = None,
        evidence: EvidenceOpt = None,
        source: SourceOpt = None,
        actor: AsOpt = None,
        session: SessionOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """File a new todo, request or queue item; prints its id."""
        from gitcoop.cli import render
        from gitcoop.service import ledger, queue

        if kind not in ("todo", "request", "item"):
            raise UsageError(f"unknown kind {kind!r}: use todo, request or item")
        if not title.strip():
            raise UsageError("a title must not be empty")
        if any(ord(c) < 32 or ord(c) == 127 for c in title):
            raise UsageError("a title is one line of text: no newlines, tabs or escape codes")
        ctx = make_context(actor, session)
        if kind == "item":
            cited = tuple(queue.parse_evidence(spec) for spec in evidence or [])
            shown = queue.add_item(ctx, title.strip(), tag, cited, source or "human", body)
        elif evidence or source:
            raise UsageError("--evidence and --source are for queue items: git coop add item ...")
        else:
            shown = ledger.add(ctx, kind, title.strip(), body=body, tag=tag)
        if as_json:
            render.emit_json(render.item_json(shown))
        else:
            say(shown.label)

    @app.command("list")
    def list_(
        include_all: Annotated[bool, typer.Option("--all", help="Include settled work.")] = False,
        kind: Annotated[str | None, typer.Option("--kind", help="todo, request or item.")] = None,
        status: Annotated[
            str | None, typer.Option("--status", help="Only this status (settled ones too).")
        ] = None,
        holder: Annotated[
            str | None, typer.Option("--holder", help="Only work this person holds now.")
        ] = None,
        tag: Annotated[str | None, typer.Option("--tag", help="Only this tag.")] = None,
        owed: Annotated[
            bool, typer.Option("--owed", help="Only items whose obligation is due.")
        ] = False,
        stale: Annotated[bool, typer.Option("--stale", help="Only takes older than 2h.")] = False,
        actor: AsOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Open and taken work; settled work is counted on one line."""
        from gitcoop.cli import render
        from gitcoop.domain import jsontext
        from gitcoop.domain.records import Item
        from gitcoop.service import queries
        from gitcoop.service.writer import Shown

        if kind is not None and kind not in ("todo", "request", "item"):
            raise UsageError(f"unknown kind {kind!r}: use todo, request or item")
        ctx = make_context(actor)
        where = queries.ListFilter(kind, status, holder, tag, owed, stale)
        listing = queries.list_rows(ctx, include_all, where)
        if as_json:  # the cache keeps each item's --json text
            sys.stdout.write(jsontext.array([row.json for row in listing.listed]) + "\n")
            return
        if not listing.listed and not listing.settled:
            if where != queries.ListFilter():
                say("nothing matches these filters")
            else:
                say("the ledger is empty — add work with: git coop add todo TITLE")
        for row in listing.listed:
            say(render.item_line(Shown(Item.from_data(row.data()), row.label), ctx.now))
        if listing.settled:
            counts = ", ".join(f"{n} {s}" for s, n in sorted(listing.settled.items()))
            say(f"settled: {counts} — git coop list --all shows them")

    @app.command()
    def show(item: IdArg, actor: AsOpt = None, as_json: JsonOpt = False) -> None:
        """Everything the ledger holds about one item."""
        from gitcoop.cli import render
        from gitcoop.service import queries

        ctx = make_context(actor)
        shown = queries.show(ctx, item)
        if as_json:
            render.emit_json(render.item_json(shown))
        else:
            say(render.item_details(shown, ctx.now))

    @app.command()
    def log(
        item: Annotated[str | None, typer.Argument(metavar="[ID]", help="One item.")] = None,
        actor: AsOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """The event log, oldest first: of one item, or of the whole ledger."""
        from gitcoop.cli import render
        from gitcoop.service import queries

        entries = queries.log(make_context(actor), item)
        if as_json:
            render.emit_json([render.event_json(e) for e in entries])
        else:
            for entry in entries:
                say(render.log_line(entry))

    def transition(
        verb: str,
        past: str,
        item: str,
        args: dict[str, Any],
        actor: str | None,
        session: str | None,
        expect: int | None,
        as_json: bool,
    ) -> None:
        from gitcoop.service import ledger

        ctx = make_context(actor, session, expect)
        shown = ledger.act(ctx, item, verb, {k: v for k, v in args.items() if v})
        print_written(shown, as_json, past)

    @app.command()
    def take(
        item: IdArg,
        force: ForceOpt = False,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Claim an open item. Refuses, naming the holder, if someone else has it."""
        transition("take", "took", item, {"force": force}, actor, session, expect, as_json)

    @app.command()
    def release(
        item: IdArg,
        reason: ReasonOpt = None,
        force: ForceOpt = False,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Give a taken item back (needs --reason). Another's take: owner/chief + --force."""
        if not reason:
            raise UsageError("release needs --reason: say why the work goes back")
        args = {"reason": reason, "force": force}
        transition("release", "released", item, args, actor, session, expect, as_json)

    @app.command()
    def done(
        item: IdArg,
        summary: SummaryOpt = None,
        commit: CommitOpt = None,
        force: ForceOpt = False,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Finish a todo (an open one in one call). A second done only amends."""
        args = {"summary": summary, "commit": commit, "force": force}
        transition("done", "done", item, args, actor, session, expect, as_json)

    @app.command()
    def close(
        item: IdArg,
        summary: SummaryOpt = None,
        commit: CommitOpt = None,
        reason: ReasonOpt = None,
        force: ForceOpt = False,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Close a request or queue item. The first close is the record."""
        args = {"summary": summary, "commit": commit, "reason": reason, "force": force}
        transition("close", "closed", item, args, actor, session, expect, as_json)

    @app.command()
    def abandon(
        item: IdArg,
        reason: ReasonOpt = None,
        force: ForceOpt = False,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Give up on a todo for good (needs --reason)."""
        if not reason:
            raise UsageError("abandon needs --reason: say why the work is dropped")
        args = {"reason": reason, "force": force}
        transition("abandon", "abandoned", item, args, actor, session, expect, as_json)
