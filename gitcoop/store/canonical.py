"""Reading the YAML the codec writes, line by line, without a YAML parser.

Every ledger file gitcoop writes is block YAML of one shape: `key: value`
lines, a nested mapping opened by `key:` and indented two more spaces, a
list of scalars as `- value` lines under its key, flow `[]` and `{}` for
empty containers, and scalars written plain or in single quotes on one line.
Parsing an item with the C parser costs ~150 us, most of it building one
Python event object per token; reading its lines directly costs a third of
that, and parsing was most of a cold `list`.

`read` accepts only text it is sure of and returns None for anything else —
lists of containers, double quotes, multi-line scalars, comments, tabs,
anchors, tags, unusual characters, duplicate or bool keys, odd indentation,
nesting deeper than the parser allows — and the caller then uses the full
parser, which reads or refuses it as before. So a file either
reads exactly as the parser reads it (a property test compares the two on
generated and on mutated files) or goes the slow way.
"""

from __future__ import annotations

import re
from typing import Any

CONSTANTS: dict[str, Any] = {
    **dict.fromkeys(("", "~", "null", "Null", "NULL")),
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}
NUMERIC_START = frozenset("0123456789+-.")
INT = re.compile(r"^[-+]?[0-9]+$")
FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")

# anything but a newline and the characters YAML prints as they are (no tab,
# no line separators, no byte-order mark): such text goes to the parser
_UNUSUAL = re.compile(
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_LINE = re.compile(r"( *)([A-Za-z_][A-Za-z0-9_]{0,127}):(?: (.*))?")
# a plain scalar may not start with these (or a space); this reader also
# leaves every scalar that starts with "-", "?" or ":" to the parser
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@` ")
MAX_DEPTH = 12


class _NotCanonical(Exception):
    """The text is not of the one shape this reader knows."""


def plain(value: str) -> Any:
    """A plain scalar as YAML 1.2 core resolves it (null, bool, int, float); else a string."""
    if value in CONSTANTS:
        return CONSTANTS[value]
    if value[0] in NUMERIC_START:
        if INT.match(value):
            return int(value)
        if FLOAT.match(value):
            return float(value)
    return value


def read(text: str) -> dict[str, Any] | None:
    """The mapping `text` holds, or None when only the full parser may say."""
    if not text.endswith("\n") or _UNUSUAL.search(text):
        return None
    try:
        return _mapping(text.split("\n")[:-1])
    except _NotCanonical:
        return None


def _mapping(lines: list[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    open_maps = [root]  # open_maps[d] is the mapping whose keys are indented 2*d
    opening: str | None = None  # a `key:` whose value starts on the next line
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if opening is not None:
            dash = " " * (2 * len(open_maps) - 2) + "- "
            if line.startswith(dash):  # a sequence of scalars, its dashes under the key
                if len(open_maps) >= MAX_DEPTH:  # the sequence is one level below the key
                    raise _NotCanonical
                entries = [_entry(line[len(dash) :])]
                while at < len(lines) and lines[at].startswith(dash):
                    entries.append(_entry(lines[at][len(dash) :]))
                    at += 1
                open_maps[-1][opening] = entries
                opening = None
                continue
        match = _LINE.fullmatch(line)
        if match is None:
            raise _NotCanonical
        indent, key, value = match.groups()
        depth, odd = divmod(len(indent), 2)
        if odd:
            raise _NotCanonical
        if opening is not None:  # a nested mapping, two spaces deeper
            if depth != len(open_maps) or depth >= MAX_DEPTH:
                raise _NotCanonical
            child: dict[str, Any] = {}
            open_maps[-1][opening] = child
            open_maps.append(child)
            opening = None
        elif depth < len(open_maps):
            del open_maps[depth + 1 :]
        else:
            raise _NotCanonical
        mapping = open_maps[-1]
        if key in mapping or key in CONSTANTS:  # `true:` is a bool key: the parser refuses it
            raise _NotCanonical
        if value is None:
            mapping[key] = None  # holds the key's place until its value is read
            opening = key
        else:
            mapping[key] = _scalar(value, len(open_maps))
    if opening is not None or not root:
        raise _NotCanonical
    return root


def _entry(value: str) -> Any:
    """One `- value` of a sequence: a scalar, never a container."""
    if value in ("[]", "{}"):
        raise _NotCanonical
    return _scalar(value, 0)


def _scalar(value: str, depth: int) -> Any:
    """A one-line value; `[]` and `{}` are containers at nesting level `depth`."""
    if not value:
        raise _NotCanonical
    first = value[0]
    if first == "'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
            raise _NotCanonical
        return inner.replace("''", "'")
    if value in ("[]", "{}"):
        if depth >= MAX_DEPTH:  # the parser refuses a container this deep
            raise _NotCanonical
        return [] if value == "[]" else {}
    if first in _INDICATORS or value[-1] in ": " or ": " in value or " #" in value:
        raise _NotCanonical
    return plain(value)
