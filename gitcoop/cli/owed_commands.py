"""`owed`: what needs attention now, for people (text) and loops (--json, --check)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.options import AsOpt, JsonOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.domain.timefmt import format_instant, human_age, human_instant
from gitcoop.errors import SomethingDue
from gitcoop.service.lost import Lost
from gitcoop.service.owed import Owed, OwedList, TakenOver, Unsettled, owed


def owed_json(entry: Owed, now: datetime) -> dict[str, Any]:
    data = entry.obligation.to_data()
    data.update(
        item=entry.item.id,
        short_id=entry.label,
        title=entry.item.title,
        version=entry.item.version,
        marks=list(entry.marks),
        owed_for_seconds=int((now - entry.obligation.since).total_seconds()),
        conflicts=len(entry.item.conflicts),
    )
    return data


def conflict_json(entry: Unsettled) -> dict[str, Any]:
    data = entry.conflict.to_data()
    data.update(
        item=entry.item.id,
        short_id=entry.label,
        title=entry.item.title,
        version=entry.item.version,
        kind="conflict",
    )
    return data


def takeover_json(entry: TakenOver) -> dict[str, Any]:
    data = entry.takeover.to_data()
    data.update(
        item=entry.item.id,
        short_id=entry.label,
        title=entry.item.title,
        version=entry.item.version,
        kind="takeover",
    )
    return data


def lost_json(entry: Lost) -> dict[str, Any]:
    data = entry.conflict.to_data()
    data.update(
        item=entry.item.id,
        short_id=entry.label,
        title=entry.item.title,
        version=entry.item.version,
        kind="lost",
        acknowledged=entry.conflict.acknowledged,
    )
    return data


def conflict_line(entry: Unsettled) -> str:
    c = entry.conflict
    return printable(
        f"{entry.label:<10} {'conflict':<15} {c.verb} by {c.actor} refused: {c.reason} — "
        f"git coop resolve {entry.label} {c.event} --apply|--dismiss --reason R"
    )


def takeover_line(entry: TakenOver) -> str:
    t = entry.takeover
    return printable(
        f"{entry.label:<10} {'takeover':<15} your take was taken over by {t.by} at "
        f"{human_instant(t.at)}  {entry.item.title} — once seen: git coop ack {entry.label}"
    )


def lost_line(entry: Lost) -> str:
    c = entry.conflict
    return printable(
        f"{entry.label:<10} {'lost':<15} your {c.verb} lost on merge: {c.reason} — you no "
        f"longer hold it; once you have stopped: git coop ack {entry.label}"
    )


def owed_line(entry: Owed, now: datetime) -> str:
    ob = entry.obligation
    if ob.due is None:
        when = "not due"
    elif ob.due <= now:
        when = f"due {human_age(now - ob.due)} ago"
    else:
        when = f"due in {human_age(ob.due - now)}"
    extra = f"  [{'; '.join(_marks(entry))}]" if _marks(entry) else ""
    return printable(
        f"{entry.label:<10} {ob.kind:<15} {when:<16} {ob.holder}  session {ob.session or '-'}  "
        f"owed for {human_age(now - ob.since)}  {entry.item.title}{extra}"
    )


def _marks(entry: Owed) -> list[str]:
    ob = entry.obligation
    told = "escalated" in entry.marks or "parked" in entry.marks  # an owner is looking
    raised = ob.for_owners if told else None
    decision = raised.get("decision") if raised else None
    marks = []
    if raised:
        word = "parked" if decision == "park" else "escalated to owners"
        why = f": {raised.get('reason')}" if raised.get("reason") else ""
        marks.append(f"{word} by {raised.get('by')} at {raised.get('at')}{why}")
    if ob.parked and decision != "park":
        marks.append("parked")
    if ob.escalated and decision != "escalate":
        marks.append("escalated to owners")
    report = ob.latest_report
    if report and report.get("status") == "blocked":
        marks.append(f"blocked: {report.get('reason')}")
    if "future" in entry.marks:
        when = entry.item.taken_at or ob.since
        marks.append(f"taken in the future, at {format_instant(when)}: check that clone's clock")
    if entry.item.conflicts:
        marks.append(f"{len(entry.item.conflicts)} conflicts")
    return marks


def print_owed(found: OwedList, now: datetime) -> None:
    for unsettled in found.conflicts:
        say(conflict_line(unsettled))
    for taken in found.takeovers:
        say(takeover_line(taken))
    for lost in found.lost:
        say(lost_line(lost))
    if not (found.obligations or found.conflicts or found.takeovers or found.lost):
        say(f"nothing owed is due at {human_instant(now)}")
    for entry in found.obligations:
        say(owed_line(entry, now))


def register(app: typer.Typer) -> None:
    @app.command("owed")
    def owed_(
        include_all: Annotated[
            bool, typer.Option("--all", help="Also what is owed but not yet due.")
        ] = False,
        mine: Annotated[
            bool,
            typer.Option(
                "--mine",
                help="Only what you hold, or may review as owner or chief (your takeovers "
                "and lost events are always shown).",
            ),
        ] = False,
        check: Annotated[
            bool,
            typer.Option(
                "--check", help="Exit 6 when something needs attention now (for loops, prompts)."
            ),
        ] = False,
        actor: AsOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """What needs attention now: due obligations (oldest due first), escalations and
        parks (owners see them at once), takeovers of your work and your events that lost
        on a merge (until you ack them), and conflicts (owners)."""
        ctx = make_context(actor)
        found = owed(ctx, include_all, mine)
        if as_json:
            rows = [owed_json(e, ctx.now) for e in found.obligations]
            rows += [conflict_json(c) for c in found.conflicts]
            rows += [takeover_json(t) for t in found.takeovers]
            render.emit_json(rows + [lost_json(lost) for lost in found.lost])
        else:
            print_owed(found, ctx.now)
        if check and found.pressing:
            raise SomethingDue(
                f"{found.pressing} owed item(s) need attention now — see git coop owed",
                printed=as_json,  # the listing is the answer; exit 6 says something is due
            )


__all__ = ["register"]
