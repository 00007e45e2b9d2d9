"""What a take owes, travelling in time with COOP_NOW; nothing is an in-memory timer."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from tests.conftest import coop, coop_process

BOB = "bob@example.com"
CHIEF = "carol@example.com"


def at(hhmm: str, day: int = 29) -> dict[str, str]:
    return {"COOP_NOW": f"2026-11-{day:02d}T{hhmm}:00Z"}


def owed_ids(hhmm: str, *extra: str, day: int = 29) -> list[str]:
    result = coop("owed", "--json", *extra, env=at(hhmm, day))
    assert result.code == 0, result.err
    return [entry["short_id"] for entry in result.json()]


def taken(session: str | None = "s1") -> str:
    todo = coop("add", "todo", "long work").out.strip()
    args = ["take", todo, "--as", BOB] + (["--session", session] if session else [])
    assert coop(*args, env=at("10:00")).code == 0
    return todo


def test_session_take_is_owed_at_two_hours_not_before(ledger: Path) -> None:
    todo = taken()
    assert owed_ids("11:59") == []
    assert owed_ids("12:00") == [todo]
    entry = coop("owed", "--json", env=at("12:30")).json()[0]
    assert (entry["kind"], entry["holder"], entry["session"], entry["owed_for_seconds"]) == (
        "outcome",
        BOB,
        "s1",
        9000,
    )
    assert "[taken by bob@example.com, 2h ago]" in coop("list", env=at("12:30")).out


def test_take_without_session_is_owed_at_three_hours(ledger: Path) -> None:
    todo = taken(session=None)
    assert owed_ids("12:59") == []
    assert owed_ids("13:00") == [todo]
    entry = coop("owed", "--json", env=at("13:00")).json()[0]
    assert entry["kind"] == "legacy_binding"
    assert entry["reason"] == "Taken without a session reference; the chief reviews its outcome"


def test_all_lists_what_is_owed_but_not_due_oldest_due_first(ledger: Path) -> None:
    late = taken(session=None)
    early = taken()
    assert owed_ids("10:30", "--all") == [early, late]


def test_defer_moves_due_by_the_delay(ledger: Path) -> None:
    todo = taken()
    assert coop("review", todo, "defer", "--after", "30m", env=at("12:00")).code == 0
    assert owed_ids("12:29") == []
    assert owed_ids("12:30") == [todo]


def test_park_waits_thirty_days_then_is_owed_again(ledger: Path) -> None:
    todo = taken()
    coop("review", todo, "park", env=at("12:00"))
    assert owed_ids("11:59", day=29 + 1) == []
    due = coop("owed", "--all", "--json", env=at("12:00")).json()[0]
    assert (due["due"], due["parked"]) == ("2026-12-29T12:00:00Z", True)


def test_blocked_park_comes_due_in_six_hours(ledger: Path) -> None:
    todo = taken()
    coop("report", todo, "blocked", "--reason", "needs creds", "--as", BOB, env=at("11:00"))
    assert owed_ids("11:00") == [todo]
    coop("review", todo, "park", env=at("11:30"))
    assert owed_ids("17:29") == []
    assert owed_ids("17:30") == [todo]
    text = coop("owed", env=at("17:30")).out
    assert "blocked: needs creds" in text and "parked" in text


def test_holders_note_pulls_the_review_forward(ledger: Path) -> None:
    todo = taken()
    coop("note", todo, "halfway, found the cause", "--as", BOB, env=at("10:45"))
    assert owed_ids("10:45") == [todo]


def test_a_parked_obligation_ignores_notes(ledger: Path) -> None:
    todo = taken()
    coop("review", todo, "park", env=at("10:30"))
    coop("note", todo, "still going", "--as", BOB, env=at("11:00"))
    assert owed_ids("11:00") == []


def test_done_resolves_what_is_owed(ledger: Path) -> None:
    todo = taken()
    coop("done", todo, "--as", BOB, env=at("11:00"))
    assert owed_ids("23:00", "--all") == []
    shown = coop("show", todo, "--json").json()
    assert shown["obligation"]["status"] == "resolved"
    assert shown["obligation"]["disposition"] == "done"


def test_report_done_by_the_holder_resolves_and_finishes(ledger: Path) -> None:
    todo = taken()
    result = coop("report", todo, "done", "--summary", "shipped", "--as", BOB, "--json")
    assert result.code == 0
    assert (result.json()["status"], result.json()["result_summary"]) == ("done", "shipped")


def test_reviews_need_a_role_and_chiefs_can_be_added(ledger: Path) -> None:
    todo = taken()
    refused = coop("review", todo, "defer", "--as", CHIEF)
    assert refused.code == 1 and "reviews are by the owners" in refused.err
    assert coop("roles", "add", "chief", CHIEF).code == 0
    assert coop("review", todo, "escalate", "--after", "1h", "--as", CHIEF).code == 0
    assert "escalated to owners" in coop("owed", env=at("11:00")).out
    roles_events = [e for e in coop("log", "--json").json() if e["verb"] == "roles"]
    assert roles_events[-1]["who"] == CHIEF


def test_review_against_a_stale_version_exits_three(ledger: Path) -> None:
    todo = taken()
    version = coop("show", todo, "--json").json()["version"]
    coop("note", todo, "progress", "--as", BOB)
    stale = coop("review", todo, "defer", "--expect-version", str(version))
    assert stale.code == 3 and f"not {version}" in stale.err


def test_bad_review_input_is_a_usage_error(ledger: Path) -> None:
    todo = taken()
    assert coop("review", todo, "ponder").code == 2
    assert coop("review", todo, "defer", "--after", "10s").code == 2
    assert coop("review", todo, "defer", "--after", "soon").code == 2
    assert coop("review", todo, "park", "--after", "1h").code == 2


def test_the_obligation_is_in_the_same_commit_as_the_take(ledger: Path) -> None:
    """A process killed right after its take's commit leaves the take and its debt, together."""
    todo = coop("add", "todo", "x").out.strip()
    script = (
        "import os, signal, sys\n"
        "from gitcoop.service import ledger\n"
        "from gitcoop.cli.options import make_context\n"
        "ledger.act(make_context(), sys.argv[1], 'take', {})\n"
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    env = {**os.environ, "COOP_ACTOR": BOB, "COOP_SESSION": "s-killed"}
    killed = subprocess.run([sys.executable, "-c", script, todo], cwd=ledger, env=env, check=False)
    assert killed.returncode == -signal.SIGKILL
    fresh = coop_process(ledger, "owed", "--all", "--json")
    assert fresh.code == 0
    assert '"holder": "bob@example.com"' in fresh.out and '"session": "s-killed"' in fresh.out
