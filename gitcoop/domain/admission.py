"""Whether an event may enter the ledger: every field and argument within bounds.

The writer asks this of every event before it commits it (a value out of
bounds from a command line is a usage error), and the boundary (`store/boundary/history.py`) asks it
of every event a fetched commit adds (the fetched ledger is refused, and
nothing is written). The rule book decides afterwards whether the transition
is allowed; this decides only whether the event is something the rules, the
reader, a terminal and a commit message can take at all: text is one line
(free text may hold line breaks and tabs) without control characters,
instants and numbers lie where every computation on them stays readable,
ids, shas and order keys have their own shapes.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from typing import Any

from gitcoop.domain import bounds
from gitcoop.domain.aliases import aliases_problem
from gitcoop.domain.ids import EVENT_ID_RE, ITEM_ID_RE, identity_problem
from gitcoop.domain.obligations import DELAY_MAX, DELAY_MIN
from gitcoop.domain.patterns import pattern
from gitcoop.domain.records import Event
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.timefmt import parse_instant

LEDGER_VERBS = ("roles", "config", "keys")  # what the ledger's own id takes
FREE_TEXT = ("body", "text", "quote")  # may hold line breaks and tabs
ONE_LINE = (  # text the rules copy into an item, or compare with their own words
    *("title", "amended_title", "tag", "source", "kind", "path", "verb", "session"),
    *("summary", "reason", "failure", "previous_summary", "previous_status", "previous_holder"),
    *("status", "decision", "outcome", "verdict", "action", "role", "key"),
)
SHA_RE = pattern(r"^[0-9a-f]{7,64}\Z")
HEAD_RE = pattern(r"^([0-9a-f]{40}|[0-9a-f]{64})\Z")
ORDER_KEY_RE = pattern(r"^[0-9a-z]{1,200}\Z")
MAX_ENTRIES = 1000  # evidence entries, children of a split
MAX_DEPTH = 6  # arguments nested in arguments (a resolve's replay)

Check = Callable[[Any, str, int], str | None]


def _key_problem(value: Any) -> str | None:
    from gitcoop.domain.keys import key_problem  # only a `keys` event carries a key

    return key_problem(value)


def event_problem(event: Event) -> str | None:
    """Why `event` may not enter the ledger, or None when it may."""
    return (  # the first problem found (a chain, not a generator: this runs per event)
        _ledger_verb(event)
        or bounds.number_problem(event.clock, "clock", 1, bounds.MAX_CLOCK)
        or bounds.instant_problem(event.at, "at")
        or _identity(event.actor, "actor")
        or (None if event.session is None else bounds.line_problem(event.session, "session"))
        or bounds.line_problem(event.verb, "verb")
        or _arguments(event.args, "", 0)
        or None
    )


WRITTEN_TITLES = ("title", "children")  # a title, a split's titles


def written_problem(event: Event) -> str | None:
    """Why a writer may not write `event` now, though a ledger may already hold it: a title
    holding a character that draws nothing (`bounds.hidden`). Older events that hold one
    are judged by the rule they were written under (`event_problem`), and shown escaped."""
    for key in WRITTEN_TITLES:
        value = event.args.get(key)
        for text in value if isinstance(value, list) else [value]:
            if isinstance(text, str):
                problem = bounds.hidden_problem(text, "a title")
                if problem:
                    return problem
    return None


def _ledger_verb(event: Event) -> str | None:
    """The ledger's own id takes role, setting and key changes, and nothing else does."""
    if (event.item == LEDGER_ID) == (event.verb in LEDGER_VERBS):
        return None
    return f"verb {str(event.verb)[:40]!r} is not one {event.item} takes"


def _identity(value: Any, name: str) -> str | None:
    if not isinstance(value, str):
        return f"{name} must be text"
    problem = identity_problem(value)
    return f"{name}: {problem}" if problem else None


def _arguments(args: Mapping[str, Any], where: str, depth: int) -> str | None:
    if depth > MAX_DEPTH:
        return f"{where or 'arguments'} are nested too deeply"
    for key, value in args.items():
        if not _short_name(key):
            return f"{where or 'an argument'} has a key that is not a short name"
        if value is None:
            continue
        name = f"{where}{key}" if where else key
        # an amendment's record of a field's former value has that field's bounds
        check = TYPED.get(key) or TYPED.get(key.removeprefix("previous_"), _plain)
        problem = check(value, name, depth)
        if problem:
            return problem
    return None


@functools.lru_cache(maxsize=4096)  # a fetched ledger's events use a few dozen keys
def _short_name(key: Any) -> bool:
    """Whether an argument's key is a short one-line name."""
    return isinstance(key, str) and bounds.line_problem(key, "a key", 100) is None


