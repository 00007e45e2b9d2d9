"""`bounds.has_unsafe`: the ASCII answer (`str.isprintable`) agrees with the class."""

from __future__ import annotations

import re

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
