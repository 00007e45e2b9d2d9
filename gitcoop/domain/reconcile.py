"""Telling people what lost when their events joined after someone else's."""

from __future__ import annotations

from gitcoop.domain.lifecycle import held
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Conflict, Item
from gitcoop.domain.timefmt import human_instant


@record_type
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
            text = (  # the reason is the loser's refusal, with advice for them: not repeated
                f"{conflict.actor}'s {conflict.verb} of {label} lost to yours, which joined the "
                f"ledger first — nothing for you to do: yours stands and {conflict.actor} is told"
            )
            found.append(Notice(item.id, conflict.event, text, False, label))
    return found


def _lost(item: Item, label: str, conflict: Conflict) -> str:
    holder, since = item.taken_by, item.taken_at
    if holder and since and holder != conflict.actor and held(item):
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
