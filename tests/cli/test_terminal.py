"""The one escaping function every human-facing line goes through."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.cli.terminal import printable, say, warn
from gitcoop.domain.bounds import UNSAFE


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("\x1b[2J", "\\x1b[2J"),
        ("\x1b]52;c;eA==\x07", "\\x1b]52;c;eA==\\x07"),
        ("a\rb", "a\\x0db"),
        ("\x9b31m", "\\x9b31m"),
        ("\u202eevil", "\\u202eevil"),
        ("\u2066x\u2069", "\\u2066x\\u2069"),
        ("line\u2028sep", "line\\u2028sep"),
        ("lone \udce9", "lone \\udce9"),
        ("tab\there", "tab\\x09here"),
        ("naïve 日本 ✓", "naïve 日本 ✓"),
    ],
)
def test_printable_escapes_whatever_could_drive_a_terminal(text: str, shown: str) -> None:
    assert printable(text) == shown


def test_line_breaks_are_layout_only_when_the_caller_lays_them_out() -> None:
    assert printable("one\ntwo") == "one\\x0atwo"
    assert printable("one\ntwo\x1b", lines=True) == "one\ntwo\\x1b"


@given(st.text())
def test_printable_leaves_nothing_unsafe_and_is_idempotent(text: str) -> None:
    once = printable(text, lines=True)
    assert not UNSAFE.search(once.replace("\n", ""))
    assert printable(once, lines=True) == once
    once.encode("utf-8")  # a lone surrogate no longer stops the output


def test_say_and_warn_escape(capsys: pytest.CaptureFixture[str]) -> None:
    say("out \x1b[31m")
    warn("err \u202e")
    captured = capsys.readouterr()
    assert captured.out == "out \\x1b[31m\n" and captured.err == "err \\u202e\n"
