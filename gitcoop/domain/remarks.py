"""What a write says beyond its transition: sentences for the person who asked.

Pure, like the rules: from the item before, what was asked, what the rules
recorded (`lifecycle.plan`'s answer) and the item after.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitcoop.domain import obligations
from gitcoop.domain.lifecycle import AMENDABLE, CLOSED
from gitcoop.domain.records import Item

Planned = tuple[str, Mapping[str, Any]] | None
CLOSING = ("done", "close", "report")
UNCHANGED = {
    "ack": "nothing to acknowledge: no takeover of your work or lost event of yours waits",
}


def explain(
    before: Item | None, verb: str, args: Mapping[str, Any], planned: Planned, after: Item | None
) -> tuple[str, ...]:
    """What the one asking should know: what a second close did not change, what an
    amendment changed, what the blocked rule capped, a close dated before its take."""
    said: list[str] = []
    if before is not None and verb in CLOSING and before.status in CLOSED:
        said += _reason_kept(before, args)
    if planned is None and verb in UNCHANGED:
        said.append(UNCHANGED[verb])
    if planned is None and verb == "report" and args.get("status") == "unblocked":
        said.append("it is not blocked: there is no blocked report to clear")
    if planned is not None and planned[0] == "edit":
        said += [_amended(key, planned[1]) for key in AMENDABLE if key in planned[1]]
        said += _reshaped(planned[1])
    if planned is None and verb == "edit":
        said.append("it already reads that way")
    if planned is None and verb == "dep":
        said.append("that link is already there")
    if planned is not None and planned[0] == "review" and before and before.obligation:
        capped = obligations.cap_note(
            before.obligation, planned[1].get("decision", ""), planned[1].get("delay_seconds")
        )
        said += [capped] if capped else []
    if after is not None and after.closed_note and (before is None or not before.closed_note):
        said.append(after.closed_note)
    return tuple(said)


def way_forward(item: Item, label: str) -> str:
    """What a refusal on a settled item adds: it stays the record (seed 000), and the
    work goes on in a new item linked to it."""
    return f"; to carry the work on: git coop add {item.kind} TITLE --follows {label}"


def _reason_kept(before: Item, args: Mapping[str, Any]) -> list[str]:
    reason = args.get("reason")
    if not reason or reason == before.reason:
        return []
    kept = f" (it says {before.reason!r})" if before.reason else ""
    return [
        f"the reason was not changed{kept}: the first close is the record, by {before.closed_by}"
    ]


def _amended(key: str, edit: Mapping[str, Any]) -> str:
    def shown(value: Any) -> str:
        if value is None:
            return "none"
        return repr(value) if key == "summary" else str(value)

    return f"amended {key}: {shown(edit.get(f'previous_{key}'))} -> {shown(edit[key])}"


def _reshaped(edit: Mapping[str, Any]) -> list[str]:
    said = []
    for key in ("title", "priority"):
        if key in edit:
            said.append(f"{key}: {edit.get(f'previous_{key}')!r} -> {edit[key]!r}")
    if "body" in edit:
        said.append("body: cleared" if not edit["body"] else "body: changed")
    if "due" in edit:
        said.append(f"due: {edit.get('previous_due') or 'none'} -> {edit['due'] or 'none'}")
    changes = [f"+{t}" for t in edit.get("tags_added") or ()]
    changes += [f"-{t}" for t in edit.get("tags_removed") or ()]
    if changes:
        said.append(f"tags: {' '.join(changes)}")
    return said
