"""`prime`: the agent's primer, sized for its context, and the session-start snippets."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import coop

BOB = {"COOP_ACTOR": "bob@example.com", "COOP_SESSION": "s-7"}


def test_the_primer_says_who_what_is_held_and_owed_what_is_ready_and_the_loop(ledger: Path) -> None:
    held = coop("add", "todo", "Held work").out.strip()
    coop("take", held, env=BOB)
    blocker = coop("add", "todo", "Do this first", "-p", "1").out.strip()
    waiting = coop("add", "request", "Then this").out.strip()
    coop("dep", "add", blocker, "blocks", waiting)
    later = {**BOB, "COOP_NOW": "2026-11-29T14:00:00Z"}  # the outcome window has run out
    result = coop("prime", env=later)
    assert result.code == 0, result.err
    text = result.out
    assert "`bob@example.com` in session `s-7`" in text
    you_hold = text.split("## You hold")[1].split("##")[0]
    assert "Held work" in you_hold and "outcome owed, overdue" in you_hold
    assert "Held work" in text.split("## Owed now")[1].split("##")[0]
    ready = text.split("## Ready")[1].split("##")[0]
    assert "(1; 1 more wait on other work)" in ready and "Do this first" in ready
    assert "Then this" not in ready
    for contract in ("git coop take ID", "git coop note", "git coop done", "exit 6", "5 nothing"):
        assert contract in text, contract
    assert len(text.encode()) < 2048


def test_the_primer_says_why_overdue_work_heads_the_ready_list(ledger: Path) -> None:
    coop("add", "todo", "Filed first", env={"COOP_NOW": "2026-11-29T09:00:00Z"})
    coop("add", "todo", "Late", "--due", "2026-11-28")
    coop("add", "todo", "Soon", "--due", "2026-12-01T12:00:00Z")
    ready = coop("prime").out.split("## Ready")[1].split("##")[0]
    lines = [line for line in ready.splitlines() if ": " in line]
    assert [line.split(": ")[1].split(" — ")[0] for line in lines] == [
        "Late",
        "Filed first",
        "Soon",
    ]
    assert lines[0].endswith("— P2, overdue since 2026-11-28 23:59 UTC"), lines
    assert lines[1].endswith("— P2"), lines
    assert lines[2].endswith("— P2, due 2026-12-01 12:00 UTC"), lines


def test_the_primer_of_a_quiet_ledger_is_small_and_names_the_owner(ledger: Path) -> None:
    text = coop("prime").out
    assert "`alice@example.com` (no session: set COOP_SESSION); owner" in text
    assert text.count("- nothing") == 3
    assert len(text.encode()) < 2048
    data = coop("prime", "--json").json()
    assert data["markdown"] == text and data["actor"] == "alice@example.com"


def test_ledger_text_in_the_primer_is_escaped(ledger: Path) -> None:
    """A title a peer wrote with an escape sequence (the CLI refuses one) drives no terminal."""
    from gitcoop.store.ledger import codec
    from tests import rawledger

    item = coop("add", "todo", "plain", "--json").json()["id"]
    coop("take", item, env=BOB)
    path = f"items/{item[3:5]}/{item}.yaml"
    data = codec.load(rawledger.read(ledger, path), path, 1 << 20)
    rawledger.put(ledger, path.split("/"), codec.dump({**data, "title": "red \x1b[31m alert"}))
    text = coop("prime", env=BOB).out
    assert "\x1b" not in text and "red \\x1b[31m alert" in text


INSTALLED = str(Path(sys.executable).parent / "git-coop")  # this installation's script


@pytest.mark.parametrize("agent", ["claude", "codex", "generic"])
def test_prime_hook_registers_this_installations_absolute_command(repo: Path, agent: str) -> None:
    result = coop("prime", "--hook", agent)
    assert result.code == 0, result.err
    assert f"{INSTALLED} prime" in result.out
    assert "git coop prime" not in result.out and '"git", "args"' not in result.out
    data = coop("prime", "--hook", agent, "--json").json()
    assert data["command"] == [INSTALLED] and data["agent"] == agent
    if agent == "codex":
        assert "codex_hooks = true" in result.out and "[mcp_servers.gitcoop]" in result.out
        assert f"command = {json.dumps(INSTALLED)}" in result.out


def test_claudes_hook_runs_at_every_start_and_after_compaction(ledger: Path) -> None:
    """SessionStart without a matcher runs at startup, resume, clear and compact, and what it
    prints joins the context; PreCompact's output would not (it runs before the summary)."""
    snippet = coop("prime", "--hook", "claude").out.split("\n\n")[1]
    hooks = json.loads(snippet)["hooks"]
    assert set(hooks) == {"SessionStart"} and "matcher" not in hooks["SessionStart"][0]
    command = hooks["SessionStart"][0]["hooks"][0]["command"]
    mcp = json.loads(coop("prime", "--hook", "claude").out.split("\n\n")[-1].strip())
    assert mcp["mcpServers"]["gitcoop"] == {"command": INSTALLED, "args": ["mcp"]}
    # it starts with no gitcoop on PATH, as a hook run by the agent would
    bare = {**os.environ, "PATH": "/usr/bin:/bin"}
    ran = subprocess.run(
        ["sh", "-c", command], cwd=ledger, env=bare, capture_output=True, text=True
    )
    assert ran.returncode == 0 and ran.stdout.startswith("# Work ledger (gitcoop)"), ran.stderr


def test_the_first_command_that_starts_is_registered(tmp_path: Path) -> None:
    from gitcoop.errors import Refused
    from gitcoop.service.prime import starting_command

    missing = [str(tmp_path / "no-such-git-coop")]
    broken = tmp_path / "broken"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    module = [sys.executable, "-m", "gitcoop"]
    assert starting_command([missing, [str(broken)], module]) == module
    with pytest.raises(Refused, match="no gitcoop command here starts"):
        starting_command([missing, [str(broken)]])


def test_an_unknown_hook_is_a_usage_error(repo: Path) -> None:
    assert coop("prime", "--hook", "vim").code == 2
