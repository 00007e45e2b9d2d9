"""queue, scan, verify, pick, finish, edit, split: the agent work queue."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.ledger_commands import IdArg, ReasonOpt, print_written
from gitcoop.cli.options import AsOpt, ExpectOpt, ForceOpt, JsonOpt, SessionOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.errors import Refused, UsageError
from gitcoop.service import pick as pick_service
from gitcoop.service import queue
from gitcoop.service import verify as verify_service
from gitcoop.service.verify import Judged
from gitcoop.service.writer import Shown

OUTCOMES = ("done", "closed", "blocked", "ready")


def where(shown: Shown) -> str:
    """The first evidence as path:line."""
    if not shown.item.evidence:
        return ""
    first = shown.item.evidence[0]
    return f"{first.path}:{first.line}" if first.line else first.path


def why(shown: Shown, labels: dict[str, str]) -> str:
    """The reason an item is where it is."""
    item = shown.item
    if item.blocked_reason:
        return item.blocked_reason
    if item.duplicate_of:
        return f"duplicate of {labels.get(item.duplicate_of, item.duplicate_of)}"
    if item.last_failure:
        return f"last attempt: {item.last_failure}"
    return item.reason or ""  # e.g. why the verifier sent it back to draft


def queue_line(shown: Shown, labels: dict[str, str], now: datetime) -> str:
    parts = [f"  {shown.label:<10} {printable(shown.item.title)}"]
    if where(shown):
        parts.append(where(shown))
    if shown.item.attempts:
        parts.append(f"attempts {shown.item.attempts}")
    if why(shown, labels):
        parts.append(printable(why(shown, labels)))
    return "  ".join(parts) + render.holder_note(shown.item, now)


def judged_json(judged: Judged) -> dict[str, Any]:
    run = judged.run
    return {
        "item": judged.item,
        "short_id": judged.label,
        "title": judged.title,
        "status": judged.status,
        "written": judged.written,
        "exit_code": run.exit_code if run else None,
        "timed_out": run.timed_out if run else False,
        **judged.verdict.to_args(),
    }


def judged_line(judged: Judged) -> str:
    verdict = judged.verdict
    detail = f" ({printable(verdict.reason)})" if verdict.reason else ""
    run = judged.run
    code = "timed out" if run and run.timed_out else f"exit {run.exit_code if run else '-'}"
    if not judged.written:
        return f"{judged.label} {verdict.verdict}: could not be written back — run it again"
    return f"{judged.label} {verdict.verdict} -> {judged.status}{detail} [{code}]"


def picked_text(shown: Shown) -> str:
    item = shown.item
    lines = [f"picked {shown.label}: {printable(item.title)}"]
    lines += [
        printable(f"  evidence {e.path}:{e.line}" + (f"  {e.quote!r}" if e.quote else ""))
        for e in item.evidence
    ]
    lines.append(f"  attempts {item.attempts}")
    if item.last_failure:
        lines.append(f"  last failure: {printable(item.last_failure)}")
    return "\n".join(lines)


def register(app: typer.Typer) -> None:
    @app.command("queue")
    def queue_(
        include_all: Annotated[bool, typer.Option("--all", help="Include settled items.")] = False,
        actor: AsOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """The queue in triage order: ready, in progress, verifying, draft, blocked, split."""
        ctx = make_context(actor)
        shown = queue.view(ctx, include_all)
        if as_json:
            render.emit_json([render.item_json(s) for s in shown.shown])
            return
        labels: dict[str, str] = {s.item.id: s.label for s in shown.shown}
        group = None
        for entry in shown.shown:
            if entry.item.status != group:
                group = entry.item.status
                say(group)
            say(queue_line(entry, labels, ctx.now))
        if shown.settled and not include_all:
            counts = ", ".join(f"{n} {s}" for s, n in sorted(shown.settled.items()))
            say(f"settled: {counts} — git coop queue --all shows them")
        if shown.hint:
            say(shown.hint)
        if shown.low:
            say("the queue is running low — top it up: git coop scan --from FILE")

    @app.command()
    def scan(
        source: Annotated[str, typer.Option("--from", metavar="FILE", help="JSON findings.")],
        actor: AsOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Import scan findings (title, tag, evidence) as drafts, trimmed by shape."""
        report = queue.scan(make_context(actor), source)
        if as_json:
            render.emit_json(
                {
                    "added": [render.item_json(s) for s in report.added],
                    "dropped": report.dropped,
                    "collapsed": report.collapsed,
                    "trimmed": [{"title": t, "shape": s} for t, s in report.trimmed],
                    "lopsided": report.lopsided,
                }
            )
            return
        say(f"added {len(report.added)} draft{'s' if len(report.added) != 1 else ''}")
        for shown in report.added:
            say(f"  {shown.label:<10} {printable(shown.item.title)}")
        for title in report.dropped:
            say(f"dropped (no usable evidence): {printable(title)}")
        for title in report.collapsed:
            say(f"collapsed (same first evidence as another item): {printable(title)}")
        for title, form in report.trimmed:
            say(f"trimmed (too many of shape '{form}'): {printable(title)}")
        if report.lopsided:
            say(
                "warning: five or more items span fewer than three shapes — "
                "the scan may be repeating one kind of finding"
            )

    @app.command()
    def verify(
        limit: Annotated[
            int | None, typer.Option("--max", metavar="N", help="Verify at most N items.")
        ] = None,
        actor: AsOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Run the verifier on each draft (and stranded verifying item), in queue order."""
        results = verify_service.verify(make_context(actor), limit)
        if as_json:
            render.emit_json([judged_json(j) for j in results])
            return
        if not results:
            say("nothing to verify — no drafts in the queue")
        for judged in results:
            say(judged_line(judged))

    @app.command()
    def pick(actor: AsOpt = None, session: SessionOpt = None, as_json: JsonOpt = False) -> None:
        """Take the topmost ready item (re-verifying it first when its evidence is stale)."""
        result = pick_service.pick(make_context(actor, session))
        if not as_json:
            for judged in result.judged:
                say(f"verified {judged_line(judged)}")
        if result.shown is None:
            raise Refused("nothing is ready to pick — see git coop queue")
        if as_json:
            data = render.item_json(result.shown)
            data["checks"] = [c.__dict__ for c in result.checks]
            render.emit_json(data)
        else:
            say(picked_text(result.shown))

    @app.command()
    def finish(
        item: IdArg,
        outcome: Annotated[
            str, typer.Argument(metavar="OUTCOME", help="done|closed|blocked|ready")
        ],
        commit: Annotated[str | None, typer.Option("--commit", help="done: the sha.")] = None,
        reason: ReasonOpt = None,
        failure: Annotated[
            str | None, typer.Option("--failure", help="ready: what went wrong.")
        ] = None,
        force: ForceOpt = False,
        actor: AsOpt = None,
        session: SessionOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """End a round: done --commit | closed --reason | blocked --reason | ready --failure."""
        if outcome not in OUTCOMES:
            raise UsageError(f"unknown outcome {outcome!r}: use done, closed, blocked or ready")
        needed = {"done": ("--commit", commit), "closed": ("--reason", reason)}
        needed |= {"blocked": ("--reason", reason), "ready": ("--failure", failure)}
        flag, value = needed[outcome]
        if not value:
            raise UsageError(f"finish {outcome} needs {flag}")
        args = {"commit": commit, "reason": reason, "failure": failure, "force": force}
        shown = queue.finish(make_context(actor, session), item, outcome, **args)
        print_written(shown[0], as_json, f"finished ({outcome})")
        if not as_json:
            for parent in shown[1:]:
                title = printable(parent.item.title)
                say(f"closed {parent.label}: {title} — all its children are settled")

    @app.command()
    def edit(
        item: IdArg,
        title: Annotated[str | None, typer.Option("--title", help="A new title.")] = None,
        before: Annotated[str | None, typer.Option("--before", metavar="ID")] = None,
        after: Annotated[str | None, typer.Option("--after", metavar="ID")] = None,
        state: Annotated[
            str | None, typer.Option("--state", help="ready, blocked (needs --reason) or closed.")
        ] = None,
        reason: ReasonOpt = None,
        actor: AsOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Change a queue item's title, its place (--before/--after ID) or its state."""
        ctx = make_context(actor, None, expect)
        shown = queue.edit(ctx, item, title, before, after, state, reason)
        print_written(shown, as_json, "edited")

    @app.command()
    def split(
        item: IdArg,
        into: Annotated[list[str], typer.Option("--into", metavar="TITLE", help="A child.")],
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
