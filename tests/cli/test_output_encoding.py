"""Output that a stream cannot encode is escaped, never a crash (issue 39, point 6).

Each case runs `git coop` as a process with a stdout that cannot take UTF-8:
`PYTHONIOENCODING` names the codec, or the C locale with Python's UTF-8 mode
off, which is what a LANG=C system without C.UTF-8 gives a program.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.cli.terminal import ESCAPE_ERRORS, escape_unencodable
from gitcoop.domain.bounds import json_text
from tests.conftest import Result, coop_in, coop_process

TITLE = "café ☕ 日本 \U0001f600"
ASCII = {"PYTHONIOENCODING": "ascii"}
LATIN1 = {"PYTHONIOENCODING": "latin-1"}
C_LOCALE = {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": ""}
STREAMS = pytest.mark.parametrize("env", [ASCII, LATIN1, C_LOCALE], ids=["ascii", "latin1", "C"])


def coop_encoded(cwd: Path, *args: str, env: dict[str, str]) -> Result:
    """`git coop ARGS` as a process whose streams are in the encoding `env` gives them;
    its output read back in that encoding (strictly: a byte it cannot hold fails)."""
    encoding = "latin-1" if env is LATIN1 else "ascii"
    full = {
        **os.environ,
        **env,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
    }
    done = subprocess.run(
        ["git", "coop", *(a.encode() for a in args)], cwd=cwd, capture_output=True, env=full
    )
    return Result(done.returncode, done.stdout.decode(encoding), done.stderr.decode(encoding))


@pytest.fixture
def titled(ledger: Path) -> tuple[Path, str]:
    added = coop_in(ledger, "add", "todo", TITLE, "--json")
    assert added.code == 0, added.err
    return ledger, added.json()["short_id"]


@STREAMS
def test_text_listing_escapes_what_stdout_cannot_encode(
    titled: tuple[Path, str], env: dict[str, str]
) -> None:
    path, short = titled
    shown = coop_encoded(path, "list", env=env)
    assert shown.code == 0, shown.err
    assert short in shown.out
    assert "\\u2615" in shown.out  # the cup, escaped as the terminal escapes are
    assert "\\ud83d\\ude00" in shown.out
    line = next(line for line in shown.out.splitlines() if short in line)
    assert line.isascii() or "é" in line  # latin-1 keeps what it can encode


@STREAMS
def test_json_stays_json_and_reads_back_the_same_text(
    titled: tuple[Path, str], env: dict[str, str]
) -> None:
    path, short = titled
    for args in (("list", "--json"), ("show", short, "--json")):
        shown = coop_encoded(path, *args, env=env)
        assert shown.code == 0, shown.err
        data = json.loads(shown.out)
        item = data[0] if isinstance(data, list) else data
        assert item["title"] == TITLE


@STREAMS
def test_errors_are_escaped_on_stderr_and_in_their_json(
    titled: tuple[Path, str], env: dict[str, str]
) -> None:
    path, _ = titled
    refused = coop_encoded(path, "show", "éé", "--json", env=env)
    assert refused.code == 1, refused.err
    assert "unexpected" not in refused.err and "Traceback" not in refused.err
    assert json.loads(refused.out)["error"]["message"].startswith("'éé' is too short")
    assert "\\u00e9\\u00e9" in refused.err or "éé" in refused.err
    told = coop_encoded(path, "show", "éé", env=env)
    assert told.code == 1 and "too short" in told.err and told.out == ""


def test_a_utf8_stdout_is_unchanged(titled: tuple[Path, str]) -> None:
    path, _ = titled
    shown = coop_process(path, "list", env={"PYTHONIOENCODING": "utf-8"})
    assert shown.code == 0 and TITLE in shown.out


@given(st.text())
def test_the_escape_keeps_json_json_in_any_encoding(text: str) -> None:
    escape_unencodable()  # registers the handler the streams are given
    for encoding in ("ascii", "latin-1", "utf-8"):
        written = json_text({"title": text}).encode(encoding, ESCAPE_ERRORS)
        assert json.loads(written.decode(encoding)) == {"title": text}


def test_an_argument_read_in_a_c_locale_is_read_again_as_utf8(ledger: Path) -> None:
    found = coop_encoded(ledger, "add", "todo", "naïve", "--json", env=C_LOCALE)
    assert found.code == 0, found.err
    assert json.loads(found.out)["title"] == "naïve"


def test_the_mcp_server_answers_in_utf8_whatever_the_locale(
    titled: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.cli.test_mcp import answer, session_calls

    path, short = titled
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")  # the server's own streams
    calls = [("show", {"id": short}), ("show", {"id": "éé"})]
    _, (shown, refused) = asyncio.run(session_calls(path, "alice@example.com", calls))
    assert answer(shown)["title"] == TITLE
    assert refused.is_error and answer(refused)["error"]["message"].startswith("'éé' is too short")


@pytest.mark.parametrize("args", [("list",), ("list", "--json"), ("show", "--json", "X")])
def test_a_reader_that_went_away_is_not_a_refusal(ledger: Path, args: tuple[str, ...]) -> None:
    """`git coop list --json | head -1`: the reader closed the pipe before the output was
    written. Nothing was refused (exit 1 says a rule refused): exit 141, as git's, and
    nothing is said."""
    made = coop_process(ledger, "add", "todo", "one thing", "--json")
    item = json.loads(made.out)["id"]
    read, write = os.pipe()
    os.close(read)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["git", "coop", *[item if a == "X" else a for a in args]],
        cwd=ledger,
        stdout=write,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        check=False,
    )
    os.close(write)
    assert (done.returncode, done.stderr) == (141, "")
