"""Keeping the repository small: `git gc --auto` after ledger writes, as git does.

A transition writes its ten or so objects as one small pack (store/fast/packwrite.py),
~50 KB (the `items` and `events` trees hold up to 1,024 entries each); a merge
writes its own pack, and a few writes (a ledger's first commit, a signed one)
write a loose object. libgit2 never runs `gc --auto` the way git's own
commands do, so after a write `after_write` makes git's own estimate
(builtin/gc.c): more loose objects in `objects/17` than `gc.auto` / 256
(default 6,700 in all), or more packs than `gc.autoPackLimit` (default 50).
When either is over, it starts `git gc --auto` the way git does: in the
background unless `gc.autoDetach` is false, in which case the write waits for
it. `gc.auto` 0 turns all of this off, as it does for git.

Between two of git's gcs, once there are more than ROLL_AFTER packs, or
`objects/17` holds more than one loose object, gitcoop starts
`git repack -d --geometric=2` (git 2.32 and later), as `git maintenance`
does for the packs fetches leave: it rolls the small packs and the loose
objects into one, each version of a tree stored as a delta of another, and
leaves the large packs alone, so its cost follows what was written since the
last one (no pruning, no rewrite of the large packs). It is started at most
once in PACK_EVERY seconds, also while a gc of git's runs (a full repack can
take a minute), so that what is written meanwhile does not wait for the next
one. With an older git it fails, and the packs wait for `gc.autoPackLimit`.
A repository with a multi-pack index keeps it (`--write-midx`).

Rolled up so, the packs stay under `gc.autoPackLimit` and the loose objects
under `gc.auto`, so git's own gc, for gitcoop and for the user's git
commands alike, would hardly ever run again: no reflog expiry, no pruning of what
nothing reaches. So the roll-ups are counted (in the STAMP file), and the
`gc.autoPackLimit`-th starts `git gc` itself instead: git's gc comes as often
as it came when every roll-up was a pack that `gc --auto` counted.

While a `gc.log` of git's last gc stands (a day), `gc --auto` refuses to
run, so the roll-ups go on meanwhile.

A pack still kept by a write (its `.keep`, store/fast/packwrite.py) is not
counted, as git does not count it; one a gitcoop write left on this host,
KEEP_STALE seconds old, whose process is gone, is removed, even with gc off,
and so is one another host left a week ago. A roll-up also removes what a
killed write left in `objects/` (packwrite.INCOMING), KEEP_STALE old. The
checks cost a directory listing or two.
"""

from __future__ import annotations

import os
import time
from typing import NamedTuple

from gitcoop.store.ledger.repo import Repo

LOOSE_SAMPLE = "17"  # the fan-out directory git counts to estimate all loose objects
PACK_AFTER = 1  # loose objects in objects/17 (about 256 each in all) from which they are packed
ROLL_AFTER = 8  # packs (not kept) from which the small ones are rolled into one
STAMP = "coop-repack"  # in the common git dir: when the last repack started
PACK_EVERY = 2.0  # seconds: at most one repack started in that time
KEEP_STALE = 3600.0  # seconds: a write's keep older than this was left by a killed writer
GC_LOG_KEPT = 86400.0  # seconds: git's default gc.logExpiry
REPACK = ["repack", "-d", "-q", "--geometric=2"]
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
    return _due(limits, _loose_sample(objects), _packs(objects))


