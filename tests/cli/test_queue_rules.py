"""The queue's rules through the CLI, one test per rule, with a fake verifier process.

Each test commits real code, steers the fake verifier (tests/service/fake_verifier.py)
and runs `git coop` in-process, or as a real process where a terminal or a
pipe matters.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import coop, git
from tests.service.queue_fixtures import CONFIRM, Code, install


@pytest.fixture
def code(ledger: Path) -> Code:
    return install(ledger)


def add(title: str, *evidence: str) -> str:
    args = [arg for spec in evidence for arg in ("--evidence", spec)]
    result = coop("add", "item", title, "--tag", "ui", *args, "--json")
    assert result.code == 0, result.err
    return str(result.json()["id"])


def ready(code: Code, title: str = "Fix toast", spec: str = "src/app.py:3") -> str:
    """An item the verifier confirmed at the current HEAD."""
    item_id = add(title, spec)
    code.plan(**{title.split()[-1]: CONFIRM})
    assert coop("verify").code == 0
    assert show(item_id)["status"] == "ready"
    return item_id


def show(item_id: str) -> dict[str, Any]:
    result = coop("show", item_id, "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def head(code: Code) -> str:
    return git(code.path, "rev-parse", "HEAD").strip()


def pick_json(*args: str) -> tuple[int, dict[str, Any]]:
    result = coop("pick", "--json", *args)
    return result.code, json.loads(result.out)


# -- evidence ages honestly -----------------------------------------------------------


def move_head(code: Code, move: str) -> None:
    """Move HEAD so that the HEAD the evidence was cached at is no longer its ancestor."""
    if move == "backwards":
        git(code.path, "reset", "-q", "--hard", "HEAD~1")
    elif move == "sideways":
        git(code.path, "checkout", "-q", "-b", "side", "HEAD~1")
        code.commit("docs/notes.md", "elsewhere\n")
    else:  # the branch the item was judged on is rebased onto a newer main
        git(code.path, "checkout", "-q", "main")
        code.commit("docs/notes.md", "main moved\n")
        git(code.path, "checkout", "-q", "topic")
        git(code.path, "rebase", "-q", "main")


@pytest.mark.parametrize("move", ["backwards", "sideways", "rebase"])
def test_head_moved_backwards_sideways_or_past_a_rebase_reverifies(code: Code, move: str) -> None:
    if move == "rebase":
        git(code.path, "checkout", "-q", "-b", "topic")
    code.commit("src/app.py", "line\n" * 50 + "more\n")
    item_id = ready(code)
    cached = head(code)
    move_head(code, move)
    assert git(code.path, "cat-file", "-t", cached).strip() == "commit"  # still there
    assert git(code.path, "merge-base", "--is-ancestor", cached, "HEAD", check=False) == ""
    status, picked = pick_json()
    assert status == 0, picked
    assert picked["id"] == item_id
    checks = picked["checks"]
    assert [(c["cache"], c["action"]) for c in checks] == [("moved", "verify"), ("hit", "use")]
    assert "ancestor" in str(checks[0]["why"])
    assert code.calls() == [item_id, item_id]  # asked again, not handed stale lines


def test_a_merge_counts_once_per_first_parent_step(code: Code) -> None:
    item_id = ready(code)
    git(code.path, "checkout", "-q", "-b", "feature")
    for n in range(25):
        code.commit("src/app.py", f"line {n}\n" * 50)
    git(code.path, "checkout", "-q", "main")
    git(code.path, "merge", "-q", "--no-ff", "-m", "merge feature", "feature")
    status, picked = pick_json()
    assert status == 0
    assert picked["id"] == item_id
    assert [(c["cache"], c["touching"], c["action"]) for c in picked["checks"]] == [
        ("moved", 1, "reuse")
    ]


def confirm_citing(path: str, line: int | None = 7, quote: str | None = "line") -> dict[str, Any]:
    return {
        "verdict": "confirmed",
        "reason": "the code shows it",
        "evidence": [{"path": path, "line": line, "quote": quote}],
    }


def test_evidence_paths_are_normalised_and_must_name_real_lines_and_quotes(code: Code) -> None:
    code.commit("src/app.py", "def toast():\n" + "line\n" * 49)
    absolute = str(code.path / "src" / "app.py")
    cases = {
        "dotted": (confirm_citing("./src/app.py"), "ready", None),
        "absolute": (confirm_citing(absolute), "ready", None),
        "missing": (confirm_citing("src/nope.py"), "draft", "src/nope.py is not a file"),
        "past": (confirm_citing("src/app.py", 999), "draft", "line 999 is past the end"),
        "quote": (confirm_citing("src/app.py", 40, "def toast"), "draft", "the quote"),
        "outside": (confirm_citing("/etc/passwd", 1, None), "draft", "outside the repository"),
        "folder": (confirm_citing("src", None, None), "draft", "src is not a file"),
    }
    code.plan(**{name: verdict for name, (verdict, _, _) in cases.items()})
    ids = {name: add(f"Item {name}", "src/app.py:3") for name in cases}
    assert coop("verify").code == 0
    for name, (_, status, reason) in cases.items():
        item = show(ids[name])
        assert item["status"] == status, (name, item)
        if reason is None:
            assert [e["path"] for e in item["evidence"]] == ["src/app.py"]
        else:
            assert reason in str(item["reason"]), (name, item["reason"])
    near = confirm_citing("src/app.py", 4, "def toast():")  # three lines off: near enough
    code.plan(near=near)
    assert show(add("Item near", "src/app.py:3"))["status"] == "draft"
    coop("verify")
    assert [i["status"] for i in coop("queue", "--json").json() if i["title"] == "Item near"] == [
        "ready"
    ]


def test_add_item_warns_about_evidence_that_is_not_in_the_tree(code: Code) -> None:
    result = coop("add", "item", "Fix it", "--evidence", "./src/app.py:7:line", "--json")
    assert result.code == 0 and result.err == ""
    assert result.json()["evidence"][0]["path"] == "src/app.py"
    ahead = coop("add", "item", "Fix new", "--evidence", "src/new.py:3", "--json")
    assert ahead.code == 0  # filed anyway: a person may be ahead of the tree
    assert "warning" in ahead.err and "src/new.py is not a file" in ahead.err
    assert ahead.json()["status"] == "draft"
    past = coop("add", "item", "Fix past", "--evidence", "src/app.py:51")
    assert past.code == 0 and "line 51 is past the end of src/app.py (50 lines)" in past.err


def test_nothing_is_picked_unverified_whatever_made_it_ready(code: Code) -> None:
    bare = add("Fix bare toast")  # no evidence at all
    assert coop("edit", bare, "--state", "ready").code == 0
    parent = add("Rework the toast system")
    code.plan(system={"verdict": "too-big", "reason": "three rounds of work"})
    coop("verify")
    split = coop("split", parent, "--into", "Fix child one", "--into", "Fix child two", "--json")
    child = split.json()["children"][0]["id"]
    assert coop("edit", child, "--state", "ready").code == 0
    code.plan(bare=CONFIRM, child=CONFIRM)
    for expected in (bare, child):
        status, picked = pick_json()
        assert status == 0 and picked["id"] == expected
        first = picked["checks"][0]
        assert (first["cache"], first["action"]) == ("miss", "verify")
        assert picked["evidence"] and picked["evidence"][0]["path"] == "src/app.py"
    assert code.calls().count(bare) == 1 and code.calls().count(child) == 1


def test_a_hand_off_without_evidence_says_to_find_the_place_first() -> None:
    from datetime import UTC, datetime

    from gitcoop.cli.queue_render import picked_text
    from gitcoop.domain.ids import ItemId
    from gitcoop.domain.records import Evidence, Item
    from gitcoop.service.writer import Shown

    at = datetime(2026, 11, 29, tzinfo=UTC)
    item = Item(ItemId("it-aaaaaaaaaaaa"), "item", "Fix it", "in_progress", at, "a@x")
    text = picked_text(Shown(item, "it-aaaa"))
    assert "no evidence" in text and "find the place in the code first" in text
    cited = picked_text(Shown(Item(**{**item.__dict__, "evidence": (Evidence("a.py", 3),)}), "x"))
    assert "evidence a.py:3" in cited and "no evidence" not in cited


# -- the loop never stalls or lies -----------------------------------------------------


def test_pick_runs_the_draft_pass_when_nothing_is_ready(code: Code) -> None:
    unsure, good, later = (
        add(f"Fix {w} toast", "src/app.py:3") for w in ("unsure", "good", "later")
    )
    code.plan(good=CONFIRM, default={"verdict": "unclear", "reason": "cannot tell"})
    status, picked = pick_json()
    assert status == 0 and picked["picked"] == good and picked["id"] == good
    assert [(v["item"], v["status"]) for v in picked["verified"]] == [
        (unsure, "draft"),
        (good, "ready"),
    ]
    assert code.calls() == [unsure, good]  # one at a time, until one was ready
    text = coop("pick", "--max-verify", "1")
    assert text.code == 5  # nothing to do: distinct from a refusal (1)
    assert f"verified {show(unsure)['short_id']} unclear" in text.out
    assert "verified 1 item: 1 draft" in text.out
    assert "made its 1 verifier calls (--max-verify 1)" in text.err
    status, answer = pick_json("--max-verify", "3")
    nothing = answer["error"]  # exit 5: the error object, what the pick did inside it
    assert status == 5 and set(answer) == {"error"} and nothing["code"] == "nothing_to_do"
    assert [v["item"] for v in nothing["verified"]] == [unsure, later]  # each asked once
    assert nothing["message"] == (
        "nothing is ready to pick; the queue holds 2 draft, 1 in_progress; "
        "verified 2 in this pick (2 draft)"
    )


def test_pick_json_always_prints_json(code: Code) -> None:
    status, empty = pick_json()
    assert status == 5
    reason = "the queue is empty — import findings with: git coop scan --from FILE"
    assert empty == {
        "error": {
            "code": "nothing_to_do",
            "exit": 5,
            "message": reason,
            "checks": [],
            "verified": [],
        }
    }
    add("Fix toast", "src/app.py:3")
    git(code.path, "config", "--unset", "coop.verifier")
    status, refused = pick_json()
    assert status == 1 and refused["error"]["code"] == "refused"
    assert "git config coop.verifier" in refused["error"]["message"]
    assert refused["error"]["verified"] == []
    bad = coop("pick", "--json", "--max-verify", "-1")  # out of the option's declared range
    assert bad.code == 2 and json.loads(bad.out)["error"]["code"] == "usage"


def ledger_tip(code: Code) -> str:
    return git(code.path, "rev-parse", "refs/coop/ledger").strip()


def test_finish_takes_expect_version_and_an_identical_repeat_writes_nothing(code: Code) -> None:
    item_id = ready(code)
    assert coop("pick").code == 0
    version = int(show(item_id)["version"])
    stale = coop("finish", item_id, "blocked", "--reason", "no access", "--expect-version", "1")
    assert stale.code == 3 and "version" in stale.err
    blocked = ["finish", item_id, "blocked", "--reason", "no access"]
    assert coop(*blocked, "--expect-version", str(version)).code == 0
    tip = ledger_tip(code)
    again = coop(*blocked)
    assert again.code == 0 and "unchanged" in again.out and ledger_tip(code) == tip
    done = ["finish", item_id, "done", "--commit", "HEAD"]
    assert coop(*done).code == 0
    tip = ledger_tip(code)
    repeat = coop(*done, "--json", "--expect-version", str(version + 2))
    assert repeat.code == 0 and repeat.json()["status"] == "done"
    assert ledger_tip(code) == tip
    unknown = coop("finish", item_id, "done", "--commit", "abc1234")
    assert unknown.code == 2 and "--commit-elsewhere" in unknown.err  # no such commit here
    other = coop("finish", item_id, "done", "--commit", "abc1234", "--commit-elsewhere")
    assert other.code == 1  # a different ending is not a repeat
    retry = ready(code, "Fix retry toast")
    coop("pick")
    failed = ["finish", retry, "ready", "--failure", "tests red"]
    assert coop(*failed).code == 0
    tip = ledger_tip(code)
    assert coop(*failed).code == 0 and ledger_tip(code) == tip
    assert show(retry)["attempts"] == 1


def test_verify_exits_non_zero_when_a_verdict_could_not_be_written_back(code: Code) -> None:
    from tests.service.queue_fixtures import GIT_COOP

    item_id = add("Fix toast", "src/app.py:3")
    code.plan(toast={**CONFIRM, "run": f"{GIT_COOP} edit $SELF --title 'Fix renamed toast'"})
    result = coop("verify")
    assert result.code == 3
    assert "could not be written back" in result.out and "run git coop verify again" in result.err
    assert show(item_id)["status"] == "verifying"
    code.plan(renamed=CONFIRM)
    assert coop("verify").code == 0  # the edit ended the lease: verified at once
    assert show(item_id)["status"] == "ready"


def test_a_verdict_needs_a_reason_and_is_found_before_an_echoed_prompt(code: Code) -> None:
    no_reason = {k: v for k, v in CONFIRM.items() if k != "reason"}
    code.plan(
        silent=no_reason,
        echoed={**CONFIRM, "echo_after": True},
        stale={"verdict": "stale", "reason": ""},
    )
    silent = add("Fix silent toast", "src/app.py:3")
    echoed = add("Fix echoed toast", "src/app.py:3")
    stale = add("Fix stale toast", "src/app.py:3")
    coop("verify")
    assert show(silent)["status"] == "draft"
    assert "(confirmed) gives no reason" in str(show(silent)["reason"])
    assert show(stale)["status"] == "draft"
    assert show(echoed)["status"] == "ready"
    assert "always required" in code.prompt(silent)


def test_a_verifier_whose_background_child_holds_the_pipe_is_judged_when_it_exits(
    ledger: Path,
) -> None:
    code = install(ledger, timeout="15s")
    item_id = add("Fix toast", "src/app.py:3")
    code.plan(toast={**CONFIRM, "run": "sleep 60 &"})
    result = coop("verify", "--json")
    assert result.code == 0, result.err
    [judged] = result.json()
    assert (judged["timed_out"], judged["verdict"], judged["exit_code"]) == (False, "confirmed", 0)
    assert show(item_id)["status"] == "ready"


def test_a_huge_transcript_is_read_from_its_end_in_bounded_memory(code: Code) -> None:
    import tracemalloc

    item_id = add("Fix toast", "src/app.py:3")
    flood = "head -c 48000000 /dev/zero | tr '\\\\0' x; echo"
    code.plan(toast={**CONFIRM, "run": flood})
    tracemalloc.start()
    try:
        result = coop("verify")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.code == 0, result.err
    assert show(item_id)["status"] == "ready"
    assert peak < 24_000_000  # the 48 MB transcript was never held whole


def test_a_duplicate_must_name_an_open_item(code: Code) -> None:
    from tests.service.queue_fixtures import GIT_COOP

    settled = ready(code, "Fix settled toast")
    coop("pick")
    coop("finish", settled, "closed", "--reason", "done elsewhere")
    first = add("Fix first toast", "src/app.py:3")
    second = add("Fix second toast", "src/app.py:4")
    third = add("Fix third toast", "src/app.py:5")
    closing = add("Fix closing toast", "src/app.py:6")
    later = add("Fix later toast", "src/app.py:7")

    def dup(of: str, **extra: object) -> dict[str, object]:
        return {"verdict": "duplicate", "duplicate_of": of, "reason": "the same", **extra}

    code.plan(
        first=dup(second),  # lands: second is open
        second=dup(first),  # first is a duplicate now: mutual duplicates are refused
        third=dup(settled),  # a settled item
        later=dup(closing, run=f"{GIT_COOP} edit {closing} --state closed --reason gone"),
    )
    coop("verify")
    assert (show(first)["status"], show(first)["duplicate_of"]) == ("duplicate", second)
    assert show(second)["status"] == "draft" and show(second)["duplicate_of"] is None
    assert "not another open item" in str(show(second)["reason"])
    assert show(third)["status"] == "draft"
    # closed while the verifier ran: checked again as the verdict is written
    assert show(later)["status"] == "draft"
    assert "which is closed, not an open item" in str(show(later)["reason"])


def test_verification_at_pick_time_is_by_the_picking_runner(code: Code) -> None:
    item_id = add("Fix toast", "src/app.py:3")
    code.plan(toast=CONFIRM)
    status, picked = pick_json("--session", "loop-7", "--as", "runner@example.com")
    assert status == 0 and picked["id"] == item_id
    events = coop("log", item_id, "--json").json()
    verify, verdict, pick = events[-3:]
    assert [e["verb"] for e in (verify, verdict, pick)] == ["verify", "verdict", "pick"]
    for event in (verify, verdict):
        assert (event["actor"], event["session"]) == ("runner@example.com", "loop-7")
        assert event["verified_by"] == "runner" and event["for_pick"] == pick["run"]
    passed = add("Fix passed toast", "src/app.py:3")
    code.plan(passed=CONFIRM)
    coop("verify", "--as", "runner@example.com")
    by_pass = coop("log", passed, "--json").json()[-1]
    assert (by_pass["actor"], by_pass["verified_by"], by_pass.get("for_pick")) == (
        "system",
        "pass",
        None,
    )
    commits = git(code.path, "log", "--format=%ae %s", "-3", "refs/coop/ledger").splitlines()
    assert all(line.split()[0] == "system" for line in commits[:2])


# -- leftovers are cleared -----------------------------------------------------------------


def test_blocked_reason_is_cleared_when_an_item_leaves_blocked(code: Code) -> None:
    edited = add("Fix edited toast", "src/app.py:3")
    coop("edit", edited, "--state", "blocked", "--reason", "needs design")
    assert show(edited)["blocked_reason"] == "needs design"
    coop("edit", edited, "--state", "closed", "--reason", "dropped")
    assert show(edited)["blocked_reason"] is None
    reported = ready(code)
    coop("pick")
    coop("finish", reported, "blocked", "--reason", "no access")
    assert show(reported)["blocked_reason"] == "no access"  # a report: still in progress
    coop("finish", reported, "done", "--commit", "HEAD")
    assert show(reported)["blocked_reason"] is None


def test_a_huge_verifier_timeout_is_a_usage_error_that_leaves_nothing_verifying(
    code: Code,
) -> None:
    item_id = add("Fix toast", "src/app.py:3")
    for cap in ("99999d", "0s", "soon"):
        git(code.path, "config", "coop.verifierTimeout", cap)
        for command in (("verify",), ("pick",)):
            result = coop(*command)
            assert result.code == 2, (cap, command, result.err)
            assert "coop.verifierTimeout" in result.err and "1s to 24h" in result.err
            assert show(item_id)["status"] == "draft"
    assert code.calls() == []


def test_two_verify_passes_never_verify_one_item_twice(code: Code) -> None:
    from tests.service.queue_fixtures import GIT_COOP

    held = add("Fix held toast", "src/app.py:3")
    other = add("Fix other toast", "src/app.py:4")
    second_pass = code.path / ".git" / "second-pass.json"
    # while the first pass is verifying `held`, a second pass runs
    code.plan(held={**CONFIRM, "run": f"{GIT_COOP} verify --json > {second_pass}"}, other=CONFIRM)
    first = coop("verify", "--json")
    assert first.code == 0, first.err
    assert [j["item"] for j in first.json()] == [held]  # `other` was verified meanwhile
    assert [j["item"] for j in json.loads(second_pass.read_text())] == [other]
    assert sorted(code.calls()) == sorted([held, other])  # each asked once
    assert show(held)["status"] == show(other)["status"] == "ready"
    assert show(held)["lease"] is None


def test_a_stranded_verifying_item_is_reclaimed_after_its_lease(code: Code) -> None:
    from tests.conftest import coop_process

    item_id = add("Fix toast", "src/app.py:3")
    code.plan(toast={**CONFIRM, "kill_runner": True})
    killed = coop_process(code.path, "verify")
    assert killed.code == 128 + 9, killed  # git: git-coop died of signal 9 (SIGKILL)
    stranded = show(item_id)
    assert stranded["status"] == "verifying"
    assert stranded["lease"]["by"] == "system"
    assert stranded["lease"]["until"] == "2026-11-29T10:06:00Z"  # the 5m cap and a minute
    code.plan(toast=CONFIRM)
    held = coop("verify")
    assert held.code == 0 and "nothing to verify" in held.out  # its lease still holds
    later = coop("verify", env={"COOP_NOW": "2026-11-29T10:06:00Z"})
    assert later.code == 0 and show(item_id)["status"] == "ready"
    assert code.calls() == [item_id, item_id]


# -- verify streams ---------------------------------------------------------------------


def test_each_verdict_is_printed_as_it_lands(code: Code) -> None:
    import os
    import subprocess
    import sys

    first = add("Fix first toast", "src/app.py:3")
    add("Fix second toast", "src/app.py:4")
    out = code.path / ".git" / "verify.out"
    seen = code.path / ".git" / "seen.out"
    code.plan(first=CONFIRM, second={**CONFIRM, "run": f"cp {out} {seen}"})
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    env["COOP_PROGRESS_DELAY"] = "0"  # shown at once (by default after half a second)
    with out.open("w") as sink:
        done = subprocess.run(["git", "coop", "verify"], cwd=code.path, stdout=sink, env=env)
    assert done.returncode == 0
    label = show(first)["short_id"]
    assert seen.read_text() == f"{label} confirmed -> ready (the code shows it) [exit 0]\n"
    assert "verifying" not in out.read_text()  # no progress line into a file


def test_a_progress_line_shows_on_a_terminal_only(code: Code) -> None:
    import os
    import pty
    import subprocess
    import sys

    from tests.conftest import coop_process

    add("Fix first toast", "src/app.py:3")
    add("Fix second toast", "src/app.py:4")
    code.plan(default=CONFIRM)
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    env["COOP_PROGRESS_DELAY"] = "0"  # shown at once (by default after half a second)
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        ["git", "coop", "verify"], cwd=code.path, stdout=follower, stderr=follower, env=env
    )
    os.close(follower)
    screen = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:
            break
        if not chunk:
            break
        screen += chunk
    assert process.wait() == 0
    os.close(leader)
    text = screen.decode().replace("\x1b[K", "")  # (each redraw clears the rest of its line)
    assert "verifying: 0% (0/2) it-" in text and "verifying: 50% (1/2) it-" in text
    assert "verifying: 100% (2/2), done." in text
    assert text.count("confirmed -> ready") == 2
    code.plan(default={"verdict": "unclear", "reason": "no"})
    add("Fix third toast", "src/app.py:5")
    piped = coop_process(code.path, "verify")
    assert piped.code == 0 and "verifying" not in piped.out + piped.err


# -- settings, scan ---------------------------------------------------------------------


def test_config_shows_sets_and_resets_the_queue_settings(code: Code) -> None:
    shown = {s["key"]: s for s in coop("config", "--json").json()}
    assert {k: (s["value"], s["default"], s["set"]) for k, s in shown.items()} == {
        "max_same_shape": (3, 3, False),
        "topup_threshold": (5, 5, False),
        "topup_size": (10, 10, False),
        "require_signed": (False, False, False),
        "verifier": (None, None, False),
    }
    text = coop("config").out
    assert "topup_threshold  5" in text and "(the default)" in text
    assert coop("config", "topup_size", "4").code == 0
    assert coop("config", "topup_size", "--json").json()["value"] == 4
    assert "(default 10)" in coop("config", "topup_size").out
    events = coop("log", "--json").json()
    assert (events[-1]["verb"], events[-1]["key"], events[-1]["value"]) == (
        "config",
        "topup_size",
        4,
    )
    for bad in (("max_same_shape", "0"), ("max_same_shape", "ten"), ("topup_size", "10001")):
        result = coop("config", *bad)
        assert result.code == 2 and "whole number from" in result.err, bad
    assert coop("config", "colour", "blue").code == 2
    assert coop("config", "--reset").code == 2
    tip = ledger_tip(code)
    assert coop("config", "max_same_shape", "3", "--as", "bob@example.com").code == 1  # owners only
    assert ledger_tip(code) == tip
    add("Fix toast", "src/app.py:3")
    low = coop("queue").out
    assert "running low (1 live item, fewer than 5) — top it up with 4 findings" in low
    assert coop("config", "topup_size", "--reset", "--json").json()["value"] == 10
    assert "top it up with 10 findings" in coop("queue").out
    assert coop("config", "topup_threshold", "1").code == 0
    assert "running low" not in coop("queue").out


def test_the_repeating_warning_counts_the_findings_offered(code: Code, tmp_path: Path) -> None:
    findings = [
        {"title": f"Fix error in form {n}", "evidence": [{"path": f"f{n}.py", "line": 1}]}
        for n in range(10)
    ]
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(findings))
    report = coop("scan", "--from", str(path), "--json").json()
    assert len(report["added"]) == 3 and len(report["trimmed"]) == 7
    assert report["lopsided"] is True
    text = coop("scan", "--from", str(path)).out
    assert "repeating" in text


def test_scan_keeps_path_only_evidence_and_the_cli_string_form(code: Code, tmp_path: Path) -> None:
    findings = [
        {"title": "Add test for app", "evidence": [{"path": "src/app.py"}]},
        {"title": "Fix error toast", "evidence": ["src/app.py:7:line"]},
        {"title": "Handle state", "evidence": ["./src/app.py:9"]},
        {"title": "Render label", "evidence": ["src/app.py"]},
        {"title": "Bad line", "evidence": ["src/app.py:zero"]},
        {"title": "No path", "evidence": [{"line": 3}]},
    ]
    path = tmp_path / "findings.json"
    path.write_text(json.dumps(findings))
    report = coop("scan", "--from", str(path), "--json").json()
    cited = {
        i["title"]: [(e["path"], e["line"], e["quote"]) for e in i["evidence"]]
        for i in report["added"]
    }
    assert cited == {
        "Add test for app": [("src/app.py", None, None)],
        "Fix error toast": [("src/app.py", 7, "line")],
        "Handle state": [("src/app.py", 9, None)],
        "Render label": [("src/app.py", None, None)],
    }
    assert report["dropped"] == ["Bad line", "No path"]


def test_scan_schema_is_shipped_and_printed(code: Code) -> None:
    from importlib import resources

    result = coop("scan", "--schema")
    assert result.code == 0
    schema = json.loads(result.out)
    shipped = resources.files("gitcoop").joinpath("schemas/findings.schema.json").read_text()
    assert schema == json.loads(shipped)
    assert schema["$schema"].startswith("https://json-schema.org/")
    assert coop("scan").code == 2  # neither --from nor --schema


def test_verify_json_that_could_not_write_a_verdict_back_is_an_error_object(code: Code) -> None:
    from tests.service.queue_fixtures import GIT_COOP

    item_id = add("Fix toast", "src/app.py:3")
    code.plan(toast={**CONFIRM, "run": f"{GIT_COOP} edit $SELF --title 'Fix renamed toast'"})
    result = coop("verify", "--json")
    assert result.code == 3, result.err
    answer = json.loads(result.out)
    assert set(answer) == {"error"} and answer["error"]["code"] == "changed"
    assert [v["item"] for v in answer["error"]["verified"]] == [item_id]
