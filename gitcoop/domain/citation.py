"""Whether a piece of evidence points at something real: a path, a line, a quote.

Evidence is a claim about a tree. A verifier's path is normalised to the form
the tree uses (`./src/a.py` is `src/a.py`; an absolute path inside the work
tree is made relative to it), and then checked against the file's text at the
HEAD that was judged: the file exists, the line is within it, and a quote,
when given, occurs at or near that line. The text is handed in; nothing here
reads a file.
"""

from __future__ import annotations

import posixpath
from collections.abc import Sequence

from gitcoop.domain.records import Evidence, replace

QUOTE_NEAR = 5  # lines either side of the cited line where its quote may stand


def normalise_path(path: str, roots: Sequence[str] = ()) -> str | None:
    """The path relative to the top of the work tree, or None when it names nothing in it.

    `roots` are the work tree's absolute top folder, as written and as resolved.
    """
    text = path.strip().replace("\\", "/")
    if not text:
        return None
    if text.startswith("/"):
        inside = [r for r in roots if _under(text, r)]
        if not inside:
            return None
        text = posixpath.relpath(posixpath.normpath(text), posixpath.normpath(inside[0]))
    relative = posixpath.normpath(text)
    if relative in (".", "") or relative == ".." or relative.startswith("../"):
        return None
    return relative


def _under(path: str, root: str) -> bool:
    top = posixpath.normpath(root)
    return posixpath.normpath(path).startswith(top.rstrip("/") + "/")


def normalised(evidence: Evidence, roots: Sequence[str] = ()) -> Evidence:
    """The entry with its path normalised when it can be (as given otherwise)."""
    path = normalise_path(evidence.path, roots)
    return replace(evidence, path=path) if path is not None else evidence


def problem(evidence: Evidence, text: str | None, readable: bool = True) -> str | None:
    """What is wrong with one entry, given its file's text at HEAD (None: no such file).

    `readable` False means the file exists but is too large to read: only its
    existence is checked.
    """
    where = cited(evidence)
    if text is None:
        return f"{where}: {evidence.path} is not a file at HEAD"
    if not readable:
        return None
    lines = text.splitlines()
    line = evidence.line
    if line is not None and not 1 <= line <= len(lines):
        return f"{where}: line {line} is past the end of {evidence.path} ({len(lines)} lines)"
    quote = _squeezed(evidence.quote or "")
    if not quote:
        return None
    low, high = (0, len(lines)) if line is None else (line - 1 - QUOTE_NEAR, line + QUOTE_NEAR)
    window = _squeezed(" ".join(lines[max(low, 0) : high]))
    if quote not in window:
        near = "in the file" if line is None else f"within {QUOTE_NEAR} lines of line {line}"
        return f"{where}: the quote {evidence.quote!r} is not {near}"
    return None


def cited(evidence: Evidence) -> str:
    """`path:line` as a citation is written."""
    return f"{evidence.path}:{evidence.line}" if evidence.line is not None else evidence.path


def _squeezed(text: str) -> str:
    """Whitespace runs as one space: indentation and wrapping do not make a quote wrong."""
    return " ".join(text.split())
