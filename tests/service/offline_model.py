"""A model of the todo rules for the multi-clone property test (DESIGN.md §1, §2, §6).

It knows only what a user sees: who holds a todo, who closed it, its summary,
and which events the replay refused. Events are replayed in the order of
the history (docs/hardening.md, H1): a list holds them as they joined, each
sync's unpublished events joining after the remote's, in (Lamport clock,
wall-clock time, event id) order among themselves (`joined`), so the model,
not the code under test, names the winner of every conflict. `ask` is the write
side: what one command records on a clone's current state, or that it is
refused (exit 1), or that it changes nothing (exit 0, no event).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime

OWNER = "ann@example.com"  # the clone that ran `init`


@dataclass(frozen=True)
class Ev:
    """One recorded event, as much of it as the rules read."""

    id: str
    item: str
    clock: int
    at: datetime
    actor: str
    verb: str  # take | takeover | done | edit | release
    force: bool = False
    summary: str | None = None

    @property
    def order(self) -> tuple[int, datetime, str]:
        return (self.clock, self.at, self.id)


@dataclass(frozen=True)
class Todo:
    status: str = "open"  # open | taken | done
    taken_by: str | None = None
    closed_by: str | None = None
    summary: str | None = None
    conflicts: tuple[str, ...] = ()  # ids of the events the replay refused


def apply(todo: Todo, ev: Ev) -> Todo | None:
    """The todo after `ev`, or None when a rule refuses it."""
    held = todo.status == "taken"
    if ev.verb in ("take", "takeover"):
        if todo.status == "done":
            return None  # terminal rows are never re-taken
        if held and todo.taken_by != ev.actor and not (ev.force or ev.verb == "takeover"):
            return None  # already taken by someone else
        return replace(todo, status="taken", taken_by=ev.actor)
    if ev.verb == "done":
        if todo.status == "done":
            return None  # the first close is the record
        if held and todo.taken_by != ev.actor:
            return None  # only the taker finishes a take
        return replace(
            todo,
            status="done",
            closed_by=ev.actor,
            taken_by=todo.taken_by or ev.actor,
            summary=ev.summary,
        )
    if ev.verb == "edit":
        if todo.status != "done":
            return None  # only a closed item's record is amended
        if ev.actor not in (todo.closed_by, todo.taken_by, OWNER):
            return None  # by its closer, its holder at the close, or an owner
        return replace(todo, summary=ev.summary)
    assert ev.verb == "release"
    if not held or todo.taken_by != ev.actor:
        return None  # nothing to release, or someone else's take
    return replace(todo, status="open", taken_by=None)


def joined(remote: list[Ev], local: list[Ev]) -> list[Ev]:
    """The history after a sync: the remote's events, then this clone's the remote lacks,
    in (clock, time, id) order: they join as one merge."""
    held = {e.id for e in remote}
    return [*remote, *sorted((e for e in local if e.id not in held), key=lambda e: e.order)]


def fold(events: list[Ev]) -> Todo:
    """The events applied in the order the list holds them: the history's."""
    todo = Todo()
    for ev in events:
        after = apply(todo, ev)
        todo = after if after is not None else replace(todo, conflicts=(*todo.conflicts, ev.id))
    return todo


@dataclass(frozen=True)
class Asked:
    """What a command should do: its exit code, and the event it records (verb, force)."""

    code: int
    verb: str | None = None
    force: bool = False


def ask(todo: Todo, command: str, actor: str, summary: str | None) -> Asked:
    """`take`, `force` (take --force), `done` (--summary), `release` on the clone's state."""
    held_by_me = todo.status == "taken" and todo.taken_by == actor
    if command in ("take", "force") and held_by_me:
        return Asked(0, "take", command == "force")  # a re-take refreshes taken_at
    if command == "force" and todo.status == "taken":
        return _checked(todo, "takeover", True, actor, None)
    if command in ("take", "force"):
        return _checked(todo, "take", command == "force", actor, None)
    if command == "done" and todo.status == "done":
        if summary == todo.summary:
            return Asked(0)  # an identical second close writes nothing
        return _checked(todo, "edit", False, actor, summary)  # an amendment
    return _checked(todo, command, False, actor, summary)


def _checked(todo: Todo, verb: str, force: bool, actor: str, summary: str | None) -> Asked:
    probe = Ev("ev-probe", "", 0, datetime.min, actor, verb, force, summary)
    return Asked(1) if apply(todo, probe) is None else Asked(0, verb, force)
