"""Keeping the repository small: `git gc --auto` after ledger writes, as git does.

Every transition writes about ten loose objects, and libgit2 never runs
`gc --auto` the way git's own commands do, so a ledger that records tens of
thousands of transitions left hundreds of megabytes of loose objects that
nothing collected. After a write, `after_write` makes git's own estimate
(builtin/gc.c): more loose objects in `objects/17` than `gc.auto` / 256
(default 6,700 in all), or more packs than `gc.autoPackLimit` (default 50).
When either is over, it starts `git gc --auto` the way git does: in the
background unless `gc.autoDetach` is false, in which case the write waits for
it. `gc.auto` 0 turns it off, as it does for git. The check costs one or two
directory listings; git gc then packs the loose objects (and, past the pack
limit, the packs) itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from gitcoop.store.repository import Repo

LOOSE_SAMPLE = "17"  # the fan-out directory git counts to estimate all loose objects
HEX = frozenset("0123456789abcdef")
# where a hook's git says the repository is; gc is pointed at the common git dir instead
PLACE = frozenset(("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR"))


@dataclass(frozen=True)
class Thresholds:
    """git's `gc.auto`, `gc.autoPackLimit` and `gc.autoDetach`, as git reads them."""

    loose: int = 6700
    packs: int = 50
    detach: bool = True

    @classmethod
    def of(cls, repo: Repo) -> Thresholds:
        return cls(
            repo.config_int("gc.auto", cls.loose),
            repo.config_int("gc.autoPackLimit", cls.packs),
            repo.config_bool("gc.autoDetach", cls.detach),
        )


def due(objects: str, limits: Thresholds) -> bool:
    """Whether `git gc --auto` would find work: git's own estimate, not a count of all."""
    if limits.loose <= 0:
        return False
    return _too_many_loose(objects, limits.loose) or _too_many_packs(objects, limits.packs)


def _too_many_loose(objects: str, limit: int) -> bool:
    try:
        names = os.listdir(os.path.join(objects, LOOSE_SAMPLE))
    except OSError:
        return False
    loose = sum(1 for name in names if len(name) == 38 and HEX.issuperset(name))
    return loose > -(-limit // 256)  # git: DIV_ROUND_UP(gc.auto, 256)


def _too_many_packs(objects: str, limit: int) -> bool:
    if limit <= 0:
        return False
    try:
        names = set(os.listdir(os.path.join(objects, "pack")))
    except OSError:
        return False
    packs = [n for n in names if n.endswith(".pack") and f"{n[:-5]}.keep" not in names]
    return len(packs) > limit


def after_write(repo: Repo) -> None:
    """Start `git gc --auto` when git's estimate says it is due; call with no lock held."""
    objects = os.path.join(repo.common_dir, "objects")
    try:
        limits = Thresholds.of(repo)
    except ValueError:  # a gc setting git itself would refuse: leave it to git
        return
    if due(objects, limits):
        collect(repo.common_dir, limits.detach)


def collect(common_dir: str, detach: bool) -> None:
    """`git gc --auto --quiet` on the repository; waited for only when not detached."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in PLACE}
    command = ["git", "--git-dir", common_dir, "gc", "--auto", "--quiet"]
    try:
        started = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=env,
            start_new_session=detach,  # like git's own detached gc: not tied to this terminal
        )
    except OSError:  # no git on PATH: nothing is lost but the tidying
        return
    if not detach:
        started.wait()
