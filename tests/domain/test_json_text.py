"""`bounds.json_text` gives the bytes of json.dumps(indent=2, sort_keys=True), with every
character a terminal shows escaped written as a `\\u` escape (the same text)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain.bounds import json_escaped, json_text, shown_escaped


def standard(value: Any) -> str:
    """The standard library's text, then each escaped character spelt as JSON spells it."""
    text = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    return shown_escaped().sub(lambda found: spelt_char(found.group()), text)


def spelt_char(char: str) -> str:
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
    assert json_text(value) == standard(value)
    assert json.loads(json_text(value)) == json.loads(json.dumps(value))


def test_non_string_keys_are_written_as_the_standard_library_writes_them() -> None:
    value = [{2: "b", 1: "a"}, {"x": {3: None}}]
    assert json_text(value) == standard(value)


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
    assert json_text(text) == written
    assert json_text({text: [text]}) == f"{{\n  {written}: [\n    {written}\n  ]\n}}"
    assert json.loads(json_text(text)) == text


def test_text_with_non_string_keys_escapes_them_too() -> None:
    value = {1: "a\u200bb"}
    assert json_text(value) == '{\n  "1": "a\\u200bb"\n}'


@given(values)
def test_text_another_library_wrote_is_spelt_the_same(value: Any) -> None:
    written = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    spelt = json_escaped(written)
    assert spelt == shown_escaped().sub(lambda found: spelt_char(found.group()), written)
    assert json.loads(spelt) == json.loads(written) or spelt == written  # NaN is not NaN
