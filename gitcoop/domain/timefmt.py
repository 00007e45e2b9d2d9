"""UTC instants as the ledger writes them, and durations as users type them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from gitcoop.domain.bounds import FIRST_YEAR, LAST_YEAR
from gitcoop.domain.memo import Memo
from gitcoop.domain.patterns import pattern

_DURATION_RE = pattern(r"^\s*([0-9]+)\s*([smhdw]?)\s*$")  # ASCII digits only
_LONGEST = 100 * 366 * 86400
_UNIT_SECONDS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}


def format_instant(instant: datetime) -> str:
    """ISO 8601 in UTC with a Z, to the second: the form stored on the ref.

    Each aware instant written is remembered: folding an item writes its few instants
    a dozen times (its obligations repeat them), and `strftime` was most of that.
    Equal aware instants are the same moment, so they have the same text.
    """
    if instant.tzinfo is None:  # read as local time: not remembered
        return instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    found = _written.get(instant)
    if found is None:
        found = _written.keep(instant, instant.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"))
    return found


_written: Memo[datetime, str] = Memo()


def parse_instant(text: str) -> datetime:
    """Read an ISO 8601 instant (years 1970..9999); naive is taken as UTC. Raises ValueError.

    Events carry instants up to the year 9000 (`domain/bounds.py`); reading
    goes further, so every due date the rules compute from one reads back.
    Each instant read is remembered (a ledger repeats its times: an item's
    events share theirs, its obligations repeat them).
    """
    found = _read.get(text)
    if found is None:
        found = _read.keep(text, _parse_instant(text))
    return found


_read: Memo[str, datetime] = Memo()


def _parse_instant(text: str) -> datetime:
    """`_any_instant`, a fifth of its time for an instant as gitcoop writes it (a first
    sync reads tens of thousands); anything else, or anything odd, goes the general way
    (property-tested against it, tests/domain/test_timefmt.py)."""
    if len(text) == 20 and text[10] == "T" and text[19] == "Z":
        try:
            written = datetime.fromisoformat(text)
        except ValueError:
            return _any_instant(text)  # which says what is wrong
        # `HH:MM.ff` reads as a fraction of a second, which the general way drops
        if written.tzinfo is UTC and written.year >= 1970 and not written.microsecond:
            return written
    return _any_instant(text)


def _any_instant(text: str) -> datetime:
    """An instant in any form ISO 8601 allows: another offset, no offset, fractions."""
    value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    outside = f"{text!r} is outside the years {FIRST_YEAR} to {LAST_YEAR}"  # as bounds says
    try:
        utc = value.astimezone(UTC)  # 9999-12-31T23:00-05:00 is past the last instant
    except OverflowError:
        raise ValueError(outside) from None
    if utc.year < 1970:
        raise ValueError(outside)
    return utc.replace(microsecond=0)


def parse_duration(text: str) -> timedelta:
    """'90', '30s', '5m', '2h', '1d', '1w' -> timedelta. Raises ValueError."""
    match = _DURATION_RE.match(text.lower())
    if not match:
        raise ValueError(f"{text!r} is not a duration (a number, then s, m, h, d or w: 90m, 2w)")
    seconds = int(match.group(1)) * _UNIT_SECONDS[match.group(2)]
    if seconds > _LONGEST:
        raise ValueError(f"{text!r} is longer than the 100 years a duration may be")
    return timedelta(seconds=seconds)


def human_age(delta: timedelta) -> str:
    """How long ago, in the coarsest unit that is at least 1: 5m, 5h, 3d."""
    seconds = int(delta.total_seconds())
    if seconds < 60:
        return f"{max(seconds, 0)}s"
    if seconds < 3600:
        return f"{seconds // 60}m"
    if seconds < 86400:
        return f"{seconds // 3600}h"
    return f"{seconds // 86400}d"


def human_span(delta: timedelta) -> str:
    """How long until (or since) a due date: the coarsest unit, and the next one down while
    the first is under 10 of it, so a due date two days off less a minute reads 1d 23h,
    not 1d: 3d, 1d 23h, 5h 30m, 45m."""
    seconds = int(delta.total_seconds())
    for unit, below, below_name in ((86400, 3600, "h"), (3600, 60, "m")):
        if seconds >= unit:
            whole, rest = divmod(seconds, unit)
            more = rest // below
            head = human_age(timedelta(seconds=whole * unit))
            return f"{head} {more}{below_name}" if whole < 10 and more else head
    return human_age(delta)


def human_instant(instant: datetime) -> str:
    return instant.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")
