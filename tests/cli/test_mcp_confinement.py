"""An MCP tool's file arguments are the worktree's regular files; its arguments hold no NUL.

An agent's arguments are a stranger's: a fifo in the worktree held the server (and every
call after it) in `open`, `.git/config` (a remote's credentials) went into an item's body
for every clone, a 3 GiB file was read whole before its size was checked, and a NUL in a
session raised outside the tool's error contract.
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession
from mcp.client.stdio import stdio_client

from tests.cli.test_mcp import answer, coop_git_tip, server, session_calls
from tests.conftest import git


def test_a_fifo_in_the_worktree_does_not_hang_the_server(ledger: Path) -> None:
    os.mkfifo(ledger / "pipe")
    done = threading.Event()

    def release_late() -> None:  # so that the test ends even when the server blocks
        if not done.wait(20):
            with open(ledger / "pipe", "w") as writer:
                writer.write("released by the test\n")

    threading.Thread(target=release_late, daemon=True).start()

    async def calls() -> tuple[Any, float, Any]:
        async with (
            stdio_client(server(ledger, "alice@example.com")) as (r, w),
            ClientSession(r, w) as s,
        ):
            await s.initialize()
            start = time.monotonic()
            blocked = await s.call_tool("add", {"kind": "todo", "title": "t", "body_file": "pipe"})
            took = time.monotonic() - start
            after = await s.call_tool("list", {})
            return blocked, took, after

    blocked, took, _ = asyncio.run(calls())
    done.set()
    # the server read the fifo until the test released it: 20 s, every later call waiting
    assert took < 10, f"the add blocked the server for {took:.0f} s"
    assert blocked.is_error and "worktree" in answer(blocked)["error"]["message"]


def test_the_git_dir_is_not_a_file_a_tool_may_read(ledger: Path) -> None:
    git(ledger, "config", "remote.origin.url", "https://alice:ghp_TOKEN123@example.com/x.git")
    tip = coop_git_tip(ledger)
    calls = [("add", {"kind": "todo", "title": "cfg", "body_file": ".git/config"})]
    _, (added,) = asyncio.run(session_calls(ledger, "alice@example.com", calls))
    # the repository's config (credentials in a remote's URL, http.extraHeader) went into
    # the ledger, which every clone reads
    assert added.is_error, answer(added)["body"][:200]
    assert coop_git_tip(ledger) == tip


def test_a_session_holding_nul_is_a_tool_error(ledger: Path) -> None:
    calls = [("add", {"kind": "todo", "title": "t", "session": "a\x00b"}), ("list", {})]
    try:
        _, (added, _) = asyncio.run(session_calls(ledger, "alice@example.com", calls))
    except BaseException as failed:  # the handler raised: a JSON-RPC error, not a tool error
        raise AssertionError(f"not the tool error contract: {failed!r}") from None
    assert added.is_error and answer(added)["error"]["exit"] == 2


def test_a_huge_body_file_is_refused_before_it_is_read(ledger: Path) -> None:
    """The path MCP's `body_file` takes (cli/body.py reads the whole file, then checks
    64 KiB): a sparse 3 GiB file in the worktree, read under a 1.5 GiB address-space cap
    so that the test cannot exhaust the machine."""
    import resource
    import subprocess
    import sys

    with open(ledger / "big.md", "wb") as big:
        big.truncate(3 * 2**30)

    def capped() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (1536 * 2**20, 1536 * 2**20))

    done = subprocess.run(
        [sys.executable, "-m", "gitcoop", "add", "todo", "big", "--body-file", "big.md"],
        cwd=ledger,
        capture_output=True,
        text=True,
        preexec_fn=capped,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).parents[2])},
        timeout=120,
    )
    assert done.returncode == 2, (done.returncode, done.stderr)  # is 70: MemoryError


def test_a_git_folder_is_no_file_a_tool_may_read_whatever_its_name(tmp_path: Path) -> None:
    """The repository's own git folder is refused by where it is, not by its name: a
    `--separate-git-dir` inside the worktree, and `.GIT` on a file system that ignores
    case."""
    from gitcoop.cli.mcp_tools import Room, _inside
    from gitcoop.errors import UsageError

    top = tmp_path / "work"
    git(tmp_path, "init", "-q", "--separate-git-dir", str(top / "meta"), str(top))
    (top / "notes.md").write_text("fine\n")
    room = Room(str(top), (str(top / "meta"),))
    assert _inside("add", str(top / "notes.md"), room) == os.path.realpath(top / "notes.md")
    for name in ("meta/config", ".GIT/config"):
        (top / name).parent.mkdir(exist_ok=True)
        (top / name).touch()
        with pytest.raises(UsageError, match="not in its git folder"):
            _inside("add", str(top / name), room)
