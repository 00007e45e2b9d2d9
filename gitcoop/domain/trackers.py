"""Readers of other trackers' exports: each record becomes an `Imported`, or says why not.

Pure: each reader gets a record as JSON gave it, never a file (Backlog.md's
task files are read by `domain/backlog_tasks.py`). A reader only maps fields; the
checks that every imported record passes are `imported.problem`'s.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from gitcoop.domain import bounds, fields
from gitcoop.domain.aliases import alias_problem
from gitcoop.domain.imported import (
    Imported,
    Unmappable,
    required_text,
    stamped,
    state_of,
    tag_words,
    text_or_none,
)

Numbered = tuple[str, Any]  # (where: `line 3` of JSON lines, `record 3` of an array; the record)


def json_records(text: str) -> list[Numbered]:
    """The records of a JSON array or of JSON lines, each named by where it is: its line,
    or in an array (often one line) its number. A line that is not JSON is kept as an
    `Unmappable` so it is reported by its line."""
    stripped = text.lstrip()
    if stripped.startswith("["):
        return _array(text)
    found: list[Numbered] = []
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                found.append((f"line {number}", json.loads(line)))
            except ValueError as bad:
                found.append((f"line {number}", Unmappable(f"not JSON ({bad})")))
            except RecursionError:  # nested deeper than the parser goes: no record is so
                found.append((f"line {number}", Unmappable(_TOO_DEEP)))
    return found


def _array(text: str) -> list[Numbered]:
    decoder = json.JSONDecoder()
    at = text.index("[") + 1
    found: list[Numbered] = []
    while True:
        at = _skip(text, at)
        if at >= len(text) or text[at] == "]":
            return found
        try:
            value, end = decoder.raw_decode(text, at)
        except ValueError as bad:
            raise Unmappable(f"line {text.count(chr(10), 0, at) + 1}: not JSON ({bad})") from None
        except RecursionError:
            raise Unmappable(f"line {text.count(chr(10), 0, at) + 1}: {_TOO_DEEP}") from None
        found.append((f"record {len(found) + 1}", value))
        at = _skip(text, end)
        if at < len(text) and text[at] == ",":
            at += 1


_TOO_DEEP = "not JSON a tracker writes (nested deeper than Python's parser goes)"


def _skip(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def record_of(raw: Any) -> Mapping[str, Any]:
    if isinstance(raw, Unmappable):
        raise raw
    if not isinstance(raw, Mapping):
        raise Unmappable("a record must be a JSON object")
    return raw


def instant(value: Any, name: str) -> datetime | None:
    """An ISO 8601 or taskwarrior (20261201T120000Z) time; a bad one refuses the record."""
    if value is None or value == "":
        return None
    if not isinstance(value, str) or len(value) > 40:
        raise Unmappable(f"{name} is not a time")
    try:
        if len(value) == 16 and value[8] == "T" and value.endswith("Z"):
            at = datetime.strptime(value, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
        else:
            at = datetime.fromisoformat(value)
    except ValueError:
        raise Unmappable(f"{name} is not a time: {value[:40]!r}") from None
    try:
        at = at.replace(tzinfo=UTC) if at.tzinfo is None else at.astimezone(UTC)
    except OverflowError:  # 9999-12-31T23:59:59-01:00: past what a date holds in UTC
        raise Unmappable(f"{name} is not a time: {value[:40]!r}") from None
    found = bounds.instant_problem(at.replace(microsecond=0), name)
    if found:
        raise Unmappable(found)
    return at.replace(microsecond=0)


def due_of(value: Any, name: str) -> datetime | None:
    """A tracker's due date: a time as `instant` reads it, or a day (2026-12-24, in any
    ISO form), due until its end (UTC), as `add --due 2026-12-24` takes it."""
    at = instant(value, name)
    if at is not None and isinstance(value, str) and fields.is_day(value):
        at += timedelta(days=1, seconds=-1)
    return at


def list_of(value: Any, name: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise Unmappable(f"{name} must be a list")
    return value


# -- taskwarrior -------------------------------------------------------------------

_TW_PRIORITY = {"H": 1, "M": 2, "L": 3}


def taskwarrior(raw: Any) -> Imported:
    """One task of `task export`: TW-<uuid> (stable) and TW-<id> while it is pending."""
    task = record_of(raw)
    uuid = required_text(task.get("uuid"), "uuid")
    status = task.get("status")
    if status == "pending" and task.get("start"):
        status = "started"
    for name in ("entry", "modified", "end", "start", "due", "wait", "scheduled"):
        instant(task.get(name), name)
    number = task.get("id")
    aliases = [f"TW-{uuid}"]
    if isinstance(number, int) and not isinstance(number, bool) and number > 0:
        aliases.append(f"TW-{number}")
    project = text_or_none(task.get("project"), "project")
    labels = [*list_of(task.get("tags"), "tags"), *([f"project:{project}"] if project else [])]
    tags, left = tag_words(labels)
    priority = task.get("priority")
    if priority is not None and priority not in _TW_PRIORITY:
        raise Unmappable(f"priority {str(priority)[:10]!r} is not H, M or L")
    notes = []
    for note in list_of(task.get("annotations"), "annotations"):
        note = record_of(note)
        at = instant(note.get("entry"), "annotation entry")
        notes.append(stamped(at, required_text(note.get("description"), "annotation")))
    depends = task.get("depends")
    if isinstance(depends, str):  # taskwarrior before 2.6 wrote one comma-separated string
        depends = [d for d in depends.split(",") if d]
    return Imported(
        tracker="taskwarrior",
        aliases=tuple(aliases),
        title=required_text(task.get("description"), "description"),
        state=state_of("taskwarrior", status),
        tags=tags,
        priority=_TW_PRIORITY.get(priority) if isinstance(priority, str) else None,
        due=due_of(task.get("due"), "due"),
        notes=tuple(notes),
        depends=tuple(("blocked-by", f"TW-{d}") for d in list_of(depends, "depends")),
        notices=left,
    )


# -- beads -------------------------------------------------------------------------

_BEADS_LINKS = {
    "blocks": "blocked-by",
    "parent-child": "child-of",
    "related": "related",
    "discovered-from": "discovered-from",
}


_BEADS_SECTIONS = (
    ("", "description"),
    ("## Design", "design"),
    ("## Acceptance criteria", "acceptance_criteria"),
)


def beads(raw: Any) -> Imported:
    """One line of beads' issues.jsonl; its id (bd-a1b2) is the alias."""
    issue = record_of(raw)
    issue_id = required_text(issue.get("id"), "id")
    for name in ("created_at", "updated_at", "closed_at"):
        instant(issue.get(name), name)
    body = "\n\n".join(
        f"{heading}\n\n{text}" if heading else text
        for heading, key in _BEADS_SECTIONS
        if (text := text_or_none(issue.get(key), key))
    )
    kind = text_or_none(issue.get("issue_type"), "issue_type")
    tags, left = tag_words([*list_of(issue.get("labels"), "labels"), *([kind] if kind else [])])
    priority = issue.get("priority")
    if priority is not None and (isinstance(priority, bool) or not isinstance(priority, int)):
        raise Unmappable("priority must be a whole number from 0 to 4")
    depends = []
    for link in list_of(issue.get("dependencies"), "dependencies"):
        link = record_of(link)
        phrase = _BEADS_LINKS.get(str(link.get("type") or "blocks"))
        if phrase is None:
            raise Unmappable(f"dependency type {str(link.get('type'))[:30]!r} is not known")
        depends.append((phrase, required_text(link.get("depends_on_id"), "depends_on_id")))
    notes = text_or_none(issue.get("notes"), "notes")
    return Imported(
        tracker="beads",
        aliases=(issue_id,),
        title=required_text(issue.get("title"), "title"),
        state=state_of("beads", issue.get("status") or "open"),
        body=body or None,
        tags=tags,
        priority=priority,
        assignee=text_or_none(issue.get("assignee"), "assignee"),
        notes=(notes,) if notes else (),
        depends=tuple(depends),
        summary=text_or_none(issue.get("close_reason"), "close_reason"),
        notices=left,
    )


