"""One git repository opened, through pygit2: found from a folder, its object
format refused unless SHA-1, libgit2's caches set; or made new; and the versions
of the libraries that read it.

`Repo` is composed of the parts beside this module, one for each purpose:
refs.py (refs and their compare-and-swap), objects.py (objects read by id,
checked), commits.py (commits and walks of their history), trees.py (raw trees
and the changes between them), writes.py (objects written) and config.py (git
config). Nothing here knows the ledger: store/ledger/repo.py makes the Repo the
ledger is kept in.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Iterator
from typing import Any, TypeVar

from gitcoop.domain.record_type import record_type
from gitcoop.errors import NoLedger, UnsupportedRepository
from gitcoop.store.git.commits import Commits
from gitcoop.store.git.config import Config, config_parameters
from gitcoop.store.git.libgit2 import pygit2
from gitcoop.store.git.objects import TREE_CACHE_LIMIT
from gitcoop.store.git.refs import Backoff, Refs
from gitcoop.store.git.trees import TreeEntries, Trees
from gitcoop.store.git.writes import Writes


class Repo(Refs, Commits, Trees, Writes, Config):
    """One opened repository; all pygit2 use goes through here or the store beside it."""

    main_ref = "HEAD"  # the ref a ref method means when it is given none
    cap_setting = ""  # the git config key that raises the cap blob reads are given

    def __init__(
        self, raw: Any, backoff: Backoff | None = None, overrides: dict[str, str] | None = None
    ) -> None:
        self.raw = raw
        self.git_dir: str = os.path.abspath(raw.path)
        self.common_dir = _common_dir(self.git_dir)
        self.backoff = backoff or Backoff()
        self.overrides = overrides or {}  # `git -c` values: they win over every config file
        # recently compared trees, oldest first: the small (fan-outs, item folders) and the
        # large (the events tree itself, needed again only by the next commit)
        self._trees: dict[str, TreeEntries] = {}
        self._large_trees: dict[str, TreeEntries] = {}
        self._kept = {False: 0, True: 0}  # entries held: small, large
        self._batch: list[Any] | None = None  # objects written, while a caller collects them

    def __del__(self) -> None:
        """Close the pack files libgit2 holds open for this repository. pygit2's
        Repository is in a reference cycle (its branches, references, remotes), so only
        the cyclic collector frees it; a long-lived process (the MCP server, the tests)
        ran out of file descriptors, one for each pack of each repository it had opened.
        libgit2 reopens what a later read needs."""
        with contextlib.suppress(Exception):
            self.raw.free()

    @contextlib.contextmanager
    def shared_modes(self) -> Iterator[None]:
        """While the ledger is written: files made with the modes git gives a shared
        repository's (core.sharedRepository), so its group can go on writing it. The
        process's umask, put back after; nothing else (a child process, a file written
        outside the repository) ever runs under it."""
        value = self.config_value(SHARED_KEY)
        if value is None:
            yield
            return
        with _SHARING.lock:  # threads of one process (the board's) share it: the first sets
            if not _SHARING.depth:  # it, the last puts the user's back
                _SHARING.own = os.umask(0o022)
                os.umask(shared_umask(value, _SHARING.own))
            _SHARING.depth += 1
        try:
            yield
        finally:
            with _SHARING.lock:
                _SHARING.depth -= 1
                if not _SHARING.depth:
                    os.umask(_SHARING.own)

    def workdir(self) -> str | None:
        """The working tree's top folder, or None in a bare repository."""
        workdir: str | None = self.raw.workdir
        return workdir


# libgit2 keeps every pack file it has read open, without a limit by default; a process
# that syncs again and again (the MCP server) made packs faster than it closed any and
# ran out of file descriptors. Past this many, the least recently used is closed.
PACK_FILES_OPEN = 128
# libgit2 maps a pack file in windows of 1 GiB, up to 8 GiB in all (its 64-bit defaults),
# and unmaps nothing below that: every page a read touched stays in the process's
# resident memory. A cold read of a million items touched 242 MB of a 2.1 GB pack and
# held it to the end (with 206 MB of its index, which libgit2 maps whole, and 132 MB of
# the heap: 611 MB at the peak, docs/performance.md). In windows of 32 MiB, at most
# 96 MiB of them mapped, the least recently used window is unmapped: the same read
# peaked at 378 MB, for no measurable CPU.
PACK_WINDOW = 32 * 1024 * 1024
PACK_MAPPED_MOST = 96 * 1024 * 1024


def library_versions() -> dict[str, str]:
    """pygit2's and libgit2's versions (for `git coop version`)."""
    return {"pygit2": str(pygit2.__version__), "libgit2": str(pygit2.LIBGIT2_VERSION)}  # type: ignore[attr-defined]


R = TypeVar("R", bound=Repo)


@record_type
class Search:
    """How git finds a repository, from its environment (read by the CLI alone): `exact`
    when GIT_DIR named it (never a repository above); else upwards, stopping at the
    GIT_CEILING_DIRECTORIES `ceiling` and, unless `across_fs`, at a file system's edge."""

    exact: bool = False
    ceiling: str = ""
    across_fs: bool = False


