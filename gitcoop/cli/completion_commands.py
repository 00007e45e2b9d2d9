"""`git coop completion bash|zsh|fish`: the shell completion script (cli/completion.py)."""

from __future__ import annotations

import sys
from typing import Annotated

import click
import typer

from gitcoop.cli.options import JsonOpt

SHELLS = ("bash", "zsh", "fish")


def completion(
    shell: Annotated[
        str,
        typer.Argument(metavar="SHELL", click_type=click.Choice(SHELLS), help="bash, zsh or fish."),
    ],
    as_json: JsonOpt = False,
) -> None:
    """Print the completion script for a shell; `git coop` then completes under git too.

    \b
    bash: git coop completion bash > ~/.local/share/bash-completion/completions/git-coop
    zsh:  git coop completion zsh > ~/.zfunc/_git-coop (with ~/.zfunc on $fpath)
    fish: git coop completion fish > ~/.config/fish/completions/git-coop.fish

    Commands, options and their values are completed from the script itself; item
    ids come from the read cache of the repository the command line is in.
    """
    from gitcoop.cli.completion import script
    from gitcoop.cli.main import build_app

    text = script(shell, build_app(None))
    if as_json:
        from gitcoop.cli import render

        render.emit_json({"shell": shell, "script": text})
    else:
        sys.stdout.write(text)


def register(app: typer.Typer) -> None:
    app.command()(completion)
