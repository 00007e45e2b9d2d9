"""Coop trailers in a commit message, found the way `git interpret-trailers` finds them.

The rules follow git's trailer.c, as used by `git log --format=%(trailers)`
on commit messages (so a `---` line is not a divider here):

- the trailer block is the last paragraph, and never the first one (the
  subject paragraph is never trailers);
- trailing comment lines and blank lines are ignored;
- a trailer line is `Key: value`, the key made of letters, digits and `-`,
  optionally followed by blanks before the `:`; keys match case-insensitively;
- a line starting with a blank continues the value of the trailer above it;
- the paragraph is a trailer block when every line is a trailer (or a
  continuation or comment), or when at least a quarter are and one of them is
  one git writes itself (`Signed-off-by:`, `(cherry picked from commit ...)`);
- CRLF line ends are read like LF ones.
"""

from __future__ import annotations

from gitcoop.domain.patterns import pattern
from gitcoop.domain.record_type import record_type

# The trailer key -> the verb it asks for.
COOP_KEYS = {"coop-done": "done", "coop-close": "close", "coop-refs": "note"}
GIT_GENERATED = ("Signed-off-by: ", "(cherry picked from commit ")

_KEY = pattern(r"^([A-Za-z0-9-]+)[ \t]*:(.*)$")
_SPLIT = pattern(r"[,\s]+")


@record_type
class Trailer:
    key: str  # as written
    value: str  # trimmed, continuation lines joined by one space


@record_type
class CoopTrailer:
    key: str  # canonical spelling: Coop-Done, Coop-Close, Coop-Refs
    verb: str  # done, close, note
    ref: str  # an item id or prefix, as written


def _lines(message: str, comment_char: str) -> list[str]:
    lines = [line.rstrip("\r") for line in message.replace("\r\n", "\n").split("\n")]
    while lines and (_blank(lines[-1]) or lines[-1].startswith(comment_char)):
        lines.pop()
    return lines


def _blank(line: str) -> bool:
    return not line.strip()


def _trailer_block(lines: list[str], comment_char: str) -> list[str]:
    """The lines of the last paragraph when it is a trailer block, else []."""
    start = len(lines)
    while start > 0 and not _blank(lines[start - 1]):
        start -= 1
    first_blank = next((i for i, line in enumerate(lines) if _blank(line)), None)
    if first_blank is None or start <= first_blank:
        return []  # the only paragraph is the subject paragraph
    block = lines[start:]
    trailers = others = 0
    generated = False
    previous: str | None = None  # what the last non-continuation line was
    for line in block:
        if line.startswith(comment_char):
            previous = None
        elif line[:1] in (" ", "\t"):
            others += previous != "trailer"
        elif line.startswith(GIT_GENERATED):
            trailers, generated, previous = trailers + 1, True, "trailer"
        elif _KEY.match(line):
            trailers, previous = trailers + 1, "trailer"
        else:
            others, previous = others + 1, "other"
    if trailers and (not others or (generated and trailers * 3 >= others)):
        return block
    return []


def parse_trailers(message: str, comment_char: str = "#") -> list[Trailer]:
    """Every `Key: value` trailer of the message's trailer block, in order."""
    lines = _lines(message, comment_char)
    found: list[tuple[str, list[str]]] = []
    continues = False
    for line in _trailer_block(lines, comment_char):
        match = _KEY.match(line)
        if line[:1] in (" ", "\t"):
            if continues:
                found[-1][1].append(line.strip())
        elif line.startswith(comment_char) or not match:
            continues = False
        else:
            found.append((match.group(1), [match.group(2).strip()]))
            continues = True
    return [Trailer(key, " ".join(v for v in parts if v)) for key, parts in found]


def coop_trailers(message: str, comment_char: str = "#") -> list[CoopTrailer]:
    """The Coop-Done / Coop-Close / Coop-Refs ids the message names, each once, in order.

    A value may name several ids, separated by commas or blanks.
    """
    seen: set[tuple[str, str]] = set()
    result: list[CoopTrailer] = []
    for trailer in parse_trailers(message, comment_char):
        verb = COOP_KEYS.get(trailer.key.lower())
        if verb is None:
            continue
        canonical = "-".join(part.capitalize() for part in trailer.key.lower().split("-"))
        for ref in refs_in(trailer.value):
            if (verb, ref.lower()) not in seen:
                seen.add((verb, ref.lower()))
                result.append(CoopTrailer(canonical, verb, ref))
    return result


def refs_in(value: str) -> list[str]:
    """The ids or prefixes a trailer's value names, separated by commas or blanks."""
    return [ref for ref in _SPLIT.split(value) if ref]


def stray_coop_lines(message: str, comment_char: str = "#") -> list[tuple[str, str]]:
    """(verb, line) of each line outside the trailer block that reads as a Coop trailer:
    git reads no trailer there (a `-m` of its own, followed by another paragraph), so
    nothing is recorded from it, and whoever wrote it is told."""
    lines = _lines(message, comment_char)
    outside = lines[: len(lines) - len(_trailer_block(lines, comment_char))]
    found = []
    for line in outside:
        match = None if line.startswith(comment_char) else _KEY.match(line.strip())
        verb = COOP_KEYS.get(match.group(1).lower()) if match else None
        if verb is not None:
            found.append((verb, line.strip()))
    return found


def subject(message: str) -> str:
    """The subject line: the first paragraph joined into one line, as git shows it."""
    lines = message.replace("\r\n", "\n").strip("\n").split("\n")
    paragraph: list[str] = []
    for line in lines:
        if _blank(line):
            break
        paragraph.append(line.strip())
    return " ".join(paragraph)
