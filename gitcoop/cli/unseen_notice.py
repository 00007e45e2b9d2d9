"""Before a command runs: say once what reached a branch while git ran no hook.

`service/unseen.py` finds commits with Coop trailers that a reset, a fetch
into a branch or `git branch -f` put on a branch with no hook running; this
says so on one line, with the backfill that records them. It never fails the
command it runs before.
"""

from __future__ import annotations

from gitcoop.cli.journal_replay import NOT_REPLAYED_BEFORE
from gitcoop.cli.terminal import printable, warn
from gitcoop.errors import CoopError
from gitcoop.service import unseen


def notice_unseen(args: list[str]) -> None:
    if not args or args[0] in NOT_REPLAYED_BEFORE or "--help" in args or "-h" in args:
        return
    from gitcoop.cli.options import make_context

    try:
        found = unseen.check(make_context())
    except (CoopError, OSError):
        return
    if found is None:
        return
    if not found.commits:
        warn(
            f"gitcoop: more than {unseen.WALK_AT_MOST} commits reached a branch while git ran "
            "no hook; not all were read — git coop hooks backfill lists those with Coop trailers"
        )
        return
    shas = ", ".join(c.sha[:7] for c in found.commits[:5])
    more = ", …" if len(found.commits) > 5 or found.more else ""
    warn(
        printable(
            f"gitcoop: {len(found.commits)} commit(s) with Coop trailers reached a branch while "
            f"git ran no hook (a reset, a fetch into a branch, git branch -f): {shas}{more} — "
            "see them: git coop hooks backfill; record them: git coop hooks backfill --apply"
        )
    )
