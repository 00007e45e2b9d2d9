"""queue, scan, verify, pick, finish, split: the agent work queue (`edit`: work_commands)."""

from __future__ import annotations

import sys
from typing import Annotated

import click
import typer

from gitcoop.cli import render
from gitcoop.cli.ledger_commands import (
    CommitElsewhereOpt,
    IdArg,
    ReasonOpt,
    commit_checked,
    print_written,
    tell_as_given,
)
from gitcoop.cli.options import (
    AsOpt,
    ExpectOpt,
    ForceOpt,
    JsonOpt,
    OfflineOpt,
    SessionOpt,
    WideOpt,
    make_context,
)
from gitcoop.cli.queue_render import (
    Printer,
    judged_json,
    judged_summary,
    picked_text,
    progress_json,
    queue_details,
    queue_row,
    scan_json,
    scan_text,
)
from gitcoop.cli.table import lay_out
from gitcoop.cli.terminal import printable, say
from gitcoop.domain.timefmt import human_instant
from gitcoop.errors import ChangedUnderWrite, CoopError, NothingToDo, UsageError
from gitcoop.service import pick as pick_service
from gitcoop.service import queue
from gitcoop.service import scan as scanning
from gitcoop.service import verify as verify_service
from gitcoop.service.context import Context
from gitcoop.service.pick import Picked

OUTCOMES = ("done", "closed", "blocked", "ready")


def queue_(
    include_all: Annotated[bool, typer.Option("--all", help="Include settled items.")] = False,
    wide: WideOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """The queue in triage order: ready, in progress, verifying, draft, blocked, split."""
    ctx = make_context()
    shown = queue.view(ctx, include_all)
    if as_json:
        render.emit_json([render.item_json(s) for s in shown.shown])
        return
    labels: dict[str, str] = {s.item.id: s.label for s in shown.shown}
    rows = lay_out([queue_row(entry, ctx.now) for entry in shown.shown], wide)
    group = None
    for entry, line in zip(shown.shown, rows, strict=True):
        if entry.item.status != group:
            group = entry.item.status
            say(group)
        say(line)
        for detail in queue_details(entry, labels):
            say(detail)
    if shown.settled and not include_all:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(shown.settled.items()))
        say(f"settled: {counts} — git coop queue --all shows them")
    if shown.hint:
        say(shown.hint)
    if shown.low:
        say(shown.low)


