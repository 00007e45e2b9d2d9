"""The JSON writer gives exactly the bytes of json.dumps(indent=2, sort_keys=True), with
every character a terminal shows escaped written as a `\\u` escape (the same text)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain import jsontext
from gitcoop.domain.bounds import shown_escaped


def standard(value: Any) -> str:
    """The standard library's text, then each escaped character spelt as JSON spells it."""
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return shown_escaped().sub(lambda found: spelt(found.group()), text)


def spelt(char: str) -> str:
    if char == "\n":  # the layout's (the standard library escapes what strings hold)
        return char
    return json.dumps(char)[1:-1]  # ASCII JSON: \\uXXXX, a surrogate pair beyond the BMP


scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.text()
    | st.floats(allow_nan=True, allow_infinity=True)
)
values: Any = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@given(st.lists(values, max_size=5))
def test_same_text_as_the_standard_library(value: Any) -> None:
    assert jsontext.dumps(value) == standard(value)
    assert json.loads(jsontext.dumps(value)) == json.loads(json.dumps(value))


def test_non_string_keys_fall_back_to_the_standard_library() -> None:
    value = [{2: "b", 1: "a"}, {"x": {3: None}}]
    assert jsontext.dumps(value) == standard(value)


@given(st.lists(values, max_size=5))
def test_an_array_of_elements_is_the_text_of_the_list(value: list[Any]) -> None:
    assert jsontext.array([jsontext.element(v) for v in value]) == standard(value)


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ("Fix\U000e0069t", '"Fix\\udb40\\udc69t"'),  # a tag character: a surrogate pair
        ("a\u200bb", '"a\\u200bb"'),
        ("\ufeffx", '"\\ufeffx"'),
        ("soft\xad", '"soft\\u00ad"'),
        ("rtl\u202e", '"rtl\\u202e"'),
        ("del\x7f\x9b", '"del\\u007f\\u009b"'),
        ("naïve 日本 ✓", '"naïve 日本 ✓"'),
    ],
)
def test_hidden_characters_are_written_as_escapes(text: str, written: str) -> None:
    assert jsontext.dumps(text) == written
    assert jsontext.dumps({text: [text]}) == f"{{\n  {written}: [\n    {written}\n  ]\n}}"
    assert json.loads(jsontext.dumps(text)) == text


def test_a_fallback_text_escapes_them_too() -> None:
    value = {1: "a\u200bb"}
    assert jsontext.dumps(value) == '{\n  "1": "a\\u200bb"\n}'
