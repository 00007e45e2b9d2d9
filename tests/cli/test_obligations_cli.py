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


def test_session_take_is_owed_at_three_hours_not_before(ledger: Path) -> None:
    todo = taken()
    assert owed_ids("12:59") == []
    assert owed_ids("13:00") == [todo]
    entry = coop("owed", "--json", env=at("13:30")).json()[0]
    assert (entry["kind"], entry["holder"], entry["session"], entry["owed_for_seconds"]) == (
        "outcome",
        BOB,
        "s1",
        12600,
    )
    assert "[taken by bob@example.com, 3h ago]" in coop("list", env=at("13:30")).out


def test_take_without_session_is_owed_at_three_hours(ledger: Path) -> None:
    todo = taken(session=None)
    assert owed_ids("12:59") == []
    assert owed_ids("13:00") == [todo]
    entry = coop("owed", "--json", env=at("13:00")).json()[0]
    assert entry["kind"] == "legacy_binding"
    assert entry["reason"] == "Taken without a session reference; the chief reviews its outcome"


def test_all_lists_what_is_owed_but_not_due_oldest_due_first(ledger: Path) -> None:
    late = taken(session=None)
    early = coop("add", "todo", "taken earlier").out.strip()
    assert coop("take", early, "--as", BOB, "--session", "s1", env=at("09:00")).code == 0
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


# -- takeovers, parks, escalations, unblocked (Coop's rules, exactly) -------------------------

OWNER = "alice@example.com"


def with_chief() -> None:
    assert coop("roles", "add", "chief", CHIEF).code == 0


def test_a_takeover_is_shown_to_the_previous_holder_until_acknowledged(ledger: Path) -> None:
    todo = taken()
    assert coop("take", todo, "--force", "--as", CHIEF, env=at("10:30")).code == 0
    event = coop("log", todo, "--json").json()[-1]
    previous = coop("show", todo, "--json").json()["previous_obligation"]
    assert (previous["disposition"], previous["resolved_by"], previous["resolved_event"]) == (
        "takeover",
        CHIEF,
        event["id"],
    )
    notice = f"taken over by {CHIEF} at 2026-11-29 10:30 UTC"
    assert notice in coop("owed", "--mine", "--as", BOB, env=at("10:31")).out
    assert notice in coop("list", "--mine", "--as", BOB).out
    mine = coop("owed", "--mine", "--json", "--as", BOB, env=at("10:31")).json()
    assert [(e["kind"], e["by"], e["event"]) for e in mine] == [("takeover", CHIEF, event["id"])]
    assert coop("owed", "--mine", "--check", "--as", BOB, env=at("10:31")).code == 6
    assert coop("ack", todo, "--as", CHIEF).code == 0  # nothing of carol's to acknowledge
    assert coop("ack", todo, "--as", BOB).code == 0
    assert coop("owed", "--mine", "--json", "--as", BOB, env=at("10:31")).json() == []
    assert coop("list", "--mine", "--json", "--as", BOB).json() == []
    again = coop("ack", todo, "--as", BOB)
    assert again.code == 0 and "nothing to acknowledge" in again.out
    assert [e["verb"] for e in coop("log", todo, "--json").json()].count("ack") == 1


def test_a_chief_cannot_touch_a_park_an_owner_can(ledger: Path) -> None:
    with_chief()
    todo = taken()
    assert coop("review", todo, "park", "--as", CHIEF, env=at("10:10")).code == 0
    for decision in ("defer", "escalate", "close"):
        refused = coop("review", todo, decision, "--as", CHIEF, env=at("10:20"))
        assert refused.code == 1, decision
        assert "parked" in refused.err and OWNER in refused.err and BOB in refused.err
    assert coop("review", todo, "defer", env=at("10:20")).code == 0  # alice: an owner


def test_the_holders_blocked_report_unparks_for_the_chief(ledger: Path) -> None:
    with_chief()
    todo = taken()
    coop("review", todo, "park", "--as", CHIEF, env=at("10:10"))
    coop("report", todo, "blocked", "--reason", "creds", "--as", BOB, env=at("10:20"))
    assert coop("review", todo, "defer", "--as", CHIEF, env=at("10:30")).code == 0


