"""fsck: check every invariant of the ledger; exit 1 on any breach, 4 if unreadable."""

from __future__ import annotations

from typing import Annotated

import typer

from gitcoop.cli import render
from gitcoop.cli.options import JsonOpt, make_context
from gitcoop.cli.terminal import say
from gitcoop.service import fsck as checks


def fsck(
    full: Annotated[
        bool,
        typer.Option(
            "--full", help="Check every commit again, not only those since the last check."
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Check layout, parsing, folds, clocks, ids, obligations and history."""
    report = checks.fsck(make_context(), full)
    data = {
        "ok": not report.breaches,
        "tip": report.tip,
        "full": report.full,
        "items": report.items,
        "events": report.events,
        "commits": report.commits,
        "since": report.since,
        "breaches": [vars(b) for b in report.breaches],
        "notes": report.notes,
    }
    if not as_json:
        for breach in report.breaches:
            say(f"{breach.path}: [{breach.rule}] {breach.message}")
    if report.breaches:
        count = len(report.breaches)
        raise checks.BreachesFound(  # under --json the report travels inside the error
            f"{count} breach{'es' if count > 1 else ''} of the ledger's invariants in "
            f"{checks.summary(report)}",
            details=data if as_json else None,
        )
    if as_json:
        render.emit_json(data)
    else:
        for note in report.notes:
            say(f"note: {note}")
        say(f"ok: {checks.summary(report)}")


def register(app: typer.Typer) -> None:
    app.command()(fsck)
