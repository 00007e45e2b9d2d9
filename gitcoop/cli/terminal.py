"""What a person's terminal is shown: every human-facing line goes through here.

Much of what gitcoop prints was written by someone else: titles, notes,
reasons and names from a teammate's clone, tree entry names quoted in an
error. `printable` is the one escaping function: it shows each C0 and C1
control, DEL, line and paragraph separator, bidirectional control and lone
surrogate (`domain/bounds.py`'s UNSAFE) as an escape such as `\\x1b` or
`\\u202e`, so nothing printed can move the cursor, rewrite a line (CR), set
the clipboard (OSC 52), change the window title, or reorder what follows it
(bidi overrides). `say` (stdout) and `warn` (stderr) print through it,
keeping only the line breaks the caller laid out; a renderer that puts one
value on one line escapes that value's own line breaks with `printable`.

Colour, when it comes, belongs here too: a style is applied to text after
`printable` has escaped it, and styled text is never escaped again, so
escape codes are only ever gitcoop's own.
"""

from __future__ import annotations

import sys
from re import Match

from gitcoop.domain.bounds import UNSAFE


def _escaped(found: Match[str]) -> str:
    code = ord(found.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, lines: bool = False) -> str:
    """`text` with every unsafe character escaped; with `lines`, line breaks are kept."""
    if lines and "\n" in text:
        return "\n".join(UNSAFE.sub(_escaped, part) for part in text.split("\n"))
    return UNSAFE.sub(_escaped, text)


def say(text: str = "") -> None:
    """One line (or lines laid out by the caller) on stdout."""
    sys.stdout.write(printable(text, lines=True) + "\n")


def warn(text: str) -> None:
    """One line (or lines laid out by the caller) on stderr."""
    sys.stderr.write(printable(text, lines=True) + "\n")
