"""The bounds an event must keep to enter the ledger, tested without git."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from gitcoop.domain import bounds
from gitcoop.domain.admission import event_problem
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import Event
from gitcoop.domain.timefmt import parse_instant

AT = datetime(2026, 11, 29, 10, tzinfo=UTC)


def event(verb: str = "note", **fields: Any) -> Event:
    base: dict[str, Any] = {
        "id": EventId("ev-aaaaaaaaaaaa"),
        "item": ItemId("td-aaaaaaaaaaaa"),
        "clock": 3,
        "at": AT,
        "actor": "alice@example.com",
        "session": None,
        "verb": verb,
        "args": {},
    }
    args = {k: v for k, v in fields.items() if k not in base}
    base.update({k: v for k, v in fields.items() if k in base})
    base["args"] = args
    return Event(**base)


@pytest.mark.parametrize(
    "fields",
    [
        {"text": "a note\nover two lines\twith a tab"},
        {"title": "x" * bounds.LINE_MAX, "kind": "todo"},
        {"at": datetime(9000, 12, 31, 23, 59, 59, tzinfo=UTC)},
        {"clock": bounds.MAX_CLOCK},
        {"delay_seconds": 30, "decision": "defer"},
        {"evidence": [{"path": "a.py", "line": 3, "quote": "x\ty", "head": "a" * 40}]},
        {"replay": {"verb": "take", "actor": "bob@x", "at": "2026-01-01T00:00:00Z", "args": {}}},
        {"future_argument": [1, "two", {"three": True}]},
        {"children": ["it-aaaaaaaaaaaa", "it-bbbbbbbbbbbb"]},
        {"commit": "abc1234", "order_key": "0abz"},
    ],
)
def test_honest_events_are_admitted(fields: dict[str, Any]) -> None:
    assert event_problem(event(**fields)) is None


@pytest.mark.parametrize(
    ("fields", "fragment"),
    [
        ({"title": "two\nlines"}, "title must be one line"),
        ({"reason": "\x1b[2J"}, "reason must be one line"),
        ({"summary": "ok\u202e"}, "summary must be one line"),
        ({"text": "\x1b]52;c;eA==\x07"}, "text must not hold control characters"),
        ({"text": "\r"}, "text must not hold"),
        ({"session": "s\n1"}, "session must be one line"),
        ({"actor": "a\x9bb"}, "actor:"),
        ({"title": "x" * (bounds.LINE_MAX + 1)}, "at most"),
        ({"at": datetime(9001, 1, 1, tzinfo=UTC)}, "outside the years"),
        ({"clock": 0}, "clock must be a whole number"),
        ({"clock": bounds.MAX_CLOCK + 1}, "clock must be a whole number"),
        ({"delay_seconds": 10**20}, "delay_seconds"),
        ({"delay_seconds": True}, "delay_seconds"),
        ({"summary": 5}, "summary must be text"),
        ({"force": "yes"}, "force must be true or false"),
        ({"previous_taken_at": "9500-01-01T00:00:00Z"}, "outside the years"),
        ({"parent_id": "../x"}, "parent_id must be an item id"),
        ({"head": "abc"}, "head must be a full commit sha"),
        ({"order_key": "A-B"}, "order_key"),
        ({"evidence": [{"line": 1}]}, "must be a mapping with a path"),
        ({"evidence": [{"path": "a\nb"}]}, "path must be one line"),
        ({"replay": {"verb": "take", "actor": "b\nc", "at": "2026-01-01T00:00:00Z"}}, "actor"),
        ({"replay": {"verb": "take", "actor": "b", "at": "9999-01-01T00:00:00Z"}}, "outside"),
        ({"future_argument": {"deep": "line\nbreak"}}, "must be one line"),
        ({"future_argument": 2**60}, "whole number"),
        ({"future_argument": 1.5}, "must be text, a number"),
    ],
)
def test_events_out_of_bounds_are_named(fields: dict[str, Any], fragment: str) -> None:
    problem = event_problem(event(**fields))
    assert problem is not None and fragment in problem


def test_reading_reaches_past_what_an_event_may_carry() -> None:
    """An event's instant is at most 9000; a due date 30 days on still reads back."""
    last = datetime(bounds.LAST_YEAR, 12, 31, 23, 59, 59, tzinfo=UTC)
    assert bounds.instant_problem(last, "at") is None
    assert parse_instant("9001-01-30T23:59:59Z").year == 9001
    for text in ("1969-12-31T23:59:59Z", "9999-12-31T23:00:00-05:00"):
        with pytest.raises(ValueError):
            parse_instant(text)


@pytest.mark.parametrize("char", ["\x00", "\x1b", "\x7f", "\x85", "\x9b", "\u2028", "\u202e"])
def test_one_line_and_free_text_refuse_the_same_controls(char: str) -> None:
    assert bounds.line_problem(f"a{char}b", "x") is not None
    assert bounds.text_problem(f"a{char}b", "x") is not None


def test_free_text_keeps_line_breaks_and_tabs_one_line_does_not() -> None:
    assert bounds.text_problem("a\nb\tc", "x") is None
    assert bounds.line_problem("a\nb", "x") is not None
    assert bounds.line_problem("a\tb", "x") is not None
    assert bounds.line_problem("naïve 日本 ✓", "x") is None
