"""Options every command shares, and the one place the environment is read."""

from __future__ import annotations

import os
import random
from datetime import datetime
from typing import Annotated

import typer

from gitcoop.domain import bounds
from gitcoop.domain.ids import session_problem
from gitcoop.domain.timefmt import parse_instant
from gitcoop.errors import UsageError
from gitcoop.service.context import Context

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


def make_context(
    actor: str | None = None,
    session: str | None = None,
    expect_version: int | None = None,
    offline: bool = False,
) -> Context:
    """A Context from the flags, falling back to COOP_ACTOR, COOP_SESSION, COOP_NOW."""
    env = os.environ
    if actor is not None and not actor.strip():
        raise UsageError("--as needs a name: --as ACTOR (or leave it out)")
    named = session if session is not None else env.get("COOP_SESSION") or None
    problem = session_problem(named) if named is not None else None
    if problem:  # an empty COOP_SESSION is unset, as shells mean it; blank space is not a name
        raise UsageError(problem if session is not None else f"COOP_SESSION: {problem}")
    fields: dict[str, object] = {
        "path": env.get("GIT_DIR") or ".",  # `git --git-dir=X coop` exports GIT_DIR
        "actor": actor or env.get("COOP_ACTOR") or None,
        "session": named,
        "expect_version": expect_version,
        "offline": offline,
        # `git -c key=value coop ...`: git passes its -c values on in this variable
        "git_parameters": env.get("GIT_CONFIG_PARAMETERS", ""),
    }
    if env.get("COOP_NOW"):
        fields["now"] = _now(env["COOP_NOW"])
    if env.get("COOP_SEED"):
        fields["bits"] = random.Random(env["COOP_SEED"]).getrandbits
    return Context(**fields)  # type: ignore[arg-type]


def _now(text: str) -> datetime:
    """COOP_NOW: an instant an event may carry (so every due date computed from it reads back)."""
    try:
        now = parse_instant(text)
        problem = bounds.instant_problem(now, "COOP_NOW")
    except ValueError as exc:
        problem = str(exc)
    if problem:
        raise UsageError(
            f"COOP_NOW={text!r} is not a usable ISO 8601 instant ({problem}); "
            "use e.g. 2026-11-29T10:00:00Z"
        )
    return now
