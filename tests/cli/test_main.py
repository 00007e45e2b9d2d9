"""The entry point: the invoked command's module only, and one error boundary."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.cli.main import COMMAND_MODULES, build_app, invoked_command
from tests.conftest import coop, coop_process


@pytest.mark.parametrize(
    ("argv", "word"),
    [
        (["list", "--json"], "list"),
        (["--as", "bob@example.com", "take", "td-1"], "take"),
        (["--json"], None),
        ([], None),
        (["-h"], None),
    ],
)
def test_invoked_command_skips_options_and_their_values(argv: list[str], word: str | None) -> None:
    assert invoked_command(argv) == word


def test_every_registered_command_is_in_the_module_map() -> None:
    import typer.main

    group = typer.main.get_command(build_app(None))  # type: ignore[arg-type]
    names = set(group.commands)  # type: ignore[attr-defined]
    assert names == set(COMMAND_MODULES)


@pytest.mark.parametrize("word", sorted(COMMAND_MODULES))
def test_only_the_invoked_command_is_built(word: str) -> None:
    import typer.main

    group = typer.main.get_command(build_app([word, "-h"]))  # type: ignore[arg-type]
    assert set(group.commands) == {word}  # type: ignore[attr-defined]


@pytest.mark.parametrize("command", sorted({"fsck", "demo", "owed", "queue", "sync", "hooks"}))
def test_a_module_with_few_commands_still_runs_as_a_subcommand(ledger: Path, command: str) -> None:
    result = coop(command, "-h")
    assert result.code == 0
    assert f"git coop {command}" in result.out


def test_global_options_may_come_before_the_command(ledger: Path) -> None:
    result = coop("--as", "bob@example.com", "--json", "add", "todo", "x")
    assert result.code == 0, result.err
    assert result.json()["created_by"] == "bob@example.com"


def test_global_options_last_keeps_the_command_first() -> None:
    from gitcoop.cli.main import global_options_last

    assert global_options_last(["--json", "--as", "b", "take", "x"]) == [
        "take",
        "x",
        "--json",
        "--as",
        "b",
    ]
    assert global_options_last(["take", "x", "--json"]) == ["take", "x", "--json"]
    assert global_options_last(["-h"]) == ["-h"]


def test_the_script_exits_with_the_commands_code_and_all_of_its_output(ledger: Path) -> None:
    titles = [f"work item {n} " + "x" * 300 for n in range(80)]  # more than a pipe buffer (64 KiB)
    for title in titles:
        assert coop("add", "todo", title).code == 0
    listed = coop_process(ledger, "list", "--json")
    assert listed.code == 0, listed.err
    assert sorted(entry["title"] for entry in json.loads(listed.out)) == sorted(titles)
    missing = coop_process(ledger, "show", "td-zzzzzzzz")
    assert missing.code == 1 and missing.out == ""
    assert missing.err.startswith("gitcoop: no item matches")


def test_output_that_cannot_be_written_is_an_error(ledger: Path) -> None:
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    assert coop("add", "todo", "something to list").code == 0
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONUNBUFFERED", None)
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            ["git", "coop", "list"], cwd=ledger, stdout=full, stderr=subprocess.PIPE, env=env
        )
    assert done.returncode == 120
    assert b"could not write the output" in done.stderr


def test_a_reader_that_goes_away_ends_the_command_quietly(ledger: Path) -> None:
    for n in range(300):
        assert coop("add", "todo", f"item {n} " + "y" * 100).code == 0
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("PYTHONUNBUFFERED", None)
    lister = subprocess.Popen(
        ["git", "coop", "list", "--json"],
        cwd=ledger,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert lister.stdout is not None and lister.stderr is not None
    assert lister.stdout.read(10)
    lister.stdout.close()
    err = lister.stderr.read()
    assert lister.wait(timeout=60) == 141  # as `git log | head` (SIGPIPE) signals it
    assert err == b""
