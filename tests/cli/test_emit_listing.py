"""`render.emit_listing` writes, a chunk at a time, the text of the list whose elements' texts
the read cache keeps."""

from __future__ import annotations

import json

import pytest

from gitcoop.cli import render
from gitcoop.domain.bounds import json_text
from gitcoop.store.fast.cache_rows import make_row


@pytest.mark.parametrize("size", [0, 1, 2, 999, 1000, 1001, 2500])
def test_the_listing_written_in_chunks_is_the_array(
    size: int, capsys: pytest.CaptureFixture[str]
) -> None:
    values = [
        {"id": f"td-{k:012d}", "kind": "task", "status": "open", "title": f"t\u200b{k}"}
        | {"created_at": "2026-01-01T00:00:00Z", "n": k, "tags": ["a", "b"][: k % 3]}
        for k in range(size)
    ]
    elements = [make_row(v["id"], "0" * 40, v["id"][:7], v).json for v in values]
    render.emit_listing(elements)
    written = capsys.readouterr().out
    assert written == json_text([{**v, "short_id": v["id"][:7]} for v in values]) + "\n"
    assert json.loads(written) == [{**v, "short_id": v["id"][:7]} for v in values]
