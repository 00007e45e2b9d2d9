"""How far long work has come, told to whoever shows it.

Long work (a first read of a big ledger into the read cache, the checks of a
sync, `fsck --full`, verification) reports its steps to `reporter()`. By
default nobody listens; the command line installs a meter for the command it
runs (`cli/terminal.py`), which shows progress on a terminal only. The
reporter is ambient, like the terminal it ends up on, so that a store module
deep below a command need not be handed it through every call.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext


class Progress:
    """Told each step of long work; this one tells no one."""

    def step(self, what: str, done: int, total: int | None = None, detail: str = "") -> None:
        """`done` of `total` (None: unknown) of what is being done; `detail`: on what now."""

    def waiting(self, what: str) -> AbstractContextManager[None]:
        """Work that cannot say how far it is, such as a fetch, for as long as it runs."""
        return nullcontext()


_current: list[Progress] = [Progress()]


def reporter() -> Progress:
    return _current[-1]


def silence() -> None:
    """Tell no one from now on (a forked child working beside its parent)."""
    _current[:] = [Progress()]


@contextmanager
def shown_by(progress: Progress) -> Iterator[None]:
    """Report to `progress` for the duration of one command."""
    _current.append(progress)
    try:
        yield
    finally:
        _current.remove(progress)
