"""A record imported from another tracker, in gitcoop's terms, and whether it may enter.

The readers (`domain/trackers.py`) turn one tracker's record into an
`Imported`; `problem` checks it exactly as the command line's input is
checked (the same title, body, tag, note and alias rules and caps), so a
hostile export is refused record by record, never half-written. Where the
trackers' states land is one table, `STATES`, which docs/import.md prints.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from typing import Any

from gitcoop.domain import bounds, fields
from gitcoop.domain.aliases import alias_problem, aliases_problem, namespace_problem
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import replace
from gitcoop.domain.timefmt import format_instant

OPEN, STARTED, DONE, ABANDONED = "open", "started", "done", "abandoned"
MAX_NOTES = 200  # annotations or comments kept per record
MAX_DEPENDS = 100

# tracker -> its state (lowercase) -> where the item lands; a state missing here is refused
STATES: dict[str, dict[str, str]] = {
    "taskwarrior": {
        "pending": OPEN,
        "waiting": OPEN,
        "started": STARTED,  # pending with a `start`: taken by the importer
        "completed": DONE,
        "deleted": ABANDONED,
    },
    "backlog": {
        "to do": OPEN,
        "draft": OPEN,
        "in progress": STARTED,
        "done": DONE,
    },
    "beads": {
        "open": OPEN,
        "deferred": OPEN,
        "blocked": OPEN,  # what blocks it is in its dependencies
        "in_progress": STARTED,
        "closed": DONE,
    },
    "github": {"open": OPEN, "closed": DONE},
}


class Unmappable(ValueError):
    """A record that cannot become an item; the message says which field and why."""


@record_type
class Imported:
    """One record of an export as gitcoop will hold it."""

    tracker: str
    aliases: tuple[str, ...]  # the first is the stable one a re-import matches on
    title: str
    state: str  # OPEN, STARTED, DONE or ABANDONED
    body: str | None = None
    tags: tuple[str, ...] = ()
    priority: int | None = None
    due: datetime | None = None  # the tracker's due date: the item's own deadline
    assignee: str | None = None  # the tracker's name for the person (--people maps it)
    notes: tuple[str, ...] = ()  # in the tracker's order
    # (how this record relates, the other's stable alias): `blocked-by`, `child-of`,
    # `related` or `discovered-from`, as `git coop dep add THIS PHRASE OTHER` says it
    depends: tuple[tuple[str, str], ...] = ()
    summary: str | None = None  # what the close said (a final summary, a close reason)
    notices: tuple[str, ...] = ()  # what the reader left out of the record, and why

    @property
    def origin(self) -> str:
        return self.aliases[0]


def state_of(tracker: str, state: Any) -> str:
    table = STATES[tracker]
    found = table.get(str(state).strip().lower()) if isinstance(state, str) else None
    if found is None:
        shown = str(state)[:40]
        raise Unmappable(f"status {shown!r} is not one of {', '.join(table)}")
    return found


def kept_readable(record: Imported) -> Imported:
    """The record with what a tracker lets through and a writer refuses made text: a
    body's or a note's escape codes and other controls shown as their escapes (`\\x1b`:
    a CI log pasted with colours), and a note over the length a note may be cut there,
    saying so. Each is named in the record's notices; nothing else is changed, and
    `problem` judges the rest as the command line does."""
    notices = list(record.notices)
    body = record.body
    if body is not None and fields.body_problem(body):
        shown = _shown(body)
        if not fields.body_problem(shown):
            body = shown
            notices.append("its body held escape codes or controls: kept as their escapes (\\x1b)")
    notes = []
    for n, note in enumerate(record.notes, start=1):
        if bounds.text_problem(note, "a note"):
            shown = _shown(note)
            if not bounds.text_problem(shown, "a note"):
                note = shown
                notices.append(f"note {n} held escape codes or controls: kept as their escapes")
        if len(note) > bounds.TEXT_MAX:
            notices.append(f"note {n} was {len(note)} characters long: cut to {NOTE_KEPT}")
            cut = len(note) - NOTE_KEPT
            note = note[:NOTE_KEPT] + f" [… {cut} more characters in the tracker]"
        notes.append(note)
    return replace(record, body=body, notes=tuple(notes), notices=tuple(notices))


NOTE_KEPT = bounds.TEXT_MAX - 64  # a cut note's text, leaving room for what says it was cut


def _shown(text: str) -> str:
    """Free text as `printable` shows it, line breaks and tabs kept."""
    return bounds.printable(fields.typed_lines(text), lines=True, tabs=True)


def problem(record: Imported) -> str | None:
    """Why `record` may not enter the ledger, or None: the command line's rules."""
    return next(_problems(record), None)


