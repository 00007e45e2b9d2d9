"""`git coop hide-ledger [--undo]`: keep refs/coop/* out of everyday history views.

`init` and `remote setup` call `hide_after_setup` too (service/history_view.py
says what is set and why).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.options import JsonOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.service import history_view

if TYPE_CHECKING:
    from gitcoop.service.context import Context

UNDO = "git coop hide-ledger --undo"


def hide_ledger(
    undo: Annotated[bool, typer.Option("--undo", help="Remove what it set; nothing else.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Keep ledger commits out of git log decorations, and add `git log-all`.

    git has no setting that takes refs out of `git log --all`, gitk --all or
    tig --all; `git log-all` (an alias, set only if the name is free) is
    `git log --exclude=refs/coop/* --all`. Undo with --undo.
    """
    ctx = make_context()
    changes = history_view.show(ctx) if undo else history_view.hide(ctx)
    if as_json:
        render.emit_json([asdict(c) for c in changes])
        return
    for change in changes:
        say(printable(f"git config {change.key} {change.value!r}: {change.action}"))
    if not changes:
        say("nothing to undo: gitcoop set nothing here" if undo else "nothing to change")


def register(app: typer.Typer) -> None:
    app.command("hide-ledger")(hide_ledger)


def hide_after_setup(ctx: Context) -> tuple[list[dict[str, Any]], list[str]]:
    """Hide the ledger from history views; the changes, and a line when anything was set."""
    changes = history_view.hide(ctx)
    lines = []
    if any(c.action == "set" for c in changes):
        ours = all(c.action != "skipped" for c in changes if c.key == "alias.log-all")
        log_all = (
            "git log-all is git log --all without them"
            if ours
            else "git log-all is already an alias of yours, left as it is"
        )
        lines.append(
            f"gitcoop: ledger commits are kept out of git log decorations, and {log_all} "
            f"(git log/gitk/tig: --exclude=refs/coop/* --all; undo: {UNDO})"
        )
    return [asdict(c) for c in changes], lines
