"""The `git-coop` entry point and the one boundary from errors to exit codes."""

from __future__ import annotations

import os
import sys
import traceback

from gitcoop.cli.hooks_commands import replay_journal
from gitcoop.errors import CoopError

EXIT_BUG = 70  # EX_SOFTWARE: not a user mistake; the message asks for a report


def build_app() -> object:
    import typer

    from gitcoop.cli import (
        demo,
        fsck_commands,
        hooks_commands,
        ledger_commands,
        obligation_commands,
        queue_commands,
        sync_commands,
    )

    app = typer.Typer(
        name="git coop",
        help="A work ledger kept in this git repository, on refs/coop/ledger.",
        add_completion=False,
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    ledger_commands.register(app)
    obligation_commands.register(app)
    hooks_commands.register(app)
    queue_commands.register(app)
    demo.register(app, main)
    sync_commands.register(app)
    fsck_commands.register(app)
    return app


def main(argv: list[str] | None = None) -> int:
    """Run one command; return (and, as a script, exit with) its exit code."""
    app = build_app()
    try:
        replay_journal(argv)  # what hooks could not record: docs/hooks.md
        app(args=argv, prog_name="git coop", standalone_mode=False)  # type: ignore[operator]
    except CoopError as error:
        print(f"gitcoop: {error.message}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt:
        print("gitcoop: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except Exception as error:  # the boundary: a bug, never a user mistake
        if hasattr(error, "exit_code") and hasattr(error, "show"):
            error.show()
            return int(error.exit_code)
        if os.environ.get("COOP_DEBUG"):
            traceback.print_exc()
        print(
            f"gitcoop: unexpected error ({type(error).__name__}: {error}) — this is a bug; "
            "rerun with COOP_DEBUG=1 for the traceback and report it",
            file=sys.stderr,
        )
        return EXIT_BUG
    return 0


def run() -> None:
    sys.exit(main())
