"""Sync against a real server: `git daemon` with receive-pack, on 127.0.0.1."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in, git

EXEC_PATH = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout.strip()
pytestmark = pytest.mark.skipif(
    not (Path(EXEC_PATH) / "git-daemon").exists(), reason="git daemon is not installed"
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def wait_for_port(port: int, daemon: subprocess.Popen[bytes], timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if daemon.poll() is not None:
            raise AssertionError(
                f"git daemon exited: {daemon.stderr.read() if daemon.stderr else ''}"
            )
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)  # polling for the port, bounded by the deadline
    raise AssertionError(f"git daemon did not listen on {port} within {timeout}s")


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Clones]:
    """A bare remote served by `git daemon --enable=receive-pack`; stopped in teardown."""
    base = tmp_path / "served"
    base.mkdir()
    git(base, "init", "-q", "--bare", "remote.git")
    port = free_port()
    daemon = subprocess.Popen(
        [
            "git", "daemon", "--reuseaddr", "--export-all", "--enable=receive-pack",
            "--informative-errors", "--listen=127.0.0.1", f"--port={port}",
            f"--base-path={base}", str(base),
        ],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        wait_for_port(port, daemon)
        yield Clones(tmp_path, f"git://127.0.0.1:{port}/remote.git")
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(timeout=10)


def trees(path: Path) -> str:
    return git(path, "rev-parse", "refs/coop/ledger:items", "refs/coop/ledger:events")


def test_diverged_clones_meet_through_git_daemon(served: Clones) -> None:
    a, b = served.clone("alice"), served.clone("bob")
    assert coop_in(a, "init").code == 0
    assert coop_in(a, "add", "todo", "seed").code == 0
    assert coop_in(a, "sync").code == 0, coop_in(a, "sync").err
    assert coop_in(b, "sync").code == 0
    coop_in(a, "add", "todo", "alice's")
    coop_in(b, "add", "todo", "bob's")
    assert coop_in(a, "sync").code == 0
    merged = coop_in(b, "sync", "--json")
    assert merged.code == 0 and merged.json()["merge"] == "merged"
    assert coop_in(a, "sync").code == 0
    assert trees(a) == trees(b)
    titles = sorted(i["title"] for i in coop_in(b, "list", "--json").json())
    assert titles == ["alice's", "bob's", "seed"]


def test_simultaneous_syncs_through_git_daemon_both_land(served: Clones) -> None:
    a, b = served.clone("alice"), served.clone("bob")
    coop_in(a, "init")
    coop_in(a, "sync")
    coop_in(b, "sync")
    coop_in(a, "add", "todo", "alice's")
    coop_in(b, "add", "todo", "bob's")
    runner = [sys.executable, "-c", "from gitcoop.cli.main import run; run()", "sync"]
    procs = [
        subprocess.Popen(runner, cwd=p, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for p in (a, b)
    ]
    for proc in procs:
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 0, err
    coop_in(a, "sync"), coop_in(b, "sync")
    assert trees(a) == trees(b)
    fresh = served.clone("carol")
    assert coop_in(fresh, "remote", "setup", "origin").code == 0
    assert coop_in(fresh, "sync").code == 0
    titles = sorted(i["title"] for i in coop_in(fresh, "list", "--json").json())
    assert titles == ["alice's", "bob's"]
