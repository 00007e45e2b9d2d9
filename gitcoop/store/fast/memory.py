"""Shadows Python's cycle collector and its freeing at exit, left as they are; gains 0.2 s of a
cold `list --json` at 100,000 items, 0.5 s of a first sync's check at 10,000, ~25 ms at exit
(docs/performance.md, "A new clone's first sync", "A seventh run"); held equal by
tests/store/fast/test_memory.py and tests/store/fast/test_reference.py.

The heap during a bulk read: Python's cycle collector paused while it runs, and
what a one-command process read held until it leaves.

A cold cache build or the check of a first sync makes hundreds of thousands of
rows, records and parsed files that live until the command ends, and no
cyclic garbage. The cycle collector still runs every few hundred allocations
and, as the heap grows, walks all of it again and again: 4% of a cold `list`
of 100,000 items and 7% of the first sync of 10,000 were spent there
(docs/performance.md). Reference counting still frees everything as before;
the collector runs again when the bulk read ends.

When it does, the objects made meanwhile are moved to the oldest generation
first (`gc.freeze` then `gc.unfreeze`, each a splice of two lists): otherwise
the next allocation starts a collection of the youngest generation, which then
holds everything the bulk read made, and walks it all (~85 ms for a million
objects, at the end of every first sync and cold listing). In the oldest
generation they are walked only by a full collection, as long-lived objects
are, and what becomes garbage there is still collected (a frozen object never
is: a cycle a bulk read held would stay for the life of a long-lived process,
the MCP server).

The `git-coop` script's process runs one command and leaves without Python's
teardown (`cli/main.py`). What the command read, freed as it returns, is work
that end never does: a first sync's parsed ledger and the repository's caches
took ~25 ms to free. `keep` holds such values (the last `KEPT_MOST`) until the
process leaves, in that process only; the MCP server, and `main` run inside a
longer process, free them as ever.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gitcoop.store.fast import reference

# What a one-command process holds until it exits (`keep`), when it leaves without
# Python's teardown (`cli/main.py`'s `run`); elsewhere nothing is held.
_kept: list[Any] = []
_keeping = {"on": False}
# at most this many are held: a command that opens repository after repository (a long
# `pick`) holds the last few, and lets the ones before go as it always did
KEPT_MOST = 8


def keep_until_exit() -> None:
    """From now on `keep` holds what it is given: this process ends without freeing it."""
    _keeping["on"] = True


def keep_nothing() -> None:
    """A long-lived process (the MCP server): `keep` holds nothing, and what it held goes."""
    _keeping["on"] = False
    _kept.clear()


def keeping() -> bool:
    return _keeping["on"]


def keep(value: Any) -> None:
    """Hold `value` until the process exits, in a one-command process (`keep_until_exit`).

    Freeing a large read one object at a time is work the process's end does not
    do: the repository's caches and a first sync's parsed ledger took ~25 ms to free
    as the command returned, and the process then left without freeing anything else.
    A long-lived process (the MCP server) frees as ever, and so does any under
    `COOP_REFERENCE=1`."""
    if _keeping["on"] and not reference():
        _kept.append(value)
        if len(_kept) > KEPT_MOST:
            del _kept[0]


@contextmanager
def bulk() -> Iterator[None]:
    """Pause the cycle collector inside (if it was running); restore it after.
    Under `COOP_REFERENCE=1`, the collector runs as ever."""
    if reference():
        yield
        return
    running = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if running:
            gc.freeze()  # what lives on goes to the oldest generation (see above)
            gc.unfreeze()
            gc.enable()
