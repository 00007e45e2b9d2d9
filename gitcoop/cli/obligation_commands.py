"""note, report, ack, review, roles: what a take owes and who settles it (`owed`: owed_commands)."""

from __future__ import annotations

from typing import Annotated, Any

import click
import typer

from gitcoop.cli import render
from gitcoop.cli.keys_commands import LookAlikeOpt
from gitcoop.cli.ledger_commands import (
    CommitElsewhereOpt,
    CommitOpt,
    IdArg,
    ReasonOpt,
    SummaryOpt,
    commit_checked,
    print_written,
    tell_as_given,
)
from gitcoop.cli.options import AsOpt, ExpectOpt, JsonOpt, make_context
from gitcoop.cli.terminal import say
from gitcoop.domain import obligations
from gitcoop.domain.fields import typed_lines
from gitcoop.domain.timefmt import parse_duration
from gitcoop.errors import UsageError
from gitcoop.service import ledger

REPORTS = ("done", "released", "abandoned", "blocked", "unblocked")
NoteOpt = Annotated[
    str | None,
    typer.Option("--note", metavar="TEXT", help="unblocked: what cleared the blocker."),
]


def note(
    item: IdArg,
    text: Annotated[str, typer.Argument(help="The note: what happened, what you found.")],
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record worker evidence; the holder's note pulls its review forward."""
    if not text.strip():
        raise UsageError("a note needs some text")
    text = typed_lines(text)  # CRLF is a line break, as in a body (domain/fields.py)
    shown = ledger.act(make_context(actor, None, expect), item, "note", {"text": text})
    print_written(shown, as_json, "noted")


def report(
    item: IdArg,
    status: Annotated[
        str,
        typer.Argument(
            metavar="STATUS", click_type=click.Choice(REPORTS), help="|".join(REPORTS) + "."
        ),
    ],
    reason: ReasonOpt = None,
    summary: SummaryOpt = None,
    commit: CommitOpt = None,
    commit_elsewhere: CommitElsewhereOpt = False,
    note: NoteOpt = None,
    force: Annotated[bool, typer.Option("--force", hidden=True)] = False,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Report on work you hold: done, released, abandoned, blocked or unblocked.

    Only the holder reports (--force or not). A disposition resolves what is owed;
    blocked does not, and unblocked ends a blocked state."""
    if status in ("released", "abandoned", "blocked") and not reason:
        raise UsageError(f"a {status} report needs --reason")
    if status == "unblocked" and reason:
        raise UsageError("an unblocked report takes --note, not --reason")
    if status != "unblocked" and note is not None:
        raise UsageError("--note goes with an unblocked report; the others take --reason")
    args = {
        "status": status,
        "reason": reason,
        "summary": summary,
        "commit": commit,
        "note": note,
        "force": force,
    }
    ctx = make_context(actor, None, expect)
    given = {k: v for k, v in args.items() if v}
    elsewhere = commit_checked(commit, commit_elsewhere)
    shown = ledger.act(ctx, item, "report", given, elsewhere)
    print_written(shown, as_json, f"reported {status} on")
    tell_as_given(ctx, commit, elsewhere)


def review(
    item: IdArg,
    decision: Annotated[
        str,
        typer.Argument(
            metavar="DECISION",
            click_type=click.Choice(obligations.DECISIONS),
            help="|".join(obligations.DECISIONS) + ".",
        ),
    ],
    after: Annotated[
        str | None,
        typer.Option(
            "--after", metavar="DELAY", help="Delay for defer/escalate: 30s..30d (default 5m)."
        ),
    ] = None,
    reason: ReasonOpt = None,
    summary: SummaryOpt = None,
    commit: CommitOpt = None,
    commit_elsewhere: CommitElsewhereOpt = False,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """An owner's or chief's decision on what an item owes.

    A park is left to owners.

    Loops pass the version they read: --expect-version N refuses (exit 3) if it moved."""
    if decision in ("release", "abandon") and not reason:
        raise UsageError(f"review {decision} needs --reason: say why")
    if (summary is not None or commit is not None) and decision != "close":
        raise UsageError("--summary and --commit go with review close")
    args: dict[str, Any] = {
        "decision": decision,
        "reason": reason,
        "summary": summary,
        "commit": commit,
    }
    if after is not None:
        if decision not in ("defer", "escalate"):
            raise UsageError("--after goes with defer or escalate")
        try:
            delay = parse_duration(after)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not obligations.DELAY_MIN <= delay <= obligations.DELAY_MAX:
            raise UsageError("--after must be between 30s and 30d")
        args["delay_seconds"] = int(delay.total_seconds())
    ctx = make_context(actor, None, expect)
    given = {k: v for k, v in args.items() if v}
    elsewhere = commit_checked(commit, commit_elsewhere)
    shown = ledger.act(ctx, item, "review", given, elsewhere)
    print_written(shown, as_json, f"reviewed ({decision})")
    tell_as_given(ctx, commit, elsewhere)


def ack(
    item: IdArg,
    event: Annotated[
        str | None,
        typer.Argument(
            metavar="[EVENT]", help="Only this lost event (default: everything of yours)."
        ),
    ] = None,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Acknowledge a takeover of your work, or your event that lost on a merge.

    owed and list --mine stop showing it (the conflict stays for the owners)."""
    from gitcoop.service import lost

    shown = lost.acknowledge(make_context(actor, None, expect), item, event)
    print_written(shown, as_json, "acknowledged")


def roles(
    action: Annotated[
        str | None,
        typer.Argument(
            metavar="[ACTION]",
            click_type=click.Choice(("add", "remove")),
            help="add|remove (default: show the roles).",
        ),
    ] = None,
    role: Annotated[
        str | None,
        typer.Argument(
            metavar="[ROLE]", click_type=click.Choice(("owner", "chief")), help="owner|chief."
        ),
    ] = None,
    who: Annotated[
        str | None, typer.Argument(metavar="[EMAIL]", help="The person, by e-mail address.")
    ] = None,
    force: LookAlikeOpt = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the roles, or (owners only) add or remove an owner or chief."""
    ctx = make_context(actor)
    if action is None:
        from gitcoop.service.context import read_ledger

        current = read_ledger(ctx).config.roles
    else:
        if action not in ("add", "remove") or role not in ("owner", "chief") or not who:
            raise UsageError("usage: git coop roles add|remove owner|chief EMAIL")
        current = ledger.change_roles(ctx, action, role, who, force)
    if as_json:
        render.emit_json(current.to_data())
    else:
        say(f"owners: {', '.join(current.owners) or '-'}")
        say(f"chiefs: {', '.join(current.chiefs) or '-'}")


def register(app: typer.Typer) -> None:
    app.command()(note)
    app.command()(report)
    app.command()(review)
    app.command()(ack)
    app.command()(roles)


__all__ = ["register"]
