"""import and export: bringing work in from another tracker, and taking all of it out."""

from __future__ import annotations

import sys
from typing import Annotated, Any

import click
import typer

from gitcoop.cli import render
from gitcoop.cli.export_render import FORMATS
from gitcoop.cli.options import AsOpt, JsonOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.domain.imported import about_a_label
from gitcoop.errors import Refused, UsageError
from gitcoop.service.import_sources import TRACKERS
from gitcoop.service.importing import NAMES

FormatArg = Annotated[
    str,
    typer.Argument(
        metavar="FORMAT",
        click_type=click.Choice(TRACKERS),
        help="taskwarrior (task export), backlog (Backlog.md's folder), beads (issues.jsonl), "
        "github (gh issue list --json ...).",
    ),
]


def import_(
    tracker: FormatArg,
    source: Annotated[
        str, typer.Argument(metavar="FILE|-", help="The export; - reads standard input.")
    ],
    people: Annotated[
        str | None,
        typer.Option("--people", metavar="FILE", help="Lines NAME = EMAIL: who is who."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print what would happen; write nothing.")
    ] = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Import another tracker's export as todos, in one commit (docs/import.md).

    Each item keeps its id there as an alias (git coop show TW-12, bd-a1b2,
    gh#42). Importing the same export again writes nothing; a newer one
    writes only what changed. A record that cannot be mapped is named by
    its line (or its number in a JSON array) and skipped; when every
    record is refused, nothing is written and the exit status is 1.
    """
    from gitcoop.service import import_sources, importing

    found = import_sources.read(tracker, source)
    who = import_sources.read_people(people)
    ctx = make_context(actor)
    report = importing.import_records(ctx, tracker, found, who, dry_run)
    if report.skipped and not report.outcomes:  # nothing could be written: most
        # likely the wrong format or file; under --json the report travels in the error
        details = {"report": _report_json(report)} if as_json else None
        raise Refused(_refusal(report, source), details=details)
    if as_json:
        render.emit_json(_report_json(report))
    else:
        for line in _report_lines(report):
            say(printable(line))


def export(
    form: Annotated[
        str | None,
        typer.Option(
            "--format",
            metavar="FORMAT",
            click_type=click.Choice(FORMATS),
            help="|".join(FORMATS),
        ),
    ] = "json",
    events: Annotated[
        bool, typer.Option("--events", help="Each item's events too, oldest first.")
    ] = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Print every item of the ledger (json, jsonl, csv or markdown), nothing left behind."""
    from gitcoop.cli.export_render import rendered
    from gitcoop.service.exporting import export as exported

    if as_json and form not in (None, "json"):
        raise UsageError(f"--json is --format json: give one of --json and --format {form}")
    form = form or "json"
    sys.stdout.write(rendered(exported(make_context(actor), events), form, events))


def register(app: typer.Typer) -> None:
    app.command("import")(import_)
    app.command("export")(export)


def _report_json(report: Any) -> dict[str, Any]:
    return {
        "format": report.tracker,
        "dry_run": report.dry_run,
        "wrote": report.wrote,
        "records": [
            {
                "where": o.where,
                "aliases": list(o.aliases),
                "item": o.item,
                "short_id": report.labels[o.item],
                "added": o.added,
                "verbs": list(o.verbs),
                "notices": list(o.notices),
            }
            for o in report.outcomes
        ],
        "skipped": [
            {"where": s.where, "origin": s.origin, "reason": s.reason} for s in report.skipped
        ],
    }


def _refusal(report: Any, source: str) -> str:
    first, count = report.skipped[0], len(report.skipped)
    which = "the only record was" if count == 1 else f"all {count} records were"
    return (
        f"nothing imported: {which} refused ({first.where}: {first.reason}) — is {source} "
        f"a {NAMES[report.tracker]} export? --json lists each record"
    )


def _report_lines(report: Any) -> list[str]:
    would = "would " if report.dry_run else ""
    lines: list[str] = []
    added = [o for o in report.outcomes if o.added]
    changed = [o for o in report.outcomes if not o.added and o.verbs]
    same = [o for o in report.outcomes if not o.added and not o.verbs]
    labelled: dict[str, list[str]] = {}  # a label's notice -> the records that gave it
    for o in report.outcomes:
        if o.verbs:
            verb = "add" if o.added else "update"
            lines.append(f"{would}{verb} {o.alias} as {report.labels[o.item]}: {' '.join(o.verbs)}")
        for notice in o.notices:
            if about_a_label(notice):
                labelled.setdefault(notice, []).append(o.alias)
            else:
                lines.append(f"  {o.alias}: {notice}")
    for notice, records in labelled.items():  # once each, however many records had it
        if len(records) == 1:
            lines.append(f"  {records[0]}: {notice}")
        else:
            lines.append(f"  {notice} (on {len(records)} records, {records[0]} first)")
    lines += [
        f"skipped {s.where}{f' ({s.origin})' if s.origin else ''}: {s.reason}"
        for s in report.skipped
    ]
    lines.append(
        f"{'dry run: ' if report.dry_run else ''}{len(added)} added, {len(changed)} updated, "
        f"{len(same)} unchanged, {len(report.skipped)} skipped"
        + ("" if report.dry_run or report.wrote else " — nothing written")
    )
    if report.skipped:
        total = len(report.skipped) + len(report.outcomes)
        lines.append(
            f"{len(report.skipped)} of {total} records skipped (named above): fix them in "
            f"{NAMES[report.tracker]} and import again; the rest "
            + ("would be kept" if report.dry_run else "is kept")
        )
    return lines
