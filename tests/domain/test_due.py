"""An item's own due date: how it is read from a person, checked, recorded and ranked."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gitcoop.domain import edits, fields, readiness
from gitcoop.domain.dependencies import Graph
from gitcoop.domain.records import Item, RecordError
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import Refused
from tests.domain.builders import ROLES, T0, added, event, run

NOW = datetime(2026, 12, 6, 5, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("given", "due"),
    [
        ("3d", "2026-12-09T05:00:00Z"),
        ("2w", "2026-12-20T05:00:00Z"),
        ("36h", "2026-12-07T17:00:00Z"),
        ("2026-12-24", "2026-12-24T23:59:59Z"),  # a day is due until its end
        ("2026-12-24T17:00", "2026-12-24T17:00:00Z"),
        ("2026-12-24T17:00+02:00", "2026-12-24T15:00:00Z"),
        (" 2026-12-24T17:00:00Z ", "2026-12-24T17:00:00Z"),
    ],
)
def test_a_due_date_is_a_date_a_time_or_a_duration_from_now(given: str, due: str) -> None:
    assert fields.due_at(given, NOW) == due


@pytest.mark.parametrize("given", ["soon", "", "3x", "2026-13-01", "9999-01-01", "1969-12-31"])
def test_a_due_date_that_is_none_of_those_is_refused(given: str) -> None:
    with pytest.raises(ValueError):
        fields.due_at(given, NOW)


@pytest.mark.parametrize("given", ["20261224", "2026-W52-4", " 20261224 "])
def test_a_day_in_any_iso_form_is_due_until_its_end(given: str) -> None:
    # 20261224 is a day, not twenty million seconds (234 days) from now
    assert fields.due_at(given, NOW) == "2026-12-24T23:59:59Z"


@pytest.mark.parametrize("given", ["1", "0", "90", "2026"])
def test_a_number_without_a_unit_is_refused_not_read_as_seconds(given: str) -> None:
    with pytest.raises(ValueError, match="unit"):
        fields.due_at(given, NOW)


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("2026-02-30", "day is out of range"),  # a date, but not one that exists
        ("2026-12-24T25:00", "hour must be in"),
        ("99999d", "longer than the 100 years"),
        ("1969-12-31", "outside the years"),
        ("9999-01-01", "in the years 1970 to 9000"),
        ("yesterday", "neither a duration nor a date"),
    ],
)
def test_a_refused_due_date_says_what_is_wrong_with_it(given: str, said: str) -> None:
    with pytest.raises(ValueError, match=said):
        fields.due_at(given, NOW)


@pytest.mark.parametrize(
    "value", [None, 5, "", "2026-12-24", "2026-12-24T17:00:00", "9001-01-01T00:00:00Z"]
)
def test_an_event_s_due_is_an_instant_as_the_ledger_writes_it(value: object) -> None:
    assert fields.due_problem(value) is not None
    assert fields.due_problem("2026-12-24T17:00:00Z") is None


def test_an_item_without_a_due_date_writes_no_due_key_so_old_files_keep_their_bytes() -> None:
    item = added()
    assert "due" not in item.to_data()
    dated = run(None, event("add", kind="todo", title="Fix it", due="2026-12-24T17:00:00Z"))
    assert dated.to_data()["due"] == "2026-12-24T17:00:00Z"
    assert Item.from_data(dated.to_data()) == dated
    with pytest.raises(RecordError, match="due"):
        Item.from_data({**dated.to_data(), "due": "tomorrow"})


def test_add_refuses_a_due_that_is_not_an_instant() -> None:
    with pytest.raises(Refused, match="due date"):
        run(None, event("add", kind="todo", title="Fix it", due="next week"))


def test_edit_sets_and_clears_the_due_date_naming_the_previous_one() -> None:
    item = added()
    planned = edits.plan(item, {"due": "2026-12-24T17:00:00Z"})
    assert planned == {"due": "2026-12-24T17:00:00Z", "previous_due": None}
    dated = run(item, event("edit", **planned))
    assert dated.due == datetime(2026, 12, 24, 17, tzinfo=UTC)
    assert edits.plan(dated, {"due": "2026-12-24T17:00:00Z"}) is None  # nothing changes
    cleared = edits.plan(dated, {"due": ""})
    assert cleared == {"due": "", "previous_due": "2026-12-24T17:00:00Z"}
    assert run(dated, event("edit", **cleared)).due is None
    assert edits.plan(item, {"due": ""}) is None  # nothing to clear


def test_an_edit_with_a_bad_due_is_refused_when_replayed() -> None:
    with pytest.raises(Refused, match="due date"):
        edits.edit(added(), event("edit", due="2026-02-30T00:00:00Z"), ROLES)


def candidate(name: str, priority: int, minutes: int, due: str | None) -> readiness.Candidate:
    created = format_instant(T0.replace(minute=minutes))
    return readiness.Candidate(name, "todo", priority, created, None, due)


def test_ready_ranks_overdue_work_first_within_a_priority_soonest_due_first() -> None:
    now = format_instant(NOW)
    old = candidate("td-old", 2, 0, None)
    later = candidate("td-later", 2, 1, "2027-01-01T00:00:00Z")  # due, not overdue
    late = candidate("td-late", 2, 2, "2026-12-05T00:00:00Z")
    later_late = candidate("td-latest", 2, 3, "2026-12-01T00:00:00Z")
    urgent = candidate("td-urgent", 0, 4, None)
    low_late = candidate("td-low", 3, 5, "2026-11-01T00:00:00Z")
    order = readiness.ready([old, later, late, later_late, urgent, low_late], Graph(()), now)
    names = [c.id for c in order]
    assert names == ["td-urgent", "td-latest", "td-late", "td-old", "td-later", "td-low"]
    # with no `now`, nothing is overdue: the order is the one it always was
    unranked = [c.id for c in readiness.ready([old, later, late], Graph(()))]
    assert unranked == ["td-old", "td-later", "td-late"]


@pytest.mark.parametrize(
    ("due", "status", "said"),
    [
        (datetime(2026, 12, 9, 5, 0, tzinfo=UTC), "open", ("due in 3d", False)),
        (datetime(2026, 12, 4, 5, 0, tzinfo=UTC), "taken", ("overdue 2d", True)),
        (NOW, "open", ("overdue 0s", True)),  # due at now has passed, as `list --overdue` says
        (datetime(2026, 12, 4, 5, 0, tzinfo=UTC), "done", None),  # settled: never overdue
    ],
)
def test_due_words_are_lists_mark_for_every_view(
    due: datetime, status: str, said: tuple[str, bool] | None
) -> None:
    assert readiness.due_words(due, status, NOW) == said
