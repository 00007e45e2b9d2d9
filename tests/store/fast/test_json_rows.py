"""A row's `--json` text written by hand: the standard library's bytes, or its answer."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.domain.bounds import json_text
from gitcoop.store.fast import json_rows

# what JSON escapes, what a person is shown escaped, and beyond the Basic Multilingual Plane
TRICKY = ' "\\/\n\t\x00\x1f\x7f\u0085\u200b\u202e\u2028\ufeff\U000e0041é🙂abc'
texts = st.text(alphabet=st.sampled_from(TRICKY) | st.characters(exclude_categories=("Cs",)))
scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | texts
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=5),
    max_leaves=20,
)


def standard(value: Any) -> str:
    return json_text(value).replace("\n", "\n  ")


@given(st.dictionaries(texts, values, max_size=8))
@settings(max_examples=400, deadline=None)
def test_a_row_is_written_as_the_standard_library_writes_it(row: dict[str, Any]) -> None:
    assert json_rows.element(row) == standard(row)


@pytest.mark.parametrize(
    "odd",
    [
        {"a": 1.5},  # floats: the standard library's own spelling
        {"a": float("nan")},
        {"a": (1, "x")},  # a tuple is written as a list
        {1: "x", 2: "y"},  # keys that are not strings
        {"a": {True: None}},
        {"a": [{"b": [1.0e300, None]}]},
    ],
)
def test_what_it_does_not_mirror_goes_to_the_standard_library(odd: dict[Any, Any]) -> None:
    assert json_rows.element(odd) == json.dumps(
        odd, indent=2, sort_keys=True, ensure_ascii=False
    ).replace("\n", "\n  ")


def test_by_reference_the_standard_library_writes_every_row(
    by_reference: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(json_rows, "_write", None)  # the hand-written path is never entered
    row = {"id": "td-1", "tags": ["a", "\u202e"], "obligation": {"due": None}}
    assert json_rows.element(row) == standard(row)
