"""Colour and tables that fit, on a real pseudo-terminal; none of it when piped or asked not to."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.cli.terminals import on_terminal
from tests.conftest import Clones, coop, coop_in, coop_process
from tests.service.queue_fixtures import CONFIRM, install

LONG = "Fix the flaky queue test that fails on every third run of the whole suite under load"


@pytest.fixture
def work(ledger: Path) -> dict[str, str]:
    todo = coop("add", "todo", LONG).out.strip()
    request = coop("add", "request", "Review the release notes").out.strip()
    item = coop("add", "item", "Handle EAGAIN", "--evidence", "README:1").out.strip()
    assert coop("take", todo, "--as", "bob@example.com").code == 0
    return {"todo": todo, "request": request, "item": item}


def test_a_terminal_gets_colour_and_rows_that_fit_its_width(
    ledger: Path, work: dict[str, str]
) -> None:
    screen = on_terminal(ledger, "list", columns=80)
    assert screen.code == 0, screen.err
    lines = screen.plain.splitlines()
    assert len(lines) == 3
    assert all(len(line) <= 80 for line in lines), lines
    held = next(line for line in lines if line.startswith(work["todo"]))
    assert "…" in held and LONG not in held  # the title is cut, not wrapped
    assert held.endswith("[taken by bob@example.com, 0s ago]")  # who holds it stays whole
    assert "\x1b[36mtaken\x1b[0m" in screen.out  # a status word
    assert "\x1b[34mbob@example.com\x1b[0m" in screen.out  # a holder
    assert f"\x1b[33m{work['todo']}\x1b[0m" in screen.out


def test_columns_are_as_wide_as_their_content(ledger: Path, work: dict[str, str]) -> None:
    code = install(ledger)
    coop("add", "item", "Retry the write now", "--evidence", "src/app.py:3")
    code.plan(now=CONFIRM)
    assert coop("verify").code == 0
    picked = coop("pick", "--as", "carol@example.com")
    assert picked.code == 0, picked.err
    lines = on_terminal(ledger, "list", "--wide", columns=200).plain.splitlines()
    starts = {line.split()[2]: line.index(line.split()[3]) for line in lines}
    assert "in_progress" in starts
    assert len(set(starts.values())) == 1, lines  # every title starts in one column


def test_a_narrow_terminal_cuts_the_marks_too(ledger: Path, work: dict[str, str]) -> None:
    lines = on_terminal(ledger, "list", columns=50).plain.splitlines()
    assert all(len(line) <= 50 for line in lines), lines
    held = next(line for line in lines if line.startswith(work["todo"]))
    assert "Fix the f…" in held and "[taken by b" in held


def test_wide_shows_whole_titles_on_a_terminal(ledger: Path, work: dict[str, str]) -> None:
    screen = on_terminal(ledger, "list", "--wide", columns=70)
    assert LONG in screen.plain
    assert "…" not in screen.plain


@pytest.mark.parametrize(
    ("env", "args"),
    [({"NO_COLOR": "1"}, ()), ({}, ("--no-color",)), ({}, ("--color=never",))],
    ids=["NO_COLOR", "--no-color", "--color=never"],
)
def test_no_colour_when_asked_not_to(
    ledger: Path, work: dict[str, str], env: dict[str, str], args: tuple[str, ...]
) -> None:
    screen = on_terminal(ledger, "list", *args, columns=70, env=env)
    assert screen.code == 0
    assert "\x1b" not in screen.out
    assert all(len(line) <= 70 for line in screen.out.splitlines())  # still fitted


def test_piped_output_has_no_colour_and_nothing_cut(ledger: Path, work: dict[str, str]) -> None:
    piped = coop_process(ledger, "list", env={"COLUMNS": "40"})
    assert piped.code == 0
    assert "\x1b" not in piped.out
    assert LONG in piped.out


def test_color_always_colours_a_pipe_too(ledger: Path, work: dict[str, str]) -> None:
    piped = coop_process(ledger, "--color=always", "list")
    assert "\x1b[32mopen\x1b[0m" in piped.out
    assert coop_process(ledger, "list", "--color=sometimes").code == 2


def test_json_is_the_same_on_a_terminal_as_in_a_pipe(ledger: Path, work: dict[str, str]) -> None:
    for args in (["list", "--json"], ["owed", "--json", "--all"], ["show", work["todo"], "--json"]):
        screen = on_terminal(ledger, *args, columns=40)
        piped = coop_process(ledger, *args)
        assert screen.out == piped.out, args
        json.loads(screen.out)


def test_status_words_conflicts_and_due_dates_are_coloured_on_a_terminal(
    ledger: Path, work: dict[str, str]
) -> None:
    later = {"COOP_NOW": "2026-11-29T14:00:00Z"}
    screen = on_terminal(ledger, "owed", "--as", "bob@example.com", columns=100, env=later)
    assert screen.code == 0, screen.err
    assert "\x1b[1;31mdue 1h ago\x1b[0m" in screen.out  # overdue
    shown = on_terminal(ledger, "show", work["todo"], columns=100)
    assert "\x1b[36mtaken\x1b[0m" in shown.out


def test_progress_shows_on_a_terminal_only(ledger: Path, work: dict[str, str]) -> None:
    quick = {"COOP_PROGRESS_DELAY": "0"}
    for cache in (ledger / ".git/coop-cache").glob("*"):
        shutil.rmtree(cache)
    screen = on_terminal(ledger, "list", columns=80, env=quick, stderr_terminal=True)
    assert "reading items into the read cache: 100% (" in screen.err
    assert screen.err.rstrip().endswith(", done.")
    checked = on_terminal(ledger, "fsck", "--full", env=quick, stderr_terminal=True)
    assert "checking the ledger's history: 100%" in checked.err
    piped = coop_process(ledger, "fsck", "--full", env=quick)
    assert piped.err == "" and piped.code == 0


@pytest.mark.parametrize(
    ("args", "mode"),
    [
        (["--color", "list"], "always"),
        (["--color", "never", "list"], "never"),
        (["list", "--color=auto"], "auto"),
        (["--no-color", "list", "--json"], "never"),
        (["add", "todo", "--", "--color"], "auto"),
    ],
)
def test_colour_flags_are_taken_wherever_they_stand(args: list[str], mode: str) -> None:
    from gitcoop.cli.main import colour_options

    kept, found = colour_options(args)
    assert found == mode
    assert "--no-color" not in kept and ("--color" not in kept or "--" in kept)


def test_colour_is_never_escaped_twice(ledger: Path, work: dict[str, str]) -> None:
    """Every text command under --color=always: gitcoop's own codes stay codes."""
    later = {"COOP_NOW": "2026-11-29T14:00:00Z"}
    for args in (
        ["list"],
        ["list", "--mine", "--as", "bob@example.com"],
        ["ready"],
        ["blocked"],
        ["show", work["todo"]],
        ["owed", "--all"],
        ["status"],
        ["status", "--as", "bob@example.com"],
        ["queue"],
        ["log", work["todo"]],
    ):
        result = coop_process(ledger, "--color=always", *args, env=later)
        assert result.code == 0, (args, result.err)
        assert "\\x1b" not in result.out, args
    assert "\x1b[" in coop_process(ledger, "--color=always", "status", env=later).out


