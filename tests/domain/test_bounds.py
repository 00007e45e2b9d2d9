"""`bounds.has_unsafe`: the ASCII answer (`str.isprintable`) agrees with the class."""

from __future__ import annotations

import re
import unicodedata

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from gitcoop.domain import bounds

# every character the classes name, and their neighbours, with ordinary text around them
edges = st.sampled_from(
    [chr(c) for c in (*range(0x21), 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0x061B, 0x061C, 0x061D)]
    + [chr(c) for c in (0x200D, 0x200E, 0x200F, 0x2010, 0x2027, 0x2028, 0x202E, 0x202F)]
    + [chr(c) for c in (0x2065, 0x2066, 0x2069, 0x206A, 0xD7FF, 0xD800, 0xDFFF, 0xE000)]
)
texts = st.lists(st.one_of(edges, st.text(max_size=4)), max_size=8).map("".join)


@given(texts, st.booleans())
@example("plain ascii text", False)
@example("tab\there", False)
@example("tab\there\nand a line", True)
@example("bell\x07", True)
def test_has_unsafe_agrees_with_the_class(value: str, in_text: bool) -> None:
    pattern = bounds.UNSAFE_IN_TEXT_PATTERN if in_text else bounds.UNSAFE_PATTERN
    expected = re.compile(pattern).search(value) is not None
    assert bounds.has_unsafe(value, in_text) is expected
    assert (bounds.unsafe(in_text).search(value) is not None) is expected


def test_problems_name_the_first_unsafe_character() -> None:
    assert bounds.line_problem("a\tb", "title") == (
        "title must be one line without control characters (it holds U+0009 at character 2)"
    )
    assert bounds.text_problem("a\tb\nc", "body") is None
    assert bounds.text_problem("a\u202eb", "body") == (
        "body must not hold control characters (it holds U+202E at character 2)"
    )
    assert bounds.line_problem("fine, \u00e9t\u00e9", "title") is None


def test_a_line_found_good_once_is_still_held_to_each_callers_length() -> None:
    text = "x" * 50
    assert bounds.line_problem(text, "title") is None  # now remembered
    assert (
        bounds.line_problem(text, "a key", 20)
        == "a key is 50 characters long; at most 20 are allowed"
    )
    assert bounds.line_problem("a\nb", "title") is not None
    assert bounds.line_problem("a\nb", "title") is not None  # a bad one is never remembered


def test_hidden_holds_every_format_character_this_python_knows() -> None:
    """`HIDDEN_RANGES` is written out (compiled from a table it would cost every process);
    each character of category Cf, and the tag block, must be in it."""
    missing = [
        f"U+{code:04X}"
        for code in range(0x110000)
        if (unicodedata.category(chr(code)) == "Cf" or 0xE0000 <= code <= 0xE007F)
        and not bounds.hidden().match(chr(code))
    ]
    assert missing == []


@pytest.mark.parametrize("char", ["\u200b", "\ufeff", "\U000e0041", "\xad", "\u2060", "\u202e"])
def test_a_hidden_character_is_named_where_it_stands(char: str) -> None:
    problem = bounds.hidden_problem(f"Fix{char} it", "a title")
    assert problem is not None and f"U+{ord(char):04X} at character 4" in problem
    assert bounds.hidden_problem("naïve 日本 ✓ 👍", "a title") is None


@given(st.text(alphabet=st.sampled_from(["a", "\t", "\n", "\r", "\x1b", "\u200b", "\U000e0041"])))
def test_a_free_text_keeps_its_tabs_and_line_breaks_and_escapes_the_rest(text: str) -> None:
    shown = bounds.printable(text, lines=True, tabs=True)
    assert shown.split("\t") == [bounds.printable(p, lines=True) for p in text.split("\t")]
    assert shown.count("\n") == text.count("\n") and shown.count("\t") == text.count("\t")
    assert not {"\r", "\x1b", "\u200b", "\U000e0041"} & set(shown)


@pytest.mark.parametrize(
    "emoji", ["👨\u200d💻", "🏳️\u200d🌈", "👩\u200d👩\u200d👧\u200d👦", "❤️\u200d🔥", "👩🏽\u200d💻"]
)
def test_a_joiner_between_two_pictographs_is_one_drawn_emoji_and_kept(emoji: str) -> None:
    """A zero-width joiner that joins two pictographs draws them as one emoji and hides no
    text: shown, written to JSON and taken in a title as it is."""
    text = f"{emoji} pair on the parser"
    assert bounds.printable(text) == text
    assert bounds.hidden_problem(text, "a title") is None
    assert "\\u200d" not in bounds.json_text(text)


@pytest.mark.parametrize(
    "text", ["a\u200db", "👨\u200d", "\u200d💻", "👨\u200d\u200d💻", "1\u200d💻"]
)
def test_a_joiner_anywhere_else_is_hidden_as_before(text: str) -> None:
    assert "\\u200d" in bounds.printable(text)
    assert bounds.hidden_problem(text, "a title") is not None
    assert "\\u200d" in bounds.json_text(text)
