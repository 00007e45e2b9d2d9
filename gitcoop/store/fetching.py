"""The `git fetch` of a remote's ledger: its command line, and one started early.

A `git coop sync` spends its first ~0.1 s loading itself (Python, pygit2,
typer, gitcoop) before it asks git to fetch, and then waits for git, idle. So
the `git-coop` script, when its words are a plain `sync` or `pull`, starts the
fetch first (`start`), loads the program while git transfers, and the fetch
step takes what git did (`take`) instead of starting another. This module
loads nothing but `os`, `re` and `subprocess` for that reason.

Nothing is fetched that the command would not have fetched itself: the early
fetch starts only for a remote the repository configures (a name that is not
a remote is never taken for a path or URL), into the same remote-tracking ref
(`refs/coop/remotes/REMOTE/ledger`) with the same options, and `take` hands
it over only to a fetch from the same remote into the same repository; any
other command waits for it and fetches as usual.
"""

from __future__ import annotations

import os
import re
import subprocess

LEDGER_REF = "refs/coop/ledger"
REMOTE_NAME_RE = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9._/-]*\Z")
_WORDS = ("sync", "pull")  # the commands whose first step is this fetch
_OPTIONS = frozenset(("--json",))  # options that do not change what is fetched


def plain_remote(name: str) -> bool:
    """A remote name as git spells one: never an option, a path or a URL."""
    return (
        REMOTE_NAME_RE.match(name) is not None
        and ".." not in name
        and not name.endswith((".", "/", ".lock"))
    )


def refspec(remote: str) -> str:
    """Where a fetch of `remote` puts its ledger: refs/coop/remotes/REMOTE/ledger."""
    return f"+{LEDGER_REF}:refs/coop/remotes/{remote}/ledger"


def command(remote: str) -> list[str]:
    """The fetch of `remote`'s ledger, after `git --git-dir DIR`.

    transfer.fsckObjects checks every received object; maintenance.auto=false:
    git would otherwise start `git maintenance run --auto` after every fetch
    (with claims through a remote, every claim fetches); the repository's
    maintenance stays with the user's own git commands.
    """
    return [
        *("-c", "transfer.fsckObjects=true", "-c", "maintenance.auto=false"),
        *("fetch", "--quiet", "--no-tags", "--no-write-fetch-head"),
        *(remote, refspec(remote)),
    ]


_pending: dict[str, tuple[str, subprocess.Popen[str]]] = {}  # remote -> (git dir, process)


def start(words: list[str]) -> None:
    """Start the fetch a plain `sync [REMOTE]` or `pull [REMOTE]` makes first, if the
    words are one and the current repository configures that remote."""
    if not words or words[0] not in _WORDS:
        return
    rest = [word for word in words[1:] if word not in _OPTIONS]
    if len(rest) > 1 or any(word.startswith("-") for word in rest):
        return
    remote = rest[0] if rest else "origin"
    if not plain_remote(remote) or os.environ.get("GIT_DIR"):
        return
    try:  # where the repository is, and whether it has that remote: asked side by side
        asked = [
            subprocess.Popen(
                question,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                stdin=subprocess.DEVNULL,
                text=True,
            )
            for question in (
                ["git", "rev-parse", "--absolute-git-dir"],
                ["git", "config", "--get", f"remote.{remote}.url"],
            )
        ]
        (found, _), (url, _) = (question.communicate() for question in asked)
        git_dir = found.strip()
        if any(question.returncode != 0 for question in asked) or not git_dir or not url:
            return  # not a repository, or no such remote: the command says so
        process = subprocess.Popen(
            ["git", "--git-dir", git_dir, *command(remote)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    except OSError:  # no git: the command says so in its own words
        return
    _pending[remote] = (git_dir, process)


def take(git_dir: str, remote: str) -> subprocess.CompletedProcess[str] | None:
    """What the early fetch of `remote` did, once it is done, when it fetched into
    `git_dir`; None when there is none for it (then fetch as usual)."""
    if not _pending:
        return None
    started = _pending.pop(remote, None)
    for _, other in _pending.values():  # never left running behind the command
        other.communicate()
    _pending.clear()
    if started is None:
        return None
    where, process = started
    out, err = process.communicate()
    if os.path.realpath(where) != os.path.realpath(git_dir):
        return None  # another repository than the command's: fetch again, there
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def abandon() -> None:
    """Stop an early fetch the command never took (it failed before it fetched): nothing
    is left running, or fetched, behind a command that said it fetched nothing."""
    for _, process in _pending.values():
        process.terminate()  # git removes what it had begun to write
        process.wait()
        for pipe in (process.stdout, process.stderr):  # a child of git's may hold them
            if pipe is not None:
                pipe.close()
    _pending.clear()
