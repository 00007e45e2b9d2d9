"""How items, events and obligations look: one line of text, or JSON objects."""

from __future__ import annotations

import sys
from datetime import datetime
from typing import TYPE_CHECKING, Any

from gitcoop.cli.terminal import printable
from gitcoop.domain import jsontext
from gitcoop.domain.lifecycle import HELD
from gitcoop.domain.timefmt import human_age, human_instant

if TYPE_CHECKING:  # annotations only: `take` and `done` need not load the queries
    from gitcoop.domain.records import Evidence, Item
    from gitcoop.service.queries import LogEntry
    from gitcoop.service.writer import Shown


def emit_json(value: Any) -> None:
    sys.stdout.write(jsontext.dumps(value) + "\n")


def item_json(shown: Shown) -> dict[str, Any]:
    data = shown.item.to_data()
    data["short_id"] = shown.label
    return data


def event_json(entry: LogEntry) -> dict[str, Any]:
    data = entry.event.to_data()
    data["result"] = "accepted" if entry.refused is None else f"refused: {entry.refused}"
    return data


def holder_note(item: Item, now: datetime) -> str:
    """`[taken by X, 5h ago]`: a stale take is shown, never reverted."""
    if item.taken_by is None or item.taken_at is None or item.status not in HELD:
        return ""
    return f"  [taken by {item.taken_by}, {human_age(now - item.taken_at)} ago]"


def item_line(shown: Shown, now: datetime) -> str:
    item = shown.item
    marks = holder_note(item, now)
    if item.obligation is not None and item.obligation.pending and item.obligation.escalated:
        marks += "  [escalated]"
    if item.conflicts:
        marks += f"  [{len(item.conflicts)} conflict{'s' if len(item.conflicts) > 1 else ''}]"
    return f"{shown.label:<10} {item.kind:<8} {item.status:<10} {printable(item.title)}{marks}"


def item_details(shown: Shown, now: datetime) -> str:
    item = shown.item
    rows: list[tuple[str, Any]] = [
        ("id", f"{item.id} ({shown.label})"),
        ("kind", item.kind),
        ("title", item.title),
        ("status", item.status + holder_note(item, now)),
        ("version", item.version),
        ("created", f"{human_instant(item.created_at)} by {item.created_by}"),
    ]
    optional: list[tuple[str, Any]] = [
        ("body", item.body),
        ("tag", item.tag),
        ("taken", item.taken_at and f"{human_instant(item.taken_at)} by {item.taken_by}"),
        ("session", item.session),
        ("closed", item.closed_at and f"{human_instant(item.closed_at)} by {item.closed_by}"),
        ("summary", item.result_summary),
        ("commit", item.commit_sha),
        ("reason", item.reason),
    ]
    if item.kind == "item":
        optional += [
            ("source", item.source),
            ("order", item.order_key),
            ("attempts", item.attempts),
            ("failure", item.last_failure),
            ("blocked", item.blocked_reason),
            ("duplicate", item.duplicate_of),
            ("parent", item.parent_id),
        ]
        optional += [("evidence", _evidence_text(e)) for e in item.evidence]
    rows += [(k, v) for k, v in optional if v]
    ob = item.obligation
    if ob is not None:
        due = f", due {human_instant(ob.due)}" if ob.due else ""
        parked = ", parked" if ob.parked else ""
        escalated = ", escalated to owners" if ob.escalated else ""
        end = f" ({ob.disposition})" if ob.disposition else ""
        rows.append(("owes", f"{ob.kind} {ob.status}{end}{due}{parked}{escalated}"))
        if ob.latest_report:
            rows.append(
                ("report", f"{ob.latest_report.get('status')}: {ob.latest_report.get('reason')}")
            )
    for conflict in item.conflicts:
        rows.append(
            (
                "conflict",
                f"{conflict.verb} by {conflict.actor} ({conflict.event}): {conflict.reason}",
            )
        )
    width = max(len(k) for k, _ in rows)
    return "\n".join(f"{k:<{width}}  {printable(str(v))}" for k, v in rows)


def _evidence_text(evidence: Evidence) -> str:
    where = f"{evidence.path}:{evidence.line}" if evidence.line else evidence.path
    quote = f"  {evidence.quote!r}" if evidence.quote else ""
    head = f"  (checked at {evidence.head[:12]})" if evidence.head else ""
    return f"{where}{quote}{head}"


def log_line(entry: LogEntry) -> str:
    event = entry.event
    details = []
    keys = ("action", "role", "who", "summary", "commit", "reason", "text", "status", "decision")
    for key in (*keys, "previous_holder"):
        if event.arg(key):
            details.append(f"{key}={printable(str(event.arg(key)))}")
    if event.verb == "add":
        details.append(printable(repr(event.arg("title"))))
    refused = f"  [refused: {entry.refused}]" if entry.refused else ""
    extra = "  " + " ".join(details) if details else ""
    return (
        f"{human_instant(event.at)}  {entry.label:<10} {event.verb:<9} {event.actor}"
        f"{extra}{refused}"
    )
