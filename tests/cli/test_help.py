"""Help that is complete: every command, option and argument explained, in whole sentences."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gitcoop.cli.main import COMMAND_MODULES
from tests.conftest import coop, coop_process

GROUPS = {"remote": ["setup"], "hooks": ["install", "uninstall", "status", "backfill"]}
GROUPS |= {"hook": ["replay", "confirm", "dismiss"], "dep": ["add", "remove"]}
GROUPS |= {"keys": ["add", "remove", "list", "export"]}
COMMANDS = [[word] for word in sorted(set(COMMAND_MODULES) - set(GROUPS))]
COMMANDS += [[group, sub] for group, subs in GROUPS.items() for sub in subs]
SESSION_MATTERS = {"take", "done", "close", "pick", "prime", "hooks backfill"}


def sections(text: str) -> dict[str, list[tuple[str, str]]]:
    """A help page's sections: each entry's name and its description (joined)."""
    found: dict[str, list[tuple[str, str]]] = {}
    current: list[tuple[str, str]] | None = None
    for line in text.splitlines():
        if re.match(r"^[A-Z][A-Za-z ]*:$", line):
            current = found.setdefault(line[:-1], [])
        elif current is not None and re.match(r"^  \S", line):
            name, _, text_part = line.strip().partition("  ")
            current.append((name, text_part.strip()))
        elif current is not None and line.startswith("   ") and current:
            name, text_part = current[-1]
            current[-1] = (name, f"{text_part} {line.strip()}".strip())
        elif not line.strip():
            current = None
    return found


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_every_option_and_argument_has_help_and_required_ones_say_so(
    repo: Path, words: list[str]
) -> None:
    result = coop(*words, "-h")
    assert result.code == 0, result.err
    found = sections(result.out)
    entries = found.get("Options", []) + found.get("Arguments", [])
    assert entries
    for name, text in entries:
        assert text and text != "[required]", f"{' '.join(words)} {name} has no help"
    usage = result.out.splitlines()[0]
    assert "Positional arguments:" not in result.out  # each argument is listed once
    for name, text in found.get("Arguments", []):
        if not name.startswith("["):
            assert "[required]" in text, f"{name} is required but not marked"
            assert name.split()[0] in usage


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_session_is_only_where_a_session_matters(repo: Path, words: list[str]) -> None:
    has = "--session" in coop(*words, "-h").out
    assert has == (" ".join(words) in SESSION_MATTERS), " ".join(words)


def test_the_top_level_summaries_are_whole_sentences(repo: Path) -> None:
    text = coop("-h").out
    assert "..." not in text.split("\n", 1)[1]  # (the usage line ends in [ARGS]...)
    found = sections(text)
    listed = {
        name: line for title, rows in found.items() if title != "Options" for name, line in rows
    }
    assert set(listed) == set(COMMAND_MODULES)
    for name, line in listed.items():
        assert line.endswith("."), f"{name}: {line!r} is cut"
        assert len(line) <= 120, f"{name}: summarise in one short sentence"
    assert "--version" in text and "--color WHEN" in text and "--no-color" in text


@pytest.mark.parametrize(
    ("args", "values"),
    [
        (["add", "epic", "x"], "'todo', 'request', 'item'"),
        (["report", "td-0000", "finished"], "'done', 'released', 'abandoned', 'blocked'"),
        (["review", "td-0000", "maybe"], "'defer', 'escalate'"),
        (["finish", "it-0000", "won"], "'done', 'closed', 'blocked', 'ready'"),
        (["dep", "add", "td-0000", "needs", "td-1111"], "'blocks', 'blocked-by'"),
        (["list", "--status", "doing"], "'open', 'taken', 'done', 'closed', 'abandoned', 'draft'"),
        (["list", "--kind", "epic"], "'todo', 'request', 'item'"),
        (["list", "--sort", "size"], "'created', 'updated', 'priority', 'due'"),
        (["completion", "tcsh"], "'bash', 'zsh', 'fish'"),
    ],
)
def test_fixed_values_are_checked_by_the_parser_and_listed(
    ledger: Path, args: list[str], values: str
) -> None:
    result = coop(*args)
    assert result.code == 2
    assert values in result.err
    path = " ".join(args[:2]) if args[0] == "dep" else args[0]
    assert f"see 'git coop {path} -h'" in result.err


def test_fixed_values_are_listed_in_help(repo: Path) -> None:
    assert "todo|request|item" in coop("add", "-h").out
    assert "done|released|abandoned|blocked|unblocked" in coop("report", "-h").out
    assert "defer|escalate|park|failed" in coop("review", "-h").out.replace("\n", "")


def test_a_usage_error_names_dash_h_and_suggests_once(repo: Path) -> None:
    wrong = coop("lst")
    assert wrong.code == 2
    assert wrong.err.count("Did you mean") == 1 and "'list'" in wrong.err
    assert "see 'git coop -h'" in wrong.err
    assert "--help" not in wrong.err
    option = coop("list", "--bogus")
    assert "see 'git coop list -h'" in option.err
    sub = coop("hooks", "instal")
    assert sub.err.count("Did you mean") == 1 and "see 'git coop hooks -h'" in sub.err
    as_json = coop("lst", "--json")
    assert as_json.json()["error"]["code"] == "usage"


def test_version_flag_and_command(repo: Path) -> None:
    from gitcoop import __version__

    flag = coop_process(repo, "--version")
    assert flag.code == 0 and flag.out.splitlines()[0] == f"git coop version {__version__}"
    assert coop("version").out == flag.out
    assert coop("version", "--json").json()["version"] == __version__
    assert coop("--version").code == 0  # no ledger needed, nor a repository


@pytest.mark.parametrize("word", ["show", "log", "queue", "ready", "blocked", "version"])
def test_reads_that_do_not_ask_who_is_acting_take_no_as(repo: Path, word: str) -> None:
    assert "--as" not in coop(word, "-h").out


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_every_command_takes_json(repo: Path, words: list[str]) -> None:
    if words == ["mcp"]:  # it speaks JSON-RPC on stdio: --json would mean nothing more
        return
    assert "--json" in coop(*words, "-h").out
