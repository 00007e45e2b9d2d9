"""Every MCP tool against its command: a table of calls made with the SDK's own client
over stdio on one repository, and the same calls made with `git coop ... --json` on a
twin repository in the same state; the JSON must be the same, refusals included. Then,
for every tool and every argument, a value of the wrong type, an unknown argument and an
unknown id, each answered with the CLI's error contract."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from tests.conftest import coop_in, git, make_repo

TOOLS = ["list", "show", "log", "ready", "blocked", "queue", "owed", "status", "prime"]
TOOLS += ["add", "edit", "take", "release", "done", "close", "abandon", "note", "report"]
TOOLS += ["review", "ack", "resolve", "dep", "pick", "finish", "verify", "scan", "sync"]
ACTOR = {"COOP_ACTOR": "alice@example.com", "COOP_SESSION": "s-mcp", "COOP_SEED": "tool"}
WRONG = {"string": 12345, "integer": "two", "boolean": "yes", "array": "x"}


def populate(path: Path) -> dict[str, str]:
    """The same ledger in every repository it is given: ids come from fixed seeds."""
    make_repo(path)
    assert coop_in(path, "init").code == 0

    def add(seed: str, *args: str) -> str:
        added = coop_in(path, "add", *args, "--json", env={"COOP_SEED": seed})
        assert added.code == 0, added.err
        return str(added.json()["id"])

    ids = {
        "open": add("s1", "todo", "Open work", "-p", "1"),
        "held": add("s2", "todo", "Held by carol"),
        "request": add("s3", "request", "A request"),
        "waits": add("s4", "todo", "Waits on open work"),
        "item": add("s5", "item", "A queue item", "--evidence", "README:1"),
    }
    carol = {"COOP_ACTOR": "carol@example.com", "COOP_SESSION": "s-carol"}
    assert coop_in(path, "take", ids["held"], env=carol).code == 0
    assert coop_in(path, "dep", "add", ids["open"], "blocks", ids["waits"]).code == 0
    assert coop_in(path, "edit", ids["item"], "--state", "ready").code == 0
    git(path.parent, "init", "-q", "--bare", f"{path.name}.git")
    git(path, "remote", "add", "origin", str(path.parent / f"{path.name}.git"))
    return ids


def table(ids: dict[str, str]) -> list[tuple[str, dict[str, Any], list[str]]]:
    """(tool, arguments, the same call on the command line), in the order they run."""
    o, h, r, w, q = (ids[k] for k in ("open", "held", "request", "waits", "item"))
    return [
        ("list", {}, ["list"]),
        (
            "list",
            {"all": True, "sort": "priority", "limit": 1, "fields": ["id", "title", "status"]},
            ["list", "--all", "--sort", "priority", "-n", "1", "--fields", "id,title,status"],
        ),
        (
            "list",
            {"kind": "todo", "status": "taken", "holder": "carol@example.com"},
            ["list", "--kind", "todo", "--status", "taken", "--holder", "carol@example.com"],
        ),
        (
            "list",
            {"grep": "queue", "since": "2d", "tag": "none"},
            ["list", "--grep", "queue", "--since", "2d", "--tag", "none"],
        ),
        ("list", {"since": "yesterday"}, ["list", "--since", "yesterday"]),
        ("show", {"id": o}, ["show", o]),
        ("show", {"id": "td-zzzz"}, ["show", "td-zzzz"]),
        ("log", {"id": o}, ["log", o]),
        ("ready", {"limit": 1}, ["ready", "-n", "1"]),
        (
            "ready",
            {"kind": "item", "fields": ["id"]},
            ["ready", "--kind", "item", "--fields", "id"],
        ),
        ("blocked", {}, ["blocked"]),
        ("queue", {"all": True}, ["queue", "--all"]),
        ("owed", {"all": True}, ["owed", "--all"]),
        ("status", {}, ["status"]),
        ("prime", {}, ["prime"]),
        (
            "add",
            {"kind": "todo", "title": "Found", "discovered_from": o, "tag": ["x"], "priority": 3},
            ["add", "todo", "Found", "--discovered-from", o, "--tag", "x", "-p", "3"],
        ),
        (
            "edit",
            {"id": o, "title": "Open work, renamed", "tag": ["api"]},
            ["edit", o, "--title", "Open work, renamed", "--tag", "api"],
        ),
        (
            "add",
            {"kind": "todo", "title": "Dated", "due": "2026-12-24", "priority": 1},
            ["add", "todo", "Dated", "--due", "2026-12-24", "-p", "1"],
        ),
        (
            "add",
            {"kind": "todo", "title": "Due?", "due": "90"},
            ["add", "todo", "Due?", "--due=90"],
        ),
        ("edit", {"id": r, "due": "-3d"}, ["edit", r, "--due=-3d"]),  # refused as the CLI does
        ("edit", {"id": r, "due": "2d"}, ["edit", r, "--due", "2d"]),
        (
            "list",
            {"due_before": "2026-12-31", "sort": "deadline", "fields": ["id", "due"]},
            ["list", "--due-before", "2026-12-31", "--sort", "deadline", "--fields", "id,due"],
        ),
        ("list", {"overdue": True}, ["list", "--overdue"]),
        ("edit", {"id": r, "due": "none"}, ["edit", r, "--due", "none"]),
        ("take", {"id": w}, ["take", w]),  # waits on open work: refused, naming it
        ("take", {"id": o}, ["take", o]),
        ("take", {"id": h}, ["take", h]),  # carol holds it: refused, naming her
        (
            "note",
            {"id": o, "text": "--looks like an option"},
            ["note", o, "--", "--looks like an option"],
        ),
        (
            "report",
            {"id": o, "status": "blocked", "reason": "waiting"},
            ["report", o, "blocked", "--reason", "waiting"],
        ),
        (
            "review",
            {"id": h, "decision": "defer", "after": "1h"},
            ["review", h, "defer", "--after", "1h"],
        ),
        (
            "release",
            {"id": h, "reason": "reassigned", "force": True},
            ["release", h, "--reason", "reassigned", "--force"],
        ),
        ("done", {"id": o, "summary": "fixed"}, ["done", o, "--summary", "fixed"]),
        ("done", {"id": r}, ["done", r]),  # a request: refused, naming close
        ("take", {"id": r, "expect_version": 1}, ["take", r, "--expect-version", "1"]),
        ("close", {"id": r, "reason": "answered"}, ["close", r, "--reason", "answered"]),
        ("abandon", {"id": w, "reason": "not needed"}, ["abandon", w, "--reason", "not needed"]),
        ("ack", {"id": h}, ["ack", h]),
        (
            "resolve",
            {"id": h, "event": "ev-zzzz", "reason": "x"},
            ["resolve", h, "ev-zzzz", "--reason", "x"],
        ),
        (
            "dep",
            {"action": "add", "first": o, "link": "related", "second": r},
            ["dep", "add", o, "related", r],
        ),
        (
            "dep",
            {"action": "remove", "first": o, "link": "related", "second": r},
            ["dep", "remove", o, "related", r],
        ),
        ("pick", {}, ["pick"]),
        (
            "finish",
            {"id": q, "outcome": "ready", "failure": "flaky"},
            ["finish", q, "ready", "--failure", "flaky"],
        ),
        ("verify", {}, ["verify"]),
        ("scan", {"schema": True}, ["scan", "--schema"]),
        ("sync", {}, ["sync"]),
        ("sync", {"remote": "elsewhere"}, ["sync", "elsewhere"]),  # no such remote
    ]


def server(cwd: Path) -> StdioServerParameters:
    env = {**os.environ, **ACTOR}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return StdioServerParameters(command="git", args=["coop", "mcp"], cwd=str(cwd), env=env)


async def over_mcp(cwd: Path, calls: list[tuple[str, dict[str, Any]]]) -> tuple[Any, list[Any]]:
    async with stdio_client(server(cwd)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        listed = (await s.list_tools()).tools
        return listed, [await s.call_tool(name, args) for name, args in calls]


def answer(result: Any) -> Any:
    return json.loads(result.content[0].text)


@pytest.fixture
def twins(tmp_path: Path) -> tuple[Path, Path, dict[str, str]]:
    ids = populate(tmp_path / "over-mcp")
    assert populate(tmp_path / "on-the-cli") == ids  # the same ledger, item for item
    return tmp_path / "over-mcp", tmp_path / "on-the-cli", ids


def test_every_tool_answers_with_its_commands_json(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    mcp_repo, cli_repo, ids = twins
    calls = table(ids)
    assert sorted({name for name, _, _ in calls}) == sorted(TOOLS)
    listed, results = asyncio.run(over_mcp(mcp_repo, [(name, args) for name, args, _ in calls]))
    assert [tool.name for tool in listed] == TOOLS
    mores = []
    for (name, args, argv), result in zip(calls, results, strict=True):
        at = argv.index("--") if "--" in argv else len(argv)
        cli = coop_in(cli_repo, *argv[:at], "--json", *argv[at:], env=ACTOR)
        assert result.is_error == (cli.code != 0), (name, args, cli.err)
        expected = cli.json() if isinstance(cli.json(), dict) else {"items": cli.json()}
        told = re.search(r"(\d+) more not listed", cli.err)
        if told:  # the CLI's array, and its stderr line as `more`
            expected["more"] = int(told.group(1))
        assert answer(result) == expected, (name, args)
        result.structured_content.pop("warnings", None)  # what it said on stderr
        assert result.structured_content == expected, (name, args)
        mores.append(expected.get("more"))
    assert mores[1] == 4 and mores[8] == 2  # list --all -n 1 of five; ready -n 1 of three
    synced, elsewhere = (
        answer(r) for (n, _, _), r in zip(calls, results, strict=True) if n == "sync"
    )
    assert synced["pushed"] is True and elsewhere["error"]["exit"] != 0
    refused = [
        answer(r)["error"]["code"]
        for (n, _, _), r in zip(calls, results, strict=True)
        if r.is_error
    ]
    assert {"refused", "not_found", "usage"} <= set(refused)
    assert git(cli_repo, "rev-parse", "refs/coop/ledger") != ""


def test_every_schema_is_strict_and_described(twins: tuple[Path, Path, dict[str, str]]) -> None:
    listed, _ = asyncio.run(over_mcp(twins[0], []))
    schemas = {tool.name: tool.input_schema for tool in listed}
    for name, schema in schemas.items():
        assert schema["additionalProperties"] is False, name
        assert tool_description(listed, name), name
        for param, spec in schema["properties"].items():
            assert spec.get("description"), (name, param)
            assert param not in {"as", "actor", "json", "wide", "editor"}, (name, param)
    statuses = ["open", "taken", "done", "closed", "abandoned", "draft", "verifying", "ready"]
    assert schemas["list"]["properties"]["status"]["enum"][:8] == statuses
    assert schemas["list"]["properties"]["limit"]["minimum"] == 0
    assert schemas["add"]["properties"]["priority"] | {"description": ""} == {
        "type": "integer",
        "minimum": 0,
        "maximum": 4,
        "description": "",
    }
    assert schemas["add"]["properties"]["kind"]["enum"] == ["todo", "request", "item"]
    assert schemas["dep"]["properties"]["action"]["enum"] == ["add", "remove"]
    assert "blocked-by" in schemas["dep"]["properties"]["link"]["enum"]
    assert schemas["finish"]["properties"]["outcome"]["enum"] == [
        "done",
        "closed",
        "blocked",
        "ready",
    ]
    assert schemas["report"]["properties"]["status"]["enum"][0] == "done"
    assert schemas["take"]["required"] == ["id"]
    assert (
        "force" not in schemas["report"]["properties"]
    )  # hidden on the CLI: a report is the holder's


def tool_description(listed: list[Any], name: str) -> str:
    return str(next(tool.description for tool in listed if tool.name == name))


def bad_calls(listed: list[Any], ids: dict[str, str]) -> list[tuple[str, dict[str, Any], str]]:
    """For every tool: each argument with a value of the wrong type, and an unknown one."""
    calls = []
    for tool in listed:
        schema = tool.input_schema
        props = schema["properties"]
        good = {
            p: ids["open"] if p == "id" else props[p].get("enum", ["x"])[0]
            for p in schema.get("required", [])
        }
        for param, spec in schema["properties"].items():
            calls.append((tool.name, {**good, param: WRONG[spec["type"]]}, param))
        calls.append((tool.name, {**good, "extra": 1}, "extra"))
        calls.append((tool.name, {**good, "as": "mallory@example.com"}, "as"))
    return calls


def test_wrong_types_and_unknown_arguments_are_usage_errors(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    mcp_repo, _, ids = twins
    listed, _ = asyncio.run(over_mcp(mcp_repo, []))
    calls = bad_calls(listed, ids)
    assert len(calls) > 3 * len(TOOLS)
    before = git(mcp_repo, "rev-parse", "refs/coop/ledger")
    _, results = asyncio.run(over_mcp(mcp_repo, [(name, args) for name, args, _ in calls]))
    for (name, args, param), result in zip(calls, results, strict=True):
        assert result.is_error, (name, args)
        error = answer(result)["error"]
        assert result.structured_content == {"error": error}
        assert (error["code"], error["exit"]) == ("usage", 2), (name, args)
        assert repr(param) in error["message"] and "pydantic" not in error["message"], error
    assert git(mcp_repo, "rev-parse", "refs/coop/ledger") == before  # nothing was written


def test_an_unknown_id_is_the_clis_not_found_for_every_tool_that_takes_one(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    mcp_repo, cli_repo, _ = twins
    listed, _ = asyncio.run(over_mcp(mcp_repo, []))
    needs = {
        "note": {"text": "t"},
        "report": {"status": "done"},
        "review": {"decision": "defer"},
        "release": {"reason": "r"},
        "abandon": {"reason": "r"},
        "finish": {"outcome": "ready", "failure": "f"},
        "resolve": {"event": "ev-zzzz", "reason": "r", "dismiss": True},
    }
    with_id = [t.name for t in listed if "id" in t.input_schema["properties"] and t.name != "log"]
    calls = [(name, {"id": "td-zzzz", **needs.get(name, {})}) for name in with_id]
    calls.append(("log", {"id": "td-zzzz"}))
    _, results = asyncio.run(over_mcp(mcp_repo, calls))
    for (name, args), result in zip(calls, results, strict=True):
        positional = [
            args[k] for k in ("id", "text", "status", "decision", "outcome", "event") if k in args
        ]
        options = [w for k in ("reason", "failure") if k in args for w in (f"--{k}", args[k])]
        options += ["--dismiss"] if args.get("dismiss") else []
        cli = coop_in(cli_repo, name, *positional, *options, "--json", env=ACTOR)
        assert result.is_error and cli.code == 1, (name, cli.err)
        assert answer(result) == cli.json(), name
        assert answer(result)["error"]["code"] == "not_found", name


def test_an_unknown_tool_or_action_lists_the_valid_ones(
    twins: tuple[Path, Path, dict[str, str]],
) -> None:
    ids = twins[2]
    calls = [
        ("delete", {}),
        ("dep", {"action": "drop", "first": ids["open"], "link": "blocks", "second": ids["waits"]}),
        ("dep", {"action": "add", "first": ids["open"], "link": "owns", "second": ids["waits"]}),
        ("take", {}),
        ("list", {"limit": -5}),
    ]
    _, (tool, action, link, missing, negative) = asyncio.run(over_mcp(twins[0], calls))
    for result in (tool, action, link, missing, negative):
        assert result.is_error and answer(result)["error"]["code"] == "usage"
        assert answer(result)["error"]["exit"] == 2
    assert answer(missing)["error"]["message"] == "take: 'id' is required"
    assert "at least 0" in answer(negative)["error"]["message"]
    assert "list, show, log, ready" in answer(tool)["error"]["message"]
    assert "sync" in answer(tool)["error"]["message"]
    assert "one of add, remove" in answer(action)["error"]["message"]
    assert "blocks, blocked-by, parent-of" in answer(link)["error"]["message"]


def test_a_line_that_is_not_json_gets_the_json_rpc_parse_error(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "repo")
    params = server(path)
    lines = "{not json\n" + '{"hello": 1}\n'
    done = subprocess.run(
        [params.command, *params.args],
        cwd=path,
        env=params.env,
        input=lines,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["id"], r["error"]["code"]) for r in replies] == [(None, -32700), (None, -32600)]
    assert all(r["jsonrpc"] == "2.0" for r in replies)


def test_every_option_of_every_command_is_an_argument_of_its_tool() -> None:
    """Read the commands as click built them: each option and argument is in the tool's
    schema, except the few the server keeps for itself, so a new option cannot be
    forgotten."""
    import click
    import typer.main

    from gitcoop.cli.main import build_app
    from gitcoop.cli.mcp_server import catalogue

    group = typer.main.get_command(build_app(None))
    assert isinstance(group, click.Group)
    ctx = click.Context(group)
    tools = catalogue()
    kept = {"--as", "--json", "--wide", "--editor", "--help"}
    for name in TOOLS:
        command = group.get_command(ctx, name)
        assert command is not None
        inner = [*command.commands.values()] if isinstance(command, click.Group) else [command]
        properties = tools[name].input_schema()["properties"]
        for sub in inner:
            for param in sub.params:
                if getattr(param, "hidden", False) or set(param.opts) & kept:
                    continue
                if isinstance(param, click.Argument):
                    continue  # named by their metavar: checked by the table above
                flag = max(param.opts, key=len).lstrip("-").replace("-", "_")
                assert flag in properties, (name, param.opts)
        positional = [p for p in inner[0].params if isinstance(p, click.Argument)]
        taken = [p for p in tools[name].params if p.option is None and p.env is None]
        assert len(taken) == len(positional) + (1 if len(inner) > 1 else 0), name


def opening(*calls: tuple[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """The JSON-RPC lines of a session: initialize (id 1), initialized, then each tool
    call (ids 2, 3, ...)."""
    client = {"name": "t", "version": "1"}
    start = {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client}
    lines: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": start},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ]
    for n, (name, arguments) in enumerate(calls, start=2):
        call = {"name": name, "arguments": arguments}
        lines.append({"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": call})
    return lines


def test_a_call_sent_just_before_stdin_closes_is_answered(tmp_path: Path) -> None:
    """An agent that writes its calls and closes stdin still gets every answer: the
    server finishes what it started, and answers it, before it leaves."""
    path = make_repo(tmp_path / "repo")
    params = server(path)
    init = [params.command, *params.args[:-1], "init"]
    assert subprocess.run(init, cwd=path, env=params.env, check=False).returncode == 0
    messages = opening(("add", {"kind": "todo", "title": "added at EOF"}), ("list", {}))
    done = subprocess.run(
        [params.command, *params.args],
        cwd=path,
        env=params.env,
        input="".join(json.dumps(m) + "\n" for m in messages),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    replies = {r.get("id"): r for r in map(json.loads, done.stdout.splitlines())}
    assert sorted(i for i in replies if i is not None) == [1, 2, 3], done.stdout + done.stderr
    assert "added at EOF" in json.dumps(replies[2]["result"])


def test_every_tool_that_prints_an_item_takes_fields() -> None:
    from gitcoop.cli.mcp_server import catalogue

    tools = catalogue()
    for name in ("pick", "dep", "take", "show", "list"):
        assert "fields" in tools[name].input_schema()["properties"], name
    assert "fields" not in tools["log"].input_schema()["properties"]


def test_a_client_that_leaves_mid_call_ends_the_server_quietly(tmp_path: Path) -> None:
    """stdin and stdout closed while a call runs: the call's answer has nowhere to go, and
    the server ends as the client left it, exit 0, no 'bug'."""
    path = make_repo(tmp_path / "repo")
    params = server(path)
    init = [params.command, *params.args[:-1], "init"]
    assert subprocess.run(init, cwd=path, env=params.env, check=False).returncode == 0
    remote = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(remote)], check=True)
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\nsleep 3\n")
    hook.chmod(0o755)
    subprocess.run(["git", "remote", "add", "origin", str(remote)], cwd=path, check=True)
    messages = opening(("sync", {}))
    running = subprocess.Popen(
        [params.command, *params.args],
        cwd=path,
        env=params.env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert running.stdin is not None and running.stdout is not None
    running.stdin.write("".join(json.dumps(m) + "\n" for m in messages).encode())
    running.stdin.flush()
    running.stdout.readline()  # the answer to initialize: the server is serving
    running.stdin.close()
    running.stdout.close()  # the client is gone before the sync's answer
    assert running.stderr is not None
    err = running.stderr.read()
    assert running.wait(timeout=120) == 0, err.decode()
    assert b"bug" not in err and b"Traceback" not in err