def opened(kind: type[R], path: str, git_parameters: str = "", search: Search | None = None) -> R:
    """The repository at or above `path` (plain, bare or a linked worktree), as a `kind`,
    found as `search` says.

    `git_parameters` is GIT_CONFIG_PARAMETERS as git exports it for `git -c
    key=value coop ...`; libgit2 does not read it, so its values are kept here.
    """
    pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, TREE_CACHE_LIMIT)
    if pygit2.settings.mwindow_file_limit == 0:  # libgit2's default: every pack stays open
        pygit2.settings.mwindow_file_limit = PACK_FILES_OPEN
    # lowered only: a program that set them lower keeps its own
    pygit2.settings.mwindow_size = min(pygit2.settings.mwindow_size, PACK_WINDOW)
    pygit2.settings.mwindow_mapped_limit = min(
        pygit2.settings.mwindow_mapped_limit, PACK_MAPPED_MOST
    )
    found = _found(path, search or Search())
    try:
        raw = pygit2.Repository(found)
    except pygit2.GitError as exc:
        refuse_object_format(object_format(found))
        raise NoLedger(f"cannot open the git repository at {found}: {exc}") from None
    refuse_object_format(_config_format(raw.config))  # a libgit2 built to open SHA-256
    return kind(raw, overrides=config_parameters(git_parameters))


SHARED_KEY = "core.sharedRepository"


class _Sharing:
    """The process's umask while any of its threads writes a shared repository's ledger."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.depth = 0
        self.own = 0o022  # the user's umask, put back when the last writer is done


_SHARING = _Sharing()


def shared_umask(value: str | None, umask: int) -> int:
    """The umask under which files are made as git makes them in a repository shared as
    core.sharedRepository says, read as git reads it: `group` (true, 1) adds group read
    and write, `all` (world, everybody, 2) read for all besides, an octal mode (0660,
    640) is that mode; false, umask or 0 (or what git would refuse) keep `umask`."""
    word = (value or "").strip().lower()
    if word in ("true", "yes", "on", "group"):
        number = 1
    elif word in ("all", "world", "everybody"):
        number = 2
    else:
        try:
            number = int(word, 8)
        except ValueError:
            return umask
    if number == 1:
        return umask & ~0o070
    if number == 2:
        return umask & ~0o075
    if number < 0o10 or not number & 0o600:  # 0: the umask; a mode its owner cannot use: git
        return umask  # refuses it
    mode = number & 0o666
    return 0o777 & ~(mode | (mode & 0o444) >> 2)  # a folder gets x where it has r


def _found(path: str, search: Search) -> str:
    """The git directory of `path` as git finds it."""
    try:
        if search.exact:
            flag = pygit2.enums.RepositoryOpenFlag.NO_SEARCH
            found: str | None = pygit2.Repository(path, flag).path
        elif search.ceiling:
            found = pygit2.discover_repository(path, search.across_fs, search.ceiling)
        else:
            found = pygit2.discover_repository(path, search.across_fs)
    except pygit2.GitError as exc:  # a `.git` file that is no gitfile, a GIT_DIR that is none
        raise NoLedger(f"not a git repository: {os.path.abspath(path)} ({exc})") from None
    if found is None:
        raise NoLedger(f"not a git repository (or any parent up to /): {os.path.abspath(path)}")
    return found


def initialised(kind: type[R], path: str, email: str) -> R:
    """A new empty repository with an identity, for the demo's throwaway repo."""
    raw = pygit2.init_repository(path, initial_head="main")
    raw.config["user.email"] = email
    raw.config["user.name"] = email.split("@")[0]
    return kind(raw)


FORMAT_KEY = "extensions.objectformat"

FORMAT_NAMES = {"sha256": "SHA-256"}


def object_format(git_dir: str) -> str | None:
    """extensions.objectFormat of the repository whose git dir is `git_dir` (in its common
    dir's config: a linked worktree's git dir names it in `commondir`), read without
    opening the repository, which is what fails when the format is not SHA-1."""
    common = git_dir
    named = os.path.join(git_dir, "commondir")
    with contextlib.suppress(OSError), open(named, encoding="utf-8") as handle:
        common = os.path.join(git_dir, handle.read().strip())
    config = os.path.join(common, "config")
    if not os.path.isfile(config):
        return None
    try:
        return _config_format(pygit2.Config(config))
    except pygit2.GitError:
        return None


def _config_format(config: Any) -> str | None:
    try:
        return str(config[FORMAT_KEY]).strip().lower()
    except (KeyError, ValueError, pygit2.GitError):
        return None


def refuse_object_format(found: str | None) -> None:
    """UnsupportedRepository unless the object format is SHA-1 (git's default, and all
    libgit2 as pygit2 ships it opens). One line, from every command, and the hooks
    journal what they are asked (docs/architecture.md, "SHA-256 repositories")."""
    if found is None or found == "sha1":
        return
    name = FORMAT_NAMES.get(found, found)
    raise UnsupportedRepository(
        f"this repository uses the {name} object format, which gitcoop does not support "
        "yet: libgit2, which gitcoop reads and writes git objects with, opens SHA-1 "
        "repositories only — use gitcoop in a SHA-1 repository (docs/architecture.md, "
        f"{name} repositories)",
        details={"object_format": found},
    )


def _common_dir(git_dir: str) -> str:
    """A linked worktree's git dir names the shared one in its `commondir` file."""
    pointer = os.path.join(git_dir, "commondir")
    if os.path.exists(pointer):
        with open(pointer, encoding="utf-8") as handle:
            target = handle.read().strip()
        return os.path.normpath(os.path.join(git_dir, target))
    return git_dir
