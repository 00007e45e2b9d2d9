"""The ledger over MCP (stdio), with the official MCP Python SDK (`gitcoop[mcp]`).

Each tool runs the command of the same name, in this process, with `--json
--compact`, and answers with exactly the JSON that command prints: the same
code path, the same rules, the same text. The tools and their input schemas
are read off the click commands the CLI builds (cli/mcp_tools.py), so what a
tool accepts is what the command accepts.

An array answer is `{"items": [...]}` (with `more`, when `-n` cut it) as text
and as structured content alike; what a command that succeeded said on
stderr comes back as `warnings` beside the answer, never inside it.

One error contract: whatever fails (a refusal, an unknown tool or argument, a
wrong type, nothing to pick) is a tool error (`isError`) whose content and
structured content are the command's `{"error": {"code", "exit", "message",
...}}`. A line that is not JSON gets the JSON-RPC parse error (-32700), JSON
that is no JSON-RPC message the invalid-request error (-32600).

Commands run one at a time (they share the process's standard streams); the
SDK serves the protocol on its own copy of stdout. The person acting is the
server's: COOP_ACTOR or git's user.email where it was started, and
COOP_SESSION; a tool cannot act as someone else. Only `cli/mcp_commands.py`
imports this module, so no other command loads the SDK.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from typing import Any

import anyio
import mcp.types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared._context_streams import create_context_streams
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

from gitcoop import __version__
from gitcoop.cli import compact, mcp_tools
from gitcoop.cli.mcp_tools import Room
from gitcoop.domain.bounds import json_escaped
from gitcoop.errors import CoopError, UsageError
from gitcoop.service import process

DRAIN_WAIT = 600.0  # seconds the server waits, stdin closed, to answer what it started
_ONE_AT_A_TIME = threading.Lock()

INSTRUCTIONS = """\
A work ledger kept in this git repository (refs/coop/ledger). Start with `ready`
(what can start now, best first), claim with `take` (or `pick` for the queue),
record progress with `note`, finish with `done` (todos), `close` (requests),
`finish` (queue items) or `report`. Before stopping, `owed` with mine=true shows
what you still owe. Every tool answers with the JSON of the `git coop` command of
the same name (compact; `fields` keeps only the item fields named); errors carry
{"error": {"code", "exit", "message", ...}}. An array answer is {"items": [...]},
with "more" when a limit left items out; what a command warned is in "warnings"."""


def catalogue() -> dict[str, mcp_tools.Tool]:
    """Every tool, read off the CLI's own commands (all of them built)."""
    from gitcoop.cli.main import build_app

    return mcp_tools.tools(compact.command(build_app(None)))  # type: ignore[arg-type]


def call(tools: Mapping[str, mcp_tools.Tool], name: str, arguments: Any) -> types.CallToolResult:
    """One tool call, answered as its command answers (or with its usage error)."""
    tool = tools.get(name)
    if tool is None:
        return _usage(f"no tool {name!r}; tools: {', '.join(tools)}")
    if not isinstance(arguments, dict):
        return _usage(f"{name}: arguments must be an object")
    try:
        argv, env = tool.command_line(arguments, _worktree() if tool.reads_files else None)
    except CoopError as error:
        return _usage(error.message) if isinstance(error, UsageError) else _failed(error)
    return run(argv, env)


def _worktree() -> Room:
    """The repository's worktree, the only place a tool's file arguments may be read, and
    its git folders, where none may be."""
    from gitcoop.cli.options import make_context

    repo = make_context().repo()
    return Room(repo.workdir(), (repo.git_dir, repo.common_dir))


def run(argv: list[str], env: Mapping[str, str] = {}) -> types.CallToolResult:
    """`git coop ARGV --compact` in this process, as a tool's answer."""
    from gitcoop.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    with _ONE_AT_A_TIME, redirect_stdout(out), redirect_stderr(err), _environment(env):
        code = main(_compact(argv))
    text = out.getvalue().strip()
    if not text:  # every command prints JSON under --json; say what it said instead
        message = err.getvalue().strip().removeprefix("gitcoop: ") or f"exit {code}"
        return _error({"code": "bug" if code else "empty", "exit": code, "message": message})
    try:
        value = json.loads(text)
    except ValueError:  # a command that printed more than its JSON: a bug, said as one
        message = f"the command printed text that is not one JSON document: {text[:200]!r}"
        return _error({"code": "bug", "exit": code or 70, "message": message})
    if isinstance(value, list):  # an object over MCP: the items, and how many more
        value = {"items": value}
        more = compact.more_in(err.getvalue())
        if more is not None:
            value["more"] = more
        text = compact.dumps(value)
    warnings = said(err.getvalue()) if code == 0 else []
    content: list[types.ContentBlock] = [types.TextContent(type="text", text=text)]
    content += [types.TextContent(type="text", text=line) for line in warnings]
    structured = {**value, "warnings": warnings} if warnings else value
    return types.CallToolResult(content=content, structured_content=structured, is_error=code != 0)


def said(stderr: str) -> list[str]:
    """What a command that succeeded said on stderr beside its answer (warnings, notices),
    one entry a line; the "N more" line is the answer's `more`."""
    lines = (line.strip() for line in stderr.splitlines())
    return [line for line in lines if line and compact.more_in(line) is None]


def _compact(argv: list[str]) -> list[str]:
    at = argv.index("--") if "--" in argv else len(argv)
    return [*argv[:at], "--compact", *argv[at:]]


def _failed(error: CoopError) -> types.CallToolResult:
    return _error(error.to_data())


