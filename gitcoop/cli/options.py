"""Options every command shares (the environment is read in cli/invocation.py)."""

from __future__ import annotations

from typing import Annotated

import click
import typer

from gitcoop.cli.invocation import make_context

__all__ = ["make_context"]

KINDS = ("todo", "request", "item")

AsOpt = Annotated[
    str | None,
    typer.Option(
        "--as",
        metavar="ACTOR",
        help="Act as this person. Default: $COOP_ACTOR, then git config user.email.",
        show_default=False,
    ),
]
SessionOpt = Annotated[
    str | None,
    typer.Option(
        "--session",
        metavar="S",
        help="The session doing the work (default: $COOP_SESSION). A take inside a session "
        "owes an outcome in 3h; without one, a chief's review in 3h; a pick, one in 2h.",
        show_default=False,
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
ExpectOpt = Annotated[
    int | None,
    typer.Option(
        "--expect-version",
        metavar="N",
        min=0,
        help="Refuse (exit 3) unless the item is still at version N.",
        show_default=False,
    ),
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Override the holder guard.")]
OfflineOpt = Annotated[
    bool,
    typer.Option(
        "--offline",
        help="With claims through a remote (coop.claims): claim here only, without asking it; "
        "it is decided at the next sync, where the taker of a losing claim is told (exit 8).",
    ),
]


KindOpt = Annotated[
    str | None,
    typer.Option(
        "--kind",
        metavar="KIND",
        click_type=click.Choice(KINDS),
        help="Only this kind: todo, request or item.",
        show_default=False,
    ),
]
LimitOpt = Annotated[
    int | None,
    typer.Option("-n", "--limit", metavar="N", min=0, help="At most N items.", show_default=False),
]
WideOpt = Annotated[
    bool,
    typer.Option("--wide", help="Show whole titles; on a terminal they are cut to fit its width."),
]
