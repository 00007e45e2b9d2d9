"""queue, scan, verify, pick, finish, edit, split: the agent work queue."""

from __future__ import annotations

import sys
from collections import Counter
from datetime import datetime
from typing import Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.ledger_commands import IdArg, ReasonOpt, print_written
from gitcoop.cli.options import AsOpt, ExpectOpt, ForceOpt, JsonOpt, SessionOpt, make_context
from gitcoop.domain.records import Evidence
from gitcoop.errors import ChangedUnderWrite, CoopError, NothingToDo, UsageError
from gitcoop.service import pick as pick_service
from gitcoop.service import queue
from gitcoop.service import verify as verify_service
from gitcoop.service.pick import Picked
from gitcoop.service.verify import Judged, Progress
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
    parts = [f"  {shown.label:<10} {shown.item.title}"]
    if where(shown):
        parts.append(where(shown))
    if shown.item.attempts:
        parts.append(f"attempts {shown.item.attempts}")
    if why(shown, labels):
        parts.append(why(shown, labels))
    return render.printable("  ".join(parts) + render.holder_note(shown.item, now))


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
    detail = f" ({verdict.reason})" if verdict.reason else ""
    run = judged.run
    code = "timed out" if run and run.timed_out else f"exit {run.exit_code if run else '-'}"
    if not judged.written:
        return f"{judged.label} {verdict.verdict}: could not be written back — run it again"
    return render.printable(f"{judged.label} {verdict.verdict} -> {judged.status}{detail} [{code}]")


def judged_summary(judged: list[Judged]) -> str:
    became = Counter(j.status if j.written else "not written back" for j in judged)
    counts = ", ".join(f"{n} {status}" for status, n in sorted(became.items()))
    return f"verified {len(judged)} item{'s' if len(judged) != 1 else ''}: {counts}"


class Printer(Progress):
    """Each verdict printed as it lands; a progress line while one runs, on a terminal only."""

    def __init__(self, lines: bool, prefix: str = "") -> None:
        self.lines = lines  # text output: one line per verdict on stdout
        self.prefix = prefix
        self.terminal = sys.stderr.isatty()
        self.showing = False

    def starting(self, label: str, number: int, total: int) -> None:
        if self.terminal:
            sys.stderr.write(f"\rverifying {label} ({number}/{total})…\x1b[K")
            sys.stderr.flush()
            self.showing = True

    def landed(self, judged: Judged) -> None:
        if self.showing:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.showing = False
        if self.lines:
            print(self.prefix + judged_line(judged), flush=True)


def evidence_text(evidence: Evidence) -> str:
    where = f"{evidence.path}:{evidence.line}" if evidence.line else evidence.path
    return where + (f"  {evidence.quote!r}" if evidence.quote else "")


def picked_text(shown: Shown) -> str:
    item = shown.item
    lines = [f"picked {shown.label}: {render.printable(item.title)}"]
    lines += [f"  evidence {render.printable(evidence_text(e))}" for e in item.evidence]
    if not item.evidence:
        lines.append(
            "  no evidence: find the place in the code first, and record it "
            f"(git coop note {shown.label} 'PATH:LINE ...')"
        )
    lines.append(f"  attempts {item.attempts}")
    if item.last_failure:
        lines.append(f"  last failure: {render.printable(item.last_failure)}")
    return "\n".join(lines)


def progress_json(result: Picked) -> dict[str, Any]:
    return {
        "checks": [c.__dict__ for c in result.checks],
        "verified": [judged_json(j) for j in result.judged],
    }


