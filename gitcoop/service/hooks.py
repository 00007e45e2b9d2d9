"""Installing the hook shims: install, uninstall, status (DESIGN.md §7).

Modelled on pre-commit's installer, with one change: a hook gitcoop did not
write is never renamed or moved (a dispatcher may find it by its name or its
folder). Where a hook name is free, the shim goes there; where one is taken,
that hook calls gitcoop's shim (kept in `<common git dir>/coop-hooks/`) with
one line, added where the setup expects it (`hook_setups.py`: husky, a
committed hooks folder, the pre-commit framework, lefthook). Installing twice
changes nothing; uninstall removes exactly what install added.

The shipped shims (hooks/ and gitcoop/hookscripts/, the same bytes) have two
empty lines, `python=''` and `entry=''`; install fills them with the absolute
paths of the interpreter and the `git-coop` script it runs from, so a commit
made where PATH lacks gitcoop (a GUI, an IDE, a bare shell) still records.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from importlib import resources

from gitcoop.domain.record_type import record_type
from gitcoop.errors import Refused
from gitcoop.service import hook_setups as setups
from gitcoop.service import unseen
from gitcoop.service.context import Context
from gitcoop.store.git import worktree
from gitcoop.store.ledger.layout import HOOKS_HINTED
from gitcoop.store.repository import Repo

HOOK_NAMES = (
    "post-commit",
    "post-applypatch",
    "post-merge",
    "post-rewrite",
    "prepare-commit-msg",
)
LEGACY_SUFFIX = ".legacy"  # where earlier gitcoop versions moved a foreign hook
SLOTS = ("python", "entry")  # the shim's lines `python=''` and `entry=''`


@record_type
class Runner:
    """The gitcoop a hook runs: an interpreter and the `git-coop` script, absolute."""

    python: str = ""
    entry: str = ""

    def starts(self) -> bool:
        return bool(self.python) and os.access(self.python, os.X_OK) and os.path.isfile(self.entry)


@record_type
class HookState:
    name: str
    path: str  # the file git runs (husky, a committed folder: the file that gets the line)
    state: str  # missing | current | outdated | stale (its gitcoop is gone) | foreign
    legacy: bool  # an older gitcoop's layout: a foreign hook renamed to <name>.legacy
    python: str | None = None  # the interpreter the installed shim names
    entry: str | None = None
    via: str = "shim"  # shim | line (another hook calls gitcoop's) | pre-commit | lefthook
    advice: str | None = None  # what a person does to have commits recorded


@record_type
class HookChange:
    name: str
    path: str
    # installed | chained (line added) | updated | unchanged | removed | restored | absent
    # | foreign | advised (a person adds the line, or configures the framework) | unchained
    action: str
    advice: str | None = None


def shipped(name: str) -> bytes:
    """The shim as this gitcoop ships it (the same bytes as the top-level hooks/)."""
    return (resources.files("gitcoop") / "hookscripts" / name).read_bytes()


def rendered(name: str, runner: Runner) -> bytes:
    """The shim with the runner's paths written into its two slots."""
    text = shipped(name).decode("utf-8")
    for slot, value in zip(SLOTS, (runner.python, runner.entry), strict=True):
        text = text.replace(f"\n{slot}=''\n", f"\n{slot}={_quote(value)}\n", 1)
    return text.encode("utf-8")


def recorded(content: bytes) -> Runner:
    """The runner an installed shim names (empty paths when it names none)."""
    values = dict.fromkeys(SLOTS, "")
    for line in content.decode("utf-8", errors="replace").splitlines():
        slot, _, value = line.partition("=")
        if slot in values and value:
            try:
                words = shlex.split(value)
            except ValueError:
                words = []
            values[slot] = words[0] if len(words) == 1 else ""
    return Runner(values["python"], values["entry"])


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


def hooks_dir(ctx: Context) -> str:
    return worktree.hooks_dir(ctx.repo())


def setup(ctx: Context) -> setups.Place:
    return setups.place(ctx.repo())


def status(ctx: Context) -> list[HookState]:
    repo = ctx.repo()
    where = setups.place(repo)
    return [_state(repo, where, name) for name in HOOK_NAMES]