def _problems(record: Imported) -> Iterator[str]:
    checks: list[Callable[[], str | None]] = [
        lambda: aliases_problem(list(record.aliases)),
        lambda: fields.title_problem(record.title),
        # what the writer refuses of any title (`admission`): checked here, so that one
        # record is skipped, not the whole import refused
        lambda: bounds.line_problem(record.title, "a title", len(record.title)),
        lambda: bounds.hidden_problem(record.title, "a title"),
        lambda: None if record.body is None else fields.body_problem(record.body),
        lambda: fields.tags_problem(list(record.tags)),
        lambda: None if record.priority is None else fields.priority_problem(record.priority),
        lambda: None if record.due is None else fields.due_problem(format_instant(record.due)),
        lambda: (
            None
            if record.assignee is None
            else bounds.line_problem(record.assignee, "assignee", 200)
        ),
        lambda: None if record.summary is None else bounds.line_problem(record.summary, "summary"),
        lambda: f"more than {MAX_NOTES} notes" if len(record.notes) > MAX_NOTES else None,
        lambda: next(
            (p for p in (bounds.text_problem(n, "a note") for n in record.notes) if p), None
        ),
        lambda: (
            f"more than {MAX_DEPENDS} dependencies" if len(record.depends) > MAX_DEPENDS else None
        ),
        lambda: next((p for p in (alias_problem(o) for _, o in record.depends) if p), None),
        lambda: _foreign(record, (*record.aliases, *(o for _, o in record.depends))),
    ]
    for check in checks:
        found = check()
        if found:
            yield found


def _foreign(record: Imported, named: tuple[str, ...]) -> str | None:
    found = (namespace_problem(record.tracker, a) for a in named if isinstance(a, str))
    return next((p for p in found if p), None)


LABEL = "label"  # how a notice about a label begins: a report says each such notice once


def about_a_label(notice: str) -> bool:
    """Whether a record's notice is about one of its labels (the same label on many
    records gives the same notice on each)."""
    return notice.startswith(LABEL + " ")


def tag_words(labels: Iterable[Any]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """A tracker's labels as tags, and a notice for each left out: a label that is no
    tag (`🐛 bug`) becomes its obvious one (`bug`), and one with none is left out, never
    the whole record."""
    tags: set[str] = set()
    left: list[str] = []
    for label in labels:
        word = _tag_form(label)
        if word is None:
            left.append(f"{LABEL} {str(label)[:40]!r} left out: no tag can be made of it")
        else:
            tags.add(word)
    return tuple(sorted(tags)), tuple(left)


def _tag_form(label: Any) -> str | None:
    """Spaces become dashes, what a tag may not hold is dropped; None when nothing is left."""
    if not isinstance(label, str):
        return None
    kept = (
        "".join(c for c in w if c.isalnum() or c in fields.TAG_PUNCTUATION) for w in label.split()
    )
    word = "-".join(w for w in kept if w)
    return word if fields.tag_problem(word) is None else None


def text_or_none(value: Any, name: str) -> str | None:
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise Unmappable(f"{name} must be text")
    return value.replace("\r\n", "\n").replace("\r", "\n")  # GitHub's editor writes CRLF


def required_text(value: Any, name: str) -> str:
    found = text_or_none(value, name)
    if found is None or not found.strip():
        raise Unmappable(f"{name} is missing")
    return found


def stamped(at: datetime | None, text: str) -> str:
    """A note as imported: its original time first, so a re-import recognises it."""
    return text if at is None else f"[{format_instant(at)}] {text}"


def as_imported(record: Imported) -> dict[str, Any]:
    """What an import records of `record` (the `imported` argument of its `add` or `edit`),
    so the next import applies only what changed in the tracker since: text as a digest,
    which keeps the argument one line and the event small."""
    found: dict[str, Any] = {
        "title": digest(record.title.strip()),
        "body": digest(record.body or ""),
        "tags": list(record.tags),
        "state": record.state,
        "depends": [f"{phrase} {alias}" for phrase, alias in record.depends],
    }
    if record.priority is not None:
        found["priority"] = record.priority
    if record.due is not None:  # absent when unset: what earlier imports recorded
        found["due"] = format_instant(record.due)
    return found


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]
