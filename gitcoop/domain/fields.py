"""The bounds of what a person shapes on any item: title, body, tags, priority, due.

One place for them, so `add`, `edit`, the command line and a replay after a
merge hold every value to the same bounds. Each `*_problem` returns a
sentence naming what is wrong, or None.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date, datetime, timedelta
from typing import Any

from gitcoop.domain.bounds import FIRST_YEAR, LAST_YEAR, named_at
from gitcoop.domain.patterns import pattern
from gitcoop.domain.records import PRIORITIES
from gitcoop.domain.timefmt import format_instant, parse_duration, parse_instant

TAG_MAX = 64
TAGS_MAX = 32  # tags on one item
BODY_MAX = 64 * 1024  # characters; an item file is capped at 1 MiB
TITLE_MAX = 500
TAG_PUNCTUATION = frozenset("-_./:+#@=")


def _controls(text: str) -> bool:
    return any(ord(c) < 32 or ord(c) == 127 for c in text)


def title_problem(title: Any) -> str | None:
    if not isinstance(title, str) or not title.strip():
        return "a title must not be empty"
    if _controls(title):
        return "a title is one line of text: no newlines, tabs or escape codes"
    if len(title) > TITLE_MAX:
        return f"a title is at most {TITLE_MAX} characters"
    return None


_BODY_CONTROL = pattern(r"[\x00-\x08\x0b-\x1f\x7f]")  # a body's lines: all but tab and LF


def body_problem(body: Any) -> str | None:
    if not isinstance(body, str):
        return "a body is text"
    if len(body) > BODY_MAX:
        return f"a body is at most {BODY_MAX // 1024} KiB of text"
    found = _BODY_CONTROL.search(body)
    if found:
        return (
            "a body holds lines of text: no escape codes or other control characters "
            f"(it holds {named_at(found)})"
        )
    return None


def typed_lines(text: str) -> str:
    """Text as a person typed it: a line break sent as CRLF (a browser's form, a file or a
    pipe from Windows) is the ledger's line break; a lone CR stays, and is refused."""
    return text.replace("\r\n", "\n")


def tag_problem(tag: Any) -> str | None:
    if not isinstance(tag, str) or not tag:
        return "a tag must not be empty"
    if len(tag) > TAG_MAX:
        return f"a tag is at most {TAG_MAX} characters: {tag[:TAG_MAX]!r}…"
    if not all(c.isalnum() or c in TAG_PUNCTUATION for c in tag):
        return (
            f"a tag is one word of letters, digits and {''.join(sorted(TAG_PUNCTUATION))}: {tag!r}"
        )
    return None


def priority_problem(priority: Any) -> str | None:
    if isinstance(priority, bool) or not isinstance(priority, int) or priority not in PRIORITIES:
        return f"a priority is 0 (highest) to 4 (lowest), not {priority!r}"
    return None


def tags_problem(tags: Any) -> str | None:
    if not isinstance(tags, list | tuple):
        return "tags are a list of words"
    for tag in tags:
        problem = tag_problem(tag)
        if problem:
            return problem
    if len(set(tags)) > TAGS_MAX:
        return f"an item has at most {TAGS_MAX} tags"
    return None


def retagged(tags: Iterable[str], added: Iterable[str], removed: Iterable[str]) -> tuple[str, ...]:
    """The tags after an edit, sorted: a tag is there or not, in one spelling."""
    gone = set(removed)
    return tuple(sorted({*tags, *added} - gone))


NO_DUE = "none"  # `edit --due none` clears an item's due date
_DURATION = pattern(r"[0-9]+\s*[A-Za-z]+")  # digits and a unit: 3d, 36h, 3x (refused)
_WRITTEN = pattern(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")


def due_problem(due: Any) -> str | None:
    """An item's own due date, as an event records it: an instant as the ledger writes
    it ("" in an edit clears it)."""
    if not isinstance(due, str) or not _WRITTEN.fullmatch(due):
        return f"a due date is an instant like 2026-12-24T17:00:00Z, not {due!r}"
    try:
        at = parse_instant(due)
    except ValueError:
        return f"a due date is an instant that exists, not {due!r}"
    if not FIRST_YEAR <= at.year <= LAST_YEAR:
        return f"a due date lies in the years {FIRST_YEAR} to {LAST_YEAR}, not {due!r}"
    return None


def duration_shaped(text: str) -> bool:
    """Digits and a unit (3d, 36h, 3x): meant as a duration, whether or not it is one."""
    return _DURATION.fullmatch(text.strip()) is not None


def due_at(text: str, now: datetime) -> str:
    """`--due 3d` (a duration from now: s, m, h, d, w), `--due 2026-12-24` (a day in any
    ISO 8601 form, 20261224 too: the end of that day, UTC) or `--due 2026-12-24T17:00`
    (an ISO 8601 time; UTC unless it names an offset), as the instant an event records.
    A number needs its unit: `20261224` is a day, not seconds. Raises ValueError saying
    what is wrong."""
    text = text.strip()
    if _DURATION.fullmatch(text):
        return _checked(format_instant(now + parse_duration(text)))  # its own error
    try:
        at = parse_instant(text)
    except (ValueError, OverflowError) as bad:
        if text.isdigit():
            raise ValueError("a duration needs its unit (36h, 3d, 2w)") from None
        if str(bad).startswith("Invalid isoformat") or not text[:1].isdigit():
            raise ValueError("neither a duration nor a date") from None
        raise ValueError(str(bad)) from None  # a date, but not one that exists
    if is_day(text):  # a day is due until its end
        at += timedelta(days=1, seconds=-1)
    return _checked(format_instant(at))


def is_day(text: str) -> bool:
    """Whether `text` names a whole day (2026-12-24, 20261224, 2026-W52-4), which is due
    until its end: `due_at`, and an import reading a tracker's due date."""
    try:
        date.fromisoformat(text)
    except ValueError:
        return False
    return True


def _checked(due: str) -> str:
    problem = due_problem(due)
    if problem:
        raise ValueError(problem)
    return due