def test_a_report_is_the_holders_force_or_not(ledger: Path) -> None:
    todo = taken()
    forced = coop("report", todo, "done", "--force")
    assert forced.code == 1 and BOB in forced.err and "only the holder" in forced.err
    assert coop("show", todo, "--json").json()["status"] == "taken"


def test_an_escalation_reaches_every_owner_at_once_and_a_defer_keeps_it(ledger: Path) -> None:
    with_chief()
    assert coop("roles", "add", "owner", "olga@example.com").code == 0
    todo = taken()
    escalate = ["review", todo, "escalate", "--after", "2h", "--reason", "stuck", "--as", CHIEF]
    assert coop(*escalate, env=at("10:10")).code == 0
    for owner in (OWNER, "olga@example.com"):
        text = coop("owed", "--as", owner, env=at("10:11")).out
        assert f"escalated to owners by {CHIEF}" in text and "stuck" in text, owner
        assert coop("owed", "--check", "--as", owner, env=at("10:11")).code == 6
    assert coop("owed", "--json", "--as", CHIEF, env=at("10:11")).json() == []
    assert coop("owed", "--check", "--as", CHIEF, env=at("10:11")).code == 0
    coop("review", todo, "defer", "--after", "1h", "--as", CHIEF, env=at("10:20"))
    assert f"escalated to owners by {CHIEF}" in coop("owed", env=at("10:21")).out
    assert "[escalated]" in coop("list").out
    coop("review", todo, "defer", "--after", "1h", env=at("10:30"))  # an owner decides
    assert coop("owed", "--json", env=at("10:31")).json() == []


def test_a_chiefs_park_is_shown_to_the_owners_and_marked_in_list(ledger: Path) -> None:
    with_chief()
    todo = taken()
    coop("review", todo, "park", "--reason", "waits on legal", "--as", CHIEF, env=at("10:10"))
    text = coop("owed", env=at("10:11")).out
    assert f"parked by {CHIEF}" in text and "waits on legal" in text
    assert "[parked]" in coop("list").out


def test_an_unblocked_report_clears_the_blocked_state(ledger: Path) -> None:
    todo = taken()
    coop("report", todo, "blocked", "--reason", "creds", "--as", BOB, env=at("10:30"))
    assert f"{todo}  todo  blocked" in coop("list").out
    assert coop("report", todo, "unblocked", "--as", CHIEF).code == 1
    assert coop("report", todo, "blocked", "--note", "x", "--as", BOB).code == 2
    assert coop("report", todo, "unblocked", "--reason", "x", "--as", BOB).code == 2
    cleared = ["report", todo, "unblocked", "--note", "creds arrived", "--as", BOB]
    assert coop(*cleared, env=at("11:00")).code == 0
    assert f"{todo}  todo  taken" in coop("list").out
    ob = coop("show", todo, "--json").json()["obligation"]
    assert ob["due"] == "2026-11-29T14:00:00Z"
    assert (ob["latest_report"]["status"], ob["latest_report"]["note"]) == (
        "unblocked",
        "creds arrived",
    )
    coop("review", todo, "defer", "--after", "1d", env=at("11:10"))
    assert coop("show", todo, "--json").json()["obligation"]["due"] == "2026-11-30T11:10:00Z"


def test_a_review_loop_uses_the_version_owed_reports(ledger: Path) -> None:
    todo = taken()
    entry = coop("owed", "--json", env=at("13:00")).json()[0]
    version = entry["version"]
    assert version == coop("show", todo, "--json").json()["version"]
    coop("note", todo, "still on it", "--as", BOB, env=at("13:01"))
    stale = ["review", todo, "defer", "--expect-version", str(version)]
    assert coop(*stale, env=at("13:02")).code == 3
    fresh = coop("owed", "--json", "--all", env=at("13:02")).json()[0]["version"]
    assert coop("review", todo, "defer", "--expect-version", str(fresh), env=at("13:02")).code == 0