def _usage(message: str) -> types.CallToolResult:
    return _error({"code": "usage", "exit": UsageError.exit_code, "message": message})


def _error(error: dict[str, Any]) -> types.CallToolResult:
    from gitcoop.cli.wording import bounded

    value = {"error": {**error, "message": bounded(str(error["message"]))}}
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=compact.dumps(value))],
        structured_content=value,
        is_error=True,
    )


@contextmanager
def _environment(env: Mapping[str, str]) -> Iterator[None]:
    """A tool's `session`, recorded through COOP_SESSION as a shell would."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def build() -> Server[Any]:
    tools = catalogue()
    listed = types.ListToolsResult(
        tools=[
            types.Tool(name=t.name, description=t.description, input_schema=t.input_schema())
            for t in tools.values()
        ]
    )

    async def list_tools(
        ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listed

    async def call_tool(
        ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = {} if params.arguments is None else params.arguments
        # abandoned when the server leaves (DRAIN_WAIT after stdin closed): the process
        # ends, and the gits the call started are stopped with it (transport.RUNNING)
        result: types.CallToolResult = await anyio.to_thread.run_sync(
            call, tools, params.name, arguments, abandon_on_cancel=True
        )
        return result

    return Server(
        "gitcoop",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve() -> None:
    process.keep_nothing()  # a long-lived process: each call frees what it read
    try:
        anyio.run(_serve_stdio, build())
    except* (BrokenPipeError, anyio.BrokenResourceError, anyio.ClosedResourceError):
        pass  # the client closed the wire while a call ran: its answer has nowhere to go


async def _serve_stdio(server: Server[Any]) -> None:
    with _wire() as wire:
        async with stdio_server(stdout=anyio.wrap_file(wire)) as (read_stream, write_stream):
            await _serve(server, read_stream, write_stream)


async def _serve(server: Server[Any], read_stream: Any, write_stream: Any) -> None:
    sink, messages = create_context_streams[SessionMessage | Exception](0)
    answers = _Answers(write_stream)
    async with anyio.create_task_group() as group:
        group.start_soon(_answer_unreadable, read_stream, sink, answers)
        await server.run(messages, answers, server.create_initialization_options())
        group.cancel_scope.cancel()


class _Answers:
    """The write stream, counting the requests not yet answered: at the end of stdin the
    server finishes and answers what it started (a write made is a write told) before
    it leaves, waiting at most DRAIN_WAIT seconds for it."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream
        self.owed: set[Any] = set()
        self.none_owed = anyio.Event()
        self.none_owed.set()

    def asked(self, message: Any) -> None:
        if isinstance(message, types.JSONRPCRequest):
            self.owed.add(message.id)
            self.none_owed = anyio.Event()
        elif isinstance(message, types.JSONRPCNotification) and message.method.endswith(
            "/cancelled"
        ):  # a cancelled request may go unanswered
            self._answered((message.params or {}).get("requestId"))

    def _answered(self, ident: Any) -> None:
        self.owed.discard(ident)
        if not self.owed:
            self.none_owed.set()

    async def drained(self) -> None:
        with anyio.move_on_after(DRAIN_WAIT):
            await self.none_owed.wait()

    async def send(self, item: SessionMessage) -> None:
        await self.stream.send(item)
        if isinstance(item.message, (types.JSONRPCResponse, types.JSONRPCError)):
            self._answered(item.message.id)

    async def aclose(self) -> None:
        await self.stream.aclose()

    async def __aenter__(self) -> _Answers:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


class _Spelt(io.TextIOWrapper):
    """The wire's text: each line the SDK writes, with what a person is shown escaped
    spelt as JSON's `\\u` (bounds.json_escaped), as every --json answer is, structured
    content included; the values an agent parses are the same."""

    def write(self, text: str) -> int:
        return super().write(json_escaped(text))


@contextmanager
def _wire() -> Iterator[_Spelt]:
    """The protocol's own copy of stdout; fd 1 points at stderr meanwhile, so nothing a
    command or a child prints can reach the wire (as the SDK's own claim does)."""
    sys.stdout.flush()
    wire, saved = os.dup(1), os.dup(1)
    os.dup2(2, 1)
    spelt = _Spelt(os.fdopen(wire, "wb"), encoding="utf-8", write_through=True)
    try:
        yield spelt
    finally:
        os.dup2(saved, 1)
        os.close(saved)
        with contextlib.suppress(OSError):
            spelt.close()


async def _answer_unreadable(read_stream: Any, sink: Any, answers: _Answers) -> None:
    """Pass messages on; answer a line that is no JSON-RPC message (the SDK drops it); at
    the end of stdin, end the SDK's stream only once what was asked is answered."""
    async with sink:
        async for item in read_stream:
            if isinstance(item, Exception):
                await answers.stream.send(SessionMessage(rejection(item)))
            else:
                answers.asked(item.message)
                await sink.send(item)
        await answers.drained()


def rejection(problem: Exception) -> types.JSONRPCError:
    """-32700 for text that is not JSON, -32600 for JSON that is no JSON-RPC message."""
    unparsed = isinstance(problem, ValidationError) and any(
        e["type"] == "json_invalid" for e in problem.errors()
    )
    if unparsed:
        error = types.ErrorData(code=types.PARSE_ERROR, message="Parse error: not JSON")
    else:
        error = types.ErrorData(
            code=types.INVALID_REQUEST, message="Invalid request: not a JSON-RPC 2.0 message"
        )
    return types.JSONRPCError(jsonrpc="2.0", id=None, error=error)
