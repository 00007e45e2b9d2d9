"""`git coop version` (and `git coop --version`): which gitcoop this is, and what it runs on."""

from __future__ import annotations

import platform

import typer

from gitcoop.cli.options import JsonOpt


def versions() -> dict[str, str]:
    from gitcoop import __version__
    from gitcoop.service.process import library_versions

    return {"version": __version__, "python": platform.python_version(), **library_versions()}


def print_version(as_json: bool = False) -> None:
    from gitcoop.cli import render
    from gitcoop.cli.terminal import say

    found = versions()
    if as_json:
        render.emit_json(found)
        return
    say(f"git coop version {found['version']}")
    say(f"python {found['python']}, pygit2 {found['pygit2']} (libgit2 {found['libgit2']})")


def version(as_json: JsonOpt = False) -> None:
    """Print gitcoop's version, and the Python and libgit2 it runs on."""
    print_version(as_json)


def register(app: typer.Typer) -> None:
    app.command()(version)
