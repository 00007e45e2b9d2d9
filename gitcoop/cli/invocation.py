"""The one place the environment is read: flags and COOP_* variables into a Context.

Kept apart from the typer options so that what runs without typer (the
completion of ids, cli/completion.py) builds its Context the same way.
"""

from __future__ import annotations

import os
from datetime import datetime

from gitcoop.domain import bounds
from gitcoop.domain.ids import session_problem
from gitcoop.domain.timefmt import parse_instant
from gitcoop.errors import UsageError
from gitcoop.service.context import TRUE_WORDS, Context, Search


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
        "search": Search(
            exact=bool(env.get("GIT_DIR")),
            ceiling=env.get("GIT_CEILING_DIRECTORIES", ""),
            across_fs=env.get("GIT_DISCOVERY_ACROSS_FILESYSTEM", "").lower() in TRUE_WORDS,
        ),
    }
    if env.get("COOP_NOW"):
        fields["now"] = _now(env["COOP_NOW"])
    if env.get("COOP_SEED"):
        import random  # only a seeded run (tests, the demo) loads it

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