def install(
    ctx: Context, runner: Runner, *, everywhere: bool = False, append: bool = False
) -> list[HookChange]:
    """Install the shims and join each hook as its setup expects (hook_setups.py).

    `everywhere`: the user agreed to a core.hooksPath outside the repository.
    `append`: add the line to husky's or a committed folder's untracked files.
    """
    repo = ctx.repo()
    where = setups.place(repo)
    if where.kind == "outside" and not everywhere:
        raise Refused(
            f"core.hooksPath is {where.folder}, outside this repository (set globally?): "
            "gitcoop's hooks there would start gitcoop on every commit of every repository "
            "using it — run git coop hooks install --global to install there anyway"
        )
    try:
        os.makedirs(where.private, exist_ok=True)
        for name in HOOK_NAMES:
            _write_if_changed(os.path.join(where.private, name), rendered(name, runner))
        unseen.note_tips(repo)  # what is on the branches now was made before the hooks
        if where.lines_dir is None:
            os.makedirs(where.folder, exist_ok=True)
        return [_install_one(repo, where, name, runner, append) for name in HOOK_NAMES]
    except OSError as error:
        raise Refused(
            f"cannot write hooks into {where.folder} ({error.strerror}) — check core.hooksPath "
            "and the folder's permissions"
        ) from None


def uninstall(ctx: Context) -> list[HookChange]:
    repo = ctx.repo()
    where = setups.place(repo)
    changes = [_uninstall_one(repo, where, name) for name in HOOK_NAMES]
    for name in (*HOOK_NAMES, unseen.SEEN_TIPS):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(os.path.join(where.private, name))
    with contextlib.suppress(OSError):
        os.rmdir(where.private)
    return changes


def installed(ctx: Context) -> bool:
    """Whether commits here reach gitcoop: a shim, a line calling one, or a framework."""
    repo = ctx.repo()
    state = _state(repo, setups.place(repo), "post-commit")
    return state.state in ("current", "outdated", "stale")


def hint_once(ctx: Context) -> bool:
    """True the first time it is asked in a clone without the hooks; never again after."""
    repo = ctx.repo()
    marker = os.path.join(repo.common_dir, HOOKS_HINTED)
    if os.path.exists(marker) or installed(ctx):
        return False
    try:  # with the modes of a shared repository, as every file gitcoop makes there
        with repo.shared_modes(), open(marker, "x", encoding="utf-8") as handle:
            handle.write("git coop said once how to install its hooks\n")
    except OSError:
        return False  # another command said it first, or the git dir is read-only
    return True


# -- one hook's state --------------------------------------------------------------


def _state(repo: Repo, where: setups.Place, name: str) -> HookState:
    if where.lines_dir is not None:
        return _line_state(repo, where, name)
    path = os.path.join(where.folder, name)
    legacy = os.path.lexists(path + LEGACY_SUFFIX)
    if not os.path.lexists(path):
        advice = _outside_advice(where, "installs there") if where.kind == "outside" else None
        return HookState(name, path, "missing", legacy, advice=advice)
    content = _read_or_empty(path)
    if setups.is_shim(content) and not os.path.islink(path):
        return _shim_state(name, path, legacy)
    if not os.access(path, os.X_OK):  # git skips it (the usual way to switch a hook off)
        return HookState(name, path, "foreign", legacy, advice=_skipped_advice(path, name))
    if setups.calls_us(content, name):
        if not setups.line_runs(content, name):
            advice = setups.stops_advice(path, name)
            return HookState(name, path, "foreign", legacy, via="line", advice=advice)
        shim = _shim_state(name, os.path.join(where.private, name), legacy)
        return HookState(name, path, shim.state, legacy, shim.python, shim.entry, "line")
    made_by = setups.framework(content)
    if made_by is not None:
        if setups.framework_runs_us(repo, made_by, name):
            return HookState(name, path, "current", legacy, via=made_by)
        advice = setups.framework_advice(made_by, name)
        return HookState(name, path, "foreign", legacy, via=made_by, advice=advice)
    advice = _foreign_advice(where, path, content, name)
    return HookState(name, path, "foreign", legacy, advice=advice)


