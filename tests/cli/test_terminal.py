"""The one escaping function every human-facing line goes through."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.cli.terminal import printable, say, warn
from gitcoop.domain.bounds import unsafe


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
        ("Fix\U000e0069\U000e0067 it", "Fix\\U000e0069\\U000e0067 it"),  # tag characters
        ("ali\u200bce", "ali\\u200bce"),  # zero-width space
        ("\ufeffhead", "\\ufeffhead"),  # byte order mark
        ("soft\xadhyphen", "soft\\xadhyphen"),
        ("join\u2060er\u200d", "join\\u2060er\\u200d"),
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
    assert not unsafe().search(once.replace("\n", ""))
    assert printable(once, lines=True) == once
    once.encode("utf-8")  # a lone surrogate no longer stops the output


def test_every_format_character_is_escaped() -> None:
    """Each character of Unicode's category Cf (and the whole tag block) draws nothing: a
    person would not see what a program reads, so each is shown as an escape."""
    hidden = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) == "Cf"]
    hidden += [chr(c) for c in range(0xE0000, 0xE0080)]
    for char in hidden:
        assert printable(f"a{char}b") != f"a{char}b", hex(ord(char))
        assert printable(f"a{char}b").isascii(), hex(ord(char))


def test_say_and_warn_escape(capsys: pytest.CaptureFixture[str]) -> None:
    say("out \x1b[31m")
    warn("err \u202e")
    captured = capsys.readouterr()
    assert captured.out == "out \\x1b[31m\n" and captured.err == "err \\u202e\n"


def test_paint_escapes_first_and_colours_after(monkeypatch: pytest.MonkeyPatch) -> None:
    from gitcoop.cli import terminal

    terminal.configure("always")
    try:
        shown = terminal.paint("bob\x1b[31m\u202e", "holder")
    finally:
        terminal.configure("auto")
    assert shown == "\x1b[34mbob\\x1b[31m\\u202e\x1b[0m"  # the only live codes are gitcoop's
    assert isinstance(shown, terminal.Styled)


def test_styled_text_is_printed_as_it_is_and_plain_text_is_escaped(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gitcoop.cli import terminal

    terminal.configure("always")
    try:
        say(terminal.join("owner ", terminal.paint("alice", "holder"), " \x1b[2J"))
    finally:
        terminal.configure("auto")
    assert capsys.readouterr().out == "owner \x1b[34malice\x1b[0m \\x1b[2J\n"


@pytest.mark.parametrize(
    ("mode", "env", "expected"),
    [
        ("auto", {}, False),  # captured stdout is not a terminal
        ("always", {"NO_COLOR": "1"}, True),  # asked for in so many words
        ("never", {}, False),
    ],
)
def test_colour_is_decided_by_the_mode_the_terminal_and_no_color(
    monkeypatch: pytest.MonkeyPatch, mode: str, env: dict[str, str], expected: bool
) -> None:
    from gitcoop.cli import terminal

    for key, value in env.items():
        monkeypatch.setenv(key, value)
    terminal.configure(mode)
    try:
        assert terminal.colour() is expected
    finally:
        terminal.configure("auto")


def test_cut_measures_wide_characters_and_escapes() -> None:
    from gitcoop.cli.terminal import columns, cut

    assert columns("日本語") == 6 and columns("\x1b[31mab\x1b[0m") == 2
    assert cut("日本語のタイトル", 7) == "日本語…"
    assert cut("a\x1bbcdef", 6) == "a\\x1b…"
    assert cut("short", 10) == "short"
    assert all(columns(cut("x" * n, 5)) <= 5 for n in range(12))


def test_work_inside_work_does_not_restart_the_clock_of_the_work_around_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from gitcoop.cli.terminal import Meter

    now = [0.0]
    meter = Meter(True, delay=0.5, clock=lambda: now[0])
    meter.step("verifying", 0, 3, "it-a")
    now[0] = 0.3
    meter.step("reading items into the read cache", 0, 10)  # inside the first verification
    meter.step("reading items into the read cache", 10, 10)
    now[0] = 0.6
    meter.step("verifying", 1, 3, "it-b")  # 0.6 s after verifying began: shown
    assert "verifying: 33% (1/3) it-b" in capsys.readouterr().err
    now[0] = 0.9
    meter.step("reading items into the read cache", 0, 10)  # a new read: its own clock
    assert capsys.readouterr().err == "\r\x1b[K"  # the verifying line erased, nothing drawn
