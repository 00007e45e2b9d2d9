"""`mcp`: serve the ledger to an agent over MCP on stdio (the optional `gitcoop[mcp]` extra)."""

from __future__ import annotations

import typer

from gitcoop.errors import EnvironmentFailed


def register(app: typer.Typer) -> None:
    @app.command()
    def mcp() -> None:
        """Serve this repository's ledger to an agent over MCP (stdio).

        Tools: ready, show, list, take, pick, note, report, finish, done, add, dep, owed,
        sync. Each tool answers with the same JSON as the command, and a refusal as an
        error with the same code and message. Needs the extra: pip install 'gitcoop[mcp]'."""
        try:
            from gitcoop.cli import mcp_server
        except ImportError as missing:
            raise EnvironmentFailed(
                f"the MCP server needs the official MCP SDK ({missing.name} is not installed) — "
                "install it with: pip install 'gitcoop[mcp]'"
            ) from None
        mcp_server.serve()
