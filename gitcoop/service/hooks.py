"""Installing the hook shims: install, uninstall, status (DESIGN.md §7).

Modelled on pre-commit's installer. Our scripts carry a marker line; a
foreign hook already in place is moved aside to `<name>.legacy` and our shim
runs it first, with the same arguments and input; uninstall moves it back,
byte for byte (a rename, so mode and symlinks are kept). Installing twice
changes nothing. The hooks dir is the one git uses: core.hooksPath when it
is set, else the common git dir's `hooks` (so linked worktrees share it).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from importlib import resources

from gitcoop.errors import Refused
from gitcoop.service.context import Context
from gitcoop.store import worktree

HOOK_NAMES = ("post-commit", "post-rewrite", "prepare-commit-msg")
MARKER = b"gitcoop-hook"
LEGACY_SUFFIX = ".legacy"


@dataclass(frozen=True)
class HookState:
    name: str
    path: str
    state: str  # missing | current | outdated | foreign
    legacy: bool  # a foreign hook is chained from <name>.legacy


@dataclass(frozen=True)
class HookChange:
    name: str
    path: str
    action: str  # installed | chained | updated | unchanged | removed | restored | absent | foreign


def shipped(name: str) -> bytes:
    """The shim as this gitcoop ships it (the same bytes as the top-level hooks/)."""
    return (resources.files("gitcoop") / "hookscripts" / name).read_bytes()


def hooks_dir(ctx: Context) -> str:
    return worktree.hooks_dir(ctx.repo())


def status(ctx: Context) -> list[HookState]:
    folder = hooks_dir(ctx)
    return [_state(folder, name) for name in HOOK_NAMES]


def install(ctx: Context) -> list[HookChange]:
    folder = hooks_dir(ctx)
    _refuse_blocked(folder)
    try:
        os.makedirs(folder, exist_ok=True)
        return [_install_one(folder, name) for name in HOOK_NAMES]
    except OSError as error:
        raise Refused(
            f"cannot write hooks into {folder} ({error.strerror}) — check core.hooksPath "
            "and the folder's permissions"
        ) from None


def uninstall(ctx: Context) -> list[HookChange]:
    folder = hooks_dir(ctx)
    return [_uninstall_one(folder, name) for name in HOOK_NAMES]


def _state(folder: str, name: str) -> HookState:
    path = os.path.join(folder, name)
    legacy = os.path.lexists(path + LEGACY_SUFFIX)
    if not os.path.lexists(path):
        return HookState(name, path, "missing", legacy)
    if not _is_ours(path):
        return HookState(name, path, "foreign", legacy)
    current = _read(path) == shipped(name) and os.access(path, os.X_OK)
    return HookState(name, path, "current" if current else "outdated", legacy)


def _refuse_blocked(folder: str) -> None:
    """Check everything before changing anything, so a refusal leaves no half install."""
    for name in HOOK_NAMES:
        state = _state(folder, name)
        if state.state == "foreign" and state.legacy:
            raise Refused(
                f"{state.path} is a hook gitcoop did not write, and {state.path}{LEGACY_SUFFIX} "
                "already exists — merge or remove one of them, then run git coop hooks install"
            )


def _install_one(folder: str, name: str) -> HookChange:
    state = _state(folder, name)
    if state.state == "current":
        return HookChange(name, state.path, "unchanged")
    action = {"missing": "installed", "outdated": "updated", "foreign": "chained"}[state.state]
    if state.state == "foreign":
        os.replace(state.path, state.path + LEGACY_SUFFIX)
    _write_executable(state.path, shipped(name))
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
