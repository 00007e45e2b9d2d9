"""The rules an item's plain data follows: the one place an item file is validated.

`checked(data)` gives an item's data exactly as `Item.to_data` writes it, or a
`RecordError` naming the first field that breaks a rule; `Item.from_data` builds
the records from what `fields(data)` gives. Every item file gitcoop writes is
already that data, so the rules are made cheap for a value as written: a cold
listing checks every file, where building the records and writing them back
cost ~100 us an item.

What is read leniently is the same as ever: absent lists and counts read as
empty and zero, the one `tag` of an item file written before items had several,
any truthy `parked`, an instant in any ISO 8601 form (written back in gitcoop's).
Unknown keys are dropped, and a queue's fields are checked on every item but
written only for queue items (kind `item`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gitcoop.domain.ids import ITEM_ID_RE
from gitcoop.domain.memo import Memo
from gitcoop.domain.timefmt import format_instant, parse_instant

# a record as the YAML files and --json hold it: mappings, lists, text, numbers, null
PlainData = dict[str, Any]
Rule = Callable[[Any, str], Any]  # (the value read, the field's name) -> the value written

PRIORITIES = range(5)  # 0 is the highest
DEFAULT_PRIORITY = 2


class RecordError(ValueError):
    """Plain data that does not make a valid record; the message names the field."""


# -- values --------------------------------------------------------------------------


def text(value: Any, name: str) -> str:
    if not isinstance(value, str) or not value:
        raise RecordError(f"{name} must be a non-empty string")
    return value


def maybe_text(value: Any, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise RecordError(f"{name} must be a string or null")
    return value


def count(value: Any, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise RecordError(f"{name} must be a non-negative integer")
    return value


def read_instant(value: Any, name: str) -> Any:
    """The `datetime` of an instant's text."""
    if not isinstance(value, str):
        raise RecordError(f"{name} must be an ISO 8601 string")
    try:
        return parse_instant(value)
    except ValueError as exc:
        raise RecordError(f"{name} is not an ISO 8601 instant: {value!r}") from exc


def instant(value: Any, name: str) -> str:
    """An instant's text as gitcoop writes it."""
    found = _instants.get(value) if type(value) is str else None
    if found is None:
        moment = read_instant(value, name)  # in UTC, to the second
        written = len(value) == 20 and value[19] == "Z" and value[:19] == moment.isoformat()[:19]
        found = _instants.keep(value, value if written else format_instant(moment))
    return found


_instants: Memo[str, str] = Memo()  # read -> written (an item repeats its own instants often)


def maybe_instant(value: Any, name: str) -> str | None:
    if value is None:
        return None
    found = _instants.get(value) if type(value) is str else None
    return instant(value, name) if found is None else found


def _is_mapping(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)  # a dict without the ABC's check


def _mapping(value: Any, _: str) -> dict[str, Any] | None:
    """A mapping is copied as it is; anything else reads as None (an empty one is written
    as None: `_written`)."""
    return dict(value) if _is_mapping(value) else None


def _flag(value: Any, _: str) -> bool:
    return bool(value)


_NONE = frozenset((type(None),))
# the types of value a rule gives back as they are, which `Fields` need not ask it about
_KEPT: dict[Rule, frozenset[type]] = {
    maybe_instant: _NONE,
    _mapping: _NONE,
    _flag: frozenset((bool,)),
}


# -- the fields of a mapping -----------------------------------------------------------

_STR = frozenset((str,))
_STR_OR_NONE = frozenset((str, type(None)))
_LIST_OR_NONE = frozenset((list, type(None)))


def _all_text(values: list[Any]) -> bool:
    """Whether every value is a string (their types as a set first: in C)."""
    return set(map(type, values)) <= _STR or all(isinstance(v, str) for v in values)


class Fields:
    """The rules of a mapping's fields, in order; `of(data)` gives each field's value as
    written, or RecordError naming the first field that breaks its rule. A rule is given
    the field's value and its name as shown, or the whole mapping (the fields `whole`
    names, whose rule reads more than its own key).

    Most fields are text, and as written. Those are checked at once (their types as a
    set, in C) and copied as they are, and the other fields taken one by one; if one
    text is not as written, every field is taken in order, so the same field is named.
    """

    def __init__(
        self, rules: tuple[tuple[str, Rule], ...], prefix: str, whole: Iterable[str] = ()
    ) -> None:
        self.order = tuple(name for name, _ in rules)
        self.texts = tuple(name for name, rule in rules if rule is text)
        self.maybe_texts = tuple(name for name, rule in rules if rule is maybe_text)
        self.rules = tuple((name, rule, prefix + name, name in whole) for name, rule in rules)
        self.others = tuple(
            (*r, _KEPT.get(r[1], frozenset()))
            for r in self.rules
            if r[1] is not text and r[1] is not maybe_text
        )

    def of(self, data: Mapping[str, Any]) -> PlainData:
        get = data.get
        texts = list(map(get, self.texts))
        if not (
            set(map(type, texts)) <= _STR
            and all(texts)
            and set(map(type, map(get, self.maybe_texts))) <= _STR_OR_NONE
        ):
            return {
                name: rule(data if whole else get(name), shown)
                for name, rule, shown, whole in self.rules
            }
        found = dict(zip(self.order, map(get, self.order)))  # noqa: B905 (the same tuple)
        for name, rule, shown, whole, kept in self.others:
            if whole:
                found[name] = rule(data, shown)
            elif type(found[name]) not in kept:  # else written as it is (None, a flag)
                found[name] = rule(found[name], shown)
        return found


