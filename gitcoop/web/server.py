"""Run the board: one uvicorn server on a socket this module binds."""

from __future__ import annotations

import contextlib
import signal
import socket
import threading
from collections.abc import Callable, Iterator
from types import FrameType

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

    class Board(uvicorn.Server):
        """uvicorn's server, stopped only gracefully, and without raising the signal again."""

        @contextlib.contextmanager
        def capture_signals(self) -> Iterator[None]:
            yield  # serve() holds SIGINT and SIGTERM around the whole run instead

        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            # A second Ctrl-C asks the same: git sends the terminal's SIGINT on to git-coop,
            # so one Ctrl-C often arrives twice. uvicorn would take it as "force quit" and
            # leave the open streams to be cancelled under a KeyboardInterrupt.
            self.should_exit = True

    server = Board(config)
    settings.stopping = lambda: server.should_exit  # Ctrl-C ends the live streams, then it stops
    with _stopped_by_signals(server.handle_exit):  # before the address is out: a Ctrl-C
        ready(url)  # right after it stops the server as any other does
        server.run(sockets=[sock])


@contextlib.contextmanager
def _stopped_by_signals(stop: Callable[[int, FrameType | None], None]) -> Iterator[None]:
    """Within: SIGINT and SIGTERM call `stop`, until the event loop is closed and every task
    has ended. uvicorn raises the signal again once it has stopped, which asyncio turns into
    a KeyboardInterrupt that cancels whatever still runs (each one logged with a traceback);
    here the signal is answered once, by stopping, and serve() returns: exit 0."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held = (signal.SIGINT, signal.SIGTERM)
    previous = {sig: signal.signal(sig, stop) for sig in held}
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
