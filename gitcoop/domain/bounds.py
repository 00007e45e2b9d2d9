"""The bounds every accepted value lies in, whoever wrote it.

A value enters the ledger from a command line, a git hook, the queue loop, or
a teammate's push. The same bounds hold for all of them, so that whatever was
accepted can be read back, shown on a terminal, pasted into a commit message
and computed with: an instant leaves room for every due date the rules add to
it, a clock fits the 12 digits of an event file's name, and text holds no
character that moves a terminal's cursor, changes its state, reverses the
order it draws in, or starts a new line where a line is expected.
"""

from __future__ import annotations

import re
from datetime import datetime
from re import Match
from typing import Any

from gitcoop.domain.memo import Memo
from gitcoop.domain.patterns import pattern

FIRST_YEAR = 1970
LAST_YEAR = 9000  # an event's instant; the rules add at most 30 days to one
MAX_CLOCK = 10**12 - 1  # event file names hold 12 digits of clock
LINE_MAX = 1000  # characters in a one-line field
TEXT_MAX = 64 * 1024  # characters in a free-text field (a body, a note)
MAX_INT = 2**53  # what every JSON reader holds exactly
MAX_EVENTS = 100_000  # events one ledger commit adds (H7): a peer's, or a clone's own write

# Besides C0 controls and DEL: C1 controls, the line and paragraph separators,
# the bidirectional marks, embeddings, overrides and isolates, and lone
# surrogates (which no UTF-8 output can encode).
_OTHERS = "\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff"
UNSAFE_PATTERN = f"[\x00-\x1f{_OTHERS}]"
UNSAFE_IN_TEXT_PATTERN = f"[\x00-\x08\x0b-\x1f{_OTHERS}]"  # tabs and line breaks allowed
# Each class spans the surrogates, so `re` builds a 64 KiB bitmap for it: ~1 ms in every
# process. They are compiled on first use, and ASCII text (all of an ordinary command's:
# ids, instants, e-mail addresses) is answered by `str.isprintable` without them: for
# ASCII, printable is exactly "no C0 control, no DEL" (property-tested against the class).
_UNSAFE = pattern(UNSAFE_PATTERN)
_UNSAFE_IN_TEXT = pattern(UNSAFE_IN_TEXT_PATTERN)

# Characters that draw nothing: every format character (Unicode's category Cf: the soft
# hyphen, zero-width spaces and joiners, word joiners, invisible operators, the byte order
# mark, the bidirectional marks) and the whole tag block, U+E0000-E007F. Text holding them
# reads one way to a person and another to a program, so they are shown escaped (and
# written to JSON as escapes), and refused in titles, tags and identities when written.
# Older text that holds them stays readable: only a writer is refused. The ranges are
# Unicode 15.1's; a test holds them to the interpreter's own `unicodedata`.
HIDDEN_RANGES = (
    "\xad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b-\u200f"
    "\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd\U000110cd"
    "\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f"
)
# The one exception: a zero-width joiner between two pictographs (a variation selector
# may follow the first) joins them into one drawn emoji (👨‍💻, 🏳️‍🌈, 👩‍👩‍👧‍👦) and hides no text:
# it is kept. Anywhere else it draws nothing, and is hidden as before.
PICTOGRAPHS = (
    "\xa9\xae\u203c\u2049\u2122\u2139\u2190-\u21ff\u2300-\u23ff\u2460-\u27bf"
    "\u2900-\u297f\u2b00-\u2bff\u3030\u303d\u3297\u3299\U0001f000-\U0001faff"
)
_LONE_JOINER = f"(?<![{PICTOGRAPHS}])(?<![{PICTOGRAPHS}]\ufe0f)\u200d|\u200d(?![{PICTOGRAPHS}])"
_HIDDEN_BUT_THE_JOINER = HIDDEN_RANGES.replace("\u200b-\u200f", "\u200b\u200c\u200e\u200f")
_HIDDEN = pattern(f"[{_HIDDEN_BUT_THE_JOINER}]|{_LONE_JOINER}")
# what a person is shown escaped, and JSON writes as escapes: the unsafe and the hidden
_SHOWN_ESCAPED = pattern(f"[\x00-\x1f{_OTHERS}{_HIDDEN_BUT_THE_JOINER}]|{_LONE_JOINER}")


def hidden() -> re.Pattern[str]:
    """The characters that draw nothing (`HIDDEN_RANGES`, but a joiner joining two
    pictographs)."""
    return _HIDDEN


def shown_escaped() -> re.Pattern[str]:
    """The characters a person is shown as escapes: `unsafe()` and `hidden()`."""
    return _SHOWN_ESCAPED