def _plain(value: Any, name: str, depth: int) -> str | None:
    """An argument this gitcoop gives no type: one-line text, a number, or plain data of them."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return bounds.number_problem(value, name, -bounds.MAX_INT, bounds.MAX_INT)
    if isinstance(value, str):
        return bounds.line_problem(value, name)
    if isinstance(value, list):
        if len(value) > MAX_ENTRIES:
            return f"{name} holds more than {MAX_ENTRIES} entries"
        found = (_plain(entry, f"{name}[{n}]", depth) for n, entry in enumerate(value))
        return next((problem for problem in found if problem), None)
    if isinstance(value, Mapping):
        return _arguments(value, f"{name}.", depth + 1)
    return f"{name} must be text, a number, true/false, a list or a mapping"


def _free_text(value: Any, name: str, depth: int) -> str | None:
    return bounds.text_problem(value, name)


def _line(value: Any, name: str, depth: int) -> str | None:
    return bounds.line_problem(value, name)


def _flag(value: Any, name: str, depth: int) -> str | None:
    return None if isinstance(value, bool) else f"{name} must be true or false"


def _pattern(pattern: re.Pattern[str], what: str) -> Check:
    def check(value: Any, name: str, depth: int) -> str | None:
        if isinstance(value, str) and pattern.match(value):
            return None
        return f"{name} must be {what}, not {str(value)[:40]!r}"

    return check


def _number(low: int, high: int) -> Check:
    def check(value: Any, name: str, depth: int) -> str | None:
        return bounds.number_problem(value, name, low, high)

    return check


def _instant(value: Any, name: str, depth: int) -> str | None:
    if not isinstance(value, str):
        return f"{name} must be an ISO 8601 instant"
    try:
        at = parse_instant(value)
    except ValueError:
        return f"{name} is not an ISO 8601 instant: {value[:40]!r}"
    return bounds.instant_problem(at, name)


def _item_ids(value: Any, name: str, depth: int) -> str | None:
    if not isinstance(value, list) or len(value) > MAX_ENTRIES:
        return f"{name} must be a list of at most {MAX_ENTRIES} item ids"
    found = (_item_id(entry, f"{name}[{n}]", depth) for n, entry in enumerate(value))
    return next((problem for problem in found if problem), None)


def _evidence(value: Any, name: str, depth: int) -> str | None:
    if not isinstance(value, list) or len(value) > MAX_ENTRIES:
        return f"{name} must be a list of at most {MAX_ENTRIES} entries"
    for n, entry in enumerate(value):
        if not isinstance(entry, Mapping) or entry.get("path") is None:
            return f"{name}[{n}] must be a mapping with a path"
        problem = _arguments(entry, f"{name}[{n}].", depth + 1)
        if problem:
            return problem
    return None


def _replay(value: Any, name: str, depth: int) -> str | None:
    """A resolve's copy of the refused event: the same bounds as the event itself."""
    if not isinstance(value, Mapping):
        return f"{name} must be a mapping"
    for needed in ("verb", "actor", "at"):
        if value.get(needed) is None:
            return f"{name}.{needed} is missing"
    if not isinstance(value.get("args", {}), Mapping):
        return f"{name}.args must be a mapping"
    return _arguments(value, f"{name}.", depth + 1)


_item_id = _pattern(ITEM_ID_RE, "an item id")
_sha = _pattern(SHA_RE, "a commit sha (7 to 64 hex digits)")

TYPED: dict[str, Check] = {
    **dict.fromkeys(ONE_LINE, _line),
    **dict.fromkeys(FREE_TEXT, _free_text),
    **dict.fromkeys(("force", "timed_out"), _flag),
    **dict.fromkeys(("at", "previous_taken_at"), _instant),
    **dict.fromkeys(("parent_id", "duplicate_of"), _item_id),
    **dict.fromkeys(("commit", "previous_commit"), _sha),
    "actor": lambda value, name, depth: _identity(value, name),
    "who": lambda value, name, depth: _identity(value, name),
    "head": _pattern(HEAD_RE, "a full commit sha"),
    "public_key": lambda value, name, depth: _key_problem(value),
    "event": _pattern(EVENT_ID_RE, "an event id"),
    "order_key": _pattern(ORDER_KEY_RE, "an order key (lowercase letters and digits)"),
    "children": _item_ids,
    "evidence": _evidence,
    "replay": _replay,
    "aliases": lambda value, name, depth: aliases_problem(value),
    "delay_seconds": _number(int(DELAY_MIN.total_seconds()), int(DELAY_MAX.total_seconds())),
    "line": _number(0, 10**9),
    "exit_code": _number(-(2**31), 2**31),
}
