"""`owed`: what needs attention now, for people (text) and loops (--json, --check)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer

from gitcoop.cli import render, wording
from gitcoop.cli.options import AsOpt, JsonOpt, WideOpt, make_context
from gitcoop.cli.table import Cell, Row, lay_out
from gitcoop.cli.terminal import Styled, join, paint, say
from gitcoop.cli.wording import count, obligation, plain
from gitcoop.domain.timefmt import format_instant, human_age, human_instant
from gitcoop.errors import SomethingDue
from gitcoop.service.lost import Lost
from gitcoop.service.owed import Owed, OwedList, TakenOver, Unsettled, owed
from gitcoop.service.writer import Shown


def _about(entry: Owed | Unsettled | TakenOver | Lost, data: dict[str, Any]) -> dict[str, Any]:
    """A record's own fields, then the item it is about (every row of owed --json has these)."""
    item = entry.item
    data.update(item=item.id, short_id=entry.label, title=item.title, version=item.version)
    return data


def owed_json(entry: Owed, now: datetime) -> dict[str, Any]:
    data = _about(entry, entry.obligation.to_data())
    data.update(
        marks=list(entry.marks),
        owed_for_seconds=int((now - entry.obligation.since).total_seconds()),
        conflicts=entry.item.conflicts,
    )
    return data


def conflict_json(entry: Unsettled) -> dict[str, Any]:
    return _about(entry, {**entry.conflict.to_data(), "kind": "conflict"})


def takeover_json(entry: TakenOver) -> dict[str, Any]:
    return _about(entry, {**entry.takeover.to_data(), "kind": "takeover"})


def lost_json(entry: Lost) -> dict[str, Any]:
    data = {**entry.conflict.to_data(), "kind": "lost"}
    return _about(entry, {**data, "acknowledged": entry.conflict.acknowledged})


def conflict_row(entry: Unsettled) -> tuple[Row, list[str]]:
    c = entry.conflict
    cells = [
        Cell(entry.label, "id"),
        Cell("conflict", "conflict"),
        Cell(""),
        Cell(c.actor, "holder"),
    ]
    hints = [
        f"{c.verb} by {c.actor} refused: {plain(c.reason)}",
        f"settle it: git coop resolve {entry.label} {c.event} --apply|--dismiss --reason R",
    ]
    return Row(cells, entry.item.title), hints


def takeover_row(entry: TakenOver) -> tuple[Row, list[str]]:
    t = entry.takeover
    cells = [Cell(entry.label, "id"), Cell("takeover", "bad"), Cell(human_instant(t.at))]
    cells.append(Cell(t.by, "holder"))
    hints = [
        f"your take was taken over by {t.by} at {human_instant(t.at)}",
        f"once seen: git coop ack {entry.label}",
    ]
    return Row(cells, entry.item.title), hints


def lost_row(entry: Lost) -> tuple[Row, list[str]]:
    c = entry.conflict
    cells = [Cell(entry.label, "id"), Cell("lost on merge", "conflict"), Cell("")]
    cells.append(Cell(c.actor, "holder"))
    hints = [
        f"your {c.verb} lost: {wording.lost(c.reason)}",
        f"you no longer hold it; once you have stopped: git coop ack {entry.label}",
    ]
    return Row(cells, entry.item.title), hints


def owed_row(entry: Owed, now: datetime) -> tuple[Row, list[str]]:
    ob = entry.obligation
    cells = [Cell(entry.label, "id"), Cell(obligation(ob.kind)), due_cell(ob.due, now)]
    cells.append(Cell(ob.holder, "holder"))
    cells.append(Cell(f"owed {human_age(now - ob.since)}"))
    session = [f"session {ob.session}"] if ob.session else []
    return Row(cells, entry.item.title), [*_marks(entry), *session]


def due_cell(due: datetime | None, now: datetime) -> Cell:
    if due is None:
        return Cell("not due")
    if due <= now:
        return Cell(f"due {human_age(now - due)} ago", "overdue")
    return Cell(f"due in {human_age(due - now)}", "due")


def held_row(shown: Shown, now: datetime) -> Row:
    """An item the viewer holds, with what it owes and when (for `status`)."""
    item = shown.item
    cells = [Cell(shown.label, "id"), Cell(item.kind)]
    cells.append(Cell(item.status, render.status_role(item.status)))
    ob = item.obligation
    if ob is not None and ob.pending:
        cells += [Cell(obligation(ob.kind)), due_cell(ob.due, now)]
    else:
        cells += [Cell(""), Cell("")]
    return Row(cells, item.title, indent="  ")


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
        conflicts = count(entry.item.conflicts, "conflict")
        marks.append(f"{conflicts} on this item: git coop show {entry.label}")
    return marks


def owed_lines(
    found: OwedList, now: datetime, wide: bool = False, indent: str = ""
) -> list[Styled]:
    """Each entry as a table row, then its hints, one per line, indented beneath it."""
    entries = [conflict_row(c) for c in found.conflicts]
    entries += [takeover_row(t) for t in found.takeovers]
    entries += [lost_row(lost) for lost in found.lost]
    entries += [owed_row(entry, now) for entry in found.obligations]
    lines = lay_out([row._replace(indent=indent) for row, _ in entries], wide)
    out: list[Styled] = []
    for line, (_, hints) in zip(lines, entries, strict=True):
        out.append(line)
        out += [join(indent + "    ", paint(hint, "hint")) for hint in hints]
    return out


def print_owed(found: OwedList, now: datetime, wide: bool = False) -> None:
    if not (found.obligations or found.conflicts or found.takeovers or found.lost):
        say(f"nothing owed is due at {human_instant(now)}")
    for line in owed_lines(found, now, wide):
        say(line)


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
    wide: WideOpt = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What needs attention now, oldest due first, each hint on its own line.

    Due obligations, escalations and parks (owners see them at once), takeovers of
    your work and your events that lost on a merge (until you ack them), and
    conflicts (owners)."""
    ctx = make_context(actor)
    found = owed(ctx, include_all, mine)
    rows: list[dict[str, Any]] = []
    if as_json:
        rows = [owed_json(e, ctx.now) for e in found.obligations]
        rows += [conflict_json(c) for c in found.conflicts]
        rows += [takeover_json(t) for t in found.takeovers]
        rows += [lost_json(lost) for lost in found.lost]
    else:
        print_owed(found, ctx.now, wide)
    if check and found.pressing:
        needs = "needs" if found.pressing == 1 else "need"
        raise SomethingDue(  # under --json the listing travels inside the error
            f"{count(found.pressing, 'owed item')} {needs} attention now — see git coop owed",
            details={"owed": rows} if as_json else None,
        )
    if as_json:
        render.emit_json(rows)


def register(app: typer.Typer) -> None:
    app.command("owed")(owed_)


__all__ = ["register"]
