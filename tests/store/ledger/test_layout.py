"""The ledger's file names: one spelling each, so two names never mean one file."""

from __future__ import annotations

import pytest

from gitcoop.domain.timefmt import parse_duration
from gitcoop.store.ledger.layout import EVENT_FILE_RE

ID = "ev-0123456789ab"


def test_an_event_file_name_is_twelve_ascii_digits_and_its_id() -> None:
    assert EVENT_FILE_RE.match(f"000000000001-{ID}.yaml")


@pytest.mark.parametrize(
    "digits", ["\u0660" * 12, "\uff10" * 12, "00000000000\u0661", "\U0001d7ce" * 12]
)
def test_other_scripts_digits_do_not_name_an_event_file(digits: str) -> None:
    """int() reads these as numbers, and `\\d` would match them: another spelling of a
    sequence number is refused rather than taken for it."""
    assert int(digits) >= 0
    assert EVENT_FILE_RE.match(f"{digits}-{ID}.yaml") is None


@pytest.mark.parametrize("text", ["\u0663", "\uff15m", "\u0661\u0662h"])
def test_a_duration_is_written_in_ascii_digits(text: str) -> None:
    with pytest.raises(ValueError):
        parse_duration(text)
