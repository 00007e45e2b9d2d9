"""git coop import: another tracker's export in one commit, aliases, re-imports, refusals."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Clones, coop, coop_in, git, unavailable

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"
NOW = {"COOP_NOW": "2026-12-02T12:00:00Z"}
LEDGER = "refs/coop/ledger"


def _json(*args: str, env: dict[str, str] | None = None) -> Any:
    result = coop(*args, "--json", env={**NOW, **(env or {})})
    assert result.code == 0, result.err
    return json.loads(result.out)


def _tip(path: Path) -> str:
    return git(path, "rev-parse", LEDGER).strip()


def _commits(path: Path) -> int:
    return int(git(path, "rev-list", "--count", LEDGER).strip())


def test_taskwarrior_export_lands_in_one_commit_by_the_state_table(ledger: Path) -> None:
    before = _commits(ledger)
    report = _json("import", "taskwarrior", str(FIXTURES / "taskwarrior.json"))
    assert _commits(ledger) == before + 1
    assert report["wrote"] and report["skipped"] == []
    shown = {r["aliases"][-1]: r["verbs"] for r in report["records"]}
    assert shown["TW-1"] == ["add", "note"]
    assert shown["TW-2"] == ["add", "take"]
    assert shown["TW-3"] == ["add", "dep"]
    docs = _json("show", "TW-1")
    assert (docs["title"], docs["status"], docs["priority"]) == ("Write the docs", "open", 1)
    assert docs["due"] == "2026-12-10T17:00:00Z"  # taskwarrior's due: the item's own deadline
    assert "due" not in _json("show", "tw-2")
    assert docs["aliases"] == ["TW-bdbe2b17-9bd5-495e-a191-dfa30359c993", "TW-1"]
    assert _json("show", "tw-2")["taken_by"] == "alice@example.com"
    needs = _json("show", "TW-3")
    assert [(k["type"], k["item"]) for k in needs["links"]] == [("blocked-by", docs["id"])]
    old = _json("show", "TW-1f25bcec-058b-425b-a7da-8eeda15b227a")
    assert old["status"] == "done"
    dropped = _json("show", "TW-2a7e0c1d-8f3b-4c55-9e1a-6b4d2f0e9a11")
    assert (dropped["status"], dropped["reason"]) == ("abandoned", "deleted in taskwarrior")
    notes = [e for e in _json("log", "TW-1") if e["verb"] == "note"]
    assert [n["text"] for n in notes] == ["[2026-12-01T09:05:00Z] see the wiki"]


def test_importing_the_same_export_again_writes_nothing(ledger: Path) -> None:
    for name, tracker in (
        ("taskwarrior.json", "taskwarrior"),
        ("beads.jsonl", "beads"),
        ("github.json", "github"),
        ("backlog", "backlog"),
    ):
        first = _json("import", tracker, str(FIXTURES / name))
        assert first["wrote"], name
        tip = _tip(ledger)
        again = _json("import", tracker, str(FIXTURES / name))
        assert not again["wrote"] and _tip(ledger) == tip, name
        assert all(r["verbs"] == [] and not r["added"] for r in again["records"]), name
        text = coop("import", tracker, str(FIXTURES / name), env=NOW)
        assert text.code == 0 and "nothing written" in text.out


def test_a_newer_export_applies_only_what_changed_as_events(ledger: Path, tmp_path: Path) -> None:
    _json("import", "taskwarrior", str(FIXTURES / "taskwarrior.json"))
    tasks = json.loads((FIXTURES / "taskwarrior.json").read_text())
    tasks[0]["description"] = "Write the user docs"
    tasks[0]["annotations"].append({"entry": "20261202T080000Z", "description": "and the FAQ"})
    tasks[1].update(status="completed", end="20261202T090000Z", id=0)
    tasks[3]["status"] = "pending"  # reopened there: the first close stays the record
    fresh = {"id": 2, "uuid": "9d1c5e2a-0b7f-4e3a-8c6d-5f4e3d2c1b0a", "status": "pending"}
    tasks.append({**fresh, "description": "New since", "entry": "20261202T080000Z"})
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(tasks))
    before = _commits(ledger)
    report = _json("import", "taskwarrior", str(newer))
    assert _commits(ledger) == before + 1
    verbs = {r["aliases"][0]: r["verbs"] for r in report["records"]}
    assert verbs["TW-" + tasks[0]["uuid"]] == ["edit", "note"]
    assert verbs["TW-" + tasks[1]["uuid"]] == ["done"]
    assert verbs["TW-" + tasks[2]["uuid"]] == []
    reopened = next(r for r in report["records"] if r["aliases"][0] == "TW-" + tasks[3]["uuid"])
    assert reopened["verbs"] == ["edit"] and "first close is the record" in reopened["notices"][0]
    assert verbs["TW-" + fresh["uuid"]] == ["add"]  # TW-2 was another task's number
    ambiguous = coop("show", "TW-2")
    assert ambiguous.code == 1 and "names 2 items" in ambiguous.err
    assert _json("show", "TW-1")["title"] == "Write the user docs"
    assert _json("show", "TW-" + tasks[1]["uuid"])["status"] == "done"
    assert _json("show", "TW-" + tasks[3]["uuid"])["status"] == "done"


def test_a_bad_record_is_named_by_its_line_and_skipped_whole(ledger: Path, tmp_path: Path) -> None:
    lines = (FIXTURES / "beads.jsonl").read_text().splitlines()
    hostile = [
        json.dumps({"id": "bd-x1", "title": "evil\x1b]0;owned\x07", "status": "open"}),
        json.dumps({"id": "bd-x2", "title": "huge", "description": "x" * 70_000}),
        json.dumps({"id": "bd-x3", "title": "when", "closed_at": "2026-13-45T99:00:00Z"}),
        json.dumps({"id": "bd-x4", "title": "odd", "status": "tombstone"}),
        "{not json",
    ]
    export = tmp_path / "issues.jsonl"
    export.write_text("\n".join([lines[0], *hostile, lines[1]]) + "\n")
    report = _json("import", "beads", str(export))
    assert [s["where"] for s in report["skipped"]] == [f"line {n}" for n in range(2, 7)]
    assert [r["aliases"][0] for r in report["records"]] == ["bd-a1b2", "bd-c3d4"]
    for alias in ("bd-x1", "bd-x2", "bd-x3", "bd-x4"):
        missing = coop("show", alias)
        assert missing.code == 1 and f"no item matches {alias!r}" in missing.err
    text = coop("import", "beads", str(export), "--dry-run", env=NOW)
    assert "skipped line 2 (bd-x1): a title is one line" in text.out
    assert "\x1b" not in text.out


def test_dry_run_prints_what_would_happen_and_writes_nothing(ledger: Path) -> None:
    tip = _tip(ledger)
    result = coop("import", "github", str(FIXTURES / "github.json"), "--dry-run", env=NOW)
    assert result.code == 0, result.err
    assert "would add gh#42" in result.out and "would add gh#7" in result.out
    assert "dry run: 2 added" in result.out
    assert _tip(ledger) == tip


def test_github_issues_and_people(ledger: Path) -> None:
    people = str(FIXTURES / "people.txt")
    _json("import", "github", str(FIXTURES / "github.json"), "--people", people)
    safari = _json("show", "gh#42")
    assert safari["tags"] == ["bug", "good-first-issue"] and safari["status"] == "open"
    notes = [e["text"] for e in _json("log", "gh#42") if e["verb"] == "note"]
    assert notes == [
        "[2026-11-28T12:00:00Z] carol: I see it too.",
        "assigned to bob@example.com in GitHub",
    ]
    assert _json("show", "gh#7")["status"] == "done"
    assert coop("show", "gh#4").code == 1


def test_beads_started_work_is_taken_when_it_is_the_importers(ledger: Path) -> None:
    people = str(FIXTURES / "people.txt")
    _json("import", "beads", str(FIXTURES / "beads.jsonl"), "--people", people)
    worker = _json("show", "bd-c3d4")
    queue = _json("show", "bd-a1b2")
    assert (worker["status"], worker["taken_by"]) == ("taken", "alice@example.com")
    assert [(k["type"], k["item"]) for k in worker["links"]] == [("blocked-by", queue["id"])]
    library = _json("show", "bd-e5f6")
    assert (library["status"], library["result_summary"]) == ("done", "Chose the standard one")
    assert [(k["type"], k["item"]) for k in library["links"]] == [("discovered-from", queue["id"])]


def test_beads_work_started_by_someone_else_stays_open_with_a_note(ledger: Path) -> None:
    _json("import", "beads", str(FIXTURES / "beads.jsonl"))  # alice is not mapped: a name
    worker = _json("show", "bd-c3d4")
    assert worker["status"] == "open"
    notes = [e["text"] for e in _json("log", "bd-c3d4") if e["verb"] == "note"]
    assert "assigned to alice in beads" in notes


def test_backlog_folder(ledger: Path) -> None:
    people = str(FIXTURES / "people.txt")
    report = _json("import", "backlog", str(FIXTURES / "backlog"), "--people", people)
    assert report["skipped"] == []
    ci = _json("show", "task-1")
    assert (ci["status"], ci["taken_by"], ci["priority"]) == ("taken", "alice@example.com", 1)
    assert ci["body"].startswith("Run the tests on every push.\n\n## Acceptance Criteria")
    badge = _json("show", "TASK-2")
    assert [(k["type"], k["item"]) for k in badge["links"]] == [("blocked-by", ci["id"])]
    runner = _json("show", "task-3")
    assert (runner["status"], runner["result_summary"]) == ("done", "Hosted runners are enough.")


def test_a_task_file_without_front_matter_is_skipped_by_name(ledger: Path, tmp_path: Path) -> None:
    folder = tmp_path / "backlog" / "tasks"
    folder.mkdir(parents=True)
    (folder / "task-9 - x.md").write_text("no front matter\n")
    (folder / "task-8 - y.md").write_text("---\nid: task-8\ntitle: &a y\nstatus: To Do\n---\n")
    result = coop("import", "backlog", str(tmp_path / "backlog"), "--json", env=NOW)
    assert result.code == 1, result.err  # every record refused: nothing could be written
    report = json.loads(result.out)["error"]["report"]
    assert {Path(s["where"]).name for s in report["skipped"]} == {"task-9 - x.md", "task-8 - y.md"}
    assert not report["wrote"]


def test_usage_mistakes_are_one_line(ledger: Path, tmp_path: Path) -> None:
    missing = coop("import", "taskwarrior", str(tmp_path / "nope.json"))
    assert missing.code == 2 and "cannot read" in missing.err
    bad_people = tmp_path / "people.txt"
    bad_people.write_text("alice alice@example.com\n")
    result = coop("import", "github", str(FIXTURES / "github.json"), "--people", str(bad_people))
    assert result.code == 2 and "line 1: expected NAME = EMAIL" in result.err
    assert "Traceback" not in result.err


def test_an_import_from_standard_input(ledger: Path) -> None:
    text = (FIXTURES / "github.json").read_text()
    done = subprocess.run(
        ["git", "coop", "import", "github", "-", "--json"],
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, **NOW, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["records"]) == 2


@pytest.fixture
def task_tool() -> str:
    found = shutil.which("task")
    if found is None:
        unavailable("taskwarrior (task) is not installed: apt-get install taskwarrior")
    return found


@pytest.fixture
def backlog_tool() -> str:
    found = shutil.which("backlog")
    if found is None:
        unavailable("Backlog.md (backlog) is not installed: npm install -g backlog.md")
    return found


def test_what_the_real_taskwarrior_exports(ledger: Path, tmp_path: Path, task_tool: str) -> None:
    env = {**os.environ, "TASKDATA": str(tmp_path / "task"), "TASKRC": str(tmp_path / "taskrc")}
    (tmp_path / "taskrc").write_text("confirmation=off\n")

    def task(*args: str) -> str:
        done = subprocess.run(
            [task_tool, "rc.verbose=nothing", *args], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        return done.stdout

    task("add", "Write the docs", "project:web", "+docs", "priority:H", "due:2026-12-24T17:00:00Z")
    task("add", "Fix login")
    task("2", "start")
    task("1", "annotate", "see the wiki")
    task("add", "Needs docs", "depends:1")
    task("add", "Old thing")
    task("4", "done")
    export = tmp_path / "export.json"
    export.write_text(task("export"))
    report = _json("import", "taskwarrior", str(export))
    assert report["skipped"] == [] and len(report["records"]) == 4
    assert _json("show", "TW-1")["tags"] == ["docs", "project:web"]
    assert _json("show", "TW-1")["due"] == "2026-12-24T17:00:00Z"
    assert _json("show", "TW-2")["status"] == "taken"
    assert _json("show", "TW-3")["links"][0]["type"] == "blocked-by"
    tip = _tip(ledger)
    assert not _json("import", "taskwarrior", str(export))["wrote"] and _tip(ledger) == tip
    task("1", "done")
    export.write_text(task("export"))
    again = _json("import", "taskwarrior", str(export))
    changed = [r for r in again["records"] if r["verbs"]]
    assert [r["verbs"] for r in changed] == [["done"]]
    assert _json("show", changed[0]["item"])["title"] == "Write the docs"
    assert _json("show", changed[0]["item"])["status"] == "done"
    # the numbers moved (Fix login is task 1 now): the uuid matched, no item was added
    assert not any(r["added"] for r in again["records"])


def test_an_import_travels_to_a_clone_and_passes_fsck(clones: Clones) -> None:
    alice, bob = clones.clone("alice"), clones.clone("bob")
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "remote", "setup", "origin").code == 0
    done = coop_in(alice, "import", "beads", str(FIXTURES / "beads.jsonl"), env=NOW)
    assert done.code == 0, done.err
    assert coop_in(alice, "sync").code == 0
    assert coop_in(bob, "remote", "setup", "origin").code == 0
    synced = coop_in(bob, "sync")
    assert synced.code == 0, synced.err
    shown = coop_in(bob, "show", "bd-c3d4", "--json")
    assert json.loads(shown.out)["aliases"] == ["bd-c3d4"]
    for clone in (alice, bob):
        checked = coop_in(clone, "fsck")
        assert checked.code == 0, checked.out + checked.err


def test_a_link_that_would_close_a_cycle_is_left_out(ledger: Path, tmp_path: Path) -> None:
    export = tmp_path / "issues.jsonl"
    records = [
        {"id": "bd-1", "title": "one", "dependencies": [{"depends_on_id": "bd-2"}]},
        {"id": "bd-2", "title": "two", "dependencies": [{"depends_on_id": "bd-1"}]},
        {
            "id": "bd-3",
            "title": "odd",
            "dependencies": [{"depends_on_id": "bd-3", "type": "related"}],
        },
    ]
    export.write_text("".join(json.dumps(r) + "\n" for r in records))
    report = _json("import", "beads", str(export))
    assert [r["verbs"] for r in report["records"]] == [["add", "dep"], ["add"], ["add"]]
    assert "would close a cycle" in report["records"][1]["notices"][0]
    assert "not linked to itself" in report["records"][2]["notices"][0]
    blocked = coop("blocked", "--json")
    assert blocked.code == 0 and json.loads(blocked.out)["cycles"] == []


def test_what_the_real_backlog_writes(ledger: Path, tmp_path: Path, backlog_tool: str) -> None:
    folder = tmp_path / "project"
    folder.mkdir()
    git(folder, "init", "-q")

    def backlog(*args: str) -> None:
        done = subprocess.run(
            [backlog_tool, *args],
            cwd=folder,
            capture_output=True,
            text=True,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stdout + done.stderr

    backlog("init", "demo", "--defaults", "--integration-mode", "none")
    backlog("task", "create", "Set up CI", "-d", "Run the tests", "--ac", "CI runs", "-l", "ci")
    backlog("task", "create", "Add a badge", "--dep", "task-1", "--priority", "low")
    backlog("task", "edit", "2", "--due-date", "2026-12-24")
    backlog("task", "create", "Pick a runner", "-s", "In Progress")
    backlog("task", "edit", "3", "-s", "Done", "--final-summary", "Hosted is enough")
    report = _json("import", "backlog", str(folder / "backlog"))
    assert report["skipped"] == [] and len(report["records"]) == 3
    ci = _json("show", "task-1")
    assert ci["body"] == "Run the tests\n\n## Acceptance Criteria\n\n- [ ] #1 CI runs"
    assert ci["tags"] == ["ci"]
    badge = _json("show", "TASK-2")
    assert (badge["priority"], badge["links"][0]["item"]) == (3, ci["id"])
    assert badge["due"] == "2026-12-24T23:59:59Z"  # a day is due until its end
    runner = _json("show", "task-3")
    assert (runner["status"], runner["result_summary"]) == ("done", "Hosted is enough")
    assert not _json("import", "backlog", str(folder / "backlog"))["wrote"]


def test_a_re_import_keeps_local_edits_and_releases(ledger: Path) -> None:
    github = str(FIXTURES / "github.json")
    _json("import", "github", github)
    assert coop("edit", "gh#42", "--title", "Local better title", env=NOW).code == 0
    again = _json("import", "github", github)
    assert not again["wrote"]
    assert _json("show", "gh#42")["title"] == "Local better title"
    tasks = str(FIXTURES / "taskwarrior.json")
    _json("import", "taskwarrior", tasks)
    assert coop("release", "TW-2", "--reason", "x", env=NOW).code == 0
    again = _json("import", "taskwarrior", tasks)
    assert not again["wrote"]
    assert _json("show", "TW-2")["status"] == "open"


def test_a_re_import_applies_what_changed_in_the_tracker_since(
    ledger: Path, tmp_path: Path
) -> None:
    issues = json.loads((FIXTURES / "github.json").read_text())
    _json("import", "github", str(FIXTURES / "github.json"))
    assert coop("edit", "gh#42", "--title", "Local better title", env=NOW).code == 0
    issues[0]["body"] = "Blank on Safari 17 only."
    newer = tmp_path / "g2.json"
    newer.write_text(json.dumps(issues))
    report = _json("import", "github", str(newer))
    assert [r["verbs"] for r in report["records"] if r["verbs"]] == [["edit"]]
    shown = _json("show", "gh#42")
    assert (shown["title"], shown["body"]) == ("Local better title", "Blank on Safari 17 only.")
    issues[0]["title"] = "Blank page on Safari 17"
    newer.write_text(json.dumps(issues))
    _json("import", "github", str(newer))
    assert _json("show", "gh#42")["title"] == "Blank page on Safari 17"


def test_an_update_names_the_item_show_names(ledger: Path, tmp_path: Path) -> None:
    tasks = json.loads((FIXTURES / "taskwarrior.json").read_text())
    _json("import", "taskwarrior", str(FIXTURES / "taskwarrior.json"))
    tasks[1]["id"], tasks[0]["id"] = 1, 4  # TW-1 finished elsewhere; TW-2 is now number 1
    tasks[1]["description"] = "Fix the login"
    newer = tmp_path / "t2.json"
    newer.write_text(json.dumps(tasks))
    out = coop("import", "taskwarrior", str(newer), env=NOW)
    assert out.code == 0, out.err
    line = next(x for x in out.out.splitlines() if x.startswith("update"))
    said, short = line.split()[1], line.split()[3].rstrip(":")
    assert _json("show", said)["id"].startswith(short)
    assert _json("show", said)["title"] == "Fix the login"


def test_one_trackers_export_never_touches_anothers_items(ledger: Path, tmp_path: Path) -> None:
    _json("import", "github", str(FIXTURES / "github.json"))
    tip = _tip(ledger)
    folder = tmp_path / "backlog" / "tasks"
    folder.mkdir(parents=True)
    (folder / "task-1 - x.md").write_text("---\nid: gh#42\ntitle: x\nstatus: Done\n---\n")
    refused = coop("import", "backlog", str(tmp_path / "backlog"), "--json", env=NOW)
    assert refused.code == 1
    backlog = json.loads(refused.out)["error"]["report"]  # the one error object
    beads = tmp_path / "issues.jsonl"
    beads.write_text(
        '{"id":"bd-1","title":"ok","status":"open"}\n'
        '{"id":"gh#42","title":"x","status":"closed"}\n'
        '{"id":"TW-5","title":"x","status":"closed"}\n'
    )
    result = coop("import", "beads", str(beads), "--json", env=NOW)
    assert result.code == 0, result.err
    report = json.loads(result.out)
    assert [s["where"] for s in report["skipped"]] == ["line 2", "line 3"]
    assert "github" in report["skipped"][0]["reason"]
    assert [s["origin"] for s in backlog["skipped"]] == ["gh#42"]
    assert _json("show", "gh#42")["status"] == "open"
    assert _json("log", "gh#42")[-1]["verb"] != "done"
    assert _tip(ledger) != tip  # bd-1 alone was written


def _retagged(tracker: str, tmp_path: Path) -> tuple[str, str]:
    """A copy of the fixture whose first record gained the tag `urgent`, and its alias."""
    if tracker == "backlog":
        shutil.copytree(FIXTURES / "backlog", tmp_path / "backlog")
        task = tmp_path / "backlog" / "tasks" / "task-1 - Set-up-CI.md"
        task.write_text(task.read_text().replace("  - ci\n", "  - ci\n  - urgent\n", 1))
        return str(tmp_path / "backlog"), "task-1"
    name = {"taskwarrior": "taskwarrior.json", "beads": "beads.jsonl", "github": "github.json"}
    text = (FIXTURES / name[tracker]).read_text()
    if tracker == "beads":
        lines = text.splitlines()
        first = json.loads(lines[0])
        first["labels"].append("urgent")
        (tmp_path / "b.jsonl").write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
        return str(tmp_path / "b.jsonl"), first["id"]
    records = json.loads(text)
    if tracker == "github":
        records[0]["labels"].append({"name": "urgent"})
        alias = f"gh#{records[0]['number']}"
    else:
        records[0]["tags"].append("urgent")
        alias = "TW-" + records[0]["uuid"]
    (tmp_path / "r.json").write_text(json.dumps(records))
    return str(tmp_path / "r.json"), alias


@pytest.mark.parametrize("tracker", ["taskwarrior", "backlog", "beads", "github"])
def test_a_tag_added_in_the_tracker_is_applied_once(
    ledger: Path, tmp_path: Path, tracker: str
) -> None:
    source = {"taskwarrior": "taskwarrior.json", "beads": "beads.jsonl", "github": "github.json"}
    _json("import", tracker, str(FIXTURES / source.get(tracker, "backlog")))
    newer, alias = _retagged(tracker, tmp_path)
    report = _json("import", tracker, newer)
    assert report["wrote"]
    assert "urgent" in _json("show", alias)["tags"]
    assert not _json("import", tracker, newer)["wrote"]


@pytest.mark.parametrize("tracker", ["taskwarrior", "backlog", "beads", "github"])
def test_a_tag_removed_in_the_tracker_is_removed_here_and_a_local_one_kept(
    ledger: Path, tmp_path: Path, tracker: str
) -> None:
    source = {"taskwarrior": "taskwarrior.json", "beads": "beads.jsonl", "github": "github.json"}
    newer, alias = _retagged(tracker, tmp_path)
    _json("import", tracker, newer)
    assert "urgent" in _json("show", alias)["tags"]
    assert coop("edit", alias, "--tag", "mine", env=NOW).code == 0
    report = _json("import", tracker, str(FIXTURES / source.get(tracker, "backlog")))
    assert report["wrote"]
    tags = _json("show", alias)["tags"]
    assert "urgent" not in tags and "mine" in tags
    (edit,) = [e for e in _json("log", alias) if e.get("tags_removed")]
    assert edit["tags_removed"] == ["urgent"] and "imported" in edit
    assert not _json("import", tracker, str(FIXTURES / source.get(tracker, "backlog")))["wrote"]


def test_crlf_text_and_emoji_labels_arrive(ledger: Path, tmp_path: Path) -> None:
    issue = {
        "number": 5,
        "title": "Crash on save",
        "state": "OPEN",
        "body": "Steps:\r\n1. save\r\n2. crash\rend",
        "labels": [{"name": "🐛 bug"}, {"name": "🔥"}, {"name": "area/ui"}],
        "comments": [{"author": {"login": "bob"}, "body": "Same here.\r\nOn 2.1."}],
    }
    export = tmp_path / "g.json"
    export.write_text(json.dumps([issue]))
    result = coop("import", "github", str(export), env=NOW)
    assert result.code == 0, result.err
    assert "skipped" in result.out and "0 skipped" in result.out
    assert "'🔥' left out" in result.out
    shown = _json("show", "gh#5")
    assert shown["body"] == "Steps:\n1. save\n2. crash\nend"
    assert "bug" in shown["tags"]
    notes = [e["text"] for e in _json("log", "gh#5") if e["verb"] == "note"]
    assert notes == ["bob: Same here.\nOn 2.1."]


def test_a_label_left_out_of_many_records_is_said_once_with_a_count(
    ledger: Path, tmp_path: Path
) -> None:
    issues = [
        {"number": n, "title": f"issue {n}", "state": "OPEN", "labels": [{"name": "🔥"}]}
        for n in (1, 2, 3)
    ]
    issues[2]["labels"].append({"name": "🚀"})
    export = tmp_path / "g.json"
    export.write_text(json.dumps(issues))
    result = coop("import", "github", str(export), env=NOW)
    assert result.code == 0, result.err
    said = [line for line in result.out.splitlines() if "left out" in line]
    assert said == [
        "  label '🔥' left out: no tag can be made of it (on 3 records, gh#1 first)",
        "  gh#3: label '🚀' left out: no tag can be made of it",
    ]
    report = _json("import", "github", str(export))  # --json keeps each record's notices
    assert [len(r["notices"]) for r in report["records"]] == [1, 1, 2]


def test_a_skipped_array_record_is_named_by_its_number_and_origin(
    ledger: Path, tmp_path: Path
) -> None:
    issues = json.loads((FIXTURES / "github.json").read_text())
    issues.append({"number": 9, "title": "bad", "state": "MERGED"})
    export = tmp_path / "g.json"
    export.write_text(json.dumps(issues))
    result = coop("import", "github", str(export), env=NOW)
    assert result.code == 0, result.err
    assert "skipped record 3 (gh#9): status 'MERGED'" in result.out
    assert "1 of 3 records skipped" in result.out.splitlines()[-1]
    report = _json("import", "github", str(export))
    assert report["skipped"] == [
        {"where": "record 3", "origin": "gh#9", "reason": report["skipped"][0]["reason"]}
    ]


def test_the_wrong_format_writes_nothing_and_exits_1(ledger: Path) -> None:
    tip = _tip(ledger)
    result = coop("import", "taskwarrior", str(FIXTURES / "github.json"), env=NOW)
    assert result.code == 1
    assert result.out == ""
    assert len(result.err.strip().splitlines()) == 1
    assert "all 2 records were refused" in result.err and "taskwarrior" in result.err
    assert _tip(ledger) == tip
    as_json = coop("import", "beads", str(FIXTURES / "taskwarrior.json"), "--json", env=NOW)
    assert as_json.code == 1 and json.loads(as_json.out)["error"]["report"]["records"] == []


def test_a_due_date_changed_or_removed_in_the_tracker_follows_as_an_edit(
    ledger: Path, tmp_path: Path
) -> None:
    _json("import", "taskwarrior", str(FIXTURES / "taskwarrior.json"))
    backlog_due = _json("import", "backlog", str(FIXTURES / "backlog"))
    assert backlog_due["wrote"] and _json("show", "task-2")["due"] == "2026-12-24T23:59:59Z"
    tasks = json.loads((FIXTURES / "taskwarrior.json").read_text())
    tasks[0]["due"] = "20261215T120000Z"
    tasks[2]["due"] = "2026-12-20"  # a day, as other writers give it
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps(tasks))
    report = _json("import", "taskwarrior", str(newer))
    verbs = {r["aliases"][0]: r["verbs"] for r in report["records"]}
    assert verbs["TW-" + tasks[0]["uuid"]] == ["edit"]
    assert _json("show", "TW-1")["due"] == "2026-12-15T12:00:00Z"
    assert _json("show", "TW-3")["due"] == "2026-12-20T23:59:59Z"
    del tasks[0]["due"]
    newer.write_text(json.dumps(tasks))
    _json("import", "taskwarrior", str(newer))
    assert "due" not in _json("show", "TW-1")
    edits = [e for e in _json("log", "TW-1") if e["verb"] == "edit" and "due" in e]
    assert [e["due"] for e in edits] == ["2026-12-15T12:00:00Z", ""]
    assert not _json("import", "taskwarrior", str(newer))["wrote"]


def test_a_due_date_past_the_ledger_s_years_skips_the_record(ledger: Path, tmp_path: Path) -> None:
    export = tmp_path / "far.json"
    task = {
        "uuid": "5b0c2a9e-1d3f-4e5a-9b8c-7d6e5f4a3b2c",
        "description": "far",
        "status": "pending",
    }
    near = {**task, "uuid": "6c1d3b0f-2e4a-4f6b-8c9d-8e7f6a5b4c3d", "due": "20261224T000000Z"}
    export.write_text(json.dumps([{**task, "due": "95001231T000000Z"}, near]))
    report = _json("import", "taskwarrior", str(export))
    assert len(report["records"]) == 1 and "due" in str(report["skipped"][0])


def test_a_name_that_matches_nothing_is_not_said_to_be_an_import(ledger: Path) -> None:
    """`zz-nope` has the shape of a name an import keeps (gh#42, TW-12); matching nothing,
    it is told as matching nothing, not as an import that never happened."""
    shown = coop("show", "zz-nope")
    assert shown.code != 0
    assert "no item matches 'zz-nope'" in shown.err and "was imported" not in shown.err


def test_an_origin_twice_is_refused_both_times_when_the_first_is_skipped(
    ledger: Path, tmp_path: Path
) -> None:
    """The first gh#23 is skipped (a title of two lines); the second is another record
    that only says it is #23: neither is taken in as it."""
    issue = {"number": 23, "title": "Real\nor not", "body": "", "state": "OPEN"}
    other = {"number": 23, "title": "dup of 23", "body": "", "state": "OPEN"}
    fine = {"number": 24, "title": "Fine", "body": "", "state": "OPEN"}
    path = tmp_path / "issues.json"
    path.write_text(json.dumps([issue, other, fine]))
    report = _json("import", "github", str(path))
    assert [s["origin"] for s in report["skipped"]] == ["gh#23", "gh#23"]
    assert "already in this export" in report["skipped"][1]["reason"]
    assert coop("show", "gh#23").code == 1


def test_a_pasted_log_and_a_long_comment_are_kept_readable_not_dropped(
    ledger: Path, tmp_path: Path
) -> None:
    """A body with a CI log's colour codes, and a comment near GitHub's 65,536 characters
    (over a note's length once its author and time are put first): the issue comes in,
    the codes shown as their escapes and the comment cut, each said."""
    comment = {
        "author": {"login": "carol"},
        "body": "x" * 65_530,
        "createdAt": "2026-11-28T12:00:00Z",
    }
    issue = {
        "number": 40,
        "title": "Flaky test",
        "body": "log:\n\x1b[31mFAILED\x1b[0m",
        "state": "OPEN",
        "comments": [comment],
    }
    path = tmp_path / "issues.json"
    path.write_text(json.dumps([issue]))
    report = _json("import", "github", str(path))
    assert report["skipped"] == []
    said = " ".join(n for o in report["records"] for n in o.get("notices", []))
    assert "kept as their escapes" in said and "cut to" in said, report
    shown = _json("show", "gh#40")
    assert shown["body"] == "log:\n\\x1b[31mFAILED\\x1b[0m"
    [note] = shown["notes"]
    assert note["text"].endswith("more characters in the tracker]")
