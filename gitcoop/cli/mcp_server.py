"""The ledger over MCP (stdio), with the official MCP Python SDK (`gitcoop[mcp]`).

Each tool runs the command of the same name, in this process, with `--json`,
and answers with exactly the JSON that command prints: the same code path,
the same rules, the same text. A command that exits non-zero (a refusal, a
usage error, a change under the write, nothing to pick) is a tool error
(`isError`) carrying the command's `{"error": {"code", "exit", "message",
"holder"?}}`. Commands run one at a time (they share the process's standard
streams); the SDK serves the protocol on its own copy of stdout.

The person acting is the server's: COOP_ACTOR or git's user.email where it
was started, and COOP_SESSION; a tool cannot act as someone else. Only
`cli/mcp_commands.py` imports this module, so no other command loads the SDK.
"""

from __future__ import annotations

import io
import json
import os
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import Any

from mcp.server.mcpserver import MCPServer
from mcp.types import CallToolResult, TextContent

from gitcoop import __version__
from gitcoop.store import heap

_ONE_AT_A_TIME = threading.Lock()

INSTRUCTIONS = """\
A work ledger kept in this git repository (refs/coop/ledger). Start with `ready`
(what can start now, best first), claim with `take` (or `pick` for the queue),
record progress with `note`, finish with `done` (todos), `finish` (queue items)
or `report`. Before stopping, `owed` with mine=true shows what you still owe.
Every tool answers with the JSON of the `git coop` command of the same name;
errors carry {"error": {"code", "exit", "message", "holder"}}."""


def run(
    words: Sequence[str],
    options: Sequence[str] = (),
    args: Sequence[str] = (),
    session: str | None = None,
) -> CallToolResult:
    """`git coop WORDS OPTIONS --json -- ARGS` in this process, as a tool's answer.

    `session`: for a command without --session (only the commands where a session
    changes the item have it), recorded on the event through COOP_SESSION, as a shell
    would."""
    from gitcoop.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    argv = [*words, *options, "--json", *(["--", *args] if args else [])]
    with _ONE_AT_A_TIME, redirect_stdout(out), redirect_stderr(err), _session(session):
        code = main(argv)
    text = out.getvalue().strip()
    if not text:  # every command prints JSON under --json; say what it said instead
        message = err.getvalue().strip().removeprefix("gitcoop: ") or f"exit {code}"
        error = {"code": "bug" if code else "empty", "exit": code, "message": message}
        text = json.dumps({"error": error})
    value = json.loads(text)
    structured = value if isinstance(value, dict) else None
    return CallToolResult(
        content=[TextContent(type="text", text=text)],
        structured_content=structured,
        is_error=code != 0,
    )


@contextmanager
def _session(session: str | None) -> Iterator[None]:
    if session is None:
        yield
        return
    saved = os.environ.get("COOP_SESSION")
    os.environ["COOP_SESSION"] = session
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("COOP_SESSION", None)
        else:
            os.environ["COOP_SESSION"] = saved


def flag(name: str, value: Any) -> list[str]:
    """One option as words on a command line: nothing for None/False, repeated for a list."""
    if value is None or value is False:
        return []
    if value is True:
        return [name]
    if isinstance(value, list | tuple):
        return [word for entry in value for word in (name, str(entry))]
    return [name, str(value)]


def flags(**given: Any) -> list[str]:
    return [w for key, value in given.items() for w in flag("--" + key.replace("_", "-"), value)]


