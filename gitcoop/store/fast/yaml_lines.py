"""Shadows the YAML parser (`codec.parse`, ruamel's C parser); gains an item read in ~45 us of
CPU, not ~150 (docs/performance.md, "Reading ledger files"); held equal by
tests/store/fast/test_yaml_lines.py.

Reading the YAML the codec writes, line by line, without a YAML parser.

Every ledger file gitcoop writes is block YAML of one shape: `key: value`
lines, a nested mapping opened by `key:` and indented two more spaces, a
list of scalars as `- value` lines under its key, flow `[]` and `{}` for
empty containers, and scalars written plain or in single quotes on one line.
Parsing an item with the C parser costs ~150 us, most of it building one
Python event object per token; reading its lines directly costs a fraction
of that, and parsing was most of a cold `list`.

`read` accepts only text it is sure of and returns None for anything else —
lists of containers, double quotes, multi-line scalars, comments, tabs,
anchors, tags, unusual characters, duplicate or bool keys, odd indentation,
nesting deeper than the parser allows — and the caller then uses the full
parser, which reads or refuses it as before. So a file either
reads exactly as the parser reads it (a property test compares the two on
generated and on mutated files) or goes the slow way.

What one line says does not depend on the lines around it, and most lines
of a ledger repeat from file to file (`  escalated: false`, `body: null`):
each distinct line is read once per process and remembered (`_seen`), so
reading an item is mostly dictionary lookups.
"""

from __future__ import annotations

from typing import Any

from gitcoop.domain.memo import MEMO_HELD, Memo
from gitcoop.domain.patterns import pattern

