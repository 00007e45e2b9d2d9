"""The `--json` text: exactly `json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)`,
except that each character a person is shown escaped (`bounds.shown_escaped`: controls,
bidirectional controls, format characters such as U+200B, tag characters) is written as
JSON's `\\u` escape, so what an agent reads is what a person sees. The parsed value is
the same: only the spelling differs.

With `indent`, the standard library falls back to its pure-Python, generator
based encoder, which was most of the time of `list --json` on a large ledger.
This writer builds the same text with plain recursion and the C string
encoder; a property test compares its bytes with `json.dumps`.

A listing is an array of items. Each element's text depends only on the item
and its short label, so the read cache keeps it (`element`) and a listing
only joins the kept texts (`array`), with the same bytes as `dumps(list)`.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring  # the C implementation when available
from re import Match
from typing import Any

from gitcoop.domain.bounds import shown_escaped


class _Unusual(Exception):
    """A value this writer does not mirror exactly (a non-string key)."""


def dumps(value: Any) -> str:
    return _text(value, "\n")


def element(value: Any) -> str:
    """`value`'s text as an element of a top-level array (indented one level)."""
    return _text(value, "\n  ")


def array(elements: list[str]) -> str:
    """`dumps(values)` from the `element` texts of `values`."""
    if not elements:
        return "[]"
    return "[\n  " + ",\n  ".join(elements) + "\n]"


def _text(value: Any, newline: str) -> str:
    parts: list[str] = []
    try:
        _write(value, newline, parts)
    except _Unusual:
        text = _spelt(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False))
        # every newline in JSON text is layout (strings escape theirs)
        return text.replace("\n", newline)
    return "".join(parts)


def _string(value: str) -> str:
    """A string as JSON: `encode_basestring`, then what is shown escaped spelt as `\\u`."""
    text = encode_basestring(value)
    if text.isascii() and "\x7f" not in text:  # C0 controls are escaped already
        return text
    return _spelt(text)


def spelt(text: str) -> str:
    """JSON text with what a person is shown escaped spelt as `\\u` (the parsed value is
    the same): for JSON another library wrote (the MCP SDK's wire)."""
    return _spelt(text)


def _spelt(text: str) -> str:
    """JSON text with each character `shown_escaped` names as its `\\u` escape (they can
    stand only inside strings: JSON's own layout is ASCII and printable)."""
    if text.isascii() and "\x7f" not in text:
        return text
    return shown_escaped().sub(_escape, text)


def _escape(found: Match[str]) -> str:
    code = ord(found.group())
    if code < 0x20:  # a line break of the layout (strings hold their C0 controls escaped)
        return found.group()
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP: a surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


_WORDS = {None: "null", True: "true", False: "false"}


def _write(value: Any, newline: str, out: list[str]) -> None:
    kind = type(value)
    if kind is str:
        out.append(_string(value))
    elif kind is dict:
        _mapping(value, newline, out)
    elif kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        inner = newline + "  "
        separator = "[" + inner
        for entry in value:
            out.append(separator)
            _write(entry, inner, out)
            separator = "," + inner
        out.append(newline + "]")
    elif value is None or value is True or value is False:
        out.append(_WORDS[value])
    elif kind is int:
        out.append(int.__repr__(value))
    elif isinstance(value, dict | list | tuple):  # a subclass: the standard writer decides
        raise _Unusual
    else:  # floats and anything unusual: the standard encoder's own text
        out.append(json.dumps(value, ensure_ascii=False))


def _mapping(value: dict[Any, Any], newline: str, out: list[str]) -> None:
    """A mapping, keys sorted; strings and constants are written in line (most values)."""
    if not value:
        out.append("{}")
        return
    keys = tuple(value)
    layout = _layouts.get((keys, newline))
    if layout is None:
        layout = _layout(keys, newline)
    inner = newline + "  "
    append = out.append
    for key, prefix in layout:
        append(prefix)
        entry = value[key]
        if type(entry) is str:
            append(_string(entry))
        elif entry is None or entry is True or entry is False:
            append(_WORDS[entry])
        else:
            _write(entry, inner, out)
    append(newline + "}")


# (a mapping's keys in their order, its newline) -> each key, sorted, with the text before
# its value: most mappings of a listing have the same keys, so each layout is worked out once
_layouts: dict[tuple[tuple[Any, ...], str], list[tuple[str, str]]] = {}
LAYOUT_LIMIT = 1024


def _layout(keys: tuple[Any, ...], newline: str) -> list[tuple[str, str]]:
    if not all(type(key) is str for key in keys):
        raise _Unusual
    inner = newline + "  "
    layout = [
        (key, ("," if at else "{") + inner + _string(key) + ": ")
        for at, key in enumerate(sorted(keys))
    ]
    if len(_layouts) >= LAYOUT_LIMIT:
        _layouts.clear()
    _layouts[keys, newline] = layout
    return layout