def nothing_json(result: Picked, reason: str) -> dict[str, Any]:
    return {"picked": None, "reason": reason, **progress_json(result)}


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
                print(group)
            print(queue_line(entry, labels, ctx.now))
        if shown.settled and not include_all:
            counts = ", ".join(f"{n} {s}" for s, n in sorted(shown.settled.items()))
            print(f"settled: {counts} — git coop queue --all shows them")
        if shown.hint:
            print(shown.hint)
        if shown.low:
            print(shown.low)

    @app.command()
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
            sys.stdout.write(queue.findings_schema())
            return
        if source is None:
            raise UsageError(
                "give the findings: git coop scan --from FILE (--schema: their format)"
            )
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
        print(f"added {len(report.added)} draft{'s' if len(report.added) != 1 else ''}")
        lines = [f"  {shown.label:<10} {shown.item.title}" for shown in report.added]
        lines += [f"dropped (no usable evidence): {title}" for title in report.dropped]
        lines += [
            f"collapsed (same first evidence as another item): {title}"
            for title in report.collapsed
        ]
        lines += [f"trimmed (too many of shape '{f}'): {title}" for title, f in report.trimmed]
        for line in lines:
            print(render.printable(line))
        if report.lopsided:
            print(
                "warning: five or more findings span fewer than three shapes — "
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
        """Run the verifier on each draft (and stranded verifying item), in queue order.

        Each verdict is printed as it lands. Exits 3 when a verdict could not be
        written back (the item changed meanwhile): run it again.
        """
        results = verify_service.verify(make_context(actor), limit, Printer(lines=not as_json))
        if as_json:
            render.emit_json([judged_json(j) for j in results])
        elif not results:
            print("nothing to verify — no drafts wait in the queue")
        lost = [j.label for j in results if not j.written]
        if lost:
            raise ChangedUnderWrite(
                f"{len(lost)} verdict{'s' if len(lost) != 1 else ''} could not be written back "
                f"({', '.join(lost)} changed meanwhile) — run git coop verify again"
            )

    @app.command()
    def pick(
        max_verify: Annotated[
            int,
            typer.Option(
                "--max-verify",
                metavar="N",
                help="Verifier calls this pick may make (drafts when nothing is ready, and "
                "items whose evidence went stale).",
            ),
        ] = pick_service.MAX_VERIFY,
        actor: AsOpt = None,
        session: SessionOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Take the topmost ready item, verifying first what needs it.

        When nothing is ready, drafts are verified (at most --max-verify calls)
        until one is. Exits 5 when nothing could be picked; with --json it
        prints {"picked": null, "reason": ...} then.
        """
        result = Picked()
        try:
            ctx = make_context(actor, session)
            pick_service.pick(ctx, max_verify, Printer(not as_json, "verified "), result)
        except CoopError as error:
            if as_json:
                render.emit_json(nothing_json(result, error.message))
            raise
        if result.judged and not as_json:
            print(judged_summary(result.judged))
        if result.shown is None:
            if as_json:
                render.emit_json(nothing_json(result, result.reason))
            raise NothingToDo(result.reason)
        if as_json:
            data = render.item_json(result.shown)
            data |= {"picked": result.shown.item.id, **progress_json(result)}
            render.emit_json(data)
        else:
            print(picked_text(result.shown))

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
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """End a round: done --commit | closed --reason | blocked --reason | ready --failure.

        An identical repeat (the item already records this outcome) writes nothing.
        """
        if outcome not in OUTCOMES:
            raise UsageError(f"unknown outcome {outcome!r}: use done, closed, blocked or ready")
        needed = {"done": ("--commit", commit), "closed": ("--reason", reason)}
        needed |= {"blocked": ("--reason", reason), "ready": ("--failure", failure)}
        flag, value = needed[outcome]
        if not value:
            raise UsageError(f"finish {outcome} needs {flag}")
        args = {"commit": commit, "reason": reason, "failure": failure, "force": force}
        shown = queue.finish(make_context(actor, session, expect), item, outcome, **args)
        print_written(shown[0], as_json, f"finished ({outcome})")
        if not as_json:
            for parent in shown[1:]:
                print(f"closed {parent.label}: {parent.item.title} — all its children are settled")

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
        print(f"split {parent.label}: {parent.item.title}")
        for child in children:
            print(f"  {child.label:<10} {child.item.title}")
