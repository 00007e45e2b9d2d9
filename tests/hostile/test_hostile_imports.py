"""A stranger's export given to `git coop import` (and a findings file to `scan`).

Each record is checked as the command line's input is, and a record that breaks a rule
is skipped whole, the rest imported (docs/import.md): nesting deeper than Python's parser
goes, a time past what a date holds in UTC and a title holding what draws nothing were
each an exit 70 or a refusal of the whole import. A task file linking out of the folder
given is not read. And an import never writes a commit its peers refuse: one commit adds
at most `bounds.MAX_EVENTS` events (H7), and a larger import is refused whole.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import coop, git

LEDGER = "refs/coop/ledger"


def _tip(path: Path) -> str:
    return git(path, "rev-parse", LEDGER).strip()


# -- 1. deep nesting: RecursionError is no ValueError -> exit 70 --------------------


def test_a_deeply_nested_json_line_is_refused_not_a_crash(ledger: Path, tmp_path: Path) -> None:
    export = tmp_path / "issues.jsonl"
    good = json.dumps({"id": "bd-a1", "title": "fine"})
    export.write_text(good + "\n" + "[" * 100_000 + "]" * 100_000 + "\n")
    done = coop("import", "beads", str(export))
    assert done.code != 70, done.err  # exit 70: "unexpected error (RecursionError ...)"
    assert done.code == 0 and "skipped line 2" in done.out  # the one bad line skipped


def test_a_deeply_nested_json_array_is_a_usage_error_not_a_crash(
    ledger: Path, tmp_path: Path
) -> None:
    export = tmp_path / "issues.json"
    export.write_text("[" + "[" * 100_000 + "]" * 100_000 + "]")
    tip = _tip(ledger)
    done = coop("import", "github", str(export))
    assert done.code in (1, 2), (done.code, done.err)  # is 70 (RecursionError)
    assert _tip(ledger) == tip


def test_a_deeply_nested_findings_file_is_a_usage_error_not_a_crash(
    ledger: Path, tmp_path: Path
) -> None:
    findings = tmp_path / "findings.json"
    findings.write_text("[" * 100_000 + "]" * 100_000)
    done = coop("scan", "--from", str(findings))
    assert done.code == 2, (done.code, done.err)  # is 70 (RecursionError)


# -- 2. a time whose offset moves it past year 1..9999: OverflowError -> exit 70 -------


def test_a_time_that_overflows_in_utc_skips_its_record(ledger: Path, tmp_path: Path) -> None:
    export = tmp_path / "issues.jsonl"
    lines = [
        {"id": "bd-ok", "title": "fine"},
        {"id": "bd-late", "title": "x", "created_at": "9999-12-31T23:59:59-01:00"},
    ]
    export.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = coop("import", "beads", str(export))
    # import.md: "a time that is not one ... is reported by where it is and skipped whole"
    assert done.code == 0, (done.code, done.err)  # is 70: OverflowError: date value out of range
    assert "skipped line 2" in done.out


# -- 3. one import commit past H7's bound: a ledger no peer (nor fsck) accepts -------------


def test_a_title_with_a_hidden_character_skips_that_record_only(
    ledger: Path, tmp_path: Path
) -> None:
    export = tmp_path / "issues.jsonl"
    lines = [
        {"id": "bd-ok", "title": "fine"},
        {"id": "bd-zw", "title": "zero\u200bwidth"},
    ]
    export.write_text("".join(json.dumps(line) + "\n" for line in lines))
    done = coop("import", "beads", str(export))
    assert done.code == 0, (done.code, done.err)  # is 2: the whole import refused
    assert "skipped line 2" in done.out
    assert coop("show", "bd-ok").code == 0


# -- 5. Backlog.md: a symlink in the folder reads a file outside it -----------------------


def test_a_symlinked_task_file_outside_the_folder_is_not_read(ledger: Path, tmp_path: Path) -> None:
    private = tmp_path / "private"
    private.mkdir()
    (private / "notes.md").write_text(
        "---\nid: task-9\ntitle: Leaked\nstatus: To Do\n---\n\n"
        "## Description\n\nSECRET from outside the folder\n"
    )
    folder = tmp_path / "backlog"
    (folder / "tasks").mkdir(parents=True)
    os.symlink(private / "notes.md", folder / "tasks" / "task-9 - leak.md")
    coop("import", "backlog", str(folder))
    shown = coop("show", "task-9", "--json")
    assert shown.code != 0 or "SECRET" not in shown.out, "read through a symlink out of the folder"


def test_an_import_too_big_for_one_commit_is_refused_whole(
    ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An export of 503 issues with 199 comments each went in as one commit of 100,600
    events, which every peer's sync and the importer's own fsck refused. A clone never
    writes what its peers refuse: past one commit's events (made small here), the import
    is refused whole, nothing written, saying what to do."""
    from gitcoop.domain import bounds

    monkeypatch.setattr(bounds, "MAX_EVENTS", 12)
    issues = [
        {"number": n, "title": f"issue {n}", "state": "OPEN", "comments": [{"body": "c"}] * 4}
        for n in range(1, 4)
    ]
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(issues[:3]))
    tip = _tip(ledger)
    refused = coop("import", "github", str(export))
    assert refused.code == 1, refused.err
    assert "adds at most 12" in refused.err and "split its export" in refused.err
    assert _tip(ledger) == tip  # nothing written
    export.write_text(json.dumps(issues[:2]))  # 10 events: one commit
    assert coop("import", "github", str(export)).code == 0
    assert len(coop("list", "--json").json()) == 2
