"""Before a command runs: replay what hooks journaled (docs/hooks.md).

Asking costs one stat of the journal file; the replay machinery is imported
only when there is something to replay.
"""

from __future__ import annotations

import sys

from gitcoop.errors import CoopError

NOT_REPLAYED_BEFORE = ("hook", "hooks", "-h", "--help")


def replay_journal(args: list[str]) -> None:
    """Replay and report on stderr; never fails the command it runs before.

    A journal that cannot be replayed now stays for the next command.
    """
    if not args or args[0] in NOT_REPLAYED_BEFORE or "--help" in args or "-h" in args:
        return
    try:
        from gitcoop.cli.options import make_context
        from gitcoop.store import journal

        ctx = make_context()
        if not journal.has_entries(ctx.repo().common_dir):
            return
        from gitcoop.service import replay

        lines = replay.report_lines(replay.replay(ctx))
    except CoopError:
        return
    for line in lines:
        print(line, file=sys.stderr)
