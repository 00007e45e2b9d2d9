"""The queue's event verbs: verify, verdict, pick, finish, edit_item, split, settle.

Each is a handler `(item, event, roles) -> item` that `domain/rulebook.py`
dispatches to, so writing and replaying after a merge use one rule. `plan`
says what a request records (an identical repeat of a finish: nothing), and
`tidy` what every event leaves behind on a queue item, whichever rule ran.

A verifying item carries a lease: who verifies it, since when, until when.
Another verification is refused while the lease holds, judged by the event's
own time, so a replay after a merge decides it the same way everywhere. A
lease only ever decides whether a new verification may start: nothing
changes state because time passed, and it never touches work that is taken.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from gitcoop.domain import lifecycle, obligations
from gitcoop.domain.queue import EDITABLE_STATES, cached_at, invalidated
from gitcoop.domain.records import Event, Evidence, Item, Lease, Obligation, Roles, replace
from gitcoop.domain.timefmt import human_instant
from gitcoop.errors import Refused

VERIFIABLE = ("draft", "verifying", "ready")
SPLITTABLE = ("split", "draft", "verifying", "ready", "blocked")
OUTCOMES = ("done", "closed", "blocked", "ready")
LEASE_DEFAULT = timedelta(minutes=6)  # the default verifier cap and a minute to write back
LEASE_MAX = timedelta(hours=25)  # the longest verifier cap and an hour
KEEPS_BLOCKED_REASON = ("blocked", "in_progress")  # in progress: an older blocked report
VERDICT_STATUS = {
    "confirmed": "ready",
    "amended": "ready",
    "stale": "stale",
    "duplicate": "duplicate",
    "blocked": "blocked",
    "too-big": "split",
    "unclear": "draft",
}


def _queue_item(item: Item | None, verb: str) -> Item:
    assert item is not None
    if item.kind != "item":
        raise Refused(f"{item.kind} {item.id} is not a queue item — {verb} is for queue items")
    return item


def _text(event: Event, name: str, needed_by: str) -> str:
    value = event.arg(name)
    if not isinstance(value, str) or not value.strip():
        raise Refused(f"{needed_by} needs --{name.replace('_', '-')}")
    return value.strip()


def verify(item: Item | None, event: Event, roles: Roles) -> Item:
    """Mark an item as being verified, before the verifier is called; it takes a lease."""
    item = _queue_item(item, "verify")
    if item.status not in VERIFIABLE:
        raise Refused(f"item {item.id} is {item.status} — only draft or ready items are verified")
    held = item.lease
    if item.status == "verifying" and held is not None and event.at < held.until:
        raise Refused(
            f"item {item.id} is being verified by {held.by} since "
            f"{human_instant(held.since)} — wait for its verdict, or verify it again after "
            f"{human_instant(held.until)}, when its lease ends",
            holder=held.by,
        )
    lease = Lease(event.actor, event.id, event.at, event.at + _lease_length(event))
    return replace(item, status="verifying", lease=lease)


def _lease_length(event: Event) -> timedelta:
    seconds = event.arg("lease_seconds")
    if seconds is None:
        return LEASE_DEFAULT
    if not isinstance(seconds, int) or isinstance(seconds, bool) or seconds < 1:
        raise Refused("lease_seconds must be a whole number of seconds, at least 1")
    return min(timedelta(seconds=seconds), LEASE_MAX)


def verdict(item: Item | None, event: Event, roles: Roles) -> Item:
    """Apply a parsed verdict to an item that is being verified, by the verification holding it."""
    item = _queue_item(item, "verdict")
    word = event.arg("verdict")
    if item.status != "verifying":
        raise Refused(f"item {item.id} is {item.status}, no longer being verified")
    if word not in VERDICT_STATUS:
        raise Refused(f"unknown verdict {word!r}")
    taken = event.arg("lease")
    if taken is not None and item.lease is not None and taken != item.lease.event:
        raise Refused(
            f"item {item.id} is being verified again (by {item.lease.by}) — "
            "this verdict belongs to an earlier verification"
        )
    status = VERDICT_STATUS[word]
    reason = event.arg("reason")
    after = replace(
        item, status=status, reason=reason, blocked_reason=None, duplicate_of=None, lease=None
    )
    if status == "ready":
        cited = tuple(Evidence.from_data(e) for e in event.arg("evidence") or [])
        if not cited:
            raise Refused(f"a {word} verdict must cite evidence")
        title = event.arg("amended_title") if word == "amended" else item.title
        if not isinstance(title, str) or not title.strip():
            raise Refused("an amended verdict needs an amended title")
        return replace(after, title=title.strip(), evidence=cached_at(cited, event.arg("head")))
    after = replace(after, evidence=invalidated(item.evidence))
    if word == "duplicate":
        return replace(after, duplicate_of=event.arg("duplicate_of"))
    if word == "blocked":
        return replace(after, blocked_reason=reason)
    return after


def pick(item: Item | None, event: Event, roles: Roles) -> Item:
    """A pick is a take: bound to the picker with an outcome owed, in this event."""
    item = _queue_item(item, "pick")
    if item.status != "ready":
        raise Refused(f"item {item.id} is {item.status} — only ready items are picked")
    evidence = item.evidence
    if event.arg("head"):
        evidence = cached_at(evidence, event.arg("head"))  # reused: now known good here
    bound = obligations.bind_taker(
        item, event.actor, event.session, event.at, "retaken", status="in_progress"
    )
    return replace(bound, evidence=evidence, blocked_reason=None)


def finish(item: Item | None, event: Event, roles: Roles) -> Item:
    """End a round: done, closed, blocked (a report; stays bound) or ready (try again)."""
    item = _queue_item(item, "finish")
    outcome = event.arg("outcome")
    if outcome not in OUTCOMES:
        raise Refused(f"unknown outcome {outcome!r}: use one of {', '.join(OUTCOMES)}")
    if not lifecycle.held(item):
        raise Refused(f"item {item.id} is {item.status}, not in progress — nothing to finish")
    if item.taken_by != event.actor and not event.arg("force"):
        raise Refused(
            f"item {item.id} is picked by {item.taken_by} — only they finish it; "
            "--force to finish it anyway",
            holder=item.taken_by,
        )
    assert item.obligation is not None
    if outcome == "blocked":
        return _blocked(item, item.obligation, event)
    if outcome == "ready":
        return _again(item, item.obligation, event)
    commit = _text(event, "commit", "finish done") if outcome == "done" else None
    why = _text(event, "reason", "finish closed") if outcome == "closed" else None
    return replace(
        item,
        status=outcome,
        closed_by=event.actor,
        closed_at=event.at,
        commit_sha=commit,
        reason=why,
        obligation=obligations.resolve(item.obligation, outcome),
    )


def _blocked(item: Item, owed: Obligation, event: Event) -> Item:
    """A finish blocked: a report on the obligation, which stays bound."""
    reason = _text(event, "reason", "finish blocked")
    report = obligations.report_blocked(owed, event.actor, reason, event.at)
    # the state moves only for events that say so: one written before the blocked
    # state held picked work folds as it did then (the item stayed in progress)
    status = "blocked" if event.arg("status") == "blocked" else item.status
    return replace(item, status=status, obligation=report, blocked_reason=reason)


def _again(item: Item, owed: Obligation, event: Event) -> Item:
    """A finish ready: released, to be tried again, its evidence to be checked again."""
    failure = _text(event, "failure", "finish ready")
    return replace(
        item,
        status="ready",
        attempts=item.attempts + 1,
        last_failure=failure,
        blocked_reason=None,
        taken_by=None,
        taken_at=None,
        session=None,
        evidence=invalidated(item.evidence),
        obligation=obligations.resolve(owed, "released"),
    )


def edit_item(item: Item | None, event: Event, roles: Roles) -> Item:
    """A person's edit: a title, an order key, a state among ready, blocked, closed."""
    item = _queue_item(item, "edit")
    if item.status in ("done", "closed"):
        raise Refused(f"item {item.id} is {item.status} — the first close is the record")
    after = item
    title: Any = event.arg("title")
    if title is not None:
        after = replace(after, title=_text(event, "title", "edit"))
    if event.arg("order_key") is not None:
        after = replace(after, order_key=_text(event, "order_key", "edit"))
    status = event.arg("status")
    if status is None:
        return after
    if status not in EDITABLE_STATES:
        raise Refused(f"edit sets a state among {', '.join(EDITABLE_STATES)}, not {status!r}")
    _guard_held(item, "its state moves")
    if item.status == "split":
        raise Refused(f"item {item.id} is split — its state moves through its children")
    reason = event.arg("reason")
    discarded = replace(after, evidence=invalidated(item.evidence))
    if status == "blocked":
        reason = _text(event, "reason", "edit --state blocked")
        return replace(discarded, status="blocked", blocked_reason=reason, reason=reason)
    if status == "closed":
        return replace(
            discarded, status="closed", closed_by=event.actor, closed_at=event.at, reason=reason
        )
    return replace(after, status="ready", blocked_reason=None, duplicate_of=None, reason=reason)


