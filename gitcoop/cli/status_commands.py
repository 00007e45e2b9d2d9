"""`git coop status`: the ledger at a glance, the first thing to type in a repository."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from gitcoop.cli.options import AsOpt, JsonOpt, WideOpt, make_context
from gitcoop.cli.terminal import Styled, join, paint, say

if TYPE_CHECKING:
    from datetime import datetime

    from gitcoop.service.owed import OwedList
    from gitcoop.service.status import Sharing, Status

SHOWN = 5  # entries of a list shown by status: one screen; the list's own command shows all


def status(wide: WideOpt = False, actor: AsOpt = None, as_json: JsonOpt = False) -> None:
    """The ledger at a glance: counts, what you hold and owe, what is due, sharing.

    Counts include work past its own due date (add/edit --due), apart from the
    review due times of what takes owe.

    Also conflicts waiting for an owner, your events lost on a merge and takeovers of
    your work, how the ledger stands against each remote as of the last fetch (like
    git status, it never asks the network), and hook journal entries waiting.
    """
    from gitcoop.service.status import status as gather

    ctx = make_context(actor)
    found = gather(ctx, None if as_json else SHOWN)
    if as_json:
        from gitcoop.cli import render

        render.emit_json(status_json(found, ctx.now))
        return
    for line in status_lines(found, ctx.now, wide):
        say(line)


def register(app: typer.Typer) -> None:
    app.command()(status)


def status_json(found: Status, now: datetime) -> dict[str, Any]:
    from gitcoop.cli.owed_commands import conflict_json, lost_json, owed_json, takeover_json

    return {
        "actor": found.actor,
        "roles": list(found.roles),
        "tip": found.tip,
        "counts": found.counts,
        "overdue": found.overdue,
        "held": [{**row.data(), "short_id": row.label} for row in found.held],
        "due": [owed_json(entry, now) for entry in found.owed.obligations],
        "conflicts": [conflict_json(c) for c in found.owed.conflicts],
        "takeovers": [takeover_json(t) for t in found.owed.takeovers],
        "lost": [lost_json(lost) for lost in found.owed.lost],
        "sharing": [s.to_data() for s in found.sharing],
        "journal": found.journal,
    }


def status_lines(found: Status, now: datetime, wide: bool) -> list[Styled | str]:
    """A few short sections, a blank line between them, as git status has them."""
    from gitcoop.cli import owed_commands
    from gitcoop.cli.table import lay_out
    from gitcoop.cli.wording import count
    from gitcoop.domain.records import Item
    from gitcoop.service.writer import Shown

    roles = f" ({', '.join(found.roles)})" if found.roles else ""
    tip = (found.tip or "")[:10]
    lines: list[Styled | str] = [join(paint(found.actor, "holder"), f"{roles} · ledger at {tip}")]
    lines += _counts(found)
    held = [Shown(Item.from_data(row.data()), row.label) for row in found.held[:SHOWN]]
    holding = count(found.holding, "item")
    lines += ["", paint(f"You hold {holding}" + (":" if held else "."), "heading")]
    lines += lay_out([owed_commands.held_row(s, now) for s in held], wide)
    lines += _more(found.holding - len(held), "git coop list --mine")
    owing = found.owed
    lines.append("")
    if owing.obligations or owing.conflicts or owing.takeovers or owing.lost:
        lines.append(paint("Needs you now (git coop owed):", "heading"))
        first = _first(owing, SHOWN)
        lines += owed_commands.owed_lines(first, now, wide, indent="  ")
        lines += _more(_entries(owing) - _entries(first), "git coop owed --mine")
    else:
        lines.append("Nothing owed is due.")
    lines.append("")
    lines += [_sharing_line(s) for s in found.sharing] or [_unshared(found.remotes)]
    if found.journal:
        waits = "waits" if found.journal == 1 else "wait"
        entries = count(found.journal, "hook journal entry", "hook journal entries")
        lines.append(paint(f"{entries} {waits} — git coop hook replay", "due"))
    return lines


def _first(owing: OwedList, n: int) -> OwedList:
    """The first n entries, in the order `owed` shows them (conflicts, takeovers, lost
    events, then obligations)."""
    from dataclasses import replace

    conflicts = owing.conflicts[:n]
    takeovers = owing.takeovers[: n - len(conflicts)]
    lost = owing.lost[: n - len(conflicts) - len(takeovers)]
    obligations = owing.obligations[: n - len(conflicts) - len(takeovers) - len(lost)]
    return replace(
        owing,
        conflicts=conflicts,
        takeovers=takeovers,
        lost=lost,
        obligations=obligations,
        unread=0,
        unread_pressing=0,
    )


def _entries(owing: OwedList) -> int:
    listed = len(owing.conflicts) + len(owing.takeovers) + len(owing.lost)
    return listed + len(owing.obligations) + owing.unread


def _more(left: int, where: str) -> list[Styled | str]:
    return [join(f"  …and {left} more — ", paint(where, "hint"))] if left > 0 else []


def _counts(found: Status) -> list[Styled | str]:
    from gitcoop.cli import render

    if not found.counts:
        return ["The ledger is empty — add work with: git coop add todo TITLE"]
    lines: list[Styled | str] = []
    for kind, by_status in found.counts.items():
        parts = [
            join(f"{n} ", paint(status, render.status_role(status)))
            for status, n in sorted(by_status.items(), key=lambda entry: _order(entry[0]))
        ]
        lines.append(join(f"  {kind:<8} ", join(*parts, sep=", ")))
    if found.overdue:
        late = paint(f"{found.overdue} past their own due date", "overdue")
        lines.append(
            join(f"  {'overdue':<8} ", late, " — ", paint("git coop list --overdue", "hint"))
        )
    return lines


def _order(status: str) -> int:
    from gitcoop.domain.lifecycle import STATUSES

    return STATUSES.index(status) if status in STATUSES else len(STATUSES)


def _sharing_line(shared: Sharing) -> Styled:
    claims = ", decides claims" if shared.claims else ""
    if not shared.fetched:
        return join(
            f"Shared with {shared.remote}{claims}: not fetched yet — ",
            paint(f"git coop sync {shared.remote}", "hint"),
        )
    if not shared.ahead and not shared.behind:
        return Styled(f"Shared with {shared.remote}{claims}: up to date as of the last fetch")
    told = []
    if shared.ahead:
        told.append(f"{count_commits(shared.ahead)} ahead")
    if shared.behind:
        told.append(f"{count_commits(shared.behind)} behind")
    return join(
        f"Shared with {shared.remote}{claims}: {' and '.join(told)} as of the last fetch — ",
        paint(f"git coop sync{'' if shared.remote == 'origin' else ' ' + shared.remote}", "due"),
    )


def count_commits(n: int) -> str:
    from gitcoop.cli.wording import count

    return count(n, "commit")


def _unshared(remotes: list[str]) -> Styled:
    if not remotes:
        return Styled("Not shared: this repository has no git remote")
    remote = "origin" if "origin" in remotes else remotes[0]
    return join(
        "Not shared yet: ",
        paint(f"git coop remote setup {remote} && git coop sync {remote}", "hint"),
    )
