"""`mcp`: serve the ledger to an agent over MCP on stdio (the optional `gitcoop[mcp]` extra)."""

from __future__ import annotations

import typer

from gitcoop.errors import EnvironmentFailed


def mcp() -> None:
    """Serve this repository's ledger to an agent over MCP (stdio).

    Tools: every command an agent needs (list, show, log, ready, blocked, queue, owed,
    status, prime, add, edit, take, release, done, close, abandon, note, report, review,
    ack, resolve, dep, pick, finish, verify, scan, sync), each with the command's own
    options as its schema. Each answers with the command's JSON (compact), and any
    failure as an error with the same code and message. Needs the extra: pip install
    'gitcoop[mcp]'."""
    try:
        from gitcoop.cli import mcp_server
    except ImportError as missing:
        raise EnvironmentFailed(
            f"the MCP server needs the mcp extra (the official MCP SDK; {missing.name} is not "
            "installed) — pip install 'gitcoop[mcp]' (from a checkout: pip install '.[mcp]')"
        ) from None
    mcp_server.serve()


def register(app: typer.Typer) -> None:
    app.command()(mcp)
