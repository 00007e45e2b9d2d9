"""Run the board: one uvicorn server on a socket this module binds."""

from __future__ import annotations

import socket
from collections.abc import Callable

from gitcoop.web.app import MakeContext, Settings, build


def listen(host: str, port: int) -> socket.socket:
    """A listening socket on host:port (port 0: any free port)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve(make: MakeContext, host: str, port: int, ready: Callable[[str], None]) -> None:
    """Serve the board until interrupted; `ready(url)` is called once it listens."""
    import uvicorn

    sock = listen(host, port)
    bound_port = sock.getsockname()[1]
    settings = Settings(make, cookie=f"coop-board-{bound_port}", bound=host)
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{bound_port}/?token={settings.token}"
    app = build(settings)
    config = uvicorn.Config(
        app,
        log_level="warning",
        access_log=False,
        lifespan="off",
        timeout_graceful_shutdown=5,  # a stream that will not end is cut
    )
    server = uvicorn.Server(config)
    settings.stopping = lambda: server.should_exit  # Ctrl-C ends the live streams, then it stops
    ready(url)
    server.run(sockets=[sock])
