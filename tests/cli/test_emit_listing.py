"""`render.emit_listing` writes what `jsontext.array` makes, a chunk at a time."""

from __future__ import annotations

import json

import pytest

from gitcoop.cli import render
from gitcoop.domain import jsontext


@pytest.mark.parametrize("size", [0, 1, 2, 999, 1000, 1001, 2500])
def test_the_listing_written_in_chunks_is_the_array(
    size: int, capsys: pytest.CaptureFixture[str]
) -> None:
    values = [{"id": f"td-{k:012d}", "n": k, "tags": ["a", "b"][: k % 3]} for k in range(size)]
    elements = [jsontext.element(v) for v in values]
    render.emit_listing(elements)
    written = capsys.readouterr().out
    assert written == jsontext.array(elements) + "\n"
    assert json.loads(written) == values
