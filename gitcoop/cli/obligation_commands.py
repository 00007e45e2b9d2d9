"""note, report, review, owed, roles: what a take owes and who settles it."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.ledger_commands import CommitOpt, IdArg, ReasonOpt, SummaryOpt, print_written
from gitcoop.cli.options import AsOpt, ExpectOpt, ForceOpt, JsonOpt, SessionOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.domain import obligations
from gitcoop.domain.timefmt import human_age, human_instant, parse_duration
from gitcoop.errors import UsageError
from gitcoop.service import ledger
from gitcoop.service.owed import Owed, Unsettled, owed

REPORTS = ("done", "released", "abandoned", "blocked")


def owed_json(entry: Owed, now: Any) -> dict[str, Any]:
    data = entry.obligation.to_data()
    data.update(
        item=entry.item.id,
        short_id=entry.label,
        title=entry.item.title,
        owed_for_seconds=int((now - entry.obligation.since).total_seconds()),
        conflicts=len(entry.item.conflicts),
    )
    return data


def conflict_json(entry: Unsettled) -> dict[str, Any]:
    data = entry.conflict.to_data()
    data.update(item=entry.item.id, short_id=entry.label, title=entry.item.title, kind="conflict")
    return data


def conflict_line(entry: Unsettled) -> str:
    c = entry.conflict
    return (
        f"{entry.label:<10} {'conflict':<15} {c.verb} by {c.actor} refused: "
        f"{printable(c.reason)} — "
        f"git coop resolve {entry.label} {c.event} --apply|--dismiss --reason R"
    )


def owed_line(entry: Owed, now: Any) -> str:
    ob = entry.obligation
    assert ob.due is not None
    when = (
        f"due {human_age(now - ob.due)} ago"
        if ob.due <= now
        else f"due in {human_age(ob.due - now)}"
    )
    marks = []
    if ob.parked:
        marks.append("parked")
    if ob.escalated:
        marks.append("escalated to owners")
    if ob.latest_report:
        report = f"{ob.latest_report.get('status')}: {ob.latest_report.get('reason')}"
        marks.append(printable(report))
    if entry.item.conflicts:
        marks.append(f"{len(entry.item.conflicts)} conflicts")
    extra = f"  [{'; '.join(marks)}]" if marks else ""
    return (
        f"{entry.label:<10} {ob.kind:<15} {when:<16} {ob.holder}  session {ob.session or '-'}  "
        f"owed for {human_age(now - ob.since)}  {printable(entry.item.title)}{extra}"
    )


def register(app: typer.Typer) -> None:
    @app.command()
    def note(
        item: IdArg,
        text: Annotated[str, typer.Argument(help="The note: what happened, what you found.")],
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Record worker evidence; the holder's note pulls its review forward."""
        if not text.strip():
            raise UsageError("a note needs some text")
        shown = ledger.act(make_context(actor, session, expect), item, "note", {"text": text})
        print_written(shown, as_json, "noted")

    @app.command()
    def report(
        item: IdArg,
        status: Annotated[
            str, typer.Argument(metavar="STATUS", help="done|released|abandoned|blocked")
        ],
        reason: ReasonOpt = None,
        summary: SummaryOpt = None,
        commit: CommitOpt = None,
        force: ForceOpt = False,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """The holder's report: a disposition resolves what is owed; blocked does not."""
        if status not in REPORTS:
            raise UsageError(f"unknown report {status!r}: use {', '.join(REPORTS)}")
        if status in ("released", "abandoned", "blocked") and not reason:
            raise UsageError(f"a {status} report needs --reason")
        args = {
            "status": status,
            "reason": reason,
            "summary": summary,
            "commit": commit,
            "force": force,
        }
        ctx = make_context(actor, session, expect)
        shown = ledger.act(ctx, item, "report", {k: v for k, v in args.items() if v})
        print_written(shown, as_json, f"reported {status} on")

    @app.command()
    def review(
        item: IdArg,
        decision: Annotated[
            str, typer.Argument(metavar="DECISION", help=", ".join(obligations.DECISIONS))
        ],
        after: Annotated[
            str | None,
            typer.Option("--after", help="Delay for defer/escalate: 30s..30d (default 5m)."),
        ] = None,
        reason: ReasonOpt = None,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """An owner's or chief's decision on what an item owes."""
        if decision not in obligations.DECISIONS:
            raise UsageError(
                f"unknown decision {decision!r}: use {', '.join(obligations.DECISIONS)}"
            )
        if decision in ("release", "abandon") and not reason:
            raise UsageError(f"review {decision} needs --reason: say why")
        args: dict[str, Any] = {"decision": decision, "reason": reason}
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
        ctx = make_context(actor, session, expect)
        shown = ledger.act(ctx, item, "review", {k: v for k, v in args.items() if v})
        print_written(shown, as_json, f"reviewed ({decision})")

    @app.command("owed")
    def owed_(
        include_all: Annotated[
            bool, typer.Option("--all", help="Also what is owed but not yet due.")
        ] = False,
        actor: AsOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Pending obligations that are due now, oldest due first."""
        ctx = make_context(actor)
        found = owed(ctx, include_all)
        entries = found.obligations
        if as_json:
            rows = [owed_json(e, ctx.now) for e in entries]
            render.emit_json(rows + [conflict_json(c) for c in found.conflicts])
            return
        for unsettled in found.conflicts:
            say(conflict_line(unsettled))
        if not entries and not found.conflicts:
            say(f"nothing owed is due at {human_instant(ctx.now)}")
        for entry in entries:
            say(owed_line(entry, ctx.now))

    @app.command()
    def roles(
        action: Annotated[str | None, typer.Argument(metavar="[add|remove]")] = None,
        role: Annotated[str | None, typer.Argument(metavar="[owner|chief]")] = None,
        who: Annotated[str | None, typer.Argument(metavar="[EMAIL]")] = None,
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
            current = ledger.change_roles(ctx, action, role, who)
        if as_json:
            render.emit_json(current.to_data())
        else:
            say(f"owners: {', '.join(current.owners) or '-'}")
            say(f"chiefs: {', '.join(current.chiefs) or '-'}")


__all__ = ["register"]