def _guard_held(item: Item, what: str) -> None:
    """Picked work, blocked or not, moves only through its holder or an owner's review."""
    if lifecycle.held(item):
        raise Refused(
            f"item {item.id} is {item.status}, held by {item.taken_by} — {what} only through "
            f"its holder (git coop finish {item.id} OUTCOME) or an owner's review "
            f"(git coop review {item.id} release|close --reason R)",
            holder=item.taken_by,
        )


def split(item: Item | None, event: Event, roles: Roles) -> Item:
    """The parent of new child drafts; it closes when they are all settled."""
    item = _queue_item(item, "split")
    _guard_held(item, "it is split")
    if item.status not in SPLITTABLE:
        raise Refused(f"item {item.id} is {item.status} — only unpicked, open items are split")
    children = event.arg("children")
    if not isinstance(children, list) or len(children) < 2:
        raise Refused("split needs at least two children: --into TITLE --into TITLE")
    return replace(item, status="split", evidence=invalidated(item.evidence))


def settle(item: Item | None, event: Event, roles: Roles) -> Item:
    """Close a split parent once every child is settled."""
    item = _queue_item(item, "settle")
    if item.status != "split":
        raise Refused(f"item {item.id} is {item.status}, not split — nothing to settle")
    return replace(
        item,
        status="closed",
        closed_by=event.actor,
        closed_at=event.at,
        reason=event.arg("reason") or "all children settled",
    )


