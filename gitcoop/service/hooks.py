"""Installing the hook shims: install, uninstall, status (DESIGN.md §7).

Modelled on pre-commit's installer. Our scripts carry a marker line; a
foreign hook already in place is moved aside to `<name>.legacy` and our shim
runs it first, with the same arguments and input; uninstall moves it back,
byte for byte (a rename, so mode and symlinks are kept). Installing twice
changes nothing. The hooks dir is the one git uses: core.hooksPath when it
is set, else the common git dir's `hooks` (so linked worktrees share it).

The shipped shims (hooks/ and gitcoop/hookscripts/, the same bytes) have two
empty lines, `python=''` and `entry=''`; install fills them with the absolute
paths of the interpreter and the `git-coop` script it runs from, so a commit
made where PATH lacks gitcoop (a GUI, an IDE, a bare shell) still records.
"""

from __future__ import annotations

import os
import shlex
from importlib import resources

from gitcoop.domain.frozen import frozen
from gitcoop.errors import Refused
from gitcoop.service.context import Context
from gitcoop.store import worktree
from gitcoop.store.layout import HOOKS_HINTED

HOOK_NAMES = ("post-commit", "post-rewrite", "prepare-commit-msg")
MARKER = b"gitcoop-hook"
LEGACY_SUFFIX = ".legacy"
SLOTS = ("python", "entry")  # the shim's lines `python=''` and `entry=''`
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"


@frozen
class Runner:
    """The gitcoop a hook runs: an interpreter and the `git-coop` script, absolute."""

    python: str = ""
    entry: str = ""

    def starts(self) -> bool:
        return bool(self.python) and os.access(self.python, os.X_OK) and os.path.isfile(self.entry)


@frozen
class HookState:
    name: str
    path: str
    state: str  # missing | current | outdated | stale (its gitcoop is gone) | foreign
    legacy: bool  # a foreign hook is chained from <name>.legacy
    python: str | None = None  # the interpreter the installed hook names
    entry: str | None = None


@frozen
class HookChange:
    name: str
    path: str
    action: str  # installed | chained | updated | unchanged | removed | restored | absent | foreign


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


def status(ctx: Context) -> list[HookState]:
    folder = hooks_dir(ctx)
    return [_state(folder, name) for name in HOOK_NAMES]


def install(ctx: Context, runner: Runner) -> list[HookChange]:
    folder = hooks_dir(ctx)
    _refuse_blocked(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        return [_install_one(folder, name, runner) for name in HOOK_NAMES]
    except OSError as error:
        raise Refused(
            f"cannot write hooks into {folder} ({error.strerror}) — check core.hooksPath "
            "and the folder's permissions"
        ) from None


def uninstall(ctx: Context) -> list[HookChange]:
    folder = hooks_dir(ctx)
    return [_uninstall_one(folder, name) for name in HOOK_NAMES]


def installed(ctx: Context) -> bool:
    """Whether commits here reach gitcoop: our post-commit, or the pre-commit framework's."""
    state = _state(hooks_dir(ctx), "post-commit")
    if state.state in ("current", "outdated", "stale"):
        return True
    workdir = ctx.repo().workdir()
    if state.state != "foreign" or workdir is None:
        return False
    try:
        with open(os.path.join(workdir, PRE_COMMIT_CONFIG), encoding="utf-8") as handle:
            return "gitcoop-post-commit" in handle.read(256 * 1024)
    except OSError:
        return False


def hint_once(ctx: Context) -> bool:
    """True the first time it is asked in a clone without the hooks; never again after."""
    marker = os.path.join(ctx.repo().common_dir, HOOKS_HINTED)
    if os.path.exists(marker) or installed(ctx):
        return False
    try:
        with open(marker, "x", encoding="utf-8") as handle:
            handle.write("git coop said once how to install its hooks\n")
    except OSError:
        return False  # another command said it first, or the git dir is read-only
    return True


def _state(folder: str, name: str) -> HookState:
    path = os.path.join(folder, name)
    legacy = os.path.lexists(path + LEGACY_SUFFIX)
    if not os.path.lexists(path):
        return HookState(name, path, "missing", legacy)
    if not _is_ours(path):
        return HookState(name, path, "foreign", legacy)
    content = _read(path)
    runner = recorded(content)
    if content != rendered(name, runner) or not os.access(path, os.X_OK):
        state = "outdated"
    elif runner.python and not runner.starts():
        state = "stale"
    else:
        state = "current"
    return HookState(name, path, state, legacy, runner.python or None, runner.entry or None)


def _refuse_blocked(folder: str) -> None:
    """Check everything before changing anything, so a refusal leaves no half install."""
    for name in HOOK_NAMES:
        state = _state(folder, name)
        if state.state == "foreign" and state.legacy:
            raise Refused(
                f"{state.path} is a hook gitcoop did not write, and {state.path}{LEGACY_SUFFIX} "
                "already exists — merge or remove one of them, then run git coop hooks install"
            )


def _install_one(folder: str, name: str, runner: Runner) -> HookChange:
    state = _state(folder, name)
    wanted = rendered(name, runner)
    if state.state != "foreign" and state.state != "missing" and _read(state.path) == wanted:
        return HookChange(name, state.path, "unchanged")
    action = {"missing": "installed", "foreign": "chained"}.get(state.state, "updated")
    if state.state == "foreign":
        os.replace(state.path, state.path + LEGACY_SUFFIX)
    _write_executable(state.path, wanted)
    return HookChange(name, state.path, action)


def _uninstall_one(folder: str, name: str) -> HookChange:
    state = _state(folder, name)
    if state.state == "foreign":
        return HookChange(name, state.path, "foreign")
    if state.state != "missing":
        os.unlink(state.path)
    if state.legacy:
        os.replace(state.path + LEGACY_SUFFIX, state.path)
        return HookChange(name, state.path, "restored")
    return HookChange(name, state.path, "absent" if state.state == "missing" else "removed")


def _is_ours(path: str) -> bool:
    return not os.path.islink(path) and os.path.isfile(path) and MARKER in _read(path)


def _read(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read()


def _write_executable(path: str, content: bytes) -> None:
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "wb") as handle:
        handle.write(content)
    os.chmod(temporary, 0o755)
    os.replace(temporary, path)
