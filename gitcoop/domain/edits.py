"""The `edit` event: what a person shapes on any item, and the amendment of a close.

One verb, two kinds of field, each with its own rule:

- title, body, tags, priority, due (any item, any state, by anyone: they say
  what the work is, not who did it). `due` is the item's own deadline, an
  instant ("" clears it), apart from any obligation's due time. The event
  names the previous values; tags change as `tags_added` / `tags_removed`, so
  two people tagging one item offline both keep their tags after a merge.
- summary, commit: the amendment of a close, as every ledger wrote it before
  items could be shaped (`lifecycle.amend`: closed items only, by the closer,
  the holder at the close, an owner or --force). Those events fold exactly as
  they always did.

`plan` turns what was asked into the event to record: only what changes,
with the previous values, or None when nothing would (the ref does not move).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitcoop.domain import fields, lifecycle
from gitcoop.domain.lifecycle import AMENDABLE
from gitcoop.domain.records import Event, Item, Roles, replace
from gitcoop.domain.timefmt import format_instant, parse_instant
from gitcoop.errors import Refused

SHAPED = ("title", "body", "priority", "due")  # set outright; tags change by additions and removals
TAG_CHANGES = ("tags_added", "tags_removed")
IMPORTED = "imported"  # what an import last read of the item (domain/imported.as_imported)


def edit(item: Item | None, event: Event, roles: Roles) -> Item:
    assert item is not None
    shaped = _shaped(item, event)
    if any(event.arg(key) is not None for key in AMENDABLE):
        return lifecycle.amend(shaped, event, roles)
    named = (*SHAPED, *TAG_CHANGES, IMPORTED)
    if shaped is item and not any(event.arg(k) is not None for k in named):
        raise Refused(f"edit of {item.id} changes nothing: it names no field")
    return shaped


def _shaped(item: Item, event: Event) -> Item:
    """The item with the shaped fields of `event` applied, each checked against its bounds."""
    title, body, priority, due = (event.arg(key) for key in SHAPED)
    added, removed = (event.arg(key) or [] for key in TAG_CHANGES)
    problems = [
        fields.title_problem(title) if title is not None else None,
        fields.body_problem(body) if body is not None else None,
        fields.priority_problem(priority) if priority is not None else None,
        fields.due_problem(due) if due is not None and due != "" else None,
        fields.tags_problem(added),
    ]
    if not isinstance(removed, list) or not all(isinstance(t, str) for t in removed):
        problems.append("tags_removed must be a list of tags")
    after = item
    if title is not None:
        after = replace(after, title=title.strip())
    if body is not None:
        after = replace(after, body=body or None)  # an empty body clears it
    if priority is not None:
        after = replace(after, priority=priority)
    if due == "":
        after = replace(after, due=None)  # "" clears it
    elif due is not None and not problems[3]:
        after = replace(after, due=parse_instant(due))
    if added or removed:
        after = replace(after, tags=fields.retagged(item.tags, added, removed))
        if len(after.tags) > fields.TAGS_MAX:
            problems.append(f"an item has at most {fields.TAGS_MAX} tags")
    for problem in problems:
        if problem:
            raise Refused(f"edit of {item.id}: {problem}")
    return after


def plan(item: Item | None, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """What an edit request records: each changed field and its previous value; None if none.

    `args` may hold title, body ("" clears it), priority, due (an instant; "" clears
    it), `tags` to add and
    `untag` to remove, and `imported` (an import's record of what it read, kept as
    given: the next import compares with it). Amendments of a close are planned by `lifecycle.plan`.
    """
    if item is None:
        raise Refused("edit needs an item that exists")
    recorded: dict[str, Any] = {}
    due = format_instant(item.due) if item.due else ""
    current = {"title": item.title, "body": item.body or "", "priority": item.priority, "due": due}
    for key in SHAPED:
        value = args.get(key)
        if value is not None and value != current[key]:
            recorded[key] = value
            cleared = key in ("body", "due") and not current[key]  # recorded as None
            recorded[f"previous_{key}"] = None if cleared else current[key]
    added = sorted(set(args.get("tags") or []) - set(item.tags))
    removed = sorted(set(args.get("untag") or []) & set(item.tags))
    if added:
        recorded["tags_added"] = added
    if removed:
        recorded["tags_removed"] = removed
    if added or removed:
        recorded["previous_tags"] = list(item.tags)
    if isinstance(args.get(IMPORTED), Mapping):
        recorded[IMPORTED] = dict(args[IMPORTED])
    return recorded or None


HANDLERS = {"edit": edit}
