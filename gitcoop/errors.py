"""The one root of expected failures, and its kinds.

Every class maps to one exit code at the CLI boundary; the message is a
sentence that says what happened and what to do next.
"""

from __future__ import annotations


class CoopError(Exception):
    """An expected failure: the user's input or the ledger's state said no."""

    exit_code = 1

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Refused(CoopError):
    """A rule refused the transition (DESIGN.md §1)."""

    exit_code = 1


class NotFound(CoopError):
    """No item matches the id or prefix given."""

    exit_code = 1


class Ambiguous(CoopError):
    """A prefix matches more than one item."""

    exit_code = 1


class UsageError(CoopError):
    """The command line itself is wrong (bad duration, bad evidence spec...)."""

    exit_code = 2


class ChangedUnderWrite(CoopError):
    """The item or the ref moved between read and write."""

    exit_code = 3


class NoLedger(CoopError):
    """Not a git repository, or no refs/coop/ledger yet."""

    exit_code = 4


class BadLedger(CoopError):
    """The ledger's content breaks the format or a safety rule."""

    exit_code = 4


class FetchedLedgerRefused(BadLedger):
    """A fetched ledger breaks the format or a rule: refused, and the local one is unchanged."""


class NothingToDo(CoopError):
    """There was nothing to act on: `pick` found no ready item."""

    exit_code = 5


class SomethingDue(CoopError):
    """`owed --check` found an obligation that is due (a loop or a prompt tests for it)."""

    exit_code = 6


class RemoteUnreachable(CoopError):
    """A claim must be decided by the remote (coop.claims), and the remote cannot be reached."""

    exit_code = 7


class LostOnMerge(CoopError):
    """A sync replayed the acting person's own event and the rules refused it."""

    exit_code = 8


class EnvironmentFailed(CoopError):
    """The machine said no: disk full, a read-only repository, a permission; nothing was written."""

    exit_code = 9
