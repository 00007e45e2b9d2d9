"""The machine's refusals, told apart from what passes if it is tried again.

A full disk, a read-only repository or a permission refused is the
environment, not gitcoop and not the user's input: it exits with
EnvironmentFailed (exit 9) and a sentence saying what to fix. libgit2 reports
these as a GitError or OSError whose message holds the system's own words
(`strerror`), so both the errno and those words are recognised.

One failure passes on its own: `git gc` (even `gc --auto`) and `git prune`
remove empty loose-object folders, and libgit2 writes an object by creating
its folder and then renaming a temporary file into it, so a concurrent prune
can take the folder away in between ("No such file or directory"). An object
is named by its content, so writing it again is harmless: the store retries.
"""

from __future__ import annotations

import errno
import os

from gitcoop.errors import EnvironmentFailed

WHAT = {
    errno.ENOSPC: "the disk is full",
    errno.EDQUOT: "the disk quota is used up",
    errno.EROFS: "the file system is read-only",
    errno.EACCES: "permission was refused",
    errno.EPERM: "the operation was not permitted",
    errno.EFBIG: "a file grew past the size the system allows",
}
_WORDS = {os.strerror(code): what for code, what in WHAT.items()}
_GONE = os.strerror(errno.ENOENT)


def failure(
    error: BaseException, doing: str, wrote_nothing: bool = True
) -> EnvironmentFailed | None:
    """The EnvironmentFailed `error` means, or None when it is something else."""
    code = getattr(error, "errno", None) or 0
    return said(str(error).strip() or type(error).__name__, doing, wrote_nothing, code)


def said(
    text: str, doing: str, wrote_nothing: bool = True, code: int = 0
) -> EnvironmentFailed | None:
    """The EnvironmentFailed a message (a library's, or git's stderr) reports, if any."""
    what = WHAT.get(code) or next((w for words, w in _WORDS.items() if words in text), None)
    if what is None:
        return None
    done = "nothing was recorded; " if wrote_nothing else ""
    return EnvironmentFailed(
        f"{doing} failed: {what} ({text}) — {done}free some space or fix the "
        "repository's permissions, then retry"
    )


def transient(error: BaseException) -> bool:
    """A folder that vanished under a write (a concurrent prune): worth another try."""
    return getattr(error, "errno", None) == errno.ENOENT or _GONE in str(error)


def process_runs(pid: int) -> bool:
    """Whether a process of that pid runs on this machine (another user's counts)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process
        return True
    return True
