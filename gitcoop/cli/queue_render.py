"""How the queue looks: its lines, verdicts as they land, the hand-off of a picked item."""

from __future__ import annotations

import sys
from collections import Counter
from datetime import datetime
from typing import Any

from gitcoop.cli import render
from gitcoop.cli.table import Cell, Row
from gitcoop.cli.terminal import Styled, paint, printable, say
from gitcoop.domain import progress
from gitcoop.domain.records import Evidence
from gitcoop.service.pick import Picked
from gitcoop.service.scan import ScanReport
from gitcoop.service.verify import Judged, Progress
from gitcoop.service.writer import Shown


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


ID_WIDTH = 12  # seed 004: the first twelve characters of an item's id


def queue_row(shown: Shown, now: datetime) -> Row:
    """One queue item's first line: the first twelve characters of its id, its title,
    and its holder when it has one."""
    held = render.holder_mark(shown.item, now)
    marks = [] if held is None else [held]
    return Row((Cell(shown.item.id[:ID_WIDTH], "id"),), shown.item.title, marks, indent="  ")


def queue_details(shown: Shown, labels: dict[str, str]) -> list[Styled]:
    """The lines under an item (seed 004): where a round would start and the attempts
    once it has had any, then the reason it is where it is, when there is one."""
    facts = [where(shown)]
    if shown.item.attempts:
        facts.append(f"attempts {shown.item.attempts}")
    lines = ["  ".join(fact for fact in facts if fact), why(shown, labels)]
    return [paint(f"{DETAIL_INDENT}{line}", "hint") for line in lines if line]


DETAIL_INDENT = "    "  # under the item's id, which is indented by two


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
    return printable(f"{judged.label} {verdict.verdict} -> {judged.status}{detail} [{code}]")


def judged_summary(judged: list[Judged]) -> str:
    became = Counter(j.status if j.written else "not written back" for j in judged)
    counts = ", ".join(f"{n} {status}" for status, n in sorted(became.items()))
    return f"verified {len(judged)} item{'s' if len(judged) != 1 else ''}: {counts}"


class Printer(Progress):
    """Each verdict printed as it lands; how far verification is, on a terminal only."""

    def __init__(self, lines: bool, prefix: str = "") -> None:
        self.lines = lines  # text output: one line per verdict on stdout
        self.prefix = prefix
        self.number = self.total = 0

    def starting(self, label: str, number: int, total: int) -> None:
        self.number, self.total = number, total
        progress.reporter().step("verifying", number - 1, total or None, label)

    def landed(self, judged: Judged) -> None:
        if self.lines:
            say(self.prefix + judged_line(judged))
            sys.stdout.flush()
        if self.total and self.number >= self.total:
            progress.reporter().step("verifying", self.total, self.total)


def evidence_text(evidence: Evidence) -> str:
    where = f"{evidence.path}:{evidence.line}" if evidence.line else evidence.path
    return where + (f"  {evidence.quote!r}" if evidence.quote else "")


def picked_text(shown: Shown) -> str:
    item = shown.item
    lines = [f"picked {shown.label}: {printable(item.title)}"]
    lines += [f"  evidence {printable(evidence_text(e))}" for e in item.evidence]
    if not item.evidence:
        lines.append(
            "  no evidence: find the place in the code first, and record it "
            f"(git coop note {shown.label} 'PATH:LINE ...')"
        )
    lines.append(f"  attempts {item.attempts}")
    if item.last_failure:
        lines.append(f"  last failure: {printable(item.last_failure)}")
    return "\n".join(lines)


def progress_json(result: Picked) -> dict[str, Any]:
    return {
        "checks": [c.__dict__ for c in result.checks],
        "verified": [judged_json(j) for j in result.judged],
    }


def scan_json(report: ScanReport) -> dict[str, Any]:
    return {
        "added": [render.item_json(s) for s in report.added],
        "dropped": report.dropped,
        "dropped_why": report.dropped_why,
        "collapsed": report.collapsed,
        "trimmed": [{"title": t, "shape": s} for t, s in report.trimmed],
        "lopsided": report.lopsided,
    }


def scan_text(report: ScanReport) -> str:
    lines = [f"added {len(report.added)} draft{'s' if len(report.added) != 1 else ''}"]
    lines += [f"  {shown.label:<10} {shown.item.title}" for shown in report.added]
    lines += [
        f"dropped ({why}): {title}"
        for title, why in zip(report.dropped, report.dropped_why, strict=True)
    ]
    lines += [
        f"collapsed (same first evidence as another item): {title}" for title in report.collapsed
    ]
    lines += [f"trimmed (too many of shape '{f}'): {title}" for title, f in report.trimmed]
    if report.lopsided:
        lines.append(
            "warning: five or more findings span fewer than three shapes — "
            "the scan may be repeating one kind of finding"
        )
    return "\n".join(printable(line) for line in lines)
