"""serve: the board, a local web page over the ledger (gitcoop/web, docs/board.md)."""

from __future__ import annotations

import errno
from typing import TYPE_CHECKING, Annotated

import typer

from gitcoop.cli.options import AsOpt, JsonOpt
from gitcoop.cli.terminal import say, warn
from gitcoop.errors import EnvironmentFailed, UsageError

if TYPE_CHECKING:
    from gitcoop.service.context import Context

LOOPBACK = ("127.0.0.1", "localhost", "::1")
EXTRA_MODULES = ("starlette", "uvicorn", "jinja2", "markupsafe", "markdown_it", "anyio")
NEEDS_EXTRA = (
    "the board needs the web extra — pip install 'gitcoop[web]' (from a checkout: "
    "pip install '.[web]')"
)


PortOpt = Annotated[
    int,
    typer.Option("--port", metavar="N", min=0, max=65535, help="Port (0: any free one)."),
]
HostOpt = Annotated[
    str,
    typer.Option(
        "--host",
        metavar="ADDRESS",
        help="Address to listen on. Anything but 127.0.0.1 lets others reach it.",
    ),
]
OpenOpt = Annotated[bool, typer.Option("--open", help="Open the board in a web browser.")]


def serve(
    port: PortOpt = 8765,
    host: HostOpt = "127.0.0.1",
    open_browser: OpenOpt = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Serve the board: a live web page of this ledger that acts through the same rules.

    Prints the address to open, with its token (--json: {"url": ...}); every page updates when
    refs/coop/ledger moves. Ctrl-C stops it; it holds nothing the ledger does not."""
    from gitcoop.cli.invocation import make_context

    try:
        from gitcoop.web import server
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] not in EXTRA_MODULES:
            raise
        raise EnvironmentFailed(NEEDS_EXTRA) from None  # as mcp's: this machine lacks it
    from gitcoop.service import board

    board.viewer(make_context(actor))  # who acts, and that there is a ledger: said now

    def made(expect: int | None) -> Context:
        return make_context(actor, None, expect)

    if host not in LOOPBACK:
        warn(
            f"gitcoop: warning: the board listens on {host}: anyone who can reach it "
            "and has its address with the token can read and change the ledger as you"
        )
    try:
        server.serve(made, host, port, lambda url: _ready(url, as_json, open_browser))
    except OSError as exc:
        taken = exc.errno in (errno.EADDRINUSE, errno.EACCES)  # the port: in use, or reserved
        which = "another --port" if taken else "a --host this machine has (127.0.0.1)"
        raise UsageError(
            f"cannot listen on {host}:{port} ({exc.strerror or exc}) — choose {which}"
        ) from None


def _ready(url: str, as_json: bool, open_browser: bool) -> None:
    """The board listens: say its address (flushed, for a program waiting on it), and
    open it in a browser when asked."""
    import sys

    if as_json:
        from gitcoop.cli import render

        render.emit_json({"url": url})
    else:
        say(f"board: {url}")
        say("Ctrl-C stops it")

    sys.stdout.flush()
    if open_browser:
        import webbrowser

        webbrowser.open(url)


def register(app: typer.Typer) -> None:
    app.command()(serve)
