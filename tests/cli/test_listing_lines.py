"""A text listing's two ways to its lines agree: the table (`lay_out` of `summary_row`s)
and the direct lines made where nothing is coloured or cut."""

from __future__ import annotations

import marshal
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.cli import render
from gitcoop.cli.table import Cell, lay_out
from gitcoop.domain.lifecycle import STATUSES
from gitcoop.domain.timefmt import format_instant
from gitcoop.store.fast.cache_rows import Held, Row, Summary

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
VIEWER = "bob@example.com"
people = st.sampled_from(["alice@example.com", VIEWER, "ünïcode@example.com", "x\x1b[31m@e.com"])
texts = st.text(max_size=30)  # control characters, wide characters, combining marks


@st.composite
def rows(draw: st.DrawFn) -> Row:
    label = draw(st.sampled_from(["td-a1", "rq-b2c3", "it-longer9", "td-\u00e9"]))
    taken_at = draw(st.none() | st.integers(0, 10**7).map(lambda s: NOW - timedelta(seconds=s)))
    takeovers = draw(st.lists(people, max_size=2))
    data = {
        "takeovers": [
            {"holder": who, "by": "carol@example.com", "at": format_instant(NOW), "event": "ev-1"}
            for who in takeovers
        ]
    }
    summary = Summary(
        id=f"{label}-id",
        kind=draw(st.sampled_from(["todo", "request", "item"])),
        status=draw(st.sampled_from(STATUSES)),
        created_at=format_instant(NOW),
        taken_by=draw(st.none() | people),
        taken_at=None if taken_at is None else format_instant(taken_at),
        tags=(),
        obligation_status=None,
        obligation_due=None,
        conflicts=draw(st.integers(0, 3)),
        notified=tuple(takeovers),
        priority=draw(st.integers(0, 4)),
        order_key=None,
        links=(),
        parent_id=None,
        title=draw(texts),
        parked=draw(st.booleans()),
        escalated=draw(st.booleans()),
        reported_blocked=draw(st.booleans()),
        due=draw(
            st.none()
            | st.integers(-(10**7), 10**7).map(lambda s: format_instant(NOW + timedelta(seconds=s)))
        ),
    )
    return Row(summary.id, "0" * 40, label, tuple(summary), Held(marshal.dumps(data), "{}"))


@settings(max_examples=300, deadline=None)
@given(st.lists(rows(), max_size=8), st.none() | st.just(VIEWER), st.booleans())
def test_direct_lines_are_the_table_s_lines(
    listed: list[Row], viewer: str | None, priority: bool
) -> None:
    table = []
    for row in listed:
        line = render.summary_row(row, NOW, viewer)
        if priority:
            line = line._replace(cells=(Cell(f"P{row.summary.priority}"), *line.cells))
        table.append(line)
    direct = render._plain_lines(listed, NOW, viewer, priority)
    assert direct == lay_out(table)
    assert render.summary_lines(listed, NOW, viewer=viewer, priority=priority) == direct
