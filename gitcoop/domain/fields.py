"""The bounds of what a person shapes on any item: title, body, tags, priority.

One place for them, so `add`, `edit`, the command line and a replay after a
merge hold every value to the same bounds. Each `*_problem` returns a
sentence naming what is wrong, or None.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from gitcoop.domain.records import PRIORITIES

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


def body_problem(body: Any) -> str | None:
    if not isinstance(body, str):
        return "a body is text"
    if len(body) > BODY_MAX:
        return f"a body is at most {BODY_MAX // 1024} KiB of text"
    if any((ord(c) < 32 and c not in "\n\t") or ord(c) == 127 for c in body):
        return "a body holds lines of text: no escape codes or other control characters"
    return None


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