def _due(limits: Thresholds, loose: int, packs: int) -> bool:
    """`due`, from the loose objects in objects/17 and the packs not kept."""
    if limits.loose <= 0:
        return False
    return loose > -(-limits.loose // 256) or 0 < limits.packs < packs  # DIV_ROUND_UP


def _loose_sample(objects: str) -> int:
    """Loose objects in objects/17, counted as git counts them."""
    try:
        names = os.listdir(os.path.join(objects, LOOSE_SAMPLE))
    except OSError:
        return 0
    return sum(1 for name in names if len(name) == 38 and HEX.issuperset(name))


def _packs(objects: str, now: float | None = None) -> int:
    """The packs not kept, as git counts them; with `now`, a keep a killed gitcoop
    writer left (KEEP_STALE old, with gitcoop's words in it) is removed first."""
    folder = os.path.join(objects, "pack")
    try:
        names = set(os.listdir(folder))
    except OSError:
        return 0
    kept = {n[:-5] for n in names if n.endswith(".keep")}
    if now is not None:
        kept -= {base for base in kept if _left_behind(os.path.join(folder, base), now)}
    return sum(1 for n in names if n.endswith(".pack") and n[:-5] not in kept)


def _left_behind(base: str, now: float) -> bool:
    """Whether `base`.keep was left by a killed gitcoop write, and is now removed: made
    KEEP_STALE ago by a process of this host that is gone."""
    from gitcoop.store.fast.packwrite import keeper, kept_by_the_living

    path = f"{base}.keep"
    try:
        age = now - os.stat(path).st_mtime
        if age < KEEP_STALE:
            return False
        with open(path, "rb") as keep:
            made_by = keeper(keep.read(4096))
        if made_by is None or kept_by_the_living(*made_by, age):
            return False  # git's or someone's, or a write still at work: not ours to remove
        os.unlink(path)
    except OSError:
        return False
    return True


def after_write(repo: Repo) -> None:
    """Start `git gc --auto`, or roll up the small packs and loose objects, when due;
    call with no lock held."""
    objects = os.path.join(repo.common_dir, "objects")
    now = time.time()
    packs = _packs(objects, now)  # a killed writer's keep goes even when gc is off
    try:
        limits = Thresholds.of(repo)
    except ValueError:  # a gc setting git itself would refuse: leave it to git
        return
    if limits.loose <= 0:
        return
    gc_acts = not _gc_running(repo.common_dir, now) and not _gc_logged(repo.common_dir, now)
    loose = _loose_sample(objects)
    if _due(limits, loose, packs) and gc_acts:
        collect(repo.common_dir, ["gc", "--auto", "--quiet"], limits.detach)
        return
    if packs <= ROLL_AFTER and loose <= PACK_AFTER:
        return
    rolls = _stamped(repo.common_dir, now)
    if rolls is None:
        return
    _tidy(objects, now)
    if 0 < limits.packs <= rolls and not _gc_running(repo.common_dir, now):
        # the packs git's gc would have counted: its turn, as without the roll-ups
        _stamp(repo.common_dir, now, 0)
        collect(repo.common_dir, ["gc", "--quiet"], limits.detach)
        return
    # also while git's gc runs: what is written meanwhile would wait for the next one
    midx = os.path.exists(os.path.join(objects, "pack", "multi-pack-index"))
    collect(repo.common_dir, [*REPACK, "--write-midx"] if midx else REPACK, limits.detach)


def _gc_logged(common_dir: str, now: float) -> bool:
    """Whether `gc --auto` would refuse to run for a `gc.log` its last run left (git
    keeps it a day, `gc.logExpiry`): the roll-ups then go on meanwhile."""
    try:
        return now - os.stat(os.path.join(common_dir, "gc.log")).st_mtime < GC_LOG_KEPT
    except OSError:
        return False


def _tidy(objects: str, now: float) -> None:
    """Remove what a killed write left in objects/ (packwrite.INCOMING), KEEP_STALE old."""
    import shutil

    from gitcoop.store.fast.packwrite import INCOMING

    try:
        names = [n for n in os.listdir(objects) if n.startswith(INCOMING)]
    except OSError:
        return
    for name in names:
        path = os.path.join(objects, name)
        try:
            if now - os.lstat(path).st_mtime < KEEP_STALE:
                continue
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        except OSError:
            continue


def _gc_running(common_dir: str, now: float) -> bool:
    """Whether a `git gc` holds its lock (`gc.pid`; git takes one older than 12 h as stale)."""
    try:
        return now - os.stat(os.path.join(common_dir, "gc.pid")).st_mtime < 12 * 3600
    except OSError:
        return False


def _stamped(common_dir: str, now: float) -> int | None:
    """Mark a roll-up as started: the roll-ups before it since git's last gc; None when
    one started under PACK_EVERY ago (or the repository is read-only)."""
    path = os.path.join(common_dir, STAMP)
    try:
        if now - os.stat(path).st_mtime < PACK_EVERY:
            return None
        with open(path, encoding="utf-8") as stamp:
            words = stamp.read(64).split()
        rolls = int(words[1]) if len(words) == 2 and words[1].isdigit() else 0
    except (OSError, ValueError):
        rolls = 0
    return rolls if _stamp(common_dir, now, rolls + 1) else None


def _stamp(common_dir: str, now: float, rolls: int) -> bool:
    try:
        with open(os.path.join(common_dir, STAMP), "w", encoding="utf-8") as stamp:
            stamp.write(f"{now:.0f} {rolls}\n")
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