def test_a_sync_and_a_scan_show_how_far_they_are_on_a_terminal(
    clones: Clones, tmp_path: Path
) -> None:
    quick = {"COOP_PROGRESS_DELAY": "0"}
    first, second = clones.clone("first"), clones.clone("second")
    assert coop_in(first, "init").code == 0
    coop_in(first, "remote", "setup", "origin")
    for n in range(3):
        coop_in(first, "add", "todo", f"work {n}")
    assert coop_in(first, "sync").code == 0
    coop_in(second, "remote", "setup", "origin")
    synced = on_terminal(second, "sync", env=quick, stderr_terminal=True)
    assert synced.code == 0, synced.err
    assert "checking what arrived from origin: 100% (" in synced.err
    assert "sync origin: fetched the ledger" in synced.out
    findings = tmp_path / "findings.json"
    findings.write_text(json.dumps([{"title": "Fix it", "evidence": [{"path": "a.py"}]}]))
    scanned = on_terminal(second, "scan", "--from", str(findings), env=quick, stderr_terminal=True)
    assert scanned.code == 0, scanned.err
    assert "reading the findings: 100% (1/1), done." in scanned.err.replace("\x1b[K", "")
    piped = coop_process(second, "sync", env=quick)
    assert piped.code == 0 and piped.err == ""


def test_columns_in_the_environment_win_over_the_terminal_size(
    ledger: Path, work: dict[str, str]
) -> None:
    screen = on_terminal(ledger, "list", columns=200, env={"COLUMNS": "60"})
    lines = screen.plain.splitlines()
    assert lines and all(len(line) <= 60 for line in lines), lines
    assert "…" in screen.plain


@pytest.mark.parametrize("args", [("owed", "--all"), ("status",), ("queue",), ("ready",)])
def test_every_table_fits_a_narrow_terminal(
    ledger: Path, work: dict[str, str], args: tuple[str, ...]
) -> None:
    later = {"COOP_NOW": "2026-11-29T14:00:00Z", "COOP_ACTOR": "bob@example.com"}
    screen = on_terminal(ledger, *args, columns=44, env=later)
    assert screen.code == 0, screen.err
    ids = tuple(work.values())
    rows = [line for line in screen.plain.splitlines() if any(i in line for i in ids)]
    assert rows and all(len(line) <= 44 for line in rows), screen.plain  # hints are prose