def hidden_problem(value: str, name: str) -> str | None:
    """Why `value` cannot be written as `name`: it holds a character that draws nothing."""
    if value.isascii():
        return None
    found = _HIDDEN.search(value)
    if found is None:
        return None
    return (
        f"{name} must not hold invisible characters (it holds {named_at(found)}); "
        "type it again without them"
    )


def unsafe(in_text: bool = False) -> re.Pattern[str]:
    """The characters no text may hold (with `in_text`: tabs and line breaks allowed)."""
    return _UNSAFE_IN_TEXT if in_text else _UNSAFE


def has_unsafe(value: str, in_text: bool = False) -> bool:
    """Whether `value` holds a character `unsafe(in_text)` names."""
    if value.isascii():
        return not (value.replace("\t", "").replace("\n", "") if in_text else value).isprintable()
    return unsafe(in_text).search(value) is not None


def line_problem(value: object, name: str, longest: int = LINE_MAX) -> str | None:
    """Why `value` is not one line of text (None when it is)."""
    if not isinstance(value, str):
        return f"{name} must be text"
    if len(value) > longest:
        return f"{name} is {len(value)} characters long; at most {longest} are allowed"
    if value in _one_line:  # (a ledger's events repeat their verbs, sessions and names)
        return None
    found = unsafe().search(value) if has_unsafe(value) else None
    if found:
        return f"{name} must be one line without control characters (it holds {named_at(found)})"
    _one_line.keep(value, True)
    return None


_one_line: Memo[str, bool] = Memo()  # texts found to hold no character a line may not


def text_problem(value: object, name: str) -> str | None:
    """Why `value` is not free text (lines and tabs allowed; None when it is)."""
    if not isinstance(value, str):
        return f"{name} must be text"
    if len(value) > TEXT_MAX:
        return f"{name} is {len(value)} characters long; at most {TEXT_MAX} are allowed"
    found = unsafe(in_text=True).search(value) if has_unsafe(value, in_text=True) else None
    if found:
        return f"{name} must not hold control characters (it holds {named_at(found)})"
    return None


def named_at(found: re.Match[str]) -> str:
    """The character a search found, and where: `U+000D at character 2`."""
    code = ord(found.group())
    return f"U+{code:04X} at character {found.start() + 1}"


def instant_problem(at: datetime, name: str) -> str | None:
    """Why `at` cannot be an event's instant (None when it can)."""
    if FIRST_YEAR <= at.year <= LAST_YEAR:
        return None
    return f"{name} {at:%Y-%m-%d} is outside the years {FIRST_YEAR} to {LAST_YEAR}"


def number_problem(value: object, name: str, low: int, high: int) -> str | None:
    """Why `value` is not a whole number from `low` to `high` (None when it is)."""
    if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
        return None
    return f"{name} must be a whole number from {low} to {high}, not {str(value)[:40]}"


def _escaped(found: Match[str]) -> str:
    code = ord(found.group())
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: str, lines: bool = False, tabs: bool = False) -> str:
    """`text` with every unsafe or hidden character escaped (`shown_escaped`); with `lines`,
    line breaks are kept, and with `tabs`, tabs (a free text's own, as a body's: the board's
    edit form sends back what it shows). The one escaping function (`cli/terminal.py` says
    why): here, below every layer, so a message the store builds from a fetched name is
    escaped by it too."""
    if text.isascii() and text.isprintable():  # no control, no DEL: nothing to escape
        return text
    if tabs and "\t" in text:
        return "\t".join(printable(part, lines) for part in text.split("\t"))
    escaped = _SHOWN_ESCAPED
    if lines and "\n" in text:
        return "\n".join(escaped.sub(_escaped, part) for part in text.split("\n"))
    return escaped.sub(_escaped, text)


def json_text(value: Any) -> str:
    """The `--json` text of `value`: `json.dumps` indented by two, keys sorted, with each
    character a person is shown escaped spelt as its `\\u` escape (`json_escaped`)."""
    import json  # here: every command loads this module, and most write no JSON

    return json_escaped(json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False))


def json_escaped(text: str) -> str:
    """JSON text with each character `shown_escaped` names spelt as its `\\u` escape, so a
    program reads what a person sees (docs/hardening.md, H8); the parsed value is the
    same. Such characters stand only inside strings (JSON's own layout is ASCII and
    printable), but for the layout's line breaks, which are kept."""
    if text.isascii() and "\x7f" not in text:  # strings hold their C0 controls escaped
        return text
    return _SHOWN_ESCAPED.sub(_json_escape, text)


def _json_escape(found: Match[str]) -> str:
    code = ord(found.group())
    if code < 0x20:  # a line break of the layout
        return found.group()
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP: a surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
