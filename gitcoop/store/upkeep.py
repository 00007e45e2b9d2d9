"""Keeping the repository small: `git gc --auto` after ledger writes, as git does.

Every transition writes about ten loose objects, ~50 KB in all (the `items`
and `events` trees hold up to 1,024 entries each), and libgit2 never runs
`gc --auto` the way git's own commands do, so a ledger that recorded tens of
thousands of transitions kept hundreds of megabytes of loose objects that
nothing collected. After a write, `after_write` makes git's own estimate
(builtin/gc.c): more loose objects in `objects/17` than `gc.auto` / 256
(default 6,700 in all), or more packs than `gc.autoPackLimit` (default 50).
When either is over, it starts `git gc --auto` the way git does: in the
background unless `gc.autoDetach` is false, in which case the write waits for
it. `gc.auto` 0 turns all of this off, as it does for git.

git's threshold counts objects, and a ledger's are large: 6,700 of them are
~670 transitions, ~35 MB loose before git's gc would run. So between two of
git's gcs, once `objects/17` holds more than one loose object (about 500 in
all, some 50 transitions), the loose objects are packed with `git repack -d`
(incremental: only loose objects, each version of a tree stored as a delta of
another; no pruning, no rewrite of the existing packs), at most once in two
seconds (a repack of a 100,000-item ledger takes a second or two); also while
a gc of git's runs (a full repack can take a minute), so that what is written
meanwhile does not wait for the next one.
The packs this makes are what `gc.autoPackLimit` then counts. The checks cost
one or two directory listings.
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

from gitcoop.store.repository import Repo

LOOSE_SAMPLE = "17"  # the fan-out directory git counts to estimate all loose objects
PACK_AFTER = 1  # loose objects in objects/17 (about 256 each in all) from which they are packed
STAMP = "coop-repack"  # in the common git dir: when the last pack of loose objects started
PACK_EVERY = 2.0  # seconds: at most one pack of loose objects started in that time
HEX = frozenset("0123456789abcdef")
# where a hook's git says the repository is; gc is pointed at the common git dir instead
PLACE = frozenset(("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_PREFIX", "GIT_COMMON_DIR"))


class Thresholds(NamedTuple):  # not a dataclass: every write loads this module
    """git's `gc.auto`, `gc.autoPackLimit` and `gc.autoDetach`, as git reads them."""

    loose: int = 6700
    packs: int = 50
    detach: bool = True

    @classmethod
    def of(cls, repo: Repo) -> Thresholds:
        return cls(
            repo.config_int("gc.auto", 6700),
            repo.config_int("gc.autoPackLimit", 50),
            repo.config_bool("gc.autoDetach", True),
        )


def due(objects: str, limits: Thresholds) -> bool:
    """Whether `git gc --auto` would find work: git's own estimate, not a count of all."""
    if limits.loose <= 0:
        return False
    limit = -(-limits.loose // 256)  # git: DIV_ROUND_UP(gc.auto, 256)
    return _loose_sample(objects) > limit or _too_many_packs(objects, limits.packs)


def _loose_sample(objects: str) -> int:
    """Loose objects in objects/17, counted as git counts them."""
    try:
        names = os.listdir(os.path.join(objects, LOOSE_SAMPLE))
    except OSError:
        return 0
    return sum(1 for name in names if len(name) == 38 and HEX.issuperset(name))


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
    """Start `git gc --auto`, or pack loose objects, when due; call with no lock held."""
    objects = os.path.join(repo.common_dir, "objects")
    try:
        limits = Thresholds.of(repo)
    except ValueError:  # a gc setting git itself would refuse: leave it to git
        return
    now = time.time()
    if due(objects, limits) and not _gc_running(repo.common_dir, now):
        collect(repo.common_dir, ["gc", "--auto", "--quiet"], limits.detach)
    elif (
        limits.loose > 0 and _loose_sample(objects) > PACK_AFTER and _stamped(repo.common_dir, now)
    ):
        # also while git's gc runs: what is written meanwhile would wait for the next one
        collect(repo.common_dir, ["repack", "-d", "-q"], limits.detach)


def _gc_running(common_dir: str, now: float) -> bool:
    """Whether a `git gc` holds its lock (`gc.pid`; git takes one older than 12 h as stale)."""
    try:
        return now - os.stat(os.path.join(common_dir, "gc.pid")).st_mtime < 12 * 3600
    except OSError:
        return False


def _stamped(common_dir: str, now: float) -> bool:
    """Mark a pack of loose objects as started; False when one started under PACK_EVERY ago."""
    path = os.path.join(common_dir, STAMP)
    try:
        if now - os.stat(path).st_mtime < PACK_EVERY:
            return False
    except OSError:
        pass
    try:
        with open(path, "w", encoding="utf-8") as stamp:
            stamp.write(f"{now:.0f}\n")
    except OSError:
        return False  # a read-only repository: git could not pack either
    return True


def collect(common_dir: str, args: list[str], detach: bool) -> None:
    """`git ARGS` on the repository (gc or repack); waited for only when not detached."""
    import subprocess

    env = {k: v for k, v in os.environ.items() if k not in PLACE}
    command = ["git", "--git-dir", common_dir, *args]
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
