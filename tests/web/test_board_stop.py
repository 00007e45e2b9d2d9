"""Ctrl-C stops a real `git coop serve` cleanly while a page's live stream is open.

A terminal's Ctrl-C signals the whole foreground group: git and the git-coop it
runs. git then sends the same signal on to git-coop, so the server often sees
SIGINT twice. Either way the open stream ends (its chunked body is closed, not
cut), git-coop exits 0 and nothing is printed: no traceback, no log line.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

from tests.conftest import coop_process, make_repo

BIN = Path(sys.executable).parent
WAIT_SECONDS = 30  # a bound on a hang, never a timing assertion


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    path = make_repo(tmp_path / "repo")
    assert coop_process(path, "init").code == 0
    assert coop_process(path, "add", "todo", "Something to show").code == 0
    return path


def start(repo: Path, command: list[str]) -> tuple[subprocess.Popen[str], str]:
    env = {**os.environ, "PATH": str(BIN) + os.pathsep + os.environ["PATH"]}
    server = subprocess.Popen(
        [*command, "serve", "--port", "0", "--json"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # its own group, as a terminal's foreground job is
    )
    assert server.stdout is not None
    printed = ""  # the JSON object serve prints once its socket listens
    while not printed.endswith("}\n"):
        line = server.stdout.readline()
        assert line, server.stderr.read() if server.stderr else "serve printed nothing"
        printed += line
    return server, json.loads(printed)["url"]


@pytest.fixture
def stopped() -> Iterator[list[subprocess.Popen[str]]]:
    started: list[subprocess.Popen[str]] = []
    yield started
    for server in started:  # whatever a failed test left running
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()


def open_stream(url: str) -> socket.socket:
    """GET /events with the board's cookie, read until its first event has come."""
    parts = urlsplit(url)
    token = parts.query.removeprefix("token=")
    conn = socket.create_connection((parts.hostname, parts.port), timeout=WAIT_SECONDS)
    conn.sendall(
        (
            f"GET /events HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            f"Cookie: coop-board-{parts.port}={token}\r\nAccept: text/event-stream\r\n\r\n"
        ).encode()
    )
    got = b""
    while b"event: ledger" not in got:
        chunk = conn.recv(4096)
        assert chunk, got
        got += chunk
    assert got.startswith(b"HTTP/1.1 200"), got
    return conn


def rest(conn: socket.socket) -> bytes:
    got = b""
    while chunk := conn.recv(4096):
        got += chunk
    conn.close()
    return got


def test_ctrl_c_through_git_stops_it_with_a_stream_open(
    repo: Path, stopped: list[subprocess.Popen[str]]
) -> None:
    server, url = start(repo, ["git", "coop"])
    stopped.append(server)
    stream = open_stream(url)
    os.killpg(server.pid, signal.SIGINT)  # Ctrl-C: git and git-coop both get it
    assert server.wait(timeout=WAIT_SECONDS) == -signal.SIGINT  # git reports the signal
    assert rest(stream).endswith(b"0\r\n\r\n")  # the stream was ended, not cut
    assert server.stderr is not None
    assert server.stderr.read() == ""


@pytest.mark.parametrize("signals", [1, 2])
def test_sigint_stops_git_coop_with_exit_0(
    repo: Path, stopped: list[subprocess.Popen[str]], signals: int
) -> None:
    server, url = start(repo, [str(BIN / "git-coop")])
    stopped.append(server)
    stream = open_stream(url)
    for _ in range(signals):  # the second is the one git sends on
        os.kill(server.pid, signal.SIGINT)
    assert server.wait(timeout=WAIT_SECONDS) == 0
    assert rest(stream).endswith(b"0\r\n\r\n")
    assert server.stderr is not None
    assert server.stderr.read() == ""


def test_sigterm_stops_it_the_same_way(repo: Path, stopped: list[subprocess.Popen[str]]) -> None:
    server, url = start(repo, [str(BIN / "git-coop")])
    stopped.append(server)
    stream = open_stream(url)
    os.kill(server.pid, signal.SIGTERM)
    assert server.wait(timeout=WAIT_SECONDS) == 0
    assert rest(stream).endswith(b"0\r\n\r\n")
    assert server.stderr is not None
    assert server.stderr.read() == ""


def test_sigint_as_soon_as_the_address_is_printed_stops_it_the_same_way(
    repo: Path, stopped: list[subprocess.Popen[str]]
) -> None:
    server, _ = start(repo, [str(BIN / "git-coop")])
    stopped.append(server)
    os.kill(server.pid, signal.SIGINT)  # before its loop may have started
    assert server.wait(timeout=WAIT_SECONDS) == 0
    assert server.stderr is not None
    assert server.stderr.read() == ""
