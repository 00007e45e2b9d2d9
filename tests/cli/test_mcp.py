"""`git coop mcp`: a round trip over stdio with the MCP SDK's own client, against a real
repository; the same JSON as the CLI; refusals as tool errors with the same code."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import ClientSession, StdioServerParameters  # the test extra installs the SDK
from mcp.client.stdio import stdio_client

from tests.conftest import coop, coop_process

TOOLS = {"list", "show", "log", "ready", "blocked", "queue", "owed", "status", "prime"}
TOOLS |= {"add", "edit", "take", "release", "done", "close", "abandon", "note", "report"}
TOOLS |= {"review", "ack", "resolve", "dep", "pick", "finish", "verify", "scan", "sync"}


def server(cwd: Path, actor: str) -> StdioServerParameters:
    env = {**os.environ, "COOP_ACTOR": actor, "COOP_SESSION": "s-mcp"}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    return StdioServerParameters(command="git", args=["coop", "mcp"], cwd=str(cwd), env=env)


def answer(result: Any) -> Any:
    return json.loads(result.content[0].text)


async def session_calls(cwd: Path, actor: str, calls: list[tuple[str, dict[str, Any]]]) -> Any:
    async with stdio_client(server(cwd, actor)) as (read, write), ClientSession(read, write) as s:
        await s.initialize()
        names = {tool.name for tool in (await s.list_tools()).tools}
        results = [await s.call_tool(name, args) for name, args in calls]
        return names, results


def test_a_round_trip_over_stdio_answers_like_the_cli(ledger: Path) -> None:
    first = coop("add", "todo", "Fix the parser", "-p", "1", "--json").json()["id"]
    taken = coop("add", "todo", "Held by bob", "--json").json()["id"]
    assert coop("take", taken, env={"COOP_ACTOR": "bob@example.com"}).code == 0
    calls = [
        ("ready", {}),
        ("add", {"kind": "todo", "title": "Found it", "discovered_from": first, "tag": ["x"]}),
        ("take", {"id": first}),
        ("take", {"id": first}),  # a re-take: taken_at refreshed, one event, no error
        ("note", {"id": first, "text": "--looks like an option"}),
        ("take", {"id": taken}),
        ("dep", {"action": "add", "first": first, "link": "blocks", "second": taken}),
        ("done", {"id": first, "summary": "fixed"}),
        ("pick", {}),
        ("show", {"id": first}),
        ("owed", {"mine": True}),
    ]
    names, results = asyncio.run(session_calls(ledger, "carol@example.com", calls))
    assert names == TOOLS
    ready, added, took, again, noted, refused, linked, done, pick, shown, owed = results
    assert not ready.is_error and [e["id"] for e in answer(ready)["items"]] == [first]
    assert answer(added)["links"][0]["item"] == first and answer(added)["tags"] == ["x"]
    assert answer(took)["taken_by"] == "carol@example.com" and answer(took)["session"] == "s-mcp"
    assert not again.is_error and answer(again)["version"] == answer(took)["version"] + 1
    assert not noted.is_error
    assert refused.is_error
    assert refused.structured_content["error"]["code"] == "refused"
    assert refused.structured_content["error"]["holder"] == "bob@example.com"
    assert not linked.is_error and not done.is_error
    assert answer(done)["status"] == "done"
    assert pick.is_error and answer(pick)["error"]["code"] == "nothing_to_do"
    assert answer(pick)["error"]["exit"] == 5
    assert answer(owed) == {"items": []}  # an array answer is an object over MCP
    cli = coop("show", first, "--json", env={"COOP_ACTOR": "carol@example.com"})
    assert answer(shown) == cli.json()  # the same JSON as the command
    assert [n["text"] for n in answer(shown)["notes"]] == ["--looks like an option"]


def test_an_unknown_id_is_a_tool_error_with_the_clis_code_and_message(ledger: Path) -> None:
    _, (result,) = asyncio.run(
        session_calls(ledger, "alice@example.com", [("show", {"id": "td-zz"})])
    )
    cli = coop("show", "td-zz", "--json")
    assert result.is_error
    assert answer(result) == cli.json() == {"error": result.structured_content["error"]}
    assert answer(result)["error"]["code"] == "not_found"


def test_ordinary_commands_never_load_the_mcp_sdk(ledger: Path) -> None:
    probe = (
        "import sys\nfrom gitcoop.cli.main import main\n"
        "code = main(sys.argv[1:])\n"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'pydantic'))))"
    )
    for argv in (["list", "--json"], ["add", "todo", "x"], ["ready"], ["prime"], ["-h"]):
        done = subprocess.run(
            [sys.executable, "-c", probe, *argv], cwd=ledger, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip().splitlines()[-1] == "[]", argv


def test_without_the_sdk_the_command_says_how_to_install_it(ledger: Path) -> None:
    probe = (
        "import sys\nsys.modules['mcp'] = None\n"  # as if the extra were not installed
        "from gitcoop.cli.main import main\nsys.exit(main(['mcp']))"
    )
    done = subprocess.run([sys.executable, "-c", probe], cwd=ledger, capture_output=True, text=True)
    assert done.returncode == 9
    assert "pip install 'gitcoop[mcp]'" in done.stderr


def test_the_mcp_command_runs_through_git(ledger: Path) -> None:
    result = coop_process(ledger, "mcp", "--help")
    assert result.code == 0 and "stdio" in result.out


def test_a_session_given_to_a_tool_is_recorded_where_the_command_has_no_session_option(
    ledger: Path,
) -> None:
    todo = coop("add", "todo", "noted over MCP", "--json").json()["id"]
    calls = [("note", {"id": todo, "text": "seen", "session": "s-tool"})]
    _, (noted,) = asyncio.run(session_calls(ledger, "carol@example.com", calls))
    assert not noted.is_error, answer(noted)
    events = coop("log", todo, "--json").json()
    assert [e["session"] for e in events if e["verb"] == "note"] == ["s-tool"]


def test_the_server_frees_what_each_call_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """The server runs through the `git-coop` script, which keeps what a command read
    until the process leaves (`memory.keep`); a long-lived server must not: it stops
    keeping, and lets go of what was kept, before it serves."""
    from gitcoop.cli import mcp_server
    from gitcoop.store.fast import memory

    served: list[tuple[bool, int]] = []

    async def serve_stdio(server: object) -> None:
        served.append((memory.keeping(), len(memory._kept)))

    monkeypatch.setattr(mcp_server, "build", object)
    monkeypatch.setattr(mcp_server, "_serve_stdio", serve_stdio)
    memory.keep_until_exit()
    memory.keep(object())
    try:
        mcp_server.serve()
    finally:
        memory.keep_nothing()
    assert served == [(False, 0)]


def test_a_non_zero_exit_is_an_error_object_over_mcp_too(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = coop("add", "todo", "Held by bob", "--json").json()["id"]
    assert coop("take", item, env={"COOP_ACTOR": "bob@example.com"}).code == 0
    calls = [("owed", {"all": True, "check": True}), ("pick", {})]
    monkeypatch.setenv("COOP_NOW", "2026-11-30T10:00:00Z")  # bob's take is due by then
    _, (owed, pick) = asyncio.run(session_calls(ledger, "alice@example.com", calls))
    cli = coop("owed", "--all", "--check", "--json")
    assert owed.is_error and cli.code == 6
    assert answer(owed) == owed.structured_content == cli.json()
    assert answer(owed)["error"]["code"] == "something_due" and answer(owed)["error"]["owed"]
    assert set(answer(pick)["error"]) == {"code", "exit", "message", "checks", "verified"}


def test_a_cut_listing_says_how_many_more_in_text_and_structure_alike(ledger: Path) -> None:
    for n in range(3):
        coop("add", "todo", f"Work {n}")
    calls = [("list", {"limit": 1}), ("ready", {"limit": 2}), ("list", {})]
    _, (cut, ready, whole) = asyncio.run(session_calls(ledger, "alice@example.com", calls))
    cli = coop("list", "-n", "1", "--json")
    assert len(cli.json()) == 1 and "2 more not listed" in cli.err  # the CLI's form
    assert answer(cut) == cut.structured_content == {"items": cli.json(), "more": 2}
    assert answer(ready)["more"] == 1 and len(answer(ready)["items"]) == 2
    assert answer(whole) == whole.structured_content and "more" not in answer(whole)
    assert len(answer(whole)["items"]) == 3


def test_what_a_command_warns_comes_back_beside_its_answer(ledger: Path) -> None:
    args = {"kind": "item", "title": "Fix it", "evidence": ["nofile.py:3"]}
    _, (added,) = asyncio.run(session_calls(ledger, "alice@example.com", [("add", args)]))
    assert not added.is_error
    item = answer(added)
    assert "warnings" not in item and item["title"] == "Fix it"  # the item JSON as printed
    warned = added.structured_content.pop("warnings")
    assert added.structured_content == item
    assert any(line.startswith("warning: --evidence nofile.py:3") for line in warned), warned
    assert [c.text for c in added.content[1:]] == warned  # and for a client reading text


def test_file_arguments_are_confined_to_the_worktree(ledger: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("not for the ledger\n")
    (ledger / "notes.md").write_text("the body\n")
    (ledger / "link.md").symlink_to(outside)
    findings = tmp_path / "findings.json"
    findings.write_text('{"findings": []}')
    tip = coop_git_tip(ledger)
    calls = [
        ("add", {"kind": "todo", "title": "Leak", "body_file": str(outside)}),
        ("add", {"kind": "todo", "title": "Leak", "body_file": "link.md"}),  # a symlink out
        ("add", {"kind": "todo", "title": "Stdin", "body_file": "-"}),
        ("scan", {"from": str(findings)}),
    ]
    _, refused = asyncio.run(session_calls(ledger, "alice@example.com", calls))
    for (name, args), result in zip(calls, refused, strict=True):
        error = answer(result)["error"]
        assert result.is_error and (error["code"], error["exit"]) == ("usage", 2), (name, args)
        assert "worktree" in error["message"], error
    assert "'-'" in answer(refused[2])["error"]["message"]
    assert coop_git_tip(ledger) == tip  # nothing was written
    inside = [("add", {"kind": "todo", "title": "Notes", "body_file": str(ledger / "notes.md")})]
    _, (added,) = asyncio.run(session_calls(ledger, "alice@example.com", inside))
    assert not added.is_error and answer(added)["body"] == "the body\n"


def coop_git_tip(path: Path) -> str:
    done = subprocess.run(
        ["git", "rev-parse", "refs/coop/ledger"], cwd=path, capture_output=True, text=True
    )
    return done.stdout.strip()


def test_a_tool_error_echoes_long_input_cut_short(ledger: Path) -> None:
    huge = "td-" + "a" * 100_000
    calls = [("show", {"id": huge}), ("list", {"limit": huge}), ("list", {"since": huge})]
    _, results = asyncio.run(session_calls(ledger, "alice@example.com", calls))
    for (name, _args), result in zip(calls, results, strict=True):
        assert result.is_error, name
        message = answer(result)["error"]["message"]
        assert len(message) < 400 and "…" in message, (name, message[:300])
        assert len(result.content[0].text) < 1000, name
