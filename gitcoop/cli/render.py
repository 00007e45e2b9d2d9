"""How items, events and obligations look: one line of text, or JSON objects."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any, cast

from gitcoop.cli import wording
from gitcoop.cli.table import GAP, Cell, Row, lay_out
from gitcoop.cli.terminal import Styled, colour, columns, join, paint, printable, width
from gitcoop.cli.wording import count
from gitcoop.domain import obligations, readiness
from gitcoop.domain.bounds import json_text
from gitcoop.domain.lifecycle import HELD, TERMINAL, bound, held
from gitcoop.domain.record_type import record_type
from gitcoop.domain.timefmt import human_age, human_instant

if TYPE_CHECKING:  # annotations only: `take` and `done` need not load the queries
    from gitcoop.domain.records import Evidence, Item, Lease, Obligation, Takeover
    from gitcoop.service.dependencies import Links
    from gitcoop.service.queries import LogEntry, Note
    from gitcoop.service.queries import Row as CachedRow
    from gitcoop.service.writer import Shown


def emit_json(value: Any) -> None:
    sys.stdout.write(json_text(value) + "\n")


LISTING_CHUNK = 1000  # elements joined per write


def emit_listing(elements: list[str]) -> None:
    """The JSON array of `elements` (each an element's text, as the read cache keeps it) and
    a newline, written a thousand elements at a time: a listing of 60,000 items is ~100 MB
    of text, which as one string was made three times over (joined, given its newline,
    encoded) before a byte was written."""
    if not elements:
        sys.stdout.write("[]\n")
        return
    write = sys.stdout.write
    between = ",\n  "
    write("[\n  ")
    for start in range(0, len(elements), LISTING_CHUNK):
        text = between.join(elements[start : start + LISTING_CHUNK])
        write(text if start == 0 else between + text)
    write("\n]\n")


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
    if item.taken_by is None or item.taken_at is None or not held(item):
        return ""
    return f"  [taken by {item.taken_by}, {human_age(now - item.taken_at)} ago]"


STATUS_ROLES = {
    "open": "good",
    "ready": "good",
    "taken": "busy",
    "in_progress": "busy",
    "blocked": "bad",
    "draft": "waiting",
    "verifying": "waiting",
    **dict.fromkeys(TERMINAL, "settled"),
}


def status_role(status: str) -> str | None:
    """The colour of a status word (`terminal.PALETTE`)."""
    return STATUS_ROLES.get(status)


def holder_mark(item: Item, now: datetime) -> Styled | None:
    """`[taken by X, 5h ago]`, the holder in colour."""
    if not held(item):
        return None
    return _holder(item.taken_by, item.taken_at, now)


def _holder(taken_by: str | None, taken_at: datetime | None, now: datetime) -> Styled | None:
    if taken_by is None or taken_at is None:
        return None
    age = human_age(now - taken_at)
    if not colour():  # one escaped string (the most common case, and a listing has many)
        return Styled(printable(f"[taken by {taken_by}, {age} ago]"))
    return join("[taken by ", paint(taken_by, "holder"), f", {age} ago]")


def item_row(shown: Shown, now: datetime, viewer: str | None = None) -> Row:
    """One item as a table row; held work with a blocked report shows as blocked. `viewer`
    sees the takeovers of their work they have not acknowledged."""
    item = shown.item
    ob = item.obligation
    flags = (False, False, False)
    if ob is not None and ob.pending:
        flags = (obligations.is_blocked(ob), ob.parked, ob.escalated)
    held = holder_mark(item, now)
    return _row(
        (Cell(shown.label, "id"), Cell(item.kind)),
        item.status,
        item.title,
        held,
        (*flags, len(item.conflicts)),
        obligations.takeovers_for(item, viewer) if viewer else (),
        due_mark(item.due, item.status, now),
    )


def due_mark(due: datetime | str | None, status: str, now: datetime) -> Styled | None:
    """`[due in 3d]`, or `[overdue 2d]` once the item's own due date has passed (settled
    work is never overdue, and shows no mark)."""
    if due is None:
        return None
    at = datetime.fromisoformat(due) if isinstance(due, str) else due  # the cache's is checked
    said = readiness.due_words(at, status, now)
    if said is None:
        return None
    words, overdue = said
    return paint(f"[{words}]", "overdue" if overdue else "due")


def summary_row(row: CachedRow, now: datetime, viewer: str | None = None) -> Row:
    """`item_row` from a cached row's summary: no item is built (one is read only for a
    viewer with a takeover of their work to see)."""
    s = row.summary
    held = None
    if bound(s.status, s.taken_by) and s.taken_at is not None:  # the cache holds checked instants
        held = _holder(s.taken_by, datetime.fromisoformat(s.taken_at), now)
    takeovers: tuple[Takeover, ...] = ()
    if viewer is not None and viewer in s.notified:
        from gitcoop.domain.records import Takeover

        found = (Takeover.from_data(t) for t in row.data()["takeovers"])
        takeovers = tuple(t for t in found if t.holder == viewer)
    marks = (s.reported_blocked, s.parked, s.escalated, s.conflicts)
    due = due_mark(s.due, s.status, now)
    cells = (Cell(row.label, "id"), _cell(s.kind))
    return _row(cells, s.status, s.title, held, marks, takeovers, due)


def summary_lines(
    rows: Sequence[CachedRow],
    now: datetime,
    wide: bool = False,
    viewer: str | None = None,
    priority: bool = False,
) -> list[Styled]:
    """Cached rows as one table's lines (their priority first, for `ready`).

    On a terminal, `lay_out` of their `summary_row`s. Where nothing is coloured or cut
    (a pipe: an agent's loop, a script; or `--wide` without colour) the same lines are
    made directly from the summaries' tuples: a listing of 60,000 rows is otherwise
    mostly the building of table rows (docs/performance.md); a property test holds
    both ways to the same text.
    """
    if colour() or (not wide and width() is not None):
        table = []
        for row in rows:
            line = summary_row(row, now, viewer)
            if priority:
                line = line._replace(cells=(Cell(f"P{row.summary.priority}"), *line.cells))
            table.append(line)
        return lay_out(table, wide)
    return _plain_lines(rows, now, viewer, priority)


def _plain_lines(
    rows: Sequence[CachedRow], now: datetime, viewer: str | None, priority: bool
) -> list[Styled]:
    """`summary_lines` neither coloured nor cut: what `lay_out` makes of the same rows.

    A listing of 60,000 rows is otherwise mostly this function, and on this machine each
    pass over such a list costs 10-25 ms: the marks are found in one pass, and the lines
    made in one more, with the few words of the kind and status columns padded once."""
    from gitcoop.service.queries import Summary

    at = Summary._fields.index
    kind_at, status_at, title_at, priority_at = (
        at(name) for name in ("kind", "status", "title", "priority")
    )
    briefs = [row.brief for row in rows]
    marked = _marked(rows, briefs, now, viewer)  # row -> (its status, title and marks)
    statuses = {mark[0] for mark in marked.values()}
    statuses.update(brief[status_at] for n, brief in enumerate(briefs) if n not in marked)
    kinds = _padded_words({brief[kind_at] for brief in briefs})
    shown = _padded_words(statuses)
    for n in marked:  # a status only a marked row has: its line is made again below
        shown.setdefault(briefs[n][status_at], "")
    lead = [f"P{brief[priority_at]}" for brief in briefs] if priority else None
    labels = _printed([row.label for row in rows])
    width = max(map(len, labels), default=0)  # one column per character, padded below
    if not "".join(labels).isascii():  # padded here, to the columns a terminal gives them
        labels, width = [label.removesuffix(GAP) for label in _padded(labels)], 0
    titles = _printed([brief[title_at] for brief in briefs])
    lines = [
        f"{label:<{width}}{GAP}{kinds[brief[kind_at]]}{shown[brief[status_at]]}{title}"
        for label, brief, title in zip(labels, briefs, titles, strict=True)
    ]
    for n, (status, tail) in marked.items():
        lines[n] = f"{labels[n]:<{width}}{GAP}{kinds[briefs[n][kind_at]]}{shown[status]}{tail}"
    if lead is not None:
        lines = [code + line for code, line in zip(_padded(lead), lines, strict=True)]
    # every part was escaped (`printable`, `_cell`): each line is Styled as it stands
    return cast(list[Styled], [line.rstrip() for line in lines])


def _marked(
    rows: Sequence[CachedRow], briefs: list[tuple[Any, ...]], now: datetime, viewer: str | None
) -> dict[int, tuple[str, str]]:
    """The rows with marks after their title, by place: (the status shown, the title
    and marks)."""
    from gitcoop.service.queries import Summary

    at = Summary._fields.index
    status_at, title_at = at("status"), at("title")
    blocked_at, parked_at, escalated_at, conflicts_at = (
        at(name) for name in ("reported_blocked", "parked", "escalated", "conflicts")
    )
    due_at, notified_at, by_at, since_at = (
        at(name) for name in ("due", "notified", "taken_by", "taken_at")
    )
    marked = {}
    for n, brief in enumerate(briefs):
        rare = (
            brief[due_at] is not None
            or brief[blocked_at]
            or brief[parked_at]
            or brief[escalated_at]
            or brief[conflicts_at]
            or (viewer is not None and viewer in brief[notified_at])
        )
        if not rare and brief[by_at] is None:
            continue  # most rows: nothing after the title
        status, marks = brief[status_at], ""
        if rare:
            full = summary_row(rows[n], now, viewer)  # marks beyond the holder's: rare
            status, marks = full.cells[-1].text, GAP.join(full.marks)
        elif bound(status, brief[by_at]) and brief[since_at] is not None:
            age = human_age(now - datetime.fromisoformat(brief[since_at]))
            marks = printable(f"[taken by {brief[by_at]}, {age} ago]")
        title = printable(brief[title_at])
        marked[n] = status, f"{title}{GAP}{marks}" if title and marks else title or marks
    return marked


def _padded_words(words: set[str]) -> dict[str, str]:
    """Each word of a column of a few (kinds, statuses) as its padded cell."""
    ordered = sorted(words)
    return dict(zip(ordered, _padded([_cell(word).text for word in ordered]), strict=True))


def _printed(column: list[str]) -> list[str]:
    """`printable` of each text; one test for a column with nothing to escape (most)."""
    joined = "".join(column)
    if joined.isascii() and joined.isprintable():
        return column
    return [printable(text) for text in column]


def _padded(column: list[str]) -> list[str]:
    """A column's texts, each padded to the widest and followed by the gap."""
    if all(map(str.isascii, column)):  # one column per character
        size = max(map(len, column), default=0)
        return [text.ljust(size) + GAP for text in column]
    sizes = [columns(text) for text in column]
    size = max(sizes, default=0)
    return [text + " " * (size - n) + GAP for text, n in zip(column, sizes, strict=True)]


def _cell(text: str, role: str | None = None) -> Cell:
    """A cell of a word a listing repeats on every row (a kind, a status): made and
    escaped once."""
    found = _CELLS.get((text, role))
    if found is None:
        found = _CELLS[text, role] = Cell(Styled(printable(text)), role)
    return found


_CELLS: dict[tuple[str, str | None], Cell] = {}


def _row(
    cells: tuple[Cell, ...],
    status: str,
    title: str,
    held: Styled | None,
    flags: tuple[bool, bool, bool, int],
    takeovers: tuple[Takeover, ...],
    due: Styled | None = None,
) -> Row:
    """The one listing row: `flags` are (reported blocked, parked, escalated, conflicts);
    `due` is the mark of the item's own due date."""
    blocked, parked, escalated, conflicts = flags
    if not (blocked or parked or escalated or conflicts or takeovers):  # most rows
        status_cell = _cell(status, STATUS_ROLES.get(status))
        shown = tuple(mark for mark in (held, due) if mark is not None)
        return Row((*cells, status_cell), title, shown)
    if blocked and status in HELD:
        status = "blocked"
    marks = [held] if held is not None else []
    marks += [due] if due is not None else []
    marks += [paint("[parked]", "waiting")] if parked else []
    marks += [paint("[escalated]", "bad")] if escalated else []
    if conflicts:
        marks.append(paint(f"[{count(conflicts, 'conflict')}]", "conflict"))
    for taken in takeovers:
        marks.append(
            join("[taken over by ", paint(taken.by, "holder"), f" at {human_instant(taken.at)}]")
        )
    return Row((*cells, _cell(status, STATUS_ROLES.get(status))), title, marks)


def item_line(shown: Shown, now: datetime, viewer: str | None = None) -> str:
    """One item on one line, as a listing of it alone lays it out."""
    return lay_out([item_row(shown, now, viewer)])[0]


def item_details(
    shown: Shown, now: datetime, notes: list[Note] | None = None, links: Links | None = None
) -> Styled:
    """Everything about one item: its fields, what it owes, its links and notes, its body."""
    item = shown.item
    rows = _field_rows(shown, now)
    rows += [(k, v) for k, v in _optional_rows(item, now) if v]
    if item.obligation is not None:
        rows += _obligation_rows(item.obligation)
    rows += _attention_rows(item)
    rows += _link_rows(links) if links is not None else []
    for note in notes or ():
        rows.append(("note", _Lines(f"{human_instant(note.at)} {note.actor}: {note.text}")))
    width = max(len(k) for k, _ in rows)
    lines: list[str] = []
    for key, value in rows:
        heading = paint(f"{key:<{width}}", "heading")
        if isinstance(value, _Lines):  # a note of several lines: each under the first
            first, *more = value.text.split("\n")
            lines.append(join(heading, "  ", Styled(printable(first, tabs=True))))
            lines += [" " * (width + 2) + printable(line, tabs=True) for line in more]
        else:
            lines.append(join(heading, "  ", _value(value)))
    if item.body:  # indented, as git log shows a message: no line of it reads as this tool's
        lines += [
            "",
            *(BODY_INDENT + printable(line, tabs=True) for line in item.body.splitlines()),
        ]
    return Styled("\n".join(lines))


BODY_INDENT = "    "


@record_type
class _Lines:
    """A free text shown as its lines, tabs kept (a note: lines and tabs allowed)."""

    text: str


def _field_rows(shown: Shown, now: datetime) -> list[tuple[str, Any]]:
    """The fields every item shows."""
    item = shown.item
    return [
        ("id", f"{item.id} ({shown.label})"),
        ("kind", item.kind),
        ("title", item.title),
        ("status", join(paint(item.status, status_role(item.status)), holder_note(item, now))),
        ("priority", item.priority),
        *([("due", _due_text(item, now))] if item.due else []),
        ("version", item.version),
        ("created", f"{human_instant(item.created_at)} by {item.created_by}"),
    ]


def _optional_rows(item: Item, now: datetime) -> list[tuple[str, Any]]:
    """The fields shown only when set (a queue item's own among them)."""
    optional: list[tuple[str, Any]] = [
        ("tags", ", ".join(item.tags)),
        ("taken", item.taken_at and f"{human_instant(item.taken_at)} by {item.taken_by}"),
        ("session", item.session),
        ("closed", item.closed_at and f"{human_instant(item.closed_at)} by {item.closed_by}"),
        ("note", item.closed_note),
        ("summary", item.result_summary),
        ("commit", item.commit_sha),
        ("related", ", ".join(item.related_commits)),
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
        optional.append(("lease", item.lease and lease_text(item.lease, now)))
    return optional


def _obligation_rows(ob: Obligation) -> list[tuple[str, Any]]:
    """What the item owes: its state, the latest report, and what owners were told."""
    due = f", due {human_instant(ob.due)}" if ob.due else ""
    parked = ", parked" if ob.parked else ""
    escalated = ", escalated to owners" if ob.escalated else ""
    end = f" ({ob.disposition})" if ob.disposition else ""
    rows: list[tuple[str, Any]] = [
        ("owes", f"{wording.obligation(ob.kind)}, {ob.status}{end}{due}{parked}{escalated}")
    ]
    if ob.latest_report:
        said = ob.latest_report.get("reason") or ob.latest_report.get("note")
        rows.append(("report", f"{ob.latest_report.get('status')}: {said}"))
    if ob.pending and ob.for_owners:
        raised = ob.for_owners
        rows.append(("owners", f"told: {raised.get('decision')} by {raised.get('by')}"))
    return rows


def _attention_rows(item: Item) -> list[tuple[str, Any]]:
    """Takeovers not yet seen and events that lost on a merge."""
    rows: list[tuple[str, Any]] = [
        ("takeover", f"of {taken.holder} by {taken.by} at {human_instant(taken.at)}, unseen")
        for taken in item.takeovers
    ]
    for conflict in item.conflicts:
        said = f"{conflict.verb} by {conflict.actor} ({conflict.event}): "
        rows.append(("conflict", paint(said + wording.plain(conflict.reason), "conflict")))
    return rows


def _due_text(item: Item, now: datetime) -> Styled:
    """The item's own due date, and how far off (or overdue) it is."""
    assert item.due is not None
    mark = due_mark(item.due, item.status, now)
    when = human_instant(item.due)
    return join(when, " ", mark) if mark is not None else Styled(when)


def lease_text(lease: Lease, now: datetime) -> str:
    """Who verifies an item and until when: another verification waits for the lease."""
    left = "ended" if lease.until <= now else f"{human_age(lease.until - now)} left"
    return (
        f"verifying by {lease.by} since {human_instant(lease.since)}, "
        f"until {human_instant(lease.until)} ({left})"
    )


def _value(value: Any) -> Styled:
    return value if isinstance(value, Styled) else Styled(printable(str(value)))


def _link_rows(links: Links) -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    names = {**links.outgoing, **{f"{k} (in)": v for k, v in links.incoming.items()}}
    shown_as = {"related (in)": "related", "parent (in)": "parent", "blocks (in)": "blocks"}
    shown_as |= {"discovered (in)": "discovered", "followed_by (in)": "followed_by"}
    for key, entries in names.items():
        for entry in entries:
            waits = "  [waiting on it]" if entry.id in links.waiting_on else ""
            what = f"{entry.label} {entry.status}: {entry.title}{waits}"
            rows.append((shown_as.get(key, key).replace("_", " "), what))
    for cycle in links.cycles:
        loop = " → ".join(e.label for e in cycle)
        rows.append(("conflict", f"cycle {loop} — each waits on the next; git coop dep remove one"))
    return rows


def _evidence_text(evidence: Evidence) -> str:
    where = f"{evidence.path}:{evidence.line}" if evidence.line else evidence.path
    quote = f"  {evidence.quote!r}" if evidence.quote else ""
    head = f"  (checked at {evidence.head[:12]})" if evidence.head else ""
    return f"{where}{quote}{head}"


def log_line(entry: LogEntry) -> str:
    event = entry.event
    details = []
    keys: tuple[str, ...] = ("action", "role", "who", "type", "other", "summary", "commit")
    keys += ("reason", "text")
    keys += ("note", "status", "decision", "force", "tags_added", "tags_removed")
    keys += ("title",) if event.verb == "edit" else ()
    for key in keys:
        if event.arg(key):
            details.append(f"{key}={event.arg(key)}")
    if event.arg("priority") is not None and event.verb == "edit":
        details.append(f"priority={event.arg('priority')}")
    for key in sorted(k for k in event.args if k.startswith("previous_")):
        value = event.arg(key)
        details.append(f"{key}={'none' if value is None else value}")
    if event.verb == "add":
        details.append(printable(repr(event.arg("title"))))
    refused = f"  [refused: {wording.plain(entry.refused)}]" if entry.refused else ""
    extra = "  " + " ".join(details) if details else ""
    return printable(
        f"{human_instant(event.at)}  {entry.label:<10} {event.verb:<9} {event.actor}"
        f"{extra}{refused}"
    )
