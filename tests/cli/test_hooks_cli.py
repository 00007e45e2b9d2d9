"""The hooks commands as a user types them: text, --json, exit codes."""

from __future__ import annotations

from pathlib import Path

from gitcoop.store.ledger import journal
from tests.conftest import coop, coop_process


def test_status_before_and_after_install(repo: Path) -> None:
    before = coop("hooks", "status")
    assert before.code == 0
    assert "post-commit         missing" in before.out
    assert coop("hooks", "install").code == 0
    after = coop("hooks", "status", "--json").json()
    assert {h["state"] for h in after["hooks"]} == {"current"}
    assert after["journal_entries"] == 0


def test_install_and_uninstall_print_one_line_per_hook(repo: Path) -> None:
    installed = coop("hooks", "install")
    assert installed.out.count("installed") == 5
    removed = coop("hooks", "uninstall")
    assert removed.out.count(": removed") == 5


def test_the_journal_commands_are_in_help_and_the_hooks_own_are_not(repo: Path) -> None:
    shown = coop("--help")
    assert "hooks" in shown.out and " hook " in shown.out
    listed = coop("hook", "--help").out
    assert "replay" in listed and "dismiss" in listed
    assert "post-commit" not in listed and "prepare-commit-msg" not in listed


def test_hook_outside_a_repository_says_so_and_exits_zero(tmp_path: Path) -> None:
    result = coop_process(tmp_path, "hook", "post-commit")
    assert result.code == 0
    assert "hook skipped: not a git repository" in result.err


# a trailer entry whose id names no item: refused, and kept
NAMING_NOTHING = {
    "kind": "trailers",
    "actor": "alice@example.com",
    "session": None,
    "at": "2026-11-29T10:00:00Z",
    "commit": "0" * 40,
    "requests": [{"verb": "done", "ref": "td-nosuch", "args": {"commit": "0" * 40}}],
}


def test_replay_of_an_empty_journal(ledger: Path) -> None:
    assert coop("hook", "replay").out.strip() == "the journal is empty"
    assert coop("hook", "replay", "--json").json() == []


def test_status_counts_waiting_journal_entries(ledger: Path) -> None:
    journal.append(str(ledger / ".git"), {"kind": "trailers", "requests": []})
    assert coop("hooks", "status", "--json").json()["journal_entries"] == 1
    assert "1 journal entry waits: git coop hook replay" in coop("hooks", "status").out


def test_a_journaled_refusal_is_reported_before_another_command(ledger: Path) -> None:
    journal.append(str(ledger / ".git"), NAMING_NOTHING)
    listed = coop("list", "--json")
    assert listed.code == 0 and listed.json() == []
    said = listed.err.splitlines()
    assert "not recorded: Coop-Done td-nosuch of 0000000: no item matches" in said[0]
    assert "record it with" not in said[0]  # no command records an id that names nothing
    assert said[1:] == ["gitcoop: 1 trailer waits: git coop hook replay"]
    assert journal.has_entries(str(ledger / ".git"))  # reported, never dropped
    assert coop("list").err == "gitcoop: 1 trailer waits: git coop hook replay\n"


def test_replay_exits_1_while_an_entry_still_waits_and_0_once_none_does(ledger: Path) -> None:
    """A script runs `git coop hook replay` and must tell "all recorded" from "still
    waiting": exit 1, the entries in the text and inside the JSON error."""
    journal.append(str(ledger / ".git"), NAMING_NOTHING)
    text = coop("hook", "replay")
    assert text.code == 1
    assert "no item matches" in text.out
    assert text.err.strip().endswith("git coop hook dismiss ENTRY --reason WHY")
    shown = coop("hook", "replay", "--json")
    assert shown.code == 1
    error = shown.json()["error"]
    assert error["code"] == "refused" and error["exit"] == 1
    [waiting] = error["entries"]
    assert waiting["kept"] is True
    dismissed = coop("hook", "dismiss", waiting["entry"], "--reason", "no such item")
    assert dismissed.code == 0, dismissed.err
    assert coop("hook", "replay").code == 0


def test_version_and_completion_neither_replay_nor_count_the_journal(ledger: Path) -> None:
    journal.append(str(ledger / ".git"), {"kind": "trailers", "requests": []})
    for args in (("version",), ("version", "--json"), ("completion", "bash")):
        ran = coop(*args)
        assert ran.code == 0 and "waits" not in ran.err, (args, ran.err)
    assert "1 journal entry waits" in coop("list").err
