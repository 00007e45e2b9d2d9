"""`git coop demo`: a guided walkthrough in a throwaway repository.

Each step is a real `git coop` command run against a fresh repository, with
the actor and the clock set the way a team and its agents would have them.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import tempfile
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from typing import Annotated

import typer

from gitcoop.cli import terminal
from gitcoop.cli.options import JsonOpt
from gitcoop.service.process import new_repository

ALICE = "alice@example.com"
BOB = "bob@example.com"


class Steps:
    """Runs each step as a person at a time, and tells the reader (or collects for --json)."""

    def __init__(self, run: Callable[[list[str]], int], quiet: bool) -> None:
        self.run = run
        self.quiet = quiet
        self.record: list[dict[str, object]] = []

    def say(self, text: str) -> None:
        if not self.quiet:
            terminal.say(text)

    def __call__(self, who: str, when: str, args: list[str]) -> str:
        """Run one command as `who` at `when`, echo it, and return what it printed."""
        os.environ["COOP_ACTOR"] = who
        os.environ["COOP_NOW"] = when
        self.say(f"\n[{when[11:16]} UTC, {who}]  $ git coop {shlex.join(args)}")
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = self.run(args)
        for line in (out.getvalue() + err.getvalue()).splitlines():
            self.say(f"    {line}")
        if code != 0:
            self.say(f"    (exit {code}: refused, as it should be)")
        self.record.append(
            {
                "actor": who,
                "at": when,
                "command": ["git", "coop", *args],
                "exit": code,
                "stdout": out.getvalue(),
                "stderr": err.getvalue(),
            }
        )
        return out.getvalue().strip()


def walkthrough(run: Callable[[list[str]], int], keep: bool, as_json: bool = False) -> None:
    folder = tempfile.mkdtemp(prefix="gitcoop-demo-")
    saved_cwd = os.getcwd()
    saved_env = {k: os.environ.get(k) for k in ("COOP_ACTOR", "COOP_NOW", "COOP_SESSION")}
    try:
        new_repository(folder, ALICE)
        os.chdir(folder)
        step = Steps(run, quiet=as_json)
        step.say(f"A throwaway repository at {folder}; the ledger lives on refs/coop/ledger.")
        step(ALICE, "2026-11-29T09:00:00Z", ["init"])
        todo = step(ALICE, "2026-11-29T09:01:00Z", ["add", "todo", "Fix the flaky queue test"])
        step(ALICE, "2026-11-29T09:02:00Z", ["add", "request", "Review the release notes"])
        step(BOB, "2026-11-29T09:05:00Z", ["take", todo, "--session", "agent-run-17"])
        step(ALICE, "2026-11-29T09:06:00Z", ["take", todo])
        step(ALICE, "2026-11-29T14:00:00Z", ["list"])
        step(ALICE, "2026-11-29T14:00:00Z", ["owed"])
        done = ["done", todo, "--summary", "retry on EAGAIN", "--commit", "1a2b3c4"]
        done.append("--commit-elsewhere")  # the demo's work commit is in no repository
        step(BOB, "2026-11-29T14:10:00Z", done)
        step(BOB, "2026-11-29T14:11:00Z", done)  # the same close again: nothing changes
        step(ALICE, "2026-11-29T14:12:00Z", ["log", todo])
        step(ALICE, "2026-11-29T14:12:00Z", ["list"])
    finally:
        os.chdir(saved_cwd)
        for key, value in saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        if not keep:
            shutil.rmtree(folder, ignore_errors=True)
    if as_json:
        print(json.dumps({"repository": folder, "kept": keep, "steps": step.record}, indent=2))
    elif keep:
        terminal.say(f"\nEvery step above is one commit on refs/coop/ledger, kept at {folder}:")
        terminal.say(f"  cd {shlex.quote(folder)} && git log --oneline refs/coop/ledger")
    else:
        terminal.say(
            "\nEvery step above was one commit on refs/coop/ledger, in a repository now "
            "removed; git coop demo --keep keeps it to explore."
        )


def demo(
    keep: Annotated[bool, typer.Option("--keep", help="Keep the throwaway repository.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """A guided walkthrough in a throwaway repository: add, take, a refused take, done, log."""
    from gitcoop.cli.main import main  # each step runs as `git coop` itself

    walkthrough(main, keep, as_json)


def register(app: typer.Typer) -> None:
    app.command()(demo)
