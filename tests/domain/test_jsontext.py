"""The JSON writer gives exactly the bytes of json.dumps(indent=2, sort_keys=True)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain import jsontext

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
    expected = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    assert jsontext.dumps(value) == expected


def test_non_string_keys_fall_back_to_the_standard_library() -> None:
    value = [{2: "b", 1: "a"}, {"x": {3: None}}]
    assert jsontext.dumps(value) == json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)


@given(st.lists(values, max_size=5))
def test_an_array_of_elements_is_the_text_of_the_list(value: list[Any]) -> None:
    expected = json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)
    assert jsontext.array([jsontext.element(v) for v in value]) == expected
