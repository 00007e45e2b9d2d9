"""Before a command runs: record what hooks journaled, and say what still waits.

Asking costs a stat of the journal file and a listing of the git dir; the
replay machinery is imported only when there is something there. What the
ledger can take now is recorded and reported, one line each; entries a rule
refused or that can never be recorded as they are are not retried here (they
wait for `git coop hook replay`), only counted: every command says once, on
one line, how many wait (docs/hooks.md).
"""

from __future__ import annotations

from gitcoop.cli.terminal import printable, warn
from gitcoop.errors import CoopError

# the journal's own commands, help, and commands that print what never touches a ledger
NOT_REPLAYED_BEFORE = ("hook", "hooks", "-h", "--help", "version", "completion")


def replay_journal(args: list[str]) -> None:
    """Replay and report on stderr; never fails the command it runs before."""
    if not args or args[0] in NOT_REPLAYED_BEFORE or "--help" in args or "-h" in args:
        return
    try:
        from gitcoop.cli.options import make_context
        from gitcoop.service.process import journal_waiting

        ctx = make_context()
        if not journal_waiting(ctx.repo().common_dir):
            return
    except CoopError:
        return  # no repository, a bad option: the command itself says so
    try:
        from gitcoop.cli.wording import plain
        from gitcoop.service import replay

        report = replay.replay(ctx, everything=False)
        lines = replay.report_lines(report, quiet=True)
        waiting = replay.waiting_line(report)
    except CoopError as error:  # a read-only repository, a full disk: it waits, and says so
        warn(
            printable(
                f"gitcoop: what the hooks journaled waits, not recorded now ({error.message}) "
                "— git coop hook replay says what waits"
            )
        )
        return
    except Exception as error:  # the journal never fails the command it runs before
        kind = type(error).__name__
        warn(
            printable(
                f"gitcoop: the hook journal could not be replayed ({kind}: {error}) — "
                "git coop hook replay says what waits"
            )
        )
        return
    for line in [*lines, *([waiting] if waiting else [])]:
        warn(printable(plain(line)))
