"""A stranger's export given to `git coop import` (and a findings file to `scan`).

Each record is checked as the command line's input is, and a record that breaks a rule
is skipped whole, the rest imported (docs/import.md): nesting deeper than Python's parser
goes, a time past what a date holds in UTC and a title holding what draws nothing were
each an exit 70 or a refusal of the whole import. A task file linking out of the folder
given is not read. And an import never writes a commit its peers refuse: one commit adds
at most `bounds.MAX_EVENTS` events (H7), so a large export goes in as several.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Clones, coop, coop_in, git

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


def test_an_import_never_writes_a_commit_peers_refuse(clones: Clones, tmp_path: Path) -> None:
    alice = clones.clone("alice")
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "sync").code == 0
    # 503 issues of 199 comments each: 100,600 events in the import's one commit
    issues = [
        {
            "number": n + 1,
            "title": f"issue {n}",
            "state": "OPEN",
            "comments": [{"body": f"comment {c}"} for c in range(199)],
        }
        for n in range(503)
    ]
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(issues))
    done = coop_in(alice, "import", "github", str(export))
    if done.code == 0:  # written: then it must be a ledger every clone accepts
        pushed = coop_in(alice, "sync")
        assert pushed.code == 0, pushed.err
        bob = clones.clone("bob")
        synced = coop_in(bob, "sync")
        assert synced.code == 0, synced.err  # refused: exit 4 for every teammate
        checked = coop_in(alice, "fsck")
        assert checked.code == 0, checked.out  # [state] adds 100600 events — at most 100,000


# -- 4. one hostile title stops the whole import (docs/import.md: skipped, not all) -----


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


def test_an_import_too_big_for_one_commit_is_written_in_several(
    ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With one commit's events made small, an import goes in as many commits as it needs,
    each within the bound; a write that cannot fit one commit is refused whole."""
    from gitcoop.domain import bounds

    monkeypatch.setattr(bounds, "MAX_EVENTS", 12)
    issues = [
        {"number": n, "title": f"issue {n}", "state": "OPEN", "comments": [{"body": "c"}]}
        for n in range(1, 4)
    ]
    export = tmp_path / "issues.json"
    export.write_text(json.dumps(issues))
    before = int(git(ledger, "rev-list", "--count", LEDGER))
    done = coop("import", "github", str(export))
    assert done.code == 0, done.err
    assert int(git(ledger, "rev-list", "--count", LEDGER)) - before == 3  # 10 events a part
    assert len(coop("list", "--json").json()) == 3

    tip = _tip(ledger)
    chatty = [{"number": 9, "title": "chatty", "state": "OPEN", "comments": [{"body": "c"}] * 12}]
    export.write_text(json.dumps(chatty))
    refused = coop("import", "github", str(export))
    assert refused.code == 1 and "adds at most 12" in refused.err, refused.err
    assert _tip(ledger) == tip  # nothing written
