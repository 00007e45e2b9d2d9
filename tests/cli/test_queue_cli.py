"""The queue through the real CLI: add, queue, scan, verify, pick, finish, edit, split."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.conftest import coop, coop_process
from tests.service.queue_fixtures import CONFIRM, Code, install


@pytest.fixture
def code(ledger: Path) -> Code:
    return install(ledger)


def add(title: str, *evidence: str) -> str:
    args = [arg for spec in evidence for arg in ("--evidence", spec)]
    result = coop("add", "item", title, "--tag", "ui", *args, "--json")
    assert result.code == 0, result.err
    return str(result.json()["short_id"])


def ready(code: Code, title: str, spec: str = "src/app.py:3") -> str:
    label = add(title, spec)
    code.plan(**{title.split()[-1]: CONFIRM})
    assert coop("verify").code == 0
    return label


def test_add_item_files_a_draft_with_evidence(code: Code) -> None:
    result = coop("add", "item", "Fix toast", "--evidence", "src/app.py:42:toast(): x", "--json")
    data = result.json()
    assert (data["status"], data["kind"], data["attempts"], data["source"]) == (
        "draft",
        "item",
        0,
        "human",
    )
    assert data["evidence"] == [
        {"path": "src/app.py", "line": 42, "quote": "toast(): x", "head": None}
    ]
    assert data["id"].startswith("it-") and data["order_key"]


def test_add_item_refuses_bad_evidence_and_sources(code: Code) -> None:
    assert coop("add", "item", "X", "--evidence", "src/app.py").code == 2
    assert coop("add", "item", "X", "--source", "robot").code == 2
    assert coop("add", "todo", "X", "--evidence", "a.py:1").code == 2


def test_an_empty_queue_points_at_scan_and_drafts_at_verify(code: Code) -> None:
    assert "git coop scan" in coop("queue").out
    add("Fix toast", "src/app.py:3")
    out = coop("queue").out
    assert "git coop verify" in out and "running low" in out
    code.plan(toast={"verdict": "unclear", "reason": "cannot find the toast"})
    coop("verify")
    assert "cannot find the toast" in coop("queue").out


def test_queue_groups_in_triage_order_with_reasons(code: Code) -> None:
    picked = ready(code, "Fix picked toast")
    assert coop("pick").code == 0
    first = ready(code, "Fix first toast")
    draft = add("Draft work", "src/app.py:9")
    blocked = add("Blocked work", "src/b.py:2")
    assert coop("edit", blocked, "--state", "blocked", "--reason", "needs design").code == 0
    coop("finish", picked, "ready", "--failure", "tests red")
    coop("pick")  # the retried item was filed first, so it is on top again
    out = coop("queue").out
    lines = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert lines[:4] == ["ready", "in_progress", "draft", "blocked"]
    assert "src/app.py:9" in out and "needs design" in out
    assert "attempts 1" in out and "last attempt: tests red" in out
    assert first in out and draft in out
    shown = coop("queue", "--json").json()
    assert [i["status"] for i in shown] == ["ready", "in_progress", "draft", "blocked"]


def test_settled_items_are_counted_and_shown_with_all(code: Code) -> None:
    label = ready(code, "Fix toast")
    coop("pick")
    assert coop("finish", label, "done", "--commit", "abc1234", "--commit-elsewhere").code == 0
    out = coop("queue").out
    assert "settled: 1 done — git coop queue --all" in out
    assert "Fix toast" in coop("queue", "--all").out


def test_scan_import_drops_collapses_trims_and_warns(code: Code, tmp_path: Path) -> None:
    findings = [
        {"title": "No evidence", "tag": "x", "evidence": []},
        {"title": "Bad evidence", "evidence": [{"line": 3}]},
        {"title": "Fix error a", "tag": "ui", "evidence": [{"path": "a.py", "line": 1}]},
        {"title": "Fix error again", "evidence": [{"path": "a.py", "line": 1}]},
        *(
            {"title": f"Fix error {n}", "evidence": [{"path": f"e{n}.py", "line": 2}]}
            for n in "bcd"
        ),
        *({"title": f"Add test {n}", "evidence": [{"path": f"t{n}.py", "line": 2}]} for n in "ab"),
    ]
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(findings))
    report = coop("scan", "--from", str(path), "--json").json()
    assert [i["title"] for i in report["added"]] == [
        "Fix error a",
        "Fix error b",
        "Fix error c",
        "Add test a",
        "Add test b",
    ]
    assert all(i["source"] == "scan" and i["status"] == "draft" for i in report["added"])
    assert report["dropped"] == ["No evidence", "Bad evidence"]
    assert report["dropped_why"] == ["no usable evidence", "no usable evidence"]
    assert report["collapsed"] == ["Fix error again"]
    assert report["trimmed"] == [{"title": "Fix error d", "shape": "fix error"}]
    assert report["lopsided"] is True
    order = [i["title"] for i in coop("queue", "--json").json()]
    assert order == [i["title"] for i in report["added"]]  # the scan's order is kept
    text = coop("scan", "--from", str(path)).out  # the cap is per batch; the rest collapse
    assert "added 1 draft\n" in text and "Fix error d" in text
    assert "collapsed (same first evidence as another item): Add test b" in text


def test_scan_of_a_missing_or_bad_file_is_a_usage_error(code: Code, tmp_path: Path) -> None:
    assert coop("scan", "--from", str(tmp_path / "nope.json")).code == 2
    (tmp_path / "bad.json").write_text("{not json")
    assert coop("scan", "--from", str(tmp_path / "bad.json")).code == 2


def test_pick_json_and_the_outcome_is_owed(code: Code) -> None:
    label = ready(code, "Fix toast")
    picked = coop("pick", "--json", "--session", "loop-1").json()
    assert picked["short_id"] == label and picked["status"] == "in_progress"
    assert picked["obligation"]["kind"] == "outcome" and picked["obligation"]["session"] == "loop-1"
    assert picked["checks"][0]["cache"] == "hit"
    later = {"COOP_NOW": "2026-11-29T13:00:00Z"}
    owed = coop("owed", "--json", env=later).json()
    assert [o["item"] for o in owed] == [picked["id"]]  # stopped mid-round: owed, never freed
    assert coop("queue", "--json", env=later).json()[0]["status"] == "in_progress"
    nothing = coop("pick")
    assert nothing.code == 5 and "nothing is ready" in nothing.err


def test_pick_text_shows_evidence_attempts_and_last_failure(code: Code) -> None:
    label = ready(code, "Fix toast")
    coop("pick")
    coop("finish", label, "ready", "--failure", "lint failed")
    code.plan(toast=CONFIRM)
    out = coop("pick").out
    assert "verified" in out  # the failed round dropped the cache: verified again
    assert "evidence src/app.py:7" in out and "attempts 1" in out
    assert "last failure: lint failed" in out


def test_finish_outcomes_and_their_rules(code: Code) -> None:
    label = ready(code, "Fix toast")
    coop("pick")
    assert coop("finish", label, "done").code == 2  # needs --commit
    assert coop("finish", label, "maybe").code == 2
    other = coop("finish", label, "closed", "--reason", "x", env={"COOP_ACTOR": "bob@x"})
    assert other.code == 1 and "picked by alice" in other.err
    blocked = coop("finish", label, "blocked", "--reason", "no access", "--json").json()
    assert (blocked["status"], blocked["blocked_reason"]) == ("blocked", "no access")
    assert (blocked["taken_by"], blocked["obligation"]["status"]) == (
        "alice@example.com",
        "pending",
    )
    closed = coop("finish", label, "closed", "--reason", "won't fix", "--json").json()
    assert closed["status"] == "closed" and closed["obligation"]["status"] == "resolved"


def test_work_its_holder_reported_blocked_is_still_theirs_in_prime(code: Code) -> None:
    label = ready(code, "Fix toast")
    coop("pick")
    assert coop("finish", label, "blocked", "--reason", "needs a railed path").code == 0
    text = coop("prime").out
    you_hold = text.split("## You hold")[1].split("##")[0]
    assert "Fix toast" in you_hold, text


def test_edit_orders_between_neighbours_without_renumbering(code: Code) -> None:
    a, b, c = (add(f"Item {n}", f"src/{n}.py:1") for n in "abc")
    keys = {i["short_id"]: i["order_key"] for i in coop("queue", "--json").json()}
    assert coop("edit", c, "--before", b).code == 0
    after = {i["short_id"]: i["order_key"] for i in coop("queue", "--json").json()}
    assert [i["short_id"] for i in coop("queue", "--json").json()] == [a, c, b]
    assert after[a] == keys[a] and after[b] == keys[b]  # only the moved item changed
    assert coop("edit", a, "--after", b).code == 0
    assert [i["short_id"] for i in coop("queue", "--json").json()] == [c, b, a]
    assert coop("edit", a, "--title", "Renamed", "--json").json()["title"] == "Renamed"
    assert coop("edit", a, "--state", "in_progress").code == 2  # not a state edit sets
    assert coop("edit", a).code == 2


def test_split_into_children_closes_the_parent_when_all_settle(code: Code) -> None:
    parent = add("Rework the toast system", "src/app.py:3")
    code.plan(toast={"verdict": "too-big", "reason": "several rounds"})
    coop("verify")
    split = coop("split", parent, "--into", "Fix toast A", "--into", "Fix toast B", "--json")
    data = split.json()
    assert data["status"] == "split"
    children = [c["short_id"] for c in data["children"]]
    assert all(c["parent_id"] == data["id"] and c["status"] == "draft" for c in data["children"])
    code.plan(A=CONFIRM, B={"verdict": "stale", "reason": "gone"})
    coop("verify")
    coop("pick")
    out = coop("finish", children[0], "done", "--commit", "abc1234", "--commit-elsewhere")
    assert "all its children are settled" in out.out
    parent_now = coop("show", parent, "--json").json()
    assert parent_now["status"] == "closed"


def test_the_real_git_coop_process_runs_the_queue(code: Code) -> None:
    label = ready(code, "Fix toast")
    result = coop_process(code.path, "pick", "--json")
    assert result.code == 0, result.err
    assert json.loads(result.out)["short_id"] == label


def test_a_blocked_round_shows_under_blocked_with_its_holder(code: Code) -> None:
    label = ready(code, "Fix toast")
    coop("pick")
    finished = coop("finish", label, "blocked", "--reason", "needs a railed path")
    assert finished.code == 0, finished.err
    out = coop("queue").out
    groups = [line.split()[0] for line in out.splitlines() if not line.startswith(" ")]
    assert groups[:1] == ["blocked"] and "in_progress" not in groups
    assert "[taken by alice@example.com" in out and "needs a railed path" in out
    owed = coop("owed", "--json").json()
    assert [entry["item"] for entry in owed] == [coop("show", label, "--json").json()["id"]]
    assert coop("fsck").code == 0
    held = coop("list", "--holder", "alice", "--json").json()
    assert [(i["short_id"], i["status"]) for i in held] == [(label, "blocked")]
    assert "Fix toast" in coop("status").out  # still the holder's work
    back = coop("report", label, "unblocked", "--json").json()
    assert (back["status"], back["blocked_reason"]) == ("in_progress", None)


def test_each_queued_item_reads_on_three_lines_as_seed_004_lays_them_out(code: Code) -> None:
    retried = ready(code, "Fix retried toast", "src/app.py:9")
    coop("pick")
    coop("finish", retried, "ready", "--failure", "tests red")
    draft = add("Draft work", "src/d.py:4")
    full = {i["title"]: i["id"] for i in coop("queue", "--json").json()}
    lines = coop("queue").out.splitlines()
    at = lines.index(next(line for line in lines if "Fix retried toast" in line))
    head, facts, reason = lines[at : at + 3]
    assert head.split()[0] == full["Fix retried toast"][:12]  # the first twelve characters
    assert facts.split() == ["src/app.py:7", "attempts", "1"]  # the cited evidence
    assert reason.strip() == "last attempt: tests red"
    assert len(facts) - len(facts.lstrip()) > len(head) - len(head.lstrip())  # under it
    at = lines.index(next(line for line in lines if "Draft work" in line))
    assert lines[at].split()[0] == full["Draft work"][:12] and draft in full["Draft work"]
    assert lines[at + 1].split() == ["src/d.py:4"]  # no attempts yet: not said


def test_an_empty_queue_is_one_line_pointing_at_scan(code: Code) -> None:
    out = coop("queue").out
    assert out == "the queue is empty — import findings with: git coop scan --from FILE\n"


def test_pick_takes_fields_of_its_own_that_the_agent_loop_reads(code: Code) -> None:
    """The README's loop reads `.picked`; `--fields picked` was refused as no item field."""
    ready(code, "Fix toast")
    picked = coop("pick", "--fields", "picked,id,verified")
    assert picked.code == 0, picked.out
    shown = picked.json()
    assert set(shown) == {"picked", "id", "verified"} and shown["picked"] == shown["id"]


def test_a_dropped_finding_says_why(code: Code, tmp_path: Path) -> None:
    findings = [
        {"title": "two\nlines", "evidence": ["src/app.py:1"]},
        {"title": "  ", "evidence": ["src/app.py:1"]},
        {"evidence": ["src/app.py:1"]},
    ]
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(findings))
    why = coop("scan", "--from", str(path), "--json").json()["dropped_why"]
    assert "one line" in why[0] and why[1:] == ["an empty title", "no title"]
    text = coop("scan", "--from", str(path)).out
    assert "dropped (no usable evidence)" not in text and "dropped (an empty title)" in text
