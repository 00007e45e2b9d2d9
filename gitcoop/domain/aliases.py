"""Aliases: the id an imported item had where it came from (TW-12, bd-a1b2, gh#42).

An alias is set once, by the `add` that imports the item, and never changes:
it is how `show`, `take` and every other command find the item by the name
its team already uses, and how a later import of the same tracker knows the
item is already here. The text comes from a stranger's export, so its shape
is narrow: a short tracker word, `-` or `#`, and an id of letters, digits,
dots, underscores and dashes. An alias never looks like a gitcoop id.

Each tracker has its own namespace (`namespace`): taskwarrior's `TW-…`,
GitHub's `gh#…`, Backlog.md's `task-…`, and beads' the rest of the `word-id`
shapes. An import gives and matches only its own, so one tracker's export
can never name, and so never rewrite, another's items.
"""

from __future__ import annotations

from typing import Any

from gitcoop.domain.ids import EVENT_PREFIX, PREFIX_KIND
from gitcoop.domain.patterns import pattern

ALIAS_RE = pattern(r"^[A-Za-z][A-Za-z0-9_]{0,15}[-#][A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")
MAX_ALIASES = 4  # a stable id and a short one, with room to spare


def alias_problem(value: Any) -> str | None:
    """Why `value` cannot be an alias, or None."""
    if not isinstance(value, str) or not ALIAS_RE.match(value):
        shown = str(value)[:40]
        return (
            f"an alias is a tracker word, - or #, and an id of letters and digits "
            f"(TW-12, bd-a1b2, gh#42), not {shown!r}"
        )
    if not is_alias(value):
        return f"an alias must not look like a gitcoop id: {value!r}"
    return None


def aliases_problem(values: Any) -> str | None:
    if not isinstance(values, list | tuple) or len(values) > MAX_ALIASES:
        return f"aliases are a list of at most {MAX_ALIASES}"
    return next((p for p in (alias_problem(v) for v in values) if p), None)


def is_alias(text: str) -> bool:
    """Whether `text` has an alias's shape and no gitcoop id's (td-, rq-, it-, ev-)."""
    head = text.split("-", 1)[0].lower() if "-" in text.split("#", 1)[0] else None
    if head in (*PREFIX_KIND, EVENT_PREFIX):
        return False  # told before the pattern is compiled: a take of an id never needs it
    return bool(ALIAS_RE.match(text))


def key(alias: str) -> str:
    """What two spellings of one alias share: case does not matter (TW-12, tw-12)."""
    return alias.casefold()


def namespace(alias: str) -> str:
    """The tracker whose shape `alias` has: taskwarrior, github, backlog or beads (any
    other `word-id`); "" for a shape no tracker gives (`jira#5`)."""
    word, sep = (alias.split("#", 1)[0], "#") if "#" in alias else (alias.split("-", 1)[0], "-")
    word = word.casefold()
    if sep == "#":
        return "github" if word == "gh" else ""
    return {"tw": "taskwarrior", "task": "backlog"}.get(word, "beads")


def namespace_problem(tracker: str, alias: str) -> str | None:
    """Why `alias` may not come from `tracker`'s export: it has another tracker's shape."""
    found = namespace(alias)
    if found == tracker:
        return None
    whose = f"{found}'s" if found else "no tracker's"
    return f"{alias} has {whose} shape, not {tracker}'s: an id of another tracker"