def build() -> MCPServer:
    server: MCPServer = MCPServer(
        name="gitcoop", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    for tool in (ready, show, list_, take, pick, note, report, finish, done, add, dep, owed, sync):
        server.add_tool(tool, name=tool.__name__.rstrip("_"), structured_output=False)
    return server


def serve() -> None:
    heap.keep_nothing()  # a long-lived process: each call frees what it read
    build().run("stdio")


# -- the tools: each is its command ------------------------------------------------


def ready(
    kind: str | None = None, tag: str | None = None, limit: int | None = None
) -> CallToolResult:
    """What can be started now, best first: open todos and requests and ready queue
    items that wait on nothing unsettled, by priority (0 first), then queue order or age."""
    return run(["ready"], flags(kind=kind, tag=tag, limit=limit))


def show(id: str) -> CallToolResult:
    """Everything about one item (id or unique prefix): body, tags, priority, what it
    owes, its links both ways, its notes."""
    return run(["show"], args=[id])


def list_(
    all: bool = False,
    kind: str | None = None,
    status: str | None = None,
    holder: str | None = None,
    tag: str | None = None,
    owed: bool = False,
    mine: bool = False,
) -> CallToolResult:
    """Open and taken work (settled too with all=true), oldest first, with filters."""
    return run(
        ["list"],
        flags(all=all, kind=kind, status=status, holder=holder, tag=tag, owed=owed, mine=mine),
    )


def take(
    id: str, force: bool = False, session: str | None = None, expect_version: int | None = None
) -> CallToolResult:
    """Claim an open todo or request. Refused (naming the holder, or the items it waits
    on) when someone holds it or it is blocked; repeating your own take changes nothing."""
    return run(["take"], flags(force=force, session=session, expect_version=expect_version), [id])


def pick(max_verify: int | None = None, session: str | None = None) -> CallToolResult:
    """Take the topmost ready queue item (verifying first what needs it). Nothing to
    pick is an error with code nothing_to_do (exit 5)."""
    return run(["pick"], flags(max_verify=max_verify, session=session))


def note(
    id: str, text: str, session: str | None = None, expect_version: int | None = None
) -> CallToolResult:
    """Record what you found on an item; the holder's note pulls its review forward."""
    return run(["note"], flags(expect_version=expect_version), [id, text], session)


def report(
    id: str,
    status: str,
    reason: str | None = None,
    summary: str | None = None,
    commit: str | None = None,
    commit_elsewhere: bool = False,
    note: str | None = None,
    session: str | None = None,
    expect_version: int | None = None,
) -> CallToolResult:
    """The holder's report: done, released, abandoned, blocked (with reason) or unblocked."""
    options = flags(
        reason=reason,
        summary=summary,
        commit=commit,
        commit_elsewhere=commit_elsewhere,
        note=note,
        expect_version=expect_version,
    )
    return run(["report"], options, [id, status], session)


def finish(
    id: str,
    outcome: str,
    commit: str | None = None,
    commit_elsewhere: bool = False,
    reason: str | None = None,
    failure: str | None = None,
    force: bool = False,
    session: str | None = None,
    expect_version: int | None = None,
) -> CallToolResult:
    """End a round on a picked queue item: done (commit), closed (reason), blocked
    (reason) or ready (failure). An identical repeat writes nothing."""
    options = flags(
        commit=commit,
        commit_elsewhere=commit_elsewhere,
        reason=reason,
        failure=failure,
        force=force,
        expect_version=expect_version,
    )
    return run(["finish"], options, [id, outcome], session)


def done(
    id: str,
    summary: str | None = None,
    commit: str | None = None,
    commit_elsewhere: bool = False,
    force: bool = False,
    session: str | None = None,
    expect_version: int | None = None,
) -> CallToolResult:
    """Finish a todo; an identical repeat writes nothing, a second done only amends."""
    options = flags(
        summary=summary,
        commit=commit,
        commit_elsewhere=commit_elsewhere,
        force=force,
        session=session,
        expect_version=expect_version,
    )
    return run(["done"], options, [id])


def add(
    kind: str,
    title: str,
    body: str | None = None,
    tags: list[str] | None = None,
    priority: int | None = None,
    discovered_from: str | None = None,
    evidence: list[str] | None = None,
    session: str | None = None,
) -> CallToolResult:
    """File a todo, request or queue item (kind); discovered_from links it to the work
    it was found in. Evidence (queue items) is PATH:LINE[:QUOTE]."""
    options = flags(
        body=body,
        tag=tags,
        priority=priority,
        discovered_from=discovered_from,
        evidence=evidence,
    )
    return run(["add"], options, [kind, title], session)


def dep(
    action: str, first: str, link: str, second: str, expect_version: int | None = None
) -> CallToolResult:
    """Add or remove a link: action add|remove, link blocks, blocked-by, parent-of,
    child-of, discovered-from or related ("A blocks B": B waits until A is settled)."""
    return run(["dep", action], flags(expect_version=expect_version), [first, link, second])


def owed(all: bool = False, mine: bool = False) -> CallToolResult:
    """What needs attention now: due obligations, escalations, takeovers of your work,
    and (owners) conflicts."""
    return run(["owed"], flags(all=all, mine=mine))


def sync(remote: str = "origin") -> CallToolResult:
    """Fetch the remote's ledger, merge it, push the result."""
    return run(["sync"], args=[remote])
