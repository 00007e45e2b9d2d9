"""Shadows ruamel's emitter (`codec.emitted`); gains an item written in ~15 us, not ~165, and the
check of a first sync's tip at ~80 us an item, not ~160 (docs/performance.md, "A new clone's
first sync"); held equal by tests/store/fast/test_yaml_emitter.py.

Writing the one block shape of ledger files as text, without ruamel's emitter.

Every ledger file is a mapping of plain data, written as ruamel's C emitter
writes it (block style, keys sorted, two-space indent, lists under a key at
the key's own indent, `[]` and `{}` for empty containers). Going through
ruamel costs ~165 us for an item (a Python event object per scalar, then the
emitter); this writes the same bytes with string joins, ~15 us, and is what
lets a fetched item be checked by its blob id (store/boundary/joining.py) and a write
skip importing ruamel.

`text` writes only what it is sure of and returns None for anything else,
which then goes to ruamel exactly as before: floats, keys that are not short
plain identifiers, lists of lists, empty containers as list entries, and any
string that is long, spans lines, or holds a character Python does not call
printable or one beyond the Basic Multilingual Plane (the emitter writes
those escaped, in double quotes). A string is written plain only where
ruamel's resolver (and the line reader, YAML 1.2 core) read it back as a
string: one that starts with an ASCII letter does unless it is one of the
few words that resolve to a bool or null (tested against ruamel's resolver
table); an instant as gitcoop writes it never does; for anything else,
`resolves_to_str` (ruamel's resolver, loaded only then) answers. A property
test holds the two writers to each other byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from gitcoop.domain.memo import MEMO_HELD, Memo

# what ruamel's YAML 1.2 resolver reads as a bool or null among strings that start
# with an ASCII letter; every other such string is a string (tests/store/fast/test_yaml_emitter.py)
LETTER_WORDS = frozenset(
    ("true", "True", "TRUE", "false", "False", "FALSE", "null", "Null", "NULL")
)
LETTERS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
# a plain scalar may not start with these (libyaml's block indicators)
_INDICATOR_START = frozenset("#,[]{}&*!|>'\"%@`")
_ASK_IF_ALONE = frozenset("?:-")  # indicators when followed by a space, or alone
_KEY_START = frozenset("_") | LETTERS
MAX_KEY = 128  # longer keys are written as complex keys (`? key`)
MAX_TEXT = 2000  # far below the emitter's line width (65,536): never folded

Resolves = Callable[[str], bool]  # ruamel's resolver: may this string be written plain?


class _Declined(Exception):
    """A value `text` leaves to ruamel."""


_written: Memo[str, str] = Memo()  # strings by their written form


def text(data: Mapping[str, Any], resolves_to_str: Resolves) -> str | None:
    """The YAML text ruamel's emitter writes for `data`, or None when only it may say."""
    out: list[str] = []
    try:
        _mapping(data, "", out, resolves_to_str, None)
    except (_Declined, TypeError):  # TypeError: keys that do not sort (not all strings)
        return None
    return "".join(out)


def _mapping(
    data: Mapping[str, Any], indent: str, out: list[str], resolves: Resolves, first: str | None
) -> None:
    """A block mapping at `indent`; `first` is the text before its first key (`- `), if
    the mapping starts a list entry."""
    if not data:
        raise _Declined
    deeper = indent + "  "
    add = out.append
    lead = indent if first is None else first
    for key in _in_order(data):
        value = data[key]
        kind = type(value)
        if kind is str:
            written = _written.get(value)
            if written is None:
                written = _remember(value, resolves)
            add(f"{lead}{key}: {written}\n")
        elif value is None:
            add(f"{lead}{key}: null\n")
        elif kind is bool:
            add(f"{lead}{key}: true\n" if value else f"{lead}{key}: false\n")
        elif kind is dict or (kind is not list and isinstance(value, Mapping)):
            if value:
                add(f"{lead}{key}:\n")
                _mapping(value, deeper, out, resolves, None)
            else:
                add(f"{lead}{key}: {{}}\n")
        elif kind is list or kind is tuple:
            if value:
                add(f"{lead}{key}:\n")
                _sequence(value, indent, out, resolves)
            else:
                add(f"{lead}{key}: []\n")
        else:
            add(f"{lead}{key}: {_scalar(value, resolves)}\n")
        lead = indent


