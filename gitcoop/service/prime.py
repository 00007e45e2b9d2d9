"""What an agent needs to know as it starts: who it is, what it holds and owes, what is ready.

Gathered from the ledger in one read of the read cache (`cli/prime_commands.py`
renders it as Markdown); everything else the primer says is the loop's
contract, which does not depend on the ledger.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

from gitcoop.domain import obligations, readiness
from gitcoop.domain.lifecycle import bound
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant, human_instant
from gitcoop.errors import Refused
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.dependencies import open_index
from gitcoop.store.fast.cache_rows import Row

READY_SHOWN = 5
HELD_SHOWN = 10


@record_type
class Line:
    label: str
    item: Item
    note: str = ""  # what it owes, how long it has been held, what it waits on


@record_type
class Primer:
    actor: str
    session: str | None
    roles: tuple[str, ...]  # owner, chief
    held: list[Line]
    held_total: int
    owed: list[Line]  # pending obligations of the actor's that need attention now
    takeovers: list[Line]  # the actor's work someone took over, not yet acknowledged
    ready: list[Line]
    ready_total: int
    blocked_total: int  # startable work held back by an unsettled blocker


def primer(ctx: Context) -> Primer:
    snapshot = read_ledger(ctx)
    actor = ctx.who(snapshot.repo)
    roles = snapshot.config.roles
    found = open_index(snapshot)
    graph = found.graph
    held: list[Line] = []
    owed: list[Line] = []
    taken_over: list[Line] = []
    candidates: dict[str, tuple[Row, readiness.Candidate]] = {}
    for row in found.rows:
        s = row.summary
        if readiness.startable(s.kind, s.status):
            candidate = readiness.Candidate(
                s.id, s.kind, s.priority, s.created_at, s.order_key, s.due
            )
            candidates[s.id] = (row, candidate)
        mine = bound(s.status, s.taken_by) and s.taken_by == actor  # blocked and held too
        if not mine and actor not in s.notified:
            continue
        item = Item.from_data(row.data())
        if actor in s.notified:
            taken_over.append(Line(row.label, item, _taken_over(item, actor)))
        if mine:
            held.append(Line(row.label, item, _owes(item, ctx)))
            if obligations.pressing(item, ctx.now, actor, roles):
                owed.append(Line(row.label, item, _owes(item, ctx)))
    now = format_instant(ctx.now)
    listed = readiness.ready((c for _, c in candidates.values()), graph, now)
    ready = [_ready_line(candidates[e.id][0], e, now) for e in listed[:READY_SHOWN]]
    held.sort(key=lambda line: (line.item.taken_at or line.item.created_at, line.item.id))
    named = (("owner", roles.is_owner(actor)), ("chief", actor in roles.chiefs))
    return Primer(
        actor,
        ctx.session,
        tuple(role for role, holds in named if holds),
        held[:HELD_SHOWN],
        len(held),
        owed,
        taken_over,
        ready,
        len(listed),
        len(candidates) - len(listed),
    )


def _ready_line(row: Row, entry: readiness.Candidate, now: str) -> Line:
    """Its priority, and its own due date: overdue work heads its priority, and says so."""
    item = Item.from_data(row.data())
    if item.due is None:
        return Line(row.label, item, f"P{entry.priority}")
    when = "overdue since" if readiness.overdue(entry.due, now) else "due"
    return Line(row.label, item, f"P{entry.priority}, {when} {human_instant(item.due)}")


def _owes(item: Item, ctx: Context) -> str:
    ob = item.obligation
    if ob is None or not ob.pending:
        return ""
    if ob.due is None:
        return obligations.worded(ob.kind)
    when = "overdue" if ob.due <= ctx.now else "due"
    blocked = ", blocked" if obligations.is_blocked(ob) else ""
    due = ob.due.strftime("%Y-%m-%d %H:%M")
    return f"{obligations.worded(ob.kind)}, {when} {due} UTC{blocked}"


def _taken_over(item: Item, actor: str) -> str:
    notices = obligations.takeovers_for(item, actor)
    by = ", ".join(sorted({t.by for t in notices}))
    return f"taken over by {by}"


STARTS_WITHIN = 30.0  # seconds a `--version` may take before a command counts as broken


def installed_commands() -> list[list[str]]:
    """Ways to start this gitcoop, best first: the `git-coop` script beside the interpreter
    running now (the installation in use), then `python -m gitcoop` with that interpreter.
    Both absolute: an agent's hook runs without the PATH this command had."""
    script = os.path.join(os.path.dirname(os.path.abspath(sys.executable)), "git-coop")
    return [[script], [os.path.abspath(sys.executable), "-m", "gitcoop"]]


def starting_command(candidates: Sequence[Sequence[str]] | None = None) -> list[str]:
    """The first of `candidates` (`installed_commands`) that starts: `--version` exits 0."""
    tried = []
    for command in candidates if candidates is not None else installed_commands():
        try:
            done = subprocess.run(
                [*command, "--version"],
                capture_output=True,
                stdin=subprocess.DEVNULL,
                timeout=STARTS_WITHIN,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired):
            done = None
        if done is not None and done.returncode == 0:
            return list(command)
        tried.append(" ".join(command))
    raise Refused(
        f"no gitcoop command here starts (tried: {'; '.join(tried)}) — install gitcoop "
        "(pip install gitcoop) and run git coop prime --hook again"
    )
