"""An item's own due date on the command line: add/edit --due, list, show, status, ready."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.conftest import NOW, coop, git

# NOW is 2026-11-29T10:00:00Z


def add(kind: str, title: str, *extra: str) -> str:
    result = coop("add", kind, title, "--json", *extra)
    assert result.code == 0, result.err
    return str(result.json()["id"])


def filed_at(now: str, kind: str, title: str, *extra: str) -> str:
    result = coop("add", kind, title, "--json", *extra, env={"COOP_NOW": now})
    assert result.code == 0, result.err
    return str(result.json()["id"])


def show(item: str) -> dict[str, Any]:
    result = coop("show", item, "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def listed(*args: str) -> list[str]:
    result = coop("list", "--json", *args)
    assert result.code == 0, result.err
    return [entry["id"] for entry in result.json()]


def test_add_takes_a_date_a_time_or_a_duration_and_show_prints_it(ledger: Path) -> None:
    dated = add("todo", "by the day", "--due", "2026-12-24")
    timed = add("request", "by the hour", "--due", "2026-12-24T17:00")
    soon = add("item", "soon", "--due", "36h")
    plain = add("todo", "no date")
    assert show(dated)["due"] == "2026-12-24T23:59:59Z"  # a day is due until its end
    assert show(timed)["due"] == "2026-12-24T17:00:00Z"
    assert show(soon)["due"] == "2026-11-30T22:00:00Z"  # NOW + 36h
    assert "due" not in show(plain)  # absent while unset, as aliases are
    text = coop("show", dated).out
    assert re.search(r"^due +2026-12-24 23:59 UTC \[due in 25d\]$", text, re.M), text
    assert "\ndue" not in coop("show", plain).out


def test_a_bad_due_is_one_line_naming_what_to_type_and_writes_nothing(ledger: Path) -> None:
    before = git(ledger, "rev-parse", "refs/coop/ledger")
    for value in ("whenever", "2026-02-30", "9999-01-01"):
        result = coop("add", "todo", "x", "--due", value)
        assert result.code == 2, (value, result.out)
        (line,) = result.err.strip().splitlines()
        assert line.startswith(f"gitcoop: --due '{value}'") and "3d" in line, line
    said = coop("add", "todo", "x", "--due", "2026-02-30").err
    assert "day is out of range for month" in said, said  # not "neither a duration nor a date"
    assert git(ledger, "rev-parse", "refs/coop/ledger") == before


def test_a_compact_day_is_that_day_and_a_bare_number_is_refused(ledger: Path) -> None:
    # 20261224 was read as 20,261,224 seconds: a deadline in July 2027
    compact = add("todo", "compact day", "--due", "20261224")
    assert show(compact)["due"] == "2026-12-24T23:59:59Z"
    assert listed("--due-before", "20261224") == [compact]
    before = git(ledger, "rev-parse", "refs/coop/ledger")
    for value in ("1", "90"):
        result = coop("add", "todo", "x", "--due", value)
        (line,) = result.err.strip().splitlines()
        assert result.code == 2 and "needs its unit" in line and " — " in line, line
    assert git(ledger, "rev-parse", "refs/coop/ledger") == before


def test_edit_sets_changes_and_clears_the_due_date_as_events(ledger: Path) -> None:
    item = add("todo", "shaped")
    result = coop("edit", item, "--due", "3d")
    assert result.code == 0, result.err
    assert "due: none -> 2026-12-02T10:00:00Z" in result.out
    assert show(item)["due"] == "2026-12-02T10:00:00Z"
    assert coop("edit", item, "--due", "2026-12-10T08:00:00Z").code == 0
    cleared = coop("edit", item, "--due", "none")
    assert cleared.code == 0 and "due: 2026-12-10T08:00:00Z -> none" in cleared.out
    assert "due" not in show(item)
    history = [e for e in coop("log", item, "--json").json() if e["verb"] == "edit"]
    assert [(e["due"], e["previous_due"]) for e in history] == [
        ("2026-12-02T10:00:00Z", None),
        ("2026-12-10T08:00:00Z", "2026-12-02T10:00:00Z"),
        ("", "2026-12-10T08:00:00Z"),
    ]
    again = coop("edit", item, "--due", "none")  # nothing to clear: nothing is written
    assert again.code == 0 and "unchanged" in again.out


def test_a_bad_due_on_edit_says_that_none_clears_it(ledger: Path) -> None:
    item = add("todo", "shaped", "--due", "3d")
    for value in ("", "never"):  # what someone trying to clear it might type
        result = coop("edit", item, "--due", value)
        (line,) = result.err.strip().splitlines()
        assert result.code == 2 and line.endswith("; none clears it"), line
    assert show(item)["due"] == "2026-12-02T10:00:00Z"
    added = coop("add", "todo", "x", "--due", "never").err  # nothing to clear on add
    assert "none" not in added, added


def test_list_marks_due_and_overdue_work_and_filters_and_sorts_on_it(ledger: Path) -> None:
    late = add("todo", "late", "--due", "2026-11-20")
    later = add("todo", "later", "--due", "2w")
    soon = add("todo", "soon", "--due", "2d")
    plain = add("todo", "no date")
    done_late = add("todo", "done late", "--due", "2026-11-01")
    assert coop("done", done_late).code == 0
    lines = coop("list").out.splitlines()
    assert any("late" in line and "[overdue 8d 10h]" in line for line in lines), lines
    assert any("soon" in line and "[due in 2d]" in line for line in lines), lines
    assert not any("[due" in line or "[overdue" in line for line in lines if "no date" in line)
    assert listed("--overdue") == [late]  # settled work is never overdue
    assert listed("--overdue", "--all") == [late]
    assert set(listed("--due-before", "3d")) == {late, soon}
    assert set(listed("--due-before", "2026-12-13")) == {late, soon, later}
    assert set(listed("--due-before", "2026-12-13", "--all")) == {late, soon, later, done_late}
    assert listed("--sort", "deadline") == [late, soon, later, plain]
    bad = coop("list", "--due-before", "someday")
    assert bad.code == 2 and bad.err.startswith("gitcoop: --due-before 'someday'")


def test_sort_due_keeps_meaning_the_obligation_s_review_due_time(ledger: Path) -> None:
    own_soon = add("todo", "own deadline soon", "--due", "1h")
    taken = add("todo", "taken: its obligation is due in 3h")
    assert coop("take", taken).code == 0
    assert listed("--sort", "due") == [taken, own_soon]
    assert listed("--sort", "deadline") == [own_soon, taken]


def test_status_counts_overdue_work(ledger: Path) -> None:
    add("todo", "late", "--due", "2026-11-28")
    add("todo", "not yet", "--due", "2026-12-28")
    text = coop("status").out
    line = r"^  overdue +1 past their own due date — git coop list --overdue$"
    assert re.search(line, text, re.M), text
    assert coop("status", "--json").json()["overdue"] == 1


def test_ready_puts_overdue_work_first_within_its_priority(ledger: Path) -> None:
    # filed a minute apart: within one second "oldest first" is the order of the ids
    filed = [f"2026-11-29T09:5{n}:00Z" for n in range(4)]
    first = filed_at(filed[0], "todo", "filed first")
    late = filed_at(filed[1], "todo", "overdue", "--due", "2026-11-28")
    urgent = filed_at(filed[2], "todo", "urgent", "-p", "0")
    not_yet = filed_at(filed[3], "todo", "due later", "--due", "2026-12-04T09:53:00Z")
    order = [entry["id"] for entry in coop("ready", "--json").json()]
    assert order == [urgent, late, first, not_yet]
    later = coop("ready", "--json", env={"COOP_NOW": "2026-12-05T10:00:00Z"}).json()
    assert [entry["id"] for entry in later] == [urgent, late, not_yet, first]


def test_help_says_it_is_the_item_s_own_deadline(ledger: Path) -> None:
    for command in ("add", "edit", "list"):
        text = " ".join(coop(command, "--help").out.split())
        assert "own deadline" in text and "review due time" in text, command
    ready = " ".join(coop("ready", "--help").out.split())  # the order it lists in
    assert "overdue work first (its own due date passed, soonest first)" in ready, ready
    assert NOW == "2026-11-29T10:00:00Z"