CONSTANTS: dict[str, Any] = {
    **dict.fromkeys(("", "~", "null", "Null", "NULL")),
    **dict.fromkeys(("true", "True", "TRUE"), True),
    **dict.fromkeys(("false", "False", "FALSE"), False),
}
NUMERIC_START = frozenset("0123456789+-.")
INT = pattern(r"^[-+]?[0-9]+$")
FLOAT = pattern(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")

# anything but a newline and the characters YAML prints as they are (no tab,
# no line separators, no byte-order mark): such text goes to the parser. The
# class spans most of Unicode and takes ~7 ms to compile, so it is compiled
# on first use, and only for text `str.isprintable` (a narrower set) refuses.
_UNUSUAL_PATTERN = (
    "[^\n\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd\U00010000-\U0010ffff]"
)
_UNUSUAL = pattern(_UNUSUAL_PATTERN)
_ASCII_UNUSUAL = bytes(c for c in range(128) if c != 10 and not 0x20 <= c <= 0x7E)
# a plain scalar may not start with these (or a space); this reader also
# leaves every scalar that starts with "-", "?" or ":" to the parser
_INDICATORS = frozenset("-?:,[]{}#&*!|>'\"%@` ")
MAX_DEPTH = 12
MAX_DIGITS = 4000  # of an integer: Python refuses to read more than 4,300

# what a line is: a key (with its depth, key and value), a `- value` entry
# (with its indent), or none of the shapes this reader knows
_KEY, _DASH, _BAD = 0, 1, 2
_OPENS = object()  # `key:` with the value on the lines below
_EMPTY_LIST = object()
_EMPTY_MAP = object()
_NOT_READ = (_BAD, 0, None, None)
Line = tuple[int, int, Any, Any]
_seen: Memo[str, Line] = Memo()


class _NotCanonical(Exception):
    """The text is not of the one shape this reader knows."""


def plain(value: str) -> Any:
    """A plain scalar as YAML 1.2 core resolves it (null, bool, int, float); else a string.
    ValueError for an integer too long to read (Python reads up to 4,300 digits)."""
    if value in CONSTANTS:
        return CONSTANTS[value]
    if value[0] in NUMERIC_START:
        # an unsigned integer (a clock) is known at C speed; a signed one by the pattern
        if (value.isdigit() and value.isascii()) or INT.match(value):
            if len(value) > MAX_DIGITS:
                raise ValueError(f"a number of {len(value)} digits, more than a ledger holds")
            return int(value)
        if FLOAT.match(value):
            return float(value)
    return value


def unusual(text: str) -> bool:
    """Whether `text` holds a character this reader leaves to the parser."""
    if text.isascii():  # (known without a scan) the class holds `\n` and ` ` to `~` of ASCII
        return len(text.encode("ascii").translate(None, _ASCII_UNUSUAL)) != len(text)
    if text.replace("\n", "").isprintable():  # C speed; printable is a subset of the class
        return False
    return _UNUSUAL.search(text) is not None


def read(text: str) -> dict[str, Any] | None:
    """The mapping `text` holds, or None when only the full parser may say."""
    if not text.endswith("\n") or unusual(text):
        return None
    try:
        return _mapping(text.split("\n")[:-1])
    except _NotCanonical:
        return None


def _mapping(lines: list[str]) -> dict[str, Any]:
    root: dict[str, Any] = {}
    open_maps = [root]  # open_maps[d] is the mapping whose keys are indented 2*d
    mapping = root  # open_maps[-1]
    opening: str | None = None  # a `key:` whose value starts on the next line
    seen = _seen
    at, end = 0, len(lines)
    while at < end:
        line = lines[at]
        at += 1
        known = seen.get(line)
        if known is None:
            known = _remember(line)
        kind, depth, key, value = known
        if kind != _KEY:
            if kind == _BAD or opening is None:
                raise _NotCanonical
            at = _sequence(lines, at, end, open_maps, opening, known)
            opening = None
            continue
        if opening is not None:  # a nested mapping, two spaces deeper
            if depth != len(open_maps) or depth >= MAX_DEPTH:
                raise _NotCanonical
            child: dict[str, Any] = {}
            mapping[opening] = child
            open_maps.append(child)
            mapping = child
            opening = None
        elif depth != len(open_maps) - 1:
            if depth >= len(open_maps):
                raise _NotCanonical
            del open_maps[depth + 1 :]
            mapping = open_maps[-1]
        if key in mapping:
            raise _NotCanonical
        if value is _OPENS:
            mapping[key] = None  # holds the key's place until its value is read
            opening = key
        elif value is _EMPTY_LIST:
            mapping[key] = []
        elif value is _EMPTY_MAP:
            mapping[key] = {}
        else:
            mapping[key] = value
    if opening is not None or not root:
        raise _NotCanonical
    return root


def _sequence(
    lines: list[str], at: int, end: int, open_maps: list[dict[str, Any]], key: str, first: Line
) -> int:
    """A list of scalars, its `- ` under the key that opened it; where the list ends."""
    indent = first[1]
    if indent != 2 * len(open_maps) - 2 or len(open_maps) >= MAX_DEPTH:
        raise _NotCanonical
    entries = [first[3]]
    while at < end:
        more = _seen.get(lines[at]) or _remember(lines[at])
        if more[0] != _DASH or more[1] != indent:
            break
        entries.append(more[3])
        at += 1
    open_maps[-1][key] = entries
    return at


def _remember(line: str) -> Line:
    return _seen.keep(line, _line(line))


def _line(line: str) -> Line:
    """What one line says, whatever surrounds it."""
    try:
        rest = line.lstrip(" ")
        indent = len(line) - len(rest)
        if rest.startswith("- "):
            entry = rest[2:]
            if entry in ("[]", "{}"):  # a list of containers: left to the parser
                return _NOT_READ
            return (_DASH, indent, None, _scalar(entry))
        # `key: value` or `key:`; a key never holds ": ", so the first one ends it
        key, colon, value = rest.partition(": ")
        if not colon:
            if not rest.endswith(":"):
                return _NOT_READ
            key = rest[:-1]
        depth, odd = divmod(indent, 2)
        if odd or (key not in _KEYS and not _plain_key(key)):  # `true:` is a bool key
            return _NOT_READ
        if not colon:
            return (_KEY, depth, key, _OPENS)
        if value in ("[]", "{}"):
            if depth + 1 >= MAX_DEPTH:  # the parser refuses a container this deep
                return _NOT_READ
            return (_KEY, depth, key, _EMPTY_LIST if value == "[]" else _EMPTY_MAP)
        return (_KEY, depth, key, _scalar(value))
    except (_NotCanonical, ValueError):  # ValueError: a number too long; the parser says so
        return _NOT_READ


def _plain_key(key: str) -> bool:
    """`[A-Za-z_][A-Za-z0-9_]{0,127}`, not a word that resolves to a bool or null: a key
    every YAML reader takes as the same string (remembered, up to MEMO_HELD keys)."""
    plain = key.isascii() and key.isidentifier() and len(key) <= 128 and key not in CONSTANTS
    if plain and len(_KEYS) < MEMO_HELD:
        _KEYS.add(key)
    return plain


_KEYS: set[str] = set()  # keys found plain


def _scalar(value: str) -> Any:
    """A one-line scalar value."""
    if not value:
        raise _NotCanonical
    first = value[0]
    if first == "'":
        inner = value[1:-1]
        if len(value) < 2 or value[-1] != "'" or "'" in inner.replace("''", ""):
            raise _NotCanonical
        return inner.replace("''", "'")
    if first in _INDICATORS or value[-1] in ": " or ": " in value or " #" in value:
        raise _NotCanonical
    return plain(value)
