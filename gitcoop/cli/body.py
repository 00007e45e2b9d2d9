"""An item's body from the command line: --body TEXT, --body-file F (`-` for stdin), or an editor.

The editor is the one git would start (`git var GIT_EDITOR`: GIT_EDITOR,
core.editor, VISUAL, EDITOR, then git's default), run as git runs it, on a
temporary file outside the repository holding the current body. It opens
with `--editor`, or when `edit` is given nothing else to change and both
stdin and stdout are a terminal.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile

from gitcoop.domain.fields import BODY_MAX, typed_lines
from gitcoop.errors import UsageError

TEMPLATE_NOTE = "# Lines starting with '#' are dropped; an empty body clears it.\n"


def from_options(text: str | None, path: str | None) -> str | None:
    """The body given by --body or --body-file (None: neither was given)."""
    if text is not None and path is not None:
        raise UsageError("give --body or --body-file, not both")
    if path is None:
        return None if text is None else typed_lines(text)
    most = BODY_MAX + 1  # read no more than makes it too long: the check then refuses it
    try:
        if path == "-":
            return typed_lines(sys.stdin.read(most))
        with open(path, encoding="utf-8", newline="") as handle:  # its bytes, as stdin's
            return typed_lines(handle.read(most))
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"--body-file {path}: cannot read it ({exc})") from None


def interactive() -> bool:
    return sys.stdin.isatty() and sys.stdout.isatty()


def from_editor(current: str | None, label: str) -> str:
    """Open the body in git's editor and return what was saved (comment lines dropped)."""
    editor = _git_editor()
    with tempfile.TemporaryDirectory(prefix="coop-body-") as folder:
        path = os.path.join(folder, f"{label}.md")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write((current or "") + ("\n" if current else "") + TEMPLATE_NOTE)
        done = subprocess.run(["sh", "-c", f'{editor} "$@"', editor, path], check=False)
        if done.returncode != 0:
            raise UsageError(
                f"the editor ({editor}) exited with {done.returncode}: nothing changed"
            )
        with open(path, encoding="utf-8") as handle:
            lines = [line for line in handle.read().splitlines() if not line.startswith("#")]
    return "\n".join(lines).strip("\n")


def _git_editor() -> str:
    done = subprocess.run(["git", "var", "GIT_EDITOR"], capture_output=True, text=True, check=False)
    editor = done.stdout.strip()
    if done.returncode != 0 or not editor:
        raise UsageError(
            "no editor is set: set GIT_EDITOR, core.editor or EDITOR, or use --body-file"
        )
    return editor
