"""Fast paths: each module shadows a library or a slower correct path.

Each opens with one line saying what it shadows, what it gains (the figure is
in docs/performance.md, "The fast room") and which test holds it equal to what
it shadows. `COOP_REFERENCE=1` in the environment routes every one of them to
the path it shadows (`reference()`), and `.ci/run` runs part of the suite that
way, so a fast path that stops agreeing fails a test.
"""

from __future__ import annotations

import os
from functools import cache

REFERENCE = "COOP_REFERENCE"  # "1": every fast path takes the path it shadows


@cache
def reference() -> bool:
    """Whether `COOP_REFERENCE=1`: every fast path takes the path it shadows.

    The environment is read once per process (the line reader asks for every file:
    reading the environment each time would cost it ~2%); `forget` reads it again.
    """
    return os.environ.get(REFERENCE) == "1"


def forget() -> None:
    """Read `COOP_REFERENCE` again at the next `reference()` (a process that changes its
    own environment between commands: the tests that run a command each way)."""
    reference.cache_clear()
