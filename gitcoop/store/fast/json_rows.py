"""Shadows `json.dumps(indent=2)` (`bounds.json_text`) for the rows a listing makes; gains a
row's text in ~12 us, not ~34 (docs/performance.md, "The fast room"); held equal by
tests/store/fast/test_json_rows.py.

A listed item's `--json` text, built by plain recursion around the standard
library's C string encoder.

With `indent`, `json.dumps` takes its pure-Python encoder, a generator per
container: ~34 us a listed item, against ~12 us for the same item without
`indent` (and for this writer), most of what a cold `list --json` adds to a
warm one. This writes the same bytes for the plain data a ledger file holds
(strings, whole numbers, booleans, null, lists, mappings with string keys)
and gives anything else (a float, a tuple, another key) to `json_text`.
"""

from __future__ import annotations

from json.encoder import encode_basestring  # the C encoder, as `ensure_ascii=False` uses
from typing import Any

from gitcoop.domain.bounds import json_escaped, json_text
from gitcoop.store.fast import reference

_WORDS = {None: "null", True: "true", False: "false"}


def element(value: dict[str, Any]) -> str:
    """`json_text(value)` indented one level, as an element of a listing's array."""
    if not reference():
        parts: list[str] = []
        if _write(value, "\n  ", parts):
            return json_escaped("".join(parts))
    return json_text(value).replace("\n", "\n  ")  # every line break of JSON text is layout


def _write(value: Any, newline: str, out: list[str]) -> bool:
    """Append `value`'s text to `out`; False for what this does not mirror exactly."""
    kind = type(value)
    if kind is str:
        out.append(encode_basestring(value))
    elif value is None or value is True or value is False:
        out.append(_WORDS[value])
    elif kind is int:
        out.append(int.__repr__(value))
    elif kind is dict:
        return _mapping(value, newline, out)
    elif kind is list:
        opening, inner = "[", newline + "  "
        for entry in value:
            out.append(opening + inner)
            if not _write(entry, inner, out):
                return False
            opening = ","
        out.append(newline + "]" if value else "[]")
    else:
        return False
    return True


def _mapping(value: dict[Any, Any], newline: str, out: list[str]) -> bool:
    """A mapping, keys sorted; its strings and words are written here (most values)."""
    if not value:
        out.append("{}")
        return True
    keys = tuple(value)
    layout = _layouts.get((keys, newline)) or _layout(keys, newline)
    if layout is None:
        return False
    inner = newline + "  "
    append = out.append
    for key, before in layout:
        append(before)
        entry = value[key]
        if type(entry) is str:
            append(encode_basestring(entry))
        elif entry is None or entry is True or entry is False:
            append(_WORDS[entry])
        elif not _write(entry, inner, out):
            return False
    append(newline + "}")
    return True


# (a mapping's keys as they stand, its newline) -> each key, sorted, with the text before
# its value: the mappings of a listing have a few shapes, each worked out once
_layouts: dict[tuple[tuple[Any, ...], str], list[tuple[str, str]]] = {}
LAYOUT_LIMIT = 1024


def _layout(keys: tuple[Any, ...], newline: str) -> list[tuple[str, str]] | None:
    if not all(type(key) is str for key in keys):
        return None
    inner = newline + "  "
    layout = [
        (key, ("," if at else "{") + inner + encode_basestring(key) + ": ")
        for at, key in enumerate(sorted(keys))
    ]
    if len(_layouts) >= LAYOUT_LIMIT:
        _layouts.clear()
    _layouts[keys, newline] = layout
    return layout
