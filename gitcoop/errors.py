"""The one root of expected failures, and its kinds.

Every class maps to one exit code and one `code` word at the CLI boundary
(under --json: `{"error": {"code", "exit", "message", ...}}`); the message is
a sentence that says what happened and what to do next. What a program may
act on (the holder a take ran into, the items blocking it) travels as data
beside the message, set where the error is raised.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


class CoopError(Exception):
    """An expected failure: the user's input or the ledger's state said no."""

    exit_code = 1
    code = "refused"

    def __init__(
        self,
        message: str,
        holder: str | None = None,
        details: Mapping[str, Any] | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.holder = holder  # who holds the work this ran into, when a holder said no
        # more data for programs (blockers, a cycle; what a command found before it failed)
        self.details = dict(details or {})

    def reworded(self, message: str) -> CoopError:
        """The same error (class and data) with another message (e.g. short ids)."""
        return type(self)(message, self.holder, self.details)

    def to_data(self) -> dict[str, Any]:
        data: dict[str, Any] = {"code": self.code, "exit": self.exit_code, "message": self.message}
        if self.holder is not None:
            data["holder"] = self.holder
        return {**data, **self.details}


class Refused(CoopError):
    """A rule refused the transition (DESIGN.md §1)."""

    exit_code = 1
    code = "refused"


class NotFound(CoopError):
    """No item matches the id or prefix given."""

    exit_code = 1
    code = "not_found"


class Ambiguous(CoopError):
    """A prefix matches more than one item."""

    exit_code = 1
    code = "ambiguous"


class UsageError(CoopError):
    """The command line itself is wrong (bad duration, bad evidence spec...)."""

    exit_code = 2
    code = "usage"


class ChangedUnderWrite(CoopError):
    """The item or the ref moved between read and write."""

    exit_code = 3
    code = "changed"


class NoLedger(CoopError):
    """Not a git repository, or no refs/coop/ledger yet."""

    exit_code = 4
    code = "no_ledger"


class UnsupportedRepository(CoopError):
    """A git repository gitcoop cannot work in yet: the SHA-256 object format."""

    exit_code = 4
    code = "unsupported_repository"


class BadLedger(CoopError):
    """The ledger's content breaks the format or a safety rule."""

    exit_code = 4
    code = "bad_ledger"


class FetchedLedgerRefused(BadLedger):
    """A fetched ledger breaks the format or a rule: refused, and the local one is unchanged."""

    code = "fetched_ledger_refused"


class NothingToDo(CoopError):
    """There was nothing to act on: `pick` found no ready item."""

    exit_code = 5
    code = "nothing_to_do"


class SomethingDue(CoopError):
    """`owed --check` found an obligation that is due (a loop or a prompt tests for it)."""

    exit_code = 6
    code = "something_due"


class RemoteUnreachable(CoopError):
    """The remote cannot be reached (a claim, which it must decide, records nothing)."""

    exit_code = 7
    code = "remote_unreachable"


class LostOnMerge(CoopError):
    """A sync replayed the acting person's own event and the rules refused it."""

    exit_code = 8
    code = "lost_on_merge"


class Interrupted(CoopError):
    """SIGINT or SIGTERM stopped a command that gave back what it held first (`verify`):
    the shell's code for the signal, 128 + its number."""

    exit_code = 130
    code = "interrupted"

    def __init__(
        self,
        message: str,
        holder: str | None = None,
        details: Mapping[str, Any] | None = None,
        signum: int = 2,
    ) -> None:
        super().__init__(message, holder, details)
        self.exit_code = 128 + signum

    def reworded(self, message: str) -> CoopError:
        return Interrupted(message, self.holder, self.details, self.exit_code - 128)


class EnvironmentFailed(CoopError):
    """The machine said no: disk full, a read-only repository, a permission; nothing was written."""

    exit_code = 9
    code = "environment"


class RemoteRewritten(CoopError):
    """The remote's ledger no longer holds, on its first-parent chain, the tip this clone
    took in last: forced back, deleted, or merged aside (docs/hardening.md, H4)."""

    exit_code = 10
    code = "remote_rewritten"


class RemoteRefused(CoopError):
    """The remote's host refused a push for a reason of its own, not a race (a hook, a
    permission, a protected ref): retrying changes nothing; the message gives its words."""

    exit_code = 11
    code = "remote_refused"
