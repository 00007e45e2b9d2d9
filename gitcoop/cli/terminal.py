"""What a person's terminal is shown: every human-facing line goes through here.

Much of what gitcoop prints was written by someone else: titles, notes,
reasons and names from a teammate's clone, tree entry names quoted in an
error. `printable` is the one escaping function: it shows each C0 and C1
control, DEL, line and paragraph separator, bidirectional control and lone
surrogate (`domain/bounds.py`'s `unsafe()`) as an escape such as `\\x1b` or
`\\u202e`, so nothing printed can move the cursor, rewrite a line (CR), set
the clipboard (OSC 52), change the window title, or reorder what follows it
(bidi overrides); and each character that draws nothing (`hidden()`: format
characters such as U+200B and U+FEFF, tag characters as `\\U000e0041`), so
nothing hides from a person what a program reading the same text is told.
`say` (stdout) and `warn` (stderr) print through it, keeping only the line
breaks the caller laid out; a renderer that puts one
value on one line escapes that value's own line breaks with `printable`.

Colour lives here too. `paint` escapes its text with `printable` first and
only then wraps it in a colour, and the result is `Styled`: text that is
already safe, which `say` prints as it is and `join` keeps as it is, so the
only escape codes that ever reach a terminal are gitcoop's own. Colour is on
when stdout is a terminal (`TERM` not `dumb`), unless `NO_COLOR` is set
(no-color.org) or `--no-color`/`--color=never` was given; `--color=always`
turns it on anywhere. `width` is the terminal's width for tables to fit
(None when stdout is not a terminal: nothing is cut then).

The streams themselves escape what their encoding cannot hold
(`escape_unencodable`, set once as a command starts): a stdout in ASCII or
Latin-1 (`PYTHONIOENCODING`, a C locale) writes such a character as `\\u00e9`
(a pair of `\\ud83d\\ude00` beyond the BMP) instead of failing. That form is
JSON's own escape, so `--json` output stays JSON and reads back the same text,
and in plain text it reads as the escapes above do.

`Meter` shows how far long work has come, on stderr, as git does: only when
stderr is a terminal, only once the work has run for DELAY seconds
(`COOP_PROGRESS_DELAY`, like `GIT_PROGRESS_DELAY`), one line redrawn in place.
"""

from __future__ import annotations

import _thread
import codecs
import os
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress

from gitcoop.domain.bounds import printable as printable  # the one escaping function
from gitcoop.domain.patterns import pattern
from gitcoop.domain.progress import Progress

MODES = ("auto", "always", "never")
DELAY = 0.5  # seconds of work before progress is shown
REDRAW = 0.1  # at most this often
ELLIPSIS = "…"

# gitcoop's own colours, by what they mean (SGR parameters)
PALETTE = {
    "id": "33",  # yellow, as git shows a commit
    "good": "32",  # open, ready: work that can start
    "busy": "36",  # taken, in progress
    "waiting": "35",  # draft, verifying
    "bad": "31",  # blocked, a conflict, overdue
    "settled": "2",  # done, closed, abandoned...: faint
    "holder": "34",
    "due": "33",
    "overdue": "1;31",
    "conflict": "1;31",
    "heading": "1",
    "hint": "2",
}
SGR = pattern(r"\x1b\[[0-9;]*m")


ESCAPE_ERRORS = "gitcoop-escape"  # the error handler the standard streams are given


