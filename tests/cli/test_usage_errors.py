"""Usage errors are one line, like every rule error; `git coop` alone is a short overview."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import coop, coop_process


@pytest.mark.parametrize(
    ("args", "wrong", "todo"),
    [
        (["lst"], "no such command 'lst'", "Did you mean 'list'?"),
        (["list", "--bogus"], "no such option '--bogus'", "see 'git coop list -h'"),
        (["take"], "missing argument 'id'", "see 'git coop take -h'"),
        (["list", "--kind", "epic"], "'epic' is not one of", "see 'git coop list -h'"),
        (["hooks", "instal"], "no such command 'instal'", "Did you mean one of: 'install'"),
    ],
)
def test_a_usage_error_is_one_line_saying_what_to_do(
    ledger: Path, args: list[str], wrong: str, todo: str
) -> None:
    result = coop(*args)
    assert result.code == 2
    assert result.err.count("\n") == 1, result.err
    line = result.err.strip()
    assert line.startswith("gitcoop: ") and " — " in line
    said, _, advice = line.removeprefix("gitcoop: ").partition(" — ")
    assert wrong in said.lower() and todo in advice
    assert "Usage:" not in line and "Error:" not in line and line.count("Did you mean") <= 1


def test_a_usage_error_in_json_keeps_its_shape_and_says_the_same(ledger: Path) -> None:
    result = coop("list", "--bogus", "--json")
    error = result.json()["error"]
    assert (error["code"], error["exit"]) == ("usage", 2)
    assert f"gitcoop: {error['message']}\n" == result.err


def test_git_coop_alone_is_a_short_overview_of_the_common_verbs(repo: Path) -> None:
    result = coop_process(repo)
    assert result.code == 0 and result.err == ""
    lines = result.out.splitlines()
    assert len(lines) <= 25
    for verb in ("status", "add", "list", "take", "done", "ready", "sync"):
        assert any(line.split()[:1] == [verb] for line in lines), verb
    assert not any(line.split()[:1] == ["hide-ledger"] for line in lines)
    assert "git coop -h" in result.out  # where every command is


@pytest.mark.parametrize(
    ("args", "said", "not_said"),
    [
        (
            ("add", "todo", "x", "--due", "3x"),
            "'3x' is not a duration (a number, then s, m, h, d or w",
            "1d)",
        ),
        (("list", "--since", "99999999999d"), "longer than the 100 years", "neither"),
        (("list", "--since", "3x"), "'3x' is not a duration", "neither"),
        (("list", "--since", "soon"), "neither a duration nor a date", "100 years"),
    ],
)
def test_a_bad_duration_says_what_is_wrong_with_it_once(
    ledger: Path, args: tuple[str, ...], said: str, not_said: str
) -> None:
    refused = coop(*args)
    assert refused.code == 2
    assert said in refused.err and not_said not in refused.err, refused.err


def test_commit_head_before_any_commit_says_so(ledger: Path) -> None:
    item = coop("add", "todo", "x").out.strip()
    refused = coop("done", item, "--commit", "HEAD")
    assert refused.code == 2 and "HEAD has no commit yet" in refused.err, refused.err
