"""Whether an item file's data is already exactly what `Item.to_data` writes.

Every item file gitcoop writes is `codec.dump(item.to_data())`, so reading one
back gives data that `Item.from_data(data).to_data()` returns unchanged. Building
the frozen records to find that out cost ~100 us per item, most of a cold
listing once the line reader got fast. `canonical(data)` checks the same rules
directly on the plain data (~15 us): True only when `from_data` would accept it
and `to_data` would give it back as it is; anything else answers False and goes
through the records, which accept, refuse or rewrite it as before. A property
test holds the two to each other on real items and on items mutated at random.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from gitcoop.domain.ids import ITEM_ID_RE
from gitcoop.domain.patterns import lazy
from gitcoop.domain.records import PRIORITIES

_INSTANT = lazy(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z")

_OPTIONAL_TEXT = frozenset(
    ("body", "taken_by", "session", "closed_by", "closed_note", "result_summary")
) | frozenset(("commit_sha", "reason"))
_QUEUE_TEXT = ("source", "order_key", "last_failure", "blocked_reason", "duplicate_of", "parent_id")
_COMMON_KEYS = (
    frozenset(
        (
            *("id", "kind", "title", "status", "created_at", "created_by", "version", "tags"),
            *("priority", "links", "taken_at", "closed_at", "obligation", "previous_obligation"),
            *("conflicts", "takeovers"),
        )
    )
    | _OPTIONAL_TEXT
)
_QUEUE_KEYS = frozenset((*_QUEUE_TEXT, "evidence", "attempts", "lease"))
_ITEM_KEYS = _COMMON_KEYS | _QUEUE_KEYS
_LISTED_WHEN_SET = frozenset(("related_commits", "aliases"))  # absent while empty
_INSTANT_WHEN_SET = frozenset(("due",))  # absent while unset

_OBLIGATION_KEYS = frozenset(
    (
        *("kind", "holder", "session", "status", "since", "due", "parked", "escalated"),
        *("reason", "latest_report", "last_review", "disposition", "sessions", "for_owners"),
        *("resolved_by", "resolved_at", "resolved_event"),
    )
)
_OBLIGATION_TEXT = ("session", "reason", "disposition", "resolved_by", "resolved_event")
_LINK_KEYS = frozenset(("type", "item", "by", "at"))
_CONFLICT_KEYS = frozenset(("event", "verb", "actor", "reason"))
_ACKNOWLEDGED = _CONFLICT_KEYS | {"acknowledged"}
_TAKEOVER_KEYS = frozenset(("holder", "by", "at", "event"))
_EVIDENCE_KEYS = frozenset(("path", "line", "quote", "head"))
_LEASE_KEYS = frozenset(("by", "event", "since", "until"))


def canonical(data: dict[str, Any]) -> bool:
    """True when `Item.from_data(data).to_data() == data`, with no record built."""
    try:
        return _item(data)
    except (TypeError, ValueError, KeyError):  # a value of a kind no rule expects
        return False


def _item(data: dict[str, Any]) -> bool:
    keys = data.keys()
    queue = data.get("kind") == "item"
    expected = _ITEM_KEYS if queue else _COMMON_KEYS
    listed = _LISTED_WHEN_SET & keys
    for name in listed:
        values = data[name]
        if not (type(values) is list and values and all(_text(v) for v in values)):
            return False
    if "due" in keys:
        if not _instant(data["due"]):
            return False
        listed = listed | _INSTANT_WHEN_SET
    if keys != (expected | listed if listed else expected):
        return False
    item_id = data["id"]
    if not (_text(item_id) and ITEM_ID_RE.match(item_id)):
        return False
    if not all(_text(data[k]) for k in ("kind", "title", "status", "created_by")):
        return False
    if not all(_maybe_text(data[k]) for k in _OPTIONAL_TEXT):
        return False
    if not (_instant(data["created_at"]) and _maybe_instant(data["taken_at"])):
        return False
    if not (_maybe_instant(data["closed_at"]) and _count(data["version"])):
        return False
    priority = data["priority"]
    if not (type(priority) is int and priority in PRIORITIES):
        return False
    tags = data["tags"]
    if not (type(tags) is list and all(_text(t) for t in tags)):
        return False
    if not all(_entries(data[k], check) for k, check in _LISTS):
        return False
    obligation = data["obligation"]
    if obligation is not None and not (obligation and _obligation(obligation)):
        return False
    previous = data["previous_obligation"]
    if previous is not None and not _obligation(previous):
        return False
    return not queue or _queue(data)


def _queue(data: dict[str, Any]) -> bool:
    if not all(_maybe_text(data[k]) for k in _QUEUE_TEXT):
        return False
    if not (_count(data["attempts"]) and _entries(data["evidence"], _evidence)):
        return False
    lease = data["lease"]
    return lease is None or _lease(lease)


def _obligation(data: Any) -> bool:
    if type(data) is not dict or data.keys() != _OBLIGATION_KEYS:
        return False
    if data["status"] not in ("pending", "resolved"):
        return False
    if not (_text(data["kind"]) and _text(data["holder"])):
        return False
    if not all(_maybe_text(data[k]) for k in _OBLIGATION_TEXT):
        return False
    if not (_instant(data["since"]) and _maybe_instant(data["due"])):
        return False
    if not (_maybe_instant(data["resolved_at"]) and type(data["parked"]) is bool):
        return False
    if type(data["escalated"]) is not bool:
        return False
    # a mapping is copied as it is; anything else reads as None, and an empty one writes as None
    if not all(_full_mapping_or_none(data[k]) for k in ("latest_report", "last_review")):
        return False
    sessions = data["sessions"]
    return (
        _full_mapping_or_none(data["for_owners"])
        and type(sessions) is list
        and all(type(s) is str for s in sessions)
    )


def _link(data: Any) -> bool:
    return (
        type(data) is dict
        and data.keys() == _LINK_KEYS
        and _text(data["type"])
        and _text(data["item"])
        and _text(data["by"])
        and _instant(data["at"])
    )


def _conflict(data: Any) -> bool:
    if type(data) is not dict:
        return False
    keys = data.keys()
    if keys != _CONFLICT_KEYS and not (keys == _ACKNOWLEDGED and data["acknowledged"] is True):
        return False
    return all(_text(data[k]) for k in _CONFLICT_KEYS)


def _takeover(data: Any) -> bool:
    return (
        type(data) is dict
        and data.keys() == _TAKEOVER_KEYS
        and _text(data["holder"])
        and _text(data["by"])
        and _text(data["event"])
        and _instant(data["at"])
    )


def _evidence(data: Any) -> bool:
    if type(data) is not dict or data.keys() != _EVIDENCE_KEYS:
        return False
    line = data["line"]
    return (
        _text(data["path"])
        and (line is None or _count(line))
        and _maybe_text(data["quote"])
        and _maybe_text(data["head"])
    )


def _lease(data: Any) -> bool:
    return (
        type(data) is dict
        and data.keys() == _LEASE_KEYS
        and _text(data["by"])
        and _text(data["event"])
        and _instant(data["since"])
        and _instant(data["until"])
    )


_LISTS = (("links", _link), ("conflicts", _conflict), ("takeovers", _takeover))


def _entries(value: Any, check: Any) -> bool:
    return type(value) is list and all(check(entry) for entry in value)


def _text(value: Any) -> bool:
    return type(value) is str and value != ""


def _maybe_text(value: Any) -> bool:
    return value is None or type(value) is str


def _count(value: Any) -> bool:
    return type(value) is int and value >= 0


def _full_mapping_or_none(value: Any) -> bool:
    return value is None or (type(value) is dict and len(value) > 0)


_instants: set[str] = set()  # instants already found good (an item repeats its own often)


def _instant(value: Any) -> bool:
    """An instant as `format_instant` writes it (so it reads back the same): a year from
    1970 (`parse_instant` reads up to 9999, all a four-digit year holds)."""
    if type(value) is not str:
        return False
    if value in _instants:
        return True
    if not _INSTANT.fullmatch(value) or int(value[:4]) < 1970:
        return False
    datetime.fromisoformat(value[:-1])  # a day or hour that does not exist: ValueError
    if len(_instants) >= 100_000:
        _instants.clear()
    _instants.add(value)
    return True


def _maybe_instant(value: Any) -> bool:
    return value is None or _instant(value)