# -- GitHub --------------------------------------------------------------------------


def github(raw: Any) -> Imported:
    """One issue as `gh issue list --json number,title,body,state,labels,assignees,
    createdAt,closedAt,comments` prints it; gh#<number> is the alias."""
    issue = record_of(raw)
    number = issue.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number < 1:
        raise Unmappable("number must be a positive whole number")
    for name in ("createdAt", "closedAt"):
        instant(issue.get(name), name)
    labels = [record_of(label).get("name") for label in list_of(issue.get("labels"), "labels")]
    people = [record_of(p).get("login") for p in list_of(issue.get("assignees"), "assignees")]
    notes = []
    for comment in list_of(issue.get("comments"), "comments"):
        comment = record_of(comment)
        author = comment.get("author")
        login = record_of(author).get("login") if author is not None else None
        at = instant(comment.get("createdAt"), "comment createdAt")
        text = required_text(comment.get("body"), "comment body")
        by = text_or_none(login, "comment author") or "ghost"
        notes.append(stamped(at, f"{by}: {text}"))
    tags, left = tag_words(labels)
    return Imported(
        tracker="github",
        aliases=(f"gh#{number}",),
        title=required_text(issue.get("title"), "title"),
        state=state_of("github", issue.get("state")),
        body=text_or_none(issue.get("body"), "body"),
        tags=tags,
        assignee=text_or_none(people[0], "assignee") if people else None,
        notes=tuple(notes),
        notices=left,
    )


def origin_of(tracker: str, raw: Any) -> str | None:
    """The alias a record that cannot be read would have had, to name it; None if unknown."""
    if not isinstance(raw, Mapping):
        return None
    if tracker == "taskwarrior":
        found: Any = f"TW-{raw.get('uuid')}" if raw.get("uuid") else None
    elif tracker == "github":
        found = f"gh#{raw.get('number')}" if raw.get("number") else None
    else:
        found = raw.get("id")
    return found if isinstance(found, str) and alias_problem(found) is None else None


READERS = {"taskwarrior": taskwarrior, "beads": beads, "github": github}