# -- what a request records, and what every event leaves ---------------------------


def plan(item: Item | None, verb: str, args: Mapping[str, Any]) -> dict[str, Any] | None:
    """The arguments to record for a queue verb, or None when it would change nothing.

    A finish whose outcome the item already records exactly (the same commit,
    reason or failure) is a repeat: nothing is written, as for a second done.
    """
    if verb != "finish" or item is None or item.kind != "item":
        return dict(args)
    if _repeats(item, args):
        return None
    if args.get("outcome") == "blocked":  # the item moves to the blocked state, still held
        return {**args, "status": "blocked"}
    return dict(args)


def _repeats(item: Item, args: Mapping[str, Any]) -> bool:
    outcome = args.get("outcome")
    if outcome == "done":
        return item.status == "done" and item.commit_sha == args.get("commit")
    if outcome == "closed":
        return item.status == "closed" and item.reason == args.get("reason")
    if outcome == "ready":
        failed = item.status == "ready" and item.taken_by is None
        return failed and item.last_failure == args.get("failure")
    if outcome == "blocked":
        reported = item.obligation is not None and obligations.is_blocked(item.obligation)
        same = item.blocked_reason == args.get("reason")
        return lifecycle.held(item) and reported and same
    return False


def tidy(before: Item | None, event: Event, after: Item) -> Item:
    """What no queue item keeps: a blocked reason once it is no longer blocked, a void lease.

    A lease ends with its verdict, and with any other change to the item
    while it is verified (an edit, a split): the verdict on the old item
    will not be written, so the next pass may verify it at once.
    """
    if after.kind != "item":
        return after
    if after.status not in KEEPS_BLOCKED_REASON and after.blocked_reason is not None:
        after = replace(after, blocked_reason=None)
    changed_under = before is not None and event.verb not in ("verify", "verdict")
    if after.lease is not None and (after.status != "verifying" or changed_under):
        after = replace(after, lease=None)
    return after


HANDLERS = {
    "verify": verify,
    "verdict": verdict,
    "pick": pick,
    "finish": finish,
    "edit_item": edit_item,
    "split": split,
    "settle": settle,
}
