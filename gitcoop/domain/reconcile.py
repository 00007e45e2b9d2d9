"""The pure parts of merging two ledgers: their configs, and telling people what lost.

Everything here is symmetric in its two inputs, so the result depends only on
what the two sides hold, never on which side ran the merge.
"""

from __future__ import annotations

from gitcoop.domain.frozen import frozen
from gitcoop.domain.records import Conflict, Item, Roles
from gitcoop.domain.timefmt import human_instant


def merge_roles(a: Roles, b: Roles) -> Roles:
    """The union of both sides' roles; sorted when they differ, so the order is symmetric."""
    if a == b:
        return a
    return Roles(
        owners=tuple(sorted({*a.owners, *b.owners})),
        chiefs=tuple(sorted({*a.chiefs, *b.chiefs})),
    )


def same_roles(a: Roles, b: Roles) -> bool:
    """Whether the rules see the same people (order does not matter to them)."""
    return set(a.owners) == set(b.owners) and set(a.chiefs) == set(b.chiefs)


@frozen
class Notice:
    """A conflict told to one person: what lost, to whom, and why."""

    item: str
    event: str
    text: str
    mine: bool  # the actor's own event lost (otherwise the actor won against it)
    label: str = ""  # the item's short id, for messages


def notices(item: Item, label: str, new: list[Conflict], actor: str) -> list[Notice]:
    """The conflicts among `new` that touch `actor`: their event lost, or they hold the item."""
    winner = item.taken_by or item.closed_by
    found = []
    for conflict in new:
        if conflict.kept_out:
            continue  # written in someone's name, not by them: told as kept out (sync)
        if conflict.actor == actor:
            found.append(Notice(item.id, conflict.event, _lost(item, label, conflict), True, label))
        elif winner == actor:
            text = (
                f"{conflict.actor}'s {conflict.verb} of {label} lost to you: "
                f"{conflict.reason.replace(item.id, label)}"
            )
            found.append(Notice(item.id, conflict.event, text, False, label))
    return found


def _lost(item: Item, label: str, conflict: Conflict) -> str:
    holder, since = item.taken_by, item.taken_at
    if holder and since and holder != conflict.actor and item.status in ("taken", "in_progress"):
        return (
            f"your {conflict.verb} of {label} lost to {holder}, who took it at "
            f"{human_instant(since)} — an owner can settle it: git coop resolve {label} "
            f"{conflict.event} --apply|--dismiss --reason R"
        )
    closer = item.closed_by
    if closer and item.closed_at and closer != conflict.actor:
        return (
            f"your {conflict.verb} of {label} lost to {closer}, who made it {item.status} at "
            f"{human_instant(item.closed_at)} — an owner can settle it: git coop resolve "
            f"{label} {conflict.event} --apply|--dismiss --reason R"
        )
    return f"your {conflict.verb} of {label} was refused on merge: " + conflict.reason.replace(
        item.id, label
    )