def scan(
    source: Annotated[
        str | None, typer.Option("--from", metavar="FILE", help="JSON findings.")
    ] = None,
    schema: Annotated[
        bool, typer.Option("--schema", help="Print the JSON Schema of a findings file.")
    ] = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Import scan findings (title, tag, evidence) as drafts, trimmed by shape."""
    if schema:
        sys.stdout.write(scanning.findings_schema())
        return
    if source is None:
        raise UsageError("give the findings: git coop scan --from FILE (--schema: their format)")
    report = scanning.scan(make_context(actor), source)
    if as_json:
        render.emit_json(scan_json(report))
    else:
        say(scan_text(report))


def verify(
    limit: Annotated[
        int | None,
        typer.Option("--max", metavar="N", min=1, help="Verify at most N items."),
    ] = None,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Run the verifier on each draft (and stranded verifying item), in queue order.

    Each verdict is printed as it lands. Exits 3 when a verdict could not be
    written back (the item changed meanwhile): run it again.
    """
    ctx = make_context(actor)
    results = verify_service.verify(ctx, limit, Printer(lines=not as_json))
    verdicts = [judged_json(j) for j in results] if as_json else []
    if not results and not as_json:
        say(_nothing_to_verify(ctx))
    lost = [j.label for j in results if not j.written]
    if lost:
        raise ChangedUnderWrite(  # under --json the verdicts travel inside the error
            f"{len(lost)} verdict{'s' if len(lost) != 1 else ''} could not be written back "
            f"({', '.join(lost)} changed meanwhile) — run git coop verify again",
            details={"verified": verdicts} if as_json else None,
        )
    if as_json:
        render.emit_json(verdicts)


def pick(
    max_verify: Annotated[
        int,
        typer.Option(
            "--max-verify",
            metavar="N",
            min=0,
            help="Verifier calls this pick may make (drafts when nothing is ready, and "
            "items whose evidence went stale).",
        ),
    ] = pick_service.MAX_VERIFY,
    actor: AsOpt = None,
    session: SessionOpt = None,
    offline: OfflineOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Take the topmost ready item, verifying first what needs it.

    When nothing is ready, drafts are verified (at most --max-verify calls)
    until one is. Exits 5 when nothing could be picked, 1 when only drafts
    wait and no verifier is configured (git config coop.verifier); with
    --json the error object then carries what was checked and verified.
    --fields also takes picked, checks and verified. With claims
    through a remote, the remote decides who picked what: exit 0 only once
    the pick is there; exit 7 when it cannot be reached.
    """
    result = Picked()
    try:
        ctx = make_context(actor, session, offline=offline)
        pick_service.pick(ctx, max_verify, Printer(not as_json, "verified "), result)
    except CoopError as error:
        if as_json:  # what was checked and verified travels inside the error
            error.details.update(progress_json(result))
        raise
    if result.judged and not as_json:
        say(judged_summary(result.judged))
    if result.shown is None:
        raise NothingToDo(result.reason, details=progress_json(result) if as_json else None)
    if as_json:
        data = render.item_json(result.shown)
        data |= {"picked": result.shown.item.id, **progress_json(result)}
        render.emit_json(data)
    else:
        say(picked_text(result.shown))


def finish(
    item: IdArg,
    outcome: Annotated[
        str,
        typer.Argument(
            metavar="OUTCOME", click_type=click.Choice(OUTCOMES), help="|".join(OUTCOMES) + "."
        ),
    ],
    commit: Annotated[
        str | None, typer.Option("--commit", metavar="SHA", help="done: the commit's sha.")
    ] = None,
    commit_elsewhere: CommitElsewhereOpt = False,
    reason: ReasonOpt = None,
    failure: Annotated[
        str | None, typer.Option("--failure", metavar="TEXT", help="ready: what went wrong.")
    ] = None,
    force: ForceOpt = False,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """End a round of work on a queue item you picked.

    done --commit SHA | closed --reason R | blocked --reason R | ready --failure TEXT.

    blocked puts the item in the blocked state, still yours and still owed: finish it
    later, `git coop report ID unblocked` to resume, or an owner reviews it.
    An identical repeat (the item already records this outcome) writes nothing.
    """
    needed = {"done": ("--commit", commit), "closed": ("--reason", reason)}
    needed |= {"blocked": ("--reason", reason), "ready": ("--failure", failure)}
    flag, value = needed[outcome]
    if not value:
        raise UsageError(f"finish {outcome} needs {flag}")
    args = {"commit": commit, "reason": reason, "failure": failure, "force": force}
    ctx = make_context(actor, None, expect)
    elsewhere = commit_checked(commit, commit_elsewhere)
    shown = queue.finish(ctx, item, outcome, elsewhere, **args)
    print_written(shown[0], as_json, f"finished ({outcome})")
    tell_as_given(ctx, commit, elsewhere)
    if not as_json:
        for parent in shown[1:]:
            title = printable(parent.item.title)
            say(f"closed {parent.label}: {title} — all its children are settled")


def split(
    item: IdArg,
    into: Annotated[
        list[str],
        typer.Option("--into", metavar="TITLE", help="A child's title; repeat for each child."),
    ],
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Split an item into child drafts; it closes when all of them are settled."""
    parent, children = queue.split(make_context(actor, None, expect), item, into)
    if as_json:
        data = render.item_json(parent)
        data["children"] = [render.item_json(c) for c in children]
        render.emit_json(data)
        return
    say(f"split {parent.label}: {printable(parent.item.title)}")
    for child in children:
        say(f"  {child.label:<10} {printable(child.item.title)}")


def register(app: typer.Typer) -> None:
    app.command("queue")(queue_)
    app.command()(scan)
    app.command()(verify)
    app.command()(pick)
    app.command()(finish)
    app.command()(split)


def _nothing_to_verify(ctx: Context) -> str:
    """Why a pass verified nothing: no drafts, or the ones there are are leased to a
    verification still running (which this pass may not take from it)."""
    from gitcoop.service.context import read_ledger

    snapshot = read_ledger(ctx)
    held = verify_service.leased(list(snapshot.open_items()), ctx.now)
    if not held:
        return "nothing to verify — no drafts wait in the queue"
    first = held[0]
    assert first.lease is not None
    more = f" (and {len(held) - 1} more)" if len(held) > 1 else ""
    return (
        f"nothing to verify — {snapshot.label(first.id)}{more} is being verified by "
        f"{first.lease.by} until {human_instant(first.lease.until)}; run git coop verify "
        "again after that (git coop show ID shows the lease)"
    )
