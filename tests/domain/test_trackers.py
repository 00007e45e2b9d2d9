"""The readers of other trackers' exports: fields mapped, hostile records refused, no I/O."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitcoop.domain import backlog_tasks, imported, trackers
from gitcoop.domain.imported import ABANDONED, DONE, OPEN, STARTED, Imported, Unmappable

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"


def _read(reader: str, text: str) -> list[tuple[str, Imported | Unmappable]]:
    found: list[tuple[str, Imported | Unmappable]] = []
    for line, raw in trackers.json_records(text):
        try:
            found.append((line, trackers.READERS[reader](raw)))
        except Unmappable as bad:
            found.append((line, bad))
    return found


def test_taskwarrior_tasks_map_by_the_state_table() -> None:
    found = _read("taskwarrior", (FIXTURES / "taskwarrior.json").read_text())
    assert [where for where, _ in found] == [f"record {n}" for n in range(1, 6)]
    docs, login, needs, old, dropped = (r for _, r in found)
    assert isinstance(docs, Imported) and isinstance(needs, Imported)
    assert docs.aliases == ("TW-bdbe2b17-9bd5-495e-a191-dfa30359c993", "TW-1")
    assert (docs.title, docs.state, docs.priority) == ("Write the docs", OPEN, 1)
    assert docs.tags == ("docs", "project:web")
    assert docs.notes == ("[2026-12-01T09:05:00Z] see the wiki",)
    assert needs.depends == (("blocked-by", "TW-bdbe2b17-9bd5-495e-a191-dfa30359c993"),)
    assert [r.state for r in (login, old, dropped) if isinstance(r, Imported)] == [
        STARTED,
        DONE,
        ABANDONED,
    ]
    assert isinstance(old, Imported) and old.aliases == ("TW-1f25bcec-058b-425b-a7da-8eeda15b227a",)


def test_beads_issues_keep_their_ids_links_and_close_reason() -> None:
    found = _read("beads", (FIXTURES / "beads.jsonl").read_text())
    queue, worker, library = (r for _, r in found)
    assert isinstance(worker, Imported) and isinstance(library, Imported)
    assert worker.aliases == ("bd-c3d4",) and worker.state == STARTED
    assert worker.assignee == "alice" and worker.notes == ("Started on the reader.",)
    assert worker.body == "It reads the queue.\n\n## Acceptance criteria\n\nDrains the queue."
    assert worker.depends == (("blocked-by", "bd-a1b2"),)
    assert (library.state, library.summary) == (DONE, "Chose the standard one")
    assert library.depends == (("discovered-from", "bd-a1b2"),)
    assert isinstance(queue, Imported) and queue.tags == ("backend", "feature")


def test_github_issues_as_gh_prints_them() -> None:
    found = _read("github", (FIXTURES / "github.json").read_text())
    safari, typo = (r for _, r in found)
    assert isinstance(safari, Imported) and isinstance(typo, Imported)
    assert safari.aliases == ("gh#42",) and safari.state == OPEN
    assert safari.tags == ("bug", "good-first-issue") and safari.assignee == "bob"
    assert safari.notes == ("[2026-11-28T12:00:00Z] carol: I see it too.",)
    assert (typo.aliases, typo.state, typo.body) == (("gh#7",), DONE, None)


def test_a_backlog_task_reads_its_sections() -> None:
    front = {"id": "task-3", "title": "Pick", "status": "Done", "priority": "low"}
    markdown = (
        "## Description\n\n<!-- SECTION:DESCRIPTION:BEGIN -->\nHosted or not.\n"
        "<!-- SECTION:DESCRIPTION:END -->\n\n## Final Summary\n\nHosted is enough.\nMore.\n"
        "## Acceptance Criteria\n<!-- AC:BEGIN -->\n- [ ] #1 CI runs\n<!-- AC:END -->\n"
    )
    task = backlog_tasks.backlog(front, markdown)
    assert (task.state, task.body, task.summary, task.priority) == (
        DONE,
        "Hosted or not.\n\n## Acceptance Criteria\n\n- [ ] #1 CI runs",
        "Hosted is enough.",
        3,
    )


@pytest.mark.parametrize(
    ("given", "due"),
    [
        ("2026-12-24", "2026-12-24T23:59:59Z"),
        ("20261224", "2026-12-24T23:59:59Z"),  # a day in ISO's basic form is a day too
        ("2026-W52-4", "2026-12-24T23:59:59Z"),
        ("2026-12-24T17:00:00Z", "2026-12-24T17:00:00Z"),
    ],
)
def test_a_tracker_s_due_day_is_due_until_its_end_as_add_due_reads_it(given: str, due: str) -> None:
    from gitcoop.domain import fields
    from gitcoop.domain.timefmt import format_instant

    task = backlog_tasks.backlog(
        {"id": "task-4", "title": "Due", "status": "To Do", "due_date": given}, ""
    )
    assert task.due is not None and format_instant(task.due) == due
    assert fields.due_at(given, task.due) == due  # the same day as `--due` reads it


def test_json_records_number_array_elements_and_lines() -> None:
    text = '[\n{"a": 1},\n\n  {"b": 2}\n]'
    assert trackers.json_records(text) == [("record 1", {"a": 1}), ("record 2", {"b": 2})]
    lines = trackers.json_records('{"a": 1}\n\nnot json\n')
    assert lines[0] == ("line 1", {"a": 1}) and lines[1][0] == "line 3"
    assert isinstance(lines[1][1], Unmappable)


HOSTILE = [
    ({"description": "x\x1b[2Jy"}, "one line"),
    ({"description": "x" * 501}, "at most"),
    ({"description": "ok", "annotations": [{"description": "\x07bell"}]}, "control"),
    ({"description": "ok", "entry": "20261301T000000Z"}, "not a time"),
    ({"description": "ok", "due": "99999999T999999Z"}, "not a time"),
    ({"description": "ok", "status": "recurring"}, "status"),
    ({"description": "ok", "uuid": "../../etc"}, "alias"),
    ({"description": "ok", "priority": "urgent"}, "priority"),
    ({"description": "ok", "depends": ["x y"]}, "alias"),
]


@pytest.mark.parametrize(("changes", "said"), HOSTILE)
def test_hostile_taskwarrior_records_are_refused_with_a_reason(
    changes: dict[str, object], said: str
) -> None:
    task = {"uuid": "5b0f6c3e-1c1a-4b7e-9d2a-0e9f1a2b3c4d", "status": "pending", **changes}
    try:
        record = trackers.taskwarrior(json.loads(json.dumps(task)))
    except Unmappable as bad:
        problem: str | None = str(bad)
    else:
        problem = imported.problem(record)
    assert problem is not None and said in problem.lower(), problem


def test_a_huge_body_is_refused_like_the_command_lines() -> None:
    issue = {"number": 1, "title": "T", "state": "OPEN", "body": "x" * (65 * 1024)}
    assert "at most" in str(imported.problem(trackers.github(issue)))


def test_every_tracker_state_lands_on_a_known_state() -> None:
    for table in imported.STATES.values():
        assert set(table.values()) <= {OPEN, STARTED, DONE, ABANDONED}


@pytest.mark.parametrize(
    ("tracker", "alias"),
    [
        ("beads", "gh#8"),
        ("beads", "TW-12"),
        ("beads", "task-3"),
        ("backlog", "gh#1"),
        ("backlog", "bd-a1b2"),
        ("backlog", "TW-1"),
    ],
)
def test_a_record_with_another_trackers_id_is_refused(tracker: str, alias: str) -> None:
    record = Imported(tracker=tracker, aliases=(alias,), title="x", state=OPEN)
    assert "another tracker" in (imported.problem(record) or "")
    fine = {"beads": "bd-a1b2", "backlog": "TASK-3"}[tracker]
    linked = Imported(tracker, (fine,), "x", OPEN, depends=(("blocked-by", alias),))
    assert "another tracker" in (imported.problem(linked) or "")
    assert imported.problem(Imported(tracker, (fine,), "x", OPEN)) is None


def test_line_endings_become_newlines_in_every_format() -> None:
    task = trackers.taskwarrior(
        {
            "uuid": "a1",
            "description": "x",
            "status": "pending",
            "annotations": [{"description": "one\r\ntwo\rthree"}],
        }
    )
    assert task.notes == ("one\ntwo\nthree",)
    issue = trackers.beads({"id": "bd-1", "title": "x", "description": "a\r\nb", "notes": "c\rd"})
    assert (issue.body, issue.notes) == ("a\nb", ("c\nd",))
    task = backlog_tasks.backlog(
        {"id": "task-1", "title": "x", "status": "To Do"},
        "## Description\r\n\r\nfirst\r\nsecond\r\n",
    )
    assert task.body == "first\nsecond"


def test_a_label_becomes_a_tag_or_is_left_out_with_a_notice() -> None:
    issue = trackers.github(
        {"number": 1, "title": "x", "state": "OPEN", "labels": [{"name": "🐛 bug"}, {"name": "✨"}]}
    )
    assert issue.tags == ("bug",)
    assert len(issue.notices) == 1 and "'✨'" in issue.notices[0]
    tw = trackers.taskwarrior(
        {"uuid": "a1", "description": "x", "status": "pending", "tags": ["ok", 3]}
    )
    assert tw.tags == ("ok",) and tw.notices


def test_a_hostile_tag_keeps_only_what_a_tag_may_hold() -> None:
    task = {"uuid": "a1", "description": "ok", "status": "pending", "tags": ["a;rm -rf", "$(x)"]}
    record = trackers.taskwarrior(task)
    assert record.tags == ("arm--rf", "x") and imported.problem(record) is None
