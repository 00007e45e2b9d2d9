"""The shipped findings schema says exactly what scan accepts, for single-entry findings."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from gitcoop.service.scan import finding, findings_schema

SCHEMA = json.loads(findings_schema())
VALIDATOR = Draft202012Validator(SCHEMA)

paths = st.sampled_from(["src/app.py", "a.py", "", " ", "lib/x y.ts", "./src/b.py"])
lines = st.one_of(st.none(), st.integers(-2, 3), st.just("7"), st.just(True))
quotes = st.one_of(st.none(), st.just("x = 1"), st.just(3))
titles = st.one_of(
    st.sampled_from(["Fix error toast", "", "  ", "Two\nlines", "Tab\there", "ok"]), st.just(3)
)


@st.composite
def entries(draw: st.DrawFn) -> Any:
    if draw(st.booleans()):
        text = draw(
            st.sampled_from(
                [
                    "src/a.py",
                    "src/a.py:3",
                    "src/a.py:3:q: r",
                    "a.py:0",
                    "a.py:x",
                    ":3",
                    "a.py:",
                    " ",
                ]
            )
        )
        return text
    entry: dict[str, Any] = {}
    if draw(st.booleans()):
        entry["path"] = draw(paths)
    if draw(st.booleans()):
        entry["line"] = draw(lines)
    if draw(st.booleans()):
        entry["quote"] = draw(quotes)
    return entry


@given(title=titles, entry=entries(), tag=st.one_of(st.none(), st.just("ui")))
def test_schema_valid_single_entry_findings_are_exactly_the_ones_scan_keeps(
    title: Any, entry: Any, tag: str | None
) -> None:
    raw: dict[str, Any] = {"title": title, "evidence": [entry]}
    if tag:
        raw["tag"] = tag
    valid = VALIDATOR.is_valid({"findings": [raw]}) and VALIDATOR.is_valid([raw])
    assert valid == (finding(raw) is not None), raw


def test_the_schema_is_itself_valid() -> None:
    Draft202012Validator.check_schema(SCHEMA)
