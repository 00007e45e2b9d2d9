"""Backlog.md's task files: YAML front matter (read as plain data) and Markdown sections.

Pure, like the other readers (`domain/trackers.py`): the service reads the
file and its front matter; this maps them onto an `Imported` record.
"""

from __future__ import annotations

from typing import Any

from gitcoop.domain import bounds
from gitcoop.domain.imported import (
    Imported,
    Unmappable,
    required_text,
    state_of,
    tag_words,
    text_or_none,
)
from gitcoop.domain.patterns import pattern
from gitcoop.domain.trackers import due_of, list_of, record_of

_MARKER = pattern(r"^<!-- (SECTION|AC):[A-Z_:]+ -->\Z")  # where Backlog.md's sections begin and end
_BACKLOG_PRIORITY = {"high": 1, "medium": 2, "low": 3}
_BACKLOG_SECTIONS = ("Description", "Acceptance Criteria", "Implementation Plan")


def backlog(front: Any, markdown: str) -> Imported:
    """One task file of Backlog.md: YAML front matter (as plain data) and its Markdown."""
    task = record_of(front)
    task_id = required_text(_text(task.get("id")), "id")
    sections = _sections(markdown)
    body = "\n\n".join(
        f"## {name}\n\n{sections[name]}" if name != "Description" else sections[name]
        for name in _BACKLOG_SECTIONS
        if sections.get(name)
    )
    people = [_text(p) for p in list_of(_listed(task.get("assignee")), "assignee")]
    priority = task.get("priority")
    if priority is not None and str(priority).lower() not in _BACKLOG_PRIORITY:
        raise Unmappable(f"priority {str(priority)[:20]!r} is not high, medium or low")
    notes = sections.get("Implementation Notes")
    tags, left = tag_words(_text(t) for t in list_of(task.get("labels"), "labels"))
    return Imported(
        tracker="backlog",
        aliases=(task_id,),
        title=required_text(_text(task.get("title")), "title"),
        state=state_of("backlog", task.get("status")),
        body=body or None,
        tags=tags,
        priority=_BACKLOG_PRIORITY[str(priority).lower()] if priority is not None else None,
        due=due_of(_text(task.get("due_date")), "due_date"),
        assignee=text_or_none(people[0], "assignee") if people else None,
        notes=(notes,) if notes else (),
        depends=tuple(
            ("blocked-by", required_text(_text(d), "dependency"))
            for d in list_of(task.get("dependencies"), "dependencies")
        ),
        summary=_first_line(sections.get("Final Summary")),
        notices=left,
    )


def _text(value: Any) -> Any:
    """YAML reads `id: 12` as a number and a date as a date: ids and titles are text."""
    return str(value) if isinstance(value, int | float) and not isinstance(value, bool) else value


def _listed(value: Any) -> Any:
    return [value] if isinstance(value, str) else value


def _sections(markdown: str) -> dict[str, str]:
    """`## Heading` sections, their text trimmed, Backlog.md's section markers dropped."""
    found: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = found.setdefault(line[3:].strip(), [])
        elif current is not None and not _MARKER.match(line.strip()):
            current.append(line)
    return {name: "\n".join(lines).strip() for name, lines in found.items()}


def _first_line(text: str | None) -> str | None:
    if not text:
        return None
    return text.strip().splitlines()[0][: bounds.LINE_MAX] or None
