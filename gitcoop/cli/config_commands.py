"""config: the ledger's queue settings, shown, set and reset."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from gitcoop.cli.options import AsOpt, JsonOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.errors import UsageError

if TYPE_CHECKING:
    from gitcoop.service.settings import Shown


def config(
    key: Annotated[str | None, typer.Argument(metavar="[KEY]", help="A setting.")] = None,
    value: Annotated[
        str | None, typer.Argument(metavar="[VALUE]", help="Its new value (owners only).")
    ] = None,
    reset: Annotated[
        bool, typer.Option("--reset", help="Put KEY back to its default (owners only).")
    ] = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Show the ledger's settings with their defaults, or set or reset one.

    The settings travel with the ledger, and every clone shares them:
    max_same_shape (findings of one shape a scan keeps), topup_threshold (the
    queue asks for a top-up below this many live items), topup_size (how many
    findings a top-up asks for), verifier (a command the ledger suggests;
    never run: git config coop.verifier is what runs), and require_signed
    (true: every ledger commit is signed by a key the ledger registers to its
    author; see git coop keys).
    """
    from gitcoop.cli import render
    from gitcoop.service import settings

    ctx = make_context(actor)
    if reset and (key is None or value is not None):
        raise UsageError("--reset takes a KEY and no VALUE: git coop config KEY --reset")
    if key is None or (value is None and not reset):
        shown = settings.show(ctx, key)
        if as_json:
            data = [s.to_data() for s in shown]
            render.emit_json(data if key is None else data[0])
            return
        for row in shown:
            say(printable(setting_line(row)))
        return
    row, changed = settings.set_value(ctx, key, None if reset else value)
    if as_json:
        render.emit_json({**row.to_data(), "changed": changed})
    else:
        news = "unchanged" if not changed else ("reset to its default" if reset else "set")
        say(printable(f"{row.key} = {shown_value(row.value)} ({news})"))


def register(app: typer.Typer) -> None:
    app.command()(config)


def setting_line(row: Shown) -> str:
    default = f"(default {shown_value(row.default)})" if row.is_set else "(the default)"
    return f"{row.key:<16} {shown_value(row.value):<12} {default:<16} {row.help}"


def shown_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "(none)" if value is None else str(value)
