"""Instants read as the ledger writes them take a short way; it reads what the long one reads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.domain import timefmt

instants = st.datetimes(
    min_value=datetime(1960, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)
)
# near misses of `YYYY-MM-DDTHH:MM:SSZ`: its characters, twenty of them
near = st.text(alphabet="0123456789-:TZ +.", min_size=20, max_size=20)


def either(text: str) -> datetime | str:
    """What the general reading gives, or the name of what it raised."""
    try:
        return timefmt._any_instant(text)
    except (ValueError, OverflowError) as error:
        return type(error).__name__


def short(text: str) -> datetime | str:
    try:
        return timefmt._parse_instant(text)
    except (ValueError, OverflowError) as error:
        return type(error).__name__


@settings(max_examples=300)
@given(instants)
def test_an_instant_as_written_reads_as_the_general_way_reads_it(instant: datetime) -> None:
    text = instant.strftime("%Y-%m-%dT%H:%M:%SZ")
    assert short(text) == either(text)


@settings(max_examples=500)
@given(instants, st.integers(0, 19), st.sampled_from("0123456789-:TZ +."))
def test_an_instant_with_one_character_changed_reads_as_the_general_way_reads_it(
    instant: datetime, at: int, character: str
) -> None:
    written = instant.strftime("%Y-%m-%dT%H:%M:%SZ")
    text = written[:at] + character + written[at + 1 :]
    assert short(text) == either(text)


@settings(max_examples=500)
@given(near)
def test_a_near_miss_reads_or_is_refused_as_the_general_way_does(text: str) -> None:
    assert short(text) == either(text)


@pytest.mark.parametrize(
    ("seconds", "said"),
    [
        (2 * 86400, "2d"),
        (2 * 86400 - 60, "1d 23h"),
        (86400 + 59 * 60, "1d"),  # under the next unit down: the first alone
        (9 * 86400 + 5 * 3600, "9d 5h"),
        (10 * 86400 + 5 * 3600, "10d"),
        (5 * 3600 + 30 * 60, "5h 30m"),
        (45 * 60, "45m"),
        (30, "30s"),
    ],
)
def test_a_span_to_a_due_date_is_never_a_day_short(seconds: int, said: str) -> None:
    """`add --due 2d` then `list` a moment later says 1d 23h, not 1d."""
    assert timefmt.human_span(timedelta(seconds=seconds)) == said