# -- the parts of an item ------------------------------------------------------------

_OBLIGATION = Fields(
    (
        ("kind", text),
        ("holder", text),
        ("session", maybe_text),
        ("status", text),
        ("since", instant),
        ("due", maybe_instant),
        ("parked", _flag),
        ("escalated", _flag),
        ("reason", maybe_text),
        ("latest_report", _mapping),
        ("last_review", _mapping),
        ("disposition", maybe_text),
        ("sessions", lambda value, _: list(value or [])),
        ("for_owners", _mapping),
        ("resolved_by", maybe_text),
        ("resolved_at", maybe_instant),
        ("resolved_event", maybe_text),
    ),
    "obligation.",
)


def obligation(data: Any) -> PlainData:
    """An obligation's fields (DESIGN.md §5), or RecordError."""
    if not _is_mapping(data):
        raise RecordError("obligation must be a mapping or null")
    if data.get("status") not in ("pending", "resolved"):
        raise RecordError("obligation.status must be pending or resolved")
    sessions = data.get("sessions") or []
    if not isinstance(sessions, list) or not _all_text(sessions):
        raise RecordError("obligation.sessions must be a list of strings")
    return _OBLIGATION.of(data)


def _written(fields: PlainData | None) -> None:
    """An obligation's fields as `Obligation.to_data` writes them: no empty mapping."""
    if fields is not None:
        for name in ("latest_report", "last_review", "for_owners"):
            fields[name] = fields[name] or None


def evidence(data: Any) -> PlainData:
    if not _is_mapping(data):
        raise RecordError("evidence entries must be mappings")
    line = data.get("line")
    if line is not None:
        line = count(line, "evidence.line")
    return {
        "path": text(data.get("path"), "evidence.path"),
        "line": line,
        "quote": maybe_text(data.get("quote"), "evidence.quote"),
        "head": maybe_text(data.get("head"), "evidence.head"),
    }


def _entries(name: str, rules: tuple[tuple[str, Rule], ...]) -> Callable[[Any], PlainData]:
    """The check of a list's entries: a mapping each, each key by its rule."""
    refused = f"{name}s entries must be mappings"
    fields = Fields(rules, f"{name}.")

    def entry(data: Any) -> PlainData:
        if not _is_mapping(data):
            raise RecordError(refused)
        return fields.of(data)

    return entry


link = _entries("link", (("type", text), ("item", text), ("by", text), ("at", instant)))
takeover = _entries("takeover", (("holder", text), ("by", text), ("at", instant), ("event", text)))
_conflict_fields = _entries(
    "conflict", (("event", text), ("verb", text), ("actor", text), ("reason", text))
)


def conflict(data: Any) -> PlainData:
    """A conflict's data; `acknowledged` and `kept_out` are written only when true (older
    item files keep their bytes)."""
    found = _conflict_fields(data)
    for flag in ("acknowledged", "kept_out"):
        if data.get(flag) is True:
            found[flag] = True
    return found


def lease(data: Any) -> PlainData:
    if not _is_mapping(data):
        raise RecordError("lease must be a mapping or null")
    return {
        "by": text(data.get("by"), "lease.by"),
        "event": text(data.get("event"), "lease.event"),
        "since": instant(data.get("since"), "lease.since"),
        "until": instant(data.get("until"), "lease.until"),
    }


# -- an item -------------------------------------------------------------------------


def _tags(data: Mapping[str, Any], _: str) -> list[str]:
    """`tags`, or the one `tag` of an item file written before items had several."""
    tags = data.get("tags")
    if tags is None:
        tag = maybe_text(data.get("tag"), "tag")
        return [tag] if tag else []
    if not isinstance(tags, list) or not all(isinstance(t, str) and t for t in tags):
        raise RecordError("tags must be a list of non-empty strings")
    return list(tags)


def _priority(value: Any, _: str) -> int:
    if value is None:
        return DEFAULT_PRIORITY
    if not isinstance(value, int) or isinstance(value, bool) or value not in PRIORITIES:
        raise RecordError("priority must be a whole number from 0 to 4")
    return value