def _line_state(repo: Repo, where: setups.Place, name: str) -> HookState:
    assert where.lines_dir is not None
    path = os.path.join(where.lines_dir, name)
    content = _read_or_empty(path)
    if setups.calls_us(content, name) and not setups.line_runs(content, name):
        advice = setups.stops_advice(path, name)
        return HookState(name, path, "foreign", False, via="line", advice=advice)
    if setups.calls_us(content, name):
        shim = _shim_state(name, os.path.join(where.private, name), False)
        return HookState(name, path, shim.state, False, shim.python, shim.entry, "line")
    if setups.stops_early(content):
        advice = setups.stops_advice(path, name)
    else:
        advice = setups.line_advice(path, name, worktree.tracked(repo, path))
    return HookState(name, path, "missing", False, via="line", advice=advice)


def _shim_state(name: str, path: str, legacy: bool) -> HookState:
    if not os.path.isfile(path):
        return HookState(name, path, "missing", legacy)
    content = _read(path)
    runner = recorded(content)
    if content != rendered(name, runner) or not os.access(path, os.X_OK):
        state = "outdated"
    elif runner.python and not runner.starts():
        state = "stale"
    else:
        state = "current"
    return HookState(name, path, state, legacy, runner.python or None, runner.entry or None)


def _skipped_advice(path: str, name: str) -> str:
    return (
        f"{path} is not executable, so git does not run it (switched off?) and commits do "
        f"not reach gitcoop: make it executable (chmod +x) with this line in it: "
        f"{setups.call_line(name)}, or move it aside and run git coop hooks install"
    )


def _foreign_advice(where: setups.Place, path: str, content: bytes, name: str) -> str:
    if _appendable(path, content):
        if setups.stops_early(content):
            return setups.stops_advice(path, name)
        if where.kind == "outside":
            return _outside_advice(where, "adds the line to it")
        return f"{path} is not gitcoop's: git coop hooks install adds its line at the end"
    return (
        f"{path} is not gitcoop's and gitcoop cannot add to it (a link, or not a shell "
        f"script): make it run, with the same arguments and input: {setups.call_line(name)}"
    )


def _outside_advice(where: setups.Place, does: str) -> str:
    return (
        f"core.hooksPath is {where.folder}, outside this repository (set globally?): "
        f"git coop hooks install --global {does}, for every repository using it"
    )


def _appendable(path: str, content: bytes) -> bool:
    """A file of its own that `sh` runs: gitcoop may add its line at the end."""
    return not os.path.islink(path) and os.path.isfile(path) and setups.is_shell_script(content)


# -- installing and removing one hook ------------------------------------------------


def _install_one(
    repo: Repo, where: setups.Place, name: str, runner: Runner, append: bool
) -> HookChange:
    if where.lines_dir is not None:
        return _add_line(repo, where, name, append)
    path = os.path.join(where.folder, name)
    state = _state(repo, where, name)
    if state.via == "shim" and state.state != "foreign" and state.legacy:
        _put_back_legacy(path)  # an older gitcoop renamed the user's hook: it goes back
        state = _state(repo, where, name)
    if state.state == "missing" or (state.via == "shim" and state.state != "foreign"):
        wanted = rendered(name, runner)
        if state.state != "missing" and _read(path) == wanted and os.access(path, os.X_OK):
            return HookChange(name, path, "unchanged")
        _write_executable(path, wanted)
        return HookChange(name, path, "installed" if state.state == "missing" else "updated")
    if state.via == "line":
        action = "advised" if state.state == "foreign" else "unchanged"
        return HookChange(name, path, action, state.advice if action == "advised" else None)
    if state.via in ("pre-commit", "lefthook"):
        action = "unchanged" if state.state == "current" else "advised"
        return HookChange(name, path, action, state.advice)
    content = _read(path)
    skipped = not os.access(path, os.X_OK)  # switched off: neither added to nor switched on
    if skipped or not _appendable(path, content) or setups.stops_early(content):
        return HookChange(name, path, "advised", state.advice)
    _append_line(path, content, name)
    return HookChange(name, path, "chained")


