"""Shell completion: scripts bash (and zsh and fish, when installed) take, ids from the ledger."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import coop, coop_process

GIT_BASH_COMPLETION = Path("/usr/share/bash-completion/completions/git")


def path_env() -> dict[str, str]:
    return {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}


def bash(cwd: Path, script: str, *body: str) -> list[str]:
    """Run bash with the completion script sourced; each body line prints COMPREPLY on a line."""
    helpers = """
t() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMPREPLY=()
      __git_coop_main; echo "${COMPREPLY[*]}"; }
g() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="$*"
      COMP_POINT=${#COMP_LINE}; COMPREPLY=(); __git_wrap__git_main; echo "${COMPREPLY[*]}"; }
"""
    program = f"{helpers}\nsource {script}\n" + "\n".join(body)
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", program],
        cwd=cwd,
        env=path_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


@pytest.fixture
def script(ledger: Path, tmp_path: Path) -> Path:
    made = coop("completion", "bash")
    assert made.code == 0, made.err
    path = tmp_path / "git-coop.bash"
    path.write_text(made.out)
    return path


def test_bash_takes_the_script_and_completes_commands_options_and_values(
    ledger: Path, script: Path
) -> None:
    todo = coop("add", "todo", "something to show").out.strip()
    lines = bash(
        ledger,
        str(script),
        "complete -p git-coop",
        "t git-coop li",
        "t git-coop list --so",
        "t git-coop list --sort ''",
        "t git-coop report td-0000 ''",
        "t git-coop remote s",
        "t git-coop show ''",
        f"t git-coop show {todo[:5]}",
        "t git-coop add todo ''",
        "t git-coop --no",
    )
    assert lines[0] == "complete -F __git_coop_main git-coop"
    assert lines[1] == "list"
    assert lines[2] == "--sort"
    assert lines[3] == "created updated priority due deadline"
    assert lines[4] == "done released abandoned blocked unblocked"
    assert lines[5] == "setup"
    assert lines[6] == todo[3:]  # no kind typed: ids without it
    assert lines[7] == todo
    assert lines[8] == ""  # a title is free text
    assert lines[9] == "--no-color"


@pytest.mark.skipif(not GIT_BASH_COMPLETION.exists(), reason="needs git's bash completion")
def test_git_coop_completes_under_gits_own_bash_completion(ledger: Path, script: Path) -> None:
    todo = coop("add", "todo", "held").out.strip()
    lines = bash(
        ledger,
        f"{GIT_BASH_COMPLETION}\nsource {script}",
        "g git coop sta",
        "g git coop take ''",
        "g git -C . coop list --kind ''",
    )
    assert lines[0] == "status "
    assert lines[1] == f"{todo[3:]} "
    assert lines[2] == "todo  request  item "


def test_ids_are_answered_without_typer(ledger: Path) -> None:
    todo = coop("add", "todo", "first").out.strip()
    request = coop("add", "request", "second").out.strip()
    done = coop("add", "todo", "finished").out.strip()
    coop("done", done)
    found = coop_process(ledger, "__complete", "ids", "")
    assert found.code == 0 and sorted(found.out.split()) == sorted([todo[3:], request[3:]])
    assert coop_process(ledger, "__complete", "ids", done[:6]).out.split() == [done]
    described = coop_process(ledger, "__complete", "ids", "--describe", todo[:5]).out
    assert described == f"{todo}\tfirst\n"
    watched = ("typer", "click", "gitcoop.cli.completion", "gitcoop.cli.helptext")
    loaded = loaded_by(ledger, ["__complete", "ids", ""], watched)
    assert loaded == ["gitcoop.cli.completion"]  # no typer, no click


def test_completion_is_quiet_outside_a_repository(tmp_path: Path) -> None:
    found = coop_process(tmp_path, "__complete", "ids", "td-")
    assert found.code == 0 and found.out == "" and found.err == ""


def test_ordinary_commands_load_nothing_of_completion(ledger: Path) -> None:
    loaded = loaded_by(ledger, ["list", "--json"], ())
    assert [name for name in loaded if name.startswith("gitcoop") and "complet" in name] == []


def loaded_by(cwd: Path, args: list[str], watched: tuple[str, ...]) -> list[str]:
    """The modules (of `watched`, or all when it is empty) a real process running the
    command had loaded when it ended."""
    probe = (
        f"import sys; from gitcoop.cli.main import main; main({args!r})\n"
        f"watched = {watched!r} or sorted(sys.modules)\n"
        "sys.stderr.write(' '.join(m for m in watched if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=cwd, capture_output=True, text=True, check=True
    )
    return done.stderr.split()


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed")
def test_zsh_reads_the_script(ledger: Path, tmp_path: Path) -> None:
    script = tmp_path / "_git-coop"
    script.write_text(coop("completion", "zsh").out)
    checked = subprocess.run(["zsh", "-n", str(script)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr
    defined = subprocess.run(
        [
            "zsh",
            "-f",
            "-c",
            f"autoload -U compinit; compinit -u; source {script}; "
            "whence -w _git-coop __git_coop_list __git_coop_remote_setup; "
            "print -r -- $_comps[git-coop]",
        ],
        capture_output=True,
        text=True,
        env={**path_env(), "HOME": str(tmp_path)},
    )
    assert defined.returncode == 0, defined.stderr
    assert defined.stdout.split("\n")[:4] == [
        "_git-coop: function",
        "__git_coop_list: function",
        "__git_coop_remote_setup: function",
        "_git-coop",
    ]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_reads_the_script_and_completes(ledger: Path, tmp_path: Path) -> None:
    todo = coop("add", "todo", "fishy").out.strip()
    script = tmp_path / "git-coop.fish"
    script.write_text(coop("completion", "fish").out)
    done = subprocess.run(
        [
            "fish",
            "--no-config",
            "-c",
            f"source {script}; complete -C 'git-coop li'; complete -C 'git-coop list --kind '; "
            f"complete -C 'git-coop show {todo[:5]}'",
        ],
        cwd=ledger,
        capture_output=True,
        text=True,
        env={**path_env(), "HOME": str(tmp_path)},
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("list\t")
    assert sorted(line.split("\t")[0] for line in lines[1:4]) == ["item", "request", "todo"]
    assert lines[4] == f"{todo}\tfishy"