def _shas(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(c, str) and c for c in value):
        raise RecordError(f"{name} must be a list of commit shas")
    return list(value)


def _aliases(value: Any, name: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not value or not all(isinstance(a, str) for a in value):
        raise RecordError(f"{name} must be a non-empty list of text")
    return list(value)


def _previous(value: Any, _: str) -> PlainData | None:
    if value is None:
        return None
    if not _is_mapping(value):
        raise RecordError("previous_obligation must be a mapping or null")
    return obligation(value)


def _each(check: Callable[[Any], PlainData]) -> Rule:
    return lambda value, _: [check(entry) for entry in value] if value else []


def _current(value: Any, _: str) -> PlainData | None:
    return obligation(value) if value else None


def _lease(value: Any, _: str) -> PlainData | None:
    return None if value is None else lease(value)


_KEPT.update({_current: _NONE, _previous: _NONE, _lease: _NONE})


def _count_or_zero(data: Mapping[str, Any], name: str) -> int:
    return count(data.get(name, 0), name)


# Every field of an item, in the order `Item` declares them: the order they
# are checked in (the first field that breaks a rule is named) and written in.
_ITEM = Fields(
    (
        ("id", text),  # and an item id: `fields`
        ("kind", text),
        ("title", text),
        ("status", text),
        ("created_at", instant),
        ("created_by", text),
        ("version", _count_or_zero),
        ("body", maybe_text),
        ("tags", _tags),
        ("priority", _priority),
        ("due", maybe_instant),
        ("links", _each(link)),
        ("taken_by", maybe_text),
        ("taken_at", maybe_instant),
        ("session", maybe_text),
        ("closed_by", maybe_text),
        ("closed_at", maybe_instant),
        ("closed_note", maybe_text),
        ("result_summary", maybe_text),
        ("commit_sha", maybe_text),
        ("related_commits", _shas),
        ("aliases", _aliases),
        ("reason", maybe_text),
        ("obligation", _current),
        ("previous_obligation", _previous),
        ("conflicts", _each(conflict)),
        ("takeovers", _each(takeover)),
        # a queue's fields (QUEUE_FIELDS), written for queue items only
        ("source", maybe_text),
        ("evidence", _each(evidence)),
        ("order_key", maybe_text),
        ("attempts", _count_or_zero),
        ("last_failure", maybe_text),
        ("blocked_reason", maybe_text),
        ("duplicate_of", maybe_text),
        ("parent_id", maybe_text),
        ("lease", _lease),
    ),
    "",
    whole=("version", "tags", "attempts"),
)
QUEUE_FIELDS = (
    *("source", "evidence", "order_key", "attempts", "last_failure", "blocked_reason"),
    *("duplicate_of", "parent_id", "lease"),
)
_UNSET = ("due", "related_commits", "aliases")  # written only when set
_LISTS = ("evidence", "conflicts", "takeovers", "links")


def checked(data: Mapping[str, Any]) -> PlainData:
    """`data` as `Item.to_data` writes it, or RecordError naming what breaks a rule."""
    found = fields(data)
    if found["kind"] != "item":
        for name in QUEUE_FIELDS:
            del found[name]
    for name in _UNSET:
        if not found[name]:
            del found[name]
    _written(found["obligation"])
    _written(found["previous_obligation"])
    return found


_HEADING = Fields(
    (("id", text), ("title", text), ("version", _count_or_zero), ("taken_at", maybe_instant)),
    "",
    whole=("version",),
)


def heading(data: Mapping[str, Any]) -> PlainData:
    """The few fields a list of what items owe shows of each (`owed`), and how many
    conflicts it holds, as `fields` gives them (or RecordError): `fields` checks every
    field of an item, ~25 us; these take ~5."""
    found = _HEADING.of(data)
    if not ITEM_ID_RE.match(found["id"]):
        raise RecordError(f"id is not an item id: {found['id']!r}")
    conflicts = data.get("conflicts") or []
    if not isinstance(conflicts, list):
        raise RecordError("conflicts must be a list")
    found["conflicts"] = len(conflicts)
    return found


def fields(data: Mapping[str, Any]) -> PlainData:
    """Every field of the item `data` makes, as `checked` gives them (or RecordError): a
    queue's fields on any item, and those written only when set."""
    item_id = text(data.get("id"), "id")
    if not ITEM_ID_RE.match(item_id):
        raise RecordError(f"id is not an item id: {item_id!r}")
    current = data.get("obligation")
    if current is not None and not _is_mapping(current):
        raise RecordError("obligation must be a mapping or null")
    lists = list(map(data.get, _LISTS))
    if not set(map(type, lists)) <= _LIST_OR_NONE and not all(
        isinstance(value or [], list) for value in lists
    ):
        raise RecordError("evidence, conflicts, takeovers and links must be lists")
    return _ITEM.of(data)
