"""Replaying the journal: record now what a hook could not record then.

An entry is settled when it is recorded, or when a rule refuses it (the
refusal is reported, never forced: whoever wrote the trailer decides what to
do). It stays while the ledger cannot be written (lock busy, no ledger yet).
"""

from __future__ import annotations

from dataclasses import dataclass

from gitcoop.errors import CoopError
from gitcoop.service.commit_hooks import Outcome, record
from gitcoop.service.context import Context
from gitcoop.store import journal

REPLAY_LOCK_TIMEOUT = 2.0


@dataclass(frozen=True)
class Replayed:
    entry: str  # the journal entry's id
    outcomes: list[Outcome]


def pending(ctx: Context) -> int:
    return len(journal.entries(ctx.repo().common_dir))


def replay(ctx: Context, lock_timeout: float = REPLAY_LOCK_TIMEOUT) -> list[Replayed]:
    """Try every journal entry once, oldest first; remove those settled."""
    common_dir = ctx.repo().common_dir
    settled: set[str] = set()
    report: list[Replayed] = []
    for entry in journal.entries(common_dir):
        try:
            outcomes = record(ctx, entry, lock_timeout)
        except CoopError as error:
            report.append(Replayed(entry["id"], [Outcome("waiting", error.message)]))
            continue
        settled.add(entry["id"])
        report.append(Replayed(entry["id"], outcomes))
    journal.settle(common_dir, settled)
    return report


def report_lines(report: list[Replayed]) -> list[str]:
    """One line per outcome, as the journal's report on stderr."""
    lines: list[str] = []
    for replayed in report:
        for outcome in replayed.outcomes:
            if outcome.status == "refused":
                lines.append(
                    f"gitcoop: journal: not recorded: {outcome.text} — "
                    "record it by hand if it is still right"
                )
            elif outcome.status == "waiting":
                lines.append(f"gitcoop: journal: still waiting: {outcome.text}")
            else:
                lines.append(f"gitcoop: journal: {outcome.text}")
    return lines