def _add_line(repo: Repo, where: setups.Place, name: str, append: bool) -> HookChange:
    assert where.lines_dir is not None
    for folder in {where.folder, where.lines_dir}:
        _undo_earlier_install(os.path.join(folder, name))
    state = _line_state(repo, where, name)
    if state.state == "foreign":  # the line is there, after an exit
        return HookChange(name, state.path, "advised", state.advice)
    if state.state != "missing":
        return HookChange(name, state.path, "unchanged")
    content = _read_or_empty(state.path)
    if (
        not append
        or worktree.tracked(repo, state.path)
        or os.path.islink(state.path)
        or setups.stops_early(content)
    ):
        return HookChange(name, state.path, "advised", state.advice)
    os.makedirs(os.path.dirname(state.path), exist_ok=True)
    _append_line(state.path, content or b"#!/bin/sh\n", name)
    return HookChange(name, state.path, "chained")


def _uninstall_one(repo: Repo, where: setups.Place, name: str) -> HookChange:
    state = _state(repo, where, name)
    if state.via == "line" and state.state != "missing":
        if worktree.tracked(repo, state.path):
            advice = f"remove the gitcoop line from {state.path} (it is tracked)"
            return HookChange(name, state.path, "advised", advice)
        _remove_line(state.path, name)
        return HookChange(name, state.path, "unchained")
    if state.via != "shim" or state.state == "foreign" or where.lines_dir is not None:
        return HookChange(name, state.path, "foreign" if state.state != "missing" else "absent")
    if state.state != "missing":
        os.unlink(state.path)
    if state.legacy:
        os.replace(state.path + LEGACY_SUFFIX, state.path)
        return HookChange(name, state.path, "restored")
    return HookChange(name, state.path, "absent" if state.state == "missing" else "removed")


def _undo_earlier_install(path: str) -> None:
    """An earlier gitcoop wrote its shim into husky's or the team's folder: take it out.

    It had renamed the file there to `<name>.legacy`, which goes back under its
    own name (a tracked file so reads as committed again); a shim it added
    where nothing was is removed, since the folder is not gitcoop's to write.
    """
    if os.path.islink(path) or not setups.is_shim(_read_or_empty(path)):
        return
    if os.path.lexists(path + LEGACY_SUFFIX):
        _put_back_legacy(path)
    else:
        os.unlink(path)


def _put_back_legacy(path: str) -> None:
    os.unlink(path)
    os.replace(path + LEGACY_SUFFIX, path)


def _append_line(path: str, content: bytes, name: str) -> None:
    """Add the line at the end, keeping the file's mode (a new file is made executable).

    After a last line without its newline the line goes on a line of its own
    and itself ends without one, so uninstall can tell the two apart and give
    back the file's bytes as they were.
    """
    line = setups.call_line(name).encode("utf-8")
    added = line + b"\n" if not content or content.endswith(b"\n") else b"\n" + line
    mode = os.stat(path).st_mode & 0o7777 if os.path.exists(path) else 0o755
    _write(path, content + added, mode)


def _remove_line(path: str, name: str) -> None:
    content = _read(path)
    line = setups.call_line(name).encode("utf-8")
    if content.endswith(b"\n" + line):  # added after a last line without its newline
        kept = content.removesuffix(b"\n" + line)
    else:
        kept = content.replace(line + b"\n", b"", 1)
    if kept == b"#!/bin/sh\n":  # gitcoop made the file: nothing of anyone else's is left
        os.unlink(path)
        return
    _write(path, kept, os.stat(path).st_mode & 0o7777)


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _read_or_empty(path: str) -> bytes:
    try:
        return _read(path)
    except OSError:
        return b""


def _write_if_changed(path: str, content: bytes) -> None:
    if _read_or_empty(path) != content or not os.access(path, os.X_OK):
        _write_executable(path, content)


def _write_executable(path: str, content: bytes) -> None:
    _write(path, content, 0o755)


def _write(path: str, content: bytes, mode: int) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as handle:
        handle.write(content)
    os.chmod(temporary, mode)
    os.replace(temporary, path)