# a mapping's keys in the order they are written, by the order it holds them: the
# records of one kind hold the same keys in the same order, so each is sorted and
# checked once
_ORDERS: Memo[tuple[Any, ...], tuple[str, ...]] = Memo()


def _in_order(data: Mapping[str, Any]) -> tuple[str, ...]:
    held = tuple(data)
    order = _ORDERS.get(held)
    if order is None:
        order = tuple(sorted(held))  # TypeError for keys that do not sort (not all strings)
        if not all(key in _KEYS or _plain_key(key) for key in order):
            raise _Declined
        _ORDERS.keep(held, order)
    return order


def _sequence(values: Any, indent: str, out: list[str], resolves: Resolves) -> None:
    """A block sequence under a mapping key: its `- ` at the key's own indent."""
    dash = indent + "- "
    for value in values:
        if type(value) is dict or isinstance(value, Mapping):
            _mapping(value, indent + "  ", out, resolves, dash)  # empty: declined
        elif isinstance(value, list | tuple):
            raise _Declined
        else:
            out.append(f"{dash}{_scalar(value, resolves)}\n")


_KEYS: set[str] = set()  # keys already found plain


def _plain_key(key: Any) -> bool:
    plain = (
        type(key) is str
        and 0 < len(key) <= MAX_KEY
        and key[0] in _KEY_START
        and key.isascii()
        and key.isidentifier()
        and key not in LETTER_WORDS
    )
    if plain and len(_KEYS) < MEMO_HELD:
        _KEYS.add(key)
    return plain


def _scalar(value: Any, resolves: Resolves) -> str:
    kind = type(value)
    if kind is str:
        written = _written.get(value)
        return written if written is not None else _remember(value, resolves)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    raise _Declined  # a float, or anything else: ruamel's representer knows its form


def _remember(value: str, resolves: Resolves) -> str:
    return _written.keep(value, _string(value, resolves))


def _string(value: str, resolves: Resolves) -> str:
    if not value:
        return "''"
    if len(value) > MAX_TEXT or not value.isprintable():  # line breaks, tabs, odd spaces
        raise _Declined
    if not value.isascii() and max(value) > "\uffff":  # the emitter escapes these
        raise _Declined
    if _plain_allowed(value) and _resolves_to_str(value, resolves):
        return value
    return "'" + value.replace("'", "''") + "'"


def _plain_allowed(value: str) -> bool:
    """Whether libyaml may write this one-line printable string plain in block context
    (its `analyze_scalar`: no leading or trailing space, no block indicator)."""
    start = value[0]
    if start == " " or value[-1] == " " or start in _INDICATOR_START:
        return False
    if start in _ASK_IF_ALONE and (len(value) == 1 or value[1] == " "):
        return False
    if value.startswith(("---", "...")):
        return False
    return ": " not in value and " #" not in value and not value.endswith(":")


def _resolves_to_str(value: str, resolves: Resolves) -> bool:
    if value[0] in LETTERS:
        return value not in LETTER_WORDS
    if written_instant(value):
        return False
    return resolves(value)


def written_instant(value: str) -> bool:
    """Whether `value` is an instant as gitcoop writes it, `YYYY-MM-DDTHH:MM:SSZ`: a
    timestamp to ruamel's resolver, so never plain (tested against the resolver)."""
    return (
        len(value) == 20
        and value.isascii()
        and value[4] + value[7] + value[10] + value[13] + value[16] + value[19] == "--T::Z"
        and (
            value[:4] + value[5:7] + value[8:10] + value[11:13] + value[14:16] + value[17:19]
        ).isdigit()
    )
