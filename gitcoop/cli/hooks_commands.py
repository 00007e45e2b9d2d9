"""`git coop hooks install|uninstall|status`, and the hidden `git coop hook NAME`.

`git coop hook ...` is what the shims in hooks/ call. It always exits 0: a
hook must never fail the git command; what it could not record is journaled.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import Annotated

import typer

from gitcoop.cli import render
from gitcoop.cli.options import AsOpt, JsonOpt, SessionOpt, make_context
from gitcoop.cli.terminal import say, warn
from gitcoop.errors import CoopError
from gitcoop.service import commit_hooks, hooks, replay

EXTRA = {"allow_extra_args": True, "ignore_unknown_options": True}


def register(app: typer.Typer) -> None:
    hooks_app = typer.Typer(
        help="Install the git hooks that record Coop-Done/Coop-Close/Coop-Refs trailers.",
        no_args_is_help=True,
    )
    hook_app = typer.Typer(help="What the installed hooks run.", no_args_is_help=True)
    app.add_typer(hooks_app, name="hooks")
    app.add_typer(hook_app, name="hook", hidden=True)
    _register_hooks(hooks_app)
    _register_hook(hook_app)


def _register_hooks(hooks_app: typer.Typer) -> None:
    @hooks_app.command()
    def install(as_json: JsonOpt = False) -> None:
        """Add post-commit, post-rewrite and prepare-commit-msg; keeps a foreign hook chained."""
        _print_changes(hooks.install(make_context()), as_json)
        if shutil.which("git-coop") is None:  # the hooks call it by name
            warn(
                "gitcoop: warning: git-coop is not on PATH here, so the hooks will record "
                "nothing until it is",
            )

    @hooks_app.command()
    def uninstall(as_json: JsonOpt = False) -> None:
        """Remove gitcoop's hooks and put back any hook they had chained."""
        _print_changes(hooks.uninstall(make_context()), as_json)

    @hooks_app.command()
    def status(as_json: JsonOpt = False) -> None:
        """Which hooks are installed, whether each is current, and the journal's size."""
        ctx = make_context()
        states = hooks.status(ctx)
        waiting = replay.pending(ctx)
        if as_json:
            render.emit_json({"hooks": [asdict(s) for s in states], "journal_entries": waiting})
            return
        say(f"hooks dir: {hooks.hooks_dir(ctx)}")
        for state in states:
            chained = f" (chains {state.name}{hooks.LEGACY_SUFFIX})" if state.legacy else ""
            say(f"{state.name:<19} {state.state}{chained}")
        if waiting:
            say(
                f"journal: {waiting} entr{'y' if waiting == 1 else 'ies'} waiting — "
                "git coop hook replay records them"
            )


def _register_hook(hook_app: typer.Typer) -> None:
    @hook_app.command("post-commit", context_settings=EXTRA)
    def post_commit(session: SessionOpt = None) -> None:
        """Record the new commit's Coop trailers."""
        _run_hook(lambda: commit_hooks.post_commit(make_context(session=session)))

    @hook_app.command("post-rewrite", context_settings=EXTRA)
    def post_rewrite(
        kind: Annotated[str, typer.Argument(help="amend or rebase")] = "rebase",
        session: SessionOpt = None,
    ) -> None:
        """Move recorded commit shas to the rewritten commits (old new pairs on stdin)."""
        lines = sys.stdin.read().splitlines()
        _run_hook(lambda: commit_hooks.post_rewrite(make_context(session=session), kind, lines))

    @hook_app.command("prepare-commit-msg", context_settings=EXTRA)
    def prepare_commit_msg(
        message_file: Annotated[str, typer.Argument(metavar="FILE")],
        source: Annotated[str | None, typer.Argument(metavar="[SOURCE]")] = None,
        actor: AsOpt = None,
        session: SessionOpt = None,
    ) -> None:
        """Suggest a commented Coop-Done line when you hold exactly one item."""
        # the pre-commit framework passes the source in its environment instead
        source = source or os.environ.get("PRE_COMMIT_COMMIT_MSG_SOURCE") or None
        ctx = make_context(actor, session)
        _run_hook(lambda: _quiet(commit_hooks.prepare_commit_msg(ctx, message_file, source)))

    @hook_app.command("replay")
    def replay_(as_json: JsonOpt = False) -> None:
        """Record now what hooks journaled; report each outcome."""
        report = replay.replay(make_context())
        if as_json:
            render.emit_json(
                [
                    {"entry": r.entry, "status": o.status, "text": o.text}
                    for r in report
                    for o in r.outcomes
                ]
            )
            return
        lines = replay.report_lines(report)
        say("\n".join(lines) if lines else "the journal is empty; nothing to replay")


def _quiet(_: object) -> list[str]:
    return []


def _run_hook(body: Callable[[], list[str]]) -> None:
    try:
        lines = body()
    except CoopError as error:
        lines = [f"gitcoop: hook skipped: {error.message}"]
    except Exception as error:  # a hook must never fail the git command
        lines = [f"gitcoop: hook failed unexpectedly ({type(error).__name__}: {error})"]
    for line in lines:
        warn(line)


def _print_changes(changes: list[hooks.HookChange], as_json: bool) -> None:
    if as_json:
        render.emit_json([asdict(c) for c in changes])
        return
    words = {
        "installed": "installed",
        "chained": f"installed; the hook already there runs first as NAME{hooks.LEGACY_SUFFIX}",
        "updated": "updated to this gitcoop's version",
        "unchanged": "already installed and current",
        "removed": "removed",
        "restored": f"removed; NAME{hooks.LEGACY_SUFFIX} put back",
        "absent": "not installed",
        "foreign": "not gitcoop's hook; left alone",
    }
    for change in changes:
        text = words[change.action].replace("NAME", change.name)
        say(f"{change.path}: {text}")