def _escape_unencodable(error: UnicodeError) -> tuple[str, int]:
    """A codec error handler: what the encoding cannot hold, as JSON's `\\uXXXX` escapes."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(map(_json_escape, error.object[error.start : error.end])), error.end


def _json_escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # beyond the BMP: a surrogate pair, as JSON spells it
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


def escape_unencodable() -> None:
    """Make stdout and stderr escape what their encoding cannot hold instead of failing:
    the one place every output path (text, --json, errors) meets an encoding."""
    codecs.register_error(ESCAPE_ERRORS, _escape_unencodable)
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)  # a StringIO has none: it holds all
        if reconfigure is not None:
            with suppress(ValueError, OSError):  # a closed stream: nothing will be written
                reconfigure(errors=ESCAPE_ERRORS)


class Styled(str):
    """Text `printable` already escaped, perhaps coloured by `paint`: printed as it is."""

    __slots__ = ()


class _Settings:
    mode = "auto"
    colour: bool | None = None  # decided on first use, against the stdout of that moment


_settings = _Settings()


def configure(mode: str = "auto") -> None:
    """Colour for this command: auto, always or never (decided when first needed)."""
    _settings.mode = mode
    _settings.colour = None


def colour() -> bool:
    if _settings.colour is None:
        _settings.colour = _wants_colour(_settings.mode)
    return _settings.colour


def _wants_colour(mode: str) -> bool:
    if mode != "auto":
        return mode == "always"
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    return _is_terminal(sys.stdout)


def _is_terminal(stream: object) -> bool:
    try:
        return bool(stream.isatty())  # type: ignore[attr-defined]
    except (AttributeError, ValueError, OSError):
        return False


def width() -> int | None:
    """The terminal's columns when stdout is one ($COLUMNS first, as git reads it); None
    (nothing is cut) otherwise."""
    if not _is_terminal(sys.stdout):
        return None
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    try:
        return os.get_terminal_size(sys.stdout.fileno()).columns or None
    except (OSError, ValueError, AttributeError):
        return None


def paint(text: str, role: str | None) -> Styled:
    """`text` escaped, then coloured for its role (when colour is on)."""
    safe = text if isinstance(text, Styled) else printable(text)
    code = PALETTE.get(role or "")
    if code is None or not colour() or not safe:
        return Styled(safe)
    return Styled(f"\x1b[{code}m{safe}\x1b[0m")


def join(*parts: str, sep: str = "") -> Styled:
    """Parts joined: plain text is escaped, Styled text kept as it is."""
    return Styled(printable(sep).join(_safe(part) for part in parts))


def _safe(text: str) -> str:
    return text if isinstance(text, Styled) else printable(text)


def columns(text: str) -> int:
    """How many terminal columns `text` takes (colour codes take none; wide characters two)."""
    shown = SGR.sub("", text) if "\x1b" in text else text
    if shown.isascii():
        return len(shown)
    return sum(_char_columns(char) for char in shown)


def _char_columns(char: str) -> int:
    import unicodedata  # only text beyond ASCII is measured character by character

    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cut(text: str, room: int) -> str:
    """`text` (plain, not yet escaped) cut to `room` columns once escaped, ending in `…`."""
    return cut_escaped(printable(text), room)


def cut_escaped(safe: str, room: int) -> str:
    """Escaped text without colour cut to `room` columns, ending in `…`."""
    if columns(safe) <= room:
        return safe
    kept, used = [], 0
    for char in safe:
        used += _char_columns(char)
        if used > room - 1:
            break
        kept.append(char)
    return "".join(kept) + ELLIPSIS


def say(text: str = "") -> None:
    """One line (or lines laid out by the caller) on stdout."""
    _meter.clear()
    sys.stdout.write(_out(text) + "\n")


def warn(text: str) -> None:
    """One line (or lines laid out by the caller) on stderr."""
    _meter.clear()
    sys.stderr.write(_out(text) + "\n")


def _out(text: str) -> str:
    return text if isinstance(text, Styled) else printable(text, lines=True)


class Meter(Progress):
    """Progress on stderr, redrawn in place: only on a terminal, only after DELAY seconds."""

    def __init__(
        self, enabled: bool, delay: float = DELAY, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.enabled = enabled
        self.delay = delay
        self.clock = clock
        self.what: str | None = None
        self.started = 0.0
        self.began: dict[str, float] = {}  # when each work started: work inside work (a
        # cache read inside verifying) does not restart the clock of the work around it
        self.drawn = 0.0
        self.showing = False
        self.lock = _thread.allocate_lock()  # with a timer's thread (waiting) drawing too

    def step(self, what: str, done: int, total: int | None = None, detail: str = "") -> None:
        now = self.clock()
        with self.lock:
            if what != self.what:
                self._erase()
                self.what, self.started = what, self.began.setdefault(what, now)
            finished = total is not None and done >= total
            if finished:
                self.began.pop(what, None)
            if not self.enabled or now - self.started < self.delay:
                return
            if self.showing and not finished and now - self.drawn < REDRAW:
                return
            if total:
                shown = f"{what}: {min(100, done * 100 // total)}% ({done}/{total})"
            else:
                shown = f"{what}: {done}"
            self._draw(f"{shown} {detail}" if detail and not finished else shown)
            if finished:
                self._end(", done.")

    @contextmanager
    def waiting(self, what: str) -> Iterator[None]:
        """Work that cannot say how far it is (a fetch): shown once it has taken DELAY."""
        with self.lock:
            self._erase()
            self.what = what
        import threading  # only work that waits on another program starts a timer

        timer = threading.Timer(self.delay, self._draw_waiting, (what,))
        timer.daemon = True
        if self.enabled:
            timer.start()
        try:
            yield
        finally:
            timer.cancel()
            with self.lock:
                if self.what == what:
                    self._end(", done.")
                    self.what = None

    def _draw_waiting(self, what: str) -> None:
        with self.lock:
            if self.what == what:
                self._draw(f"{what}…")

    def clear(self) -> None:
        """Take the progress line away before something else is printed."""
        if self.showing:
            with self.lock:
                self._erase()

    def _draw(self, shown: str) -> None:
        sys.stderr.write("\r" + printable(shown) + "\x1b[K")
        sys.stderr.flush()
        self.showing = True
        self.drawn = self.clock()

    def _end(self, last: str) -> None:
        """Leave the line as it stands, with `last` after it."""
        if self.showing:
            sys.stderr.write(last + "\n")
            sys.stderr.flush()
            self.showing = False

    def _erase(self) -> None:
        if self.showing:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()
            self.showing = False


_meter = Meter(False)


def meter() -> Meter:
    """A new progress meter for this command (on only when stderr is a terminal)."""
    global _meter
    delay = DELAY
    with suppress(ValueError):
        delay = float(os.environ.get("COOP_PROGRESS_DELAY", DELAY))
    _meter = Meter(_is_terminal(sys.stderr), max(delay, 0.0))
    return _meter
