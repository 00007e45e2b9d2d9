"""Frozen records: events, obligations, items, roles; and their plain-data form.

The plain-data form (dicts of str/int/bool/None/lists) is what the YAML files
and the --json output hold; field names are the same in both.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import field, fields
from datetime import datetime
from typing import Any, TypeVar

from gitcoop.domain import itemdata
from gitcoop.domain.ids import EVENT_ID_RE, ITEM_ID_RE, EventId, ItemId, content_event_id
from gitcoop.domain.itemdata import DEFAULT_PRIORITY as DEFAULT_PRIORITY
from gitcoop.domain.itemdata import PRIORITIES as PRIORITIES
from gitcoop.domain.itemdata import QUEUE_FIELDS as QUEUE_FIELDS
from gitcoop.domain.itemdata import PlainData as PlainData
from gitcoop.domain.itemdata import RecordError as RecordError
from gitcoop.domain.memo import Memo
from gitcoop.domain.record_type import record_type
from gitcoop.domain.settings import SettingError, checked
from gitcoop.domain.timefmt import format_instant, parse_instant

EVENT_FIELDS = ("id", "item", "clock", "at", "actor", "session", "verb")
_EVENT_FIELDS = frozenset(EVENT_FIELDS)

Record = TypeVar("Record")
_FIELD_NAMES: dict[type, frozenset[str]] = {}


def replace(record: Record, /, **changes: Any) -> Record:
    """`dataclasses.replace` for plain records, without running `__init__` again.

    A record's `__init__` only stores its fields; running it for a 38-field item
    on every event of a fold cost 13 us a time, most of folding an item, against
    under 2 us for a copy of the fields with the changes applied. Anything that
    is not such a plain dataclass (`__post_init__`, slots, fields outside
    `__init__`), or a change naming no field, goes to `dataclasses.replace`.
    """
    kind = type(record)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = _plain_fields(kind)
    if not names:
        return dataclasses.replace(record, **changes)  # type: ignore[type-var]
    state = record.__dict__.copy()  # exactly the fields: `__init__` stores them so
    state.update(changes)
    if len(state) != len(names):  # a change naming no field adds a key
        return dataclasses.replace(record, **changes)  # type: ignore[type-var]
    copy: Record = object.__new__(kind)
    object.__setattr__(copy, "__dict__", state)
    return copy


def _plain_fields(kind: type) -> frozenset[str]:
    if not dataclasses.is_dataclass(kind) or hasattr(kind, "__post_init__"):
        return frozenset()
    if "__slots__" in vars(kind) or not all(f.init for f in fields(kind)):
        return frozenset()
    return frozenset(f.name for f in fields(kind))


def canonical(value: Any) -> bytes:
    """One byte string per value, and one value per byte string: how an event's content is
    hashed into its id (ledger format 2). Typed and length-prefixed, as bencode is, so no
    text can be read as another and nothing depends on a library's escaping: `s3:abc`,
    `i12e`, `t`, `f`, `n`, `l…e`, and a mapping `d…e` with its keys in sorted order."""
    out: list[bytes] = []
    _canonical(value, out)
    return b"".join(out)


def _canonical(value: Any, out: list[bytes]) -> None:
    kind = type(value)
    if isinstance(value, str):  # in one formatted append: a first sync hashes every event
        raw = value.encode()
        out.append(b"s%d:%s" % (len(raw), raw))
    elif kind is dict:
        try:
            keys = sorted(value)
        except Exception:  # text keys always sort: these are not all text
            raise RecordError(f"{kind.__name__} is not a value an event holds") from None
        _mapping(value, keys, out)
    elif kind is int:
        out.append(b"i%de" % value)
    elif value is True or value is False:
        out.append(b"t" if value else b"f")
    elif isinstance(value, int):
        out += (b"i", str(value).encode(), b"e")
    elif value is None:
        out.append(b"n")
    elif isinstance(value, list | tuple):
        out.append(b"l")
        for element in value:
            _canonical(element, out)
        out.append(b"e")
    elif isinstance(value, Mapping) and all(isinstance(key, str) for key in value):
        _mapping(value, sorted(value), out)
    else:
        raise RecordError(f"{kind.__name__} is not a value an event holds")


def _mapping(value: Mapping[Any, Any], keys: list[Any], out: list[bytes]) -> None:
    """A mapping, its keys in sorted order (each text, a short one spelt once a process:
    events repeat a few dozen keys), text, whole numbers and null in line."""
    out.append(b"d")
    for key in keys:
        spelt = _KEYS.get(key) if type(key) is str else None
        if spelt is None:
            if not isinstance(key, str):
                raise RecordError(f"{type(value).__name__} is not a value an event holds")
            raw = key.encode()
            spelt = b"s%d:%s" % (len(raw), raw)
            if type(key) is str and len(key) <= KEY_SPELT:
                _KEYS.keep(key, spelt)
        out.append(spelt)
        element = value[key]
        kind = type(element)
        if kind is str:
            raw = element.encode()
            out.append(b"s%d:%s" % (len(raw), raw))
        elif kind is int:
            out.append(b"i%de" % element)
        elif element is None:
            out.append(b"n")
        else:
            _canonical(element, out)
    out.append(b"e")


KEY_SPELT = 128  # the longest key whose spelling is remembered
_KEYS: Memo[str, bytes] = Memo()  # a mapping's keys by their canonical spelling


def _event_ids(value: Any, name: str) -> tuple[EventId, ...]:
    """A sorted list of distinct event ids (None: none)."""
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(v, str) and EVENT_ID_RE.match(v) for v in value
    ):
        raise RecordError(f"{name} must be a list of event ids")
    if value != sorted(set(value)):
        raise RecordError(f"{name} must be sorted, each event once")
    return tuple(EventId(v) for v in value)


def _time_or_none(value: datetime | None) -> str | None:
    return None if value is None else format_instant(value)


@record_type
class Event:
    """One transition as it was asked; never changed once written."""

    id: EventId
    item: ItemId
    clock: int
    at: datetime
    actor: str
    session: str | None
    verb: str
    args: Mapping[str, Any] = field(default_factory=dict)

    @property
    def order(self) -> tuple[int, datetime, str]:
        """(clock, at, event id): equal clocks go to the earlier wall-clock time, then the id."""
        return (self.clock, self.at, self.id)

    def arg(self, name: str) -> Any:
        return self.args.get(name)

    def content(self) -> bytes:
        """Every field but the id, in one canonical form: what a content id hashes."""
        data = self.to_data()
        del data["id"]
        return canonical(data)

    def content_id(self) -> EventId:
        """The id its content gives (ledger format 2)."""
        return content_event_id(self.content())

    def named_by_content(self) -> Event:
        """This event with the id its content gives (ledger format 2)."""
        return replace(self, id=self.content_id())

    def to_data(self) -> PlainData:
        data: PlainData = dict(self.args)
        data.update(
            id=self.id,
            item=self.item,
            clock=self.clock,
            at=format_instant(self.at),
            actor=self.actor,
            session=self.session,
            verb=self.verb,
        )
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Event:
        event_id = itemdata.text(data.get("id"), "id")
        item_id = itemdata.text(data.get("item"), "item")
        if not EVENT_ID_RE.match(event_id):
            raise RecordError(f"id is not an event id: {event_id!r}")
        if not ITEM_ID_RE.match(item_id):
            raise RecordError(f"item is not an item id: {item_id!r}")
        return cls(
            id=EventId(event_id),
            item=ItemId(item_id),
            clock=itemdata.count(data.get("clock"), "clock"),
            at=itemdata.read_instant(data.get("at"), "at"),
            actor=itemdata.text(data.get("actor"), "actor"),
            session=itemdata.maybe_text(data.get("session"), "session"),
            verb=itemdata.text(data.get("verb"), "verb"),
            args={k: v for k, v in data.items() if k not in _EVENT_FIELDS},
        )


@record_type
class Obligation:
    """What a take owes until a disposition resolves it (DESIGN.md §5)."""

    kind: str  # outcome | legacy_binding
    holder: str
    session: str | None
    status: str  # pending | resolved
    since: datetime
    due: datetime | None
    parked: bool = False
    escalated: bool = False
    reason: str | None = None
    latest_report: Mapping[str, Any] | None = None
    last_review: Mapping[str, Any] | None = None
    disposition: str | None = None
    sessions: tuple[str, ...] = ()  # every session the holder worked it in, first to last
    for_owners: Mapping[str, Any] | None = None  # an escalate or park no owner has acted on
    resolved_by: str | None = None  # who made the disposition (a takeover: the new holder)
    resolved_at: datetime | None = None
    resolved_event: str | None = None  # the id of the event that made the disposition

    @property
    def pending(self) -> bool:
        return self.status == "pending"

    def to_data(self) -> PlainData:
        return {
            "kind": self.kind,
            "holder": self.holder,
            "session": self.session,
            "status": self.status,
            "since": format_instant(self.since),
            "due": _time_or_none(self.due),
            "parked": self.parked,
            "escalated": self.escalated,
            "reason": self.reason,
            "latest_report": dict(self.latest_report) if self.latest_report else None,
            "last_review": dict(self.last_review) if self.last_review else None,
            "disposition": self.disposition,
            "sessions": list(self.sessions),
            "for_owners": dict(self.for_owners) if self.for_owners else None,
            "resolved_by": self.resolved_by,
            "resolved_at": _time_or_none(self.resolved_at),
            "resolved_event": self.resolved_event,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Obligation:
        return cls.made(itemdata.obligation(data))

    @classmethod
    def made(cls, data: PlainData) -> Obligation:
        """The record of data `itemdata.obligation` gave."""
        made = {**data, "since": parse_instant(data["since"]), "due": _time(data["due"])}
        made["sessions"] = tuple(data["sessions"])
        made["resolved_at"] = _time(data["resolved_at"])
        return cls(**made)


@record_type
class Evidence:
    path: str
    line: int | None = None
    quote: str | None = None
    head: str | None = None

    def to_data(self) -> PlainData:
        return {"path": self.path, "line": self.line, "quote": self.quote, "head": self.head}

    @classmethod
    def from_data(cls, data: Any) -> Evidence:
        return cls(**itemdata.evidence(data))


@record_type
class Lease:
    """Who is verifying a queue item, since when, and until when that claim holds."""

    by: str
    event: str  # the verify event that took it; its verdict names it
    since: datetime
    until: datetime

    def to_data(self) -> PlainData:
        return {
            "by": self.by,
            "event": self.event,
            "since": format_instant(self.since),
            "until": format_instant(self.until),
        }

    @classmethod
    def from_data(cls, data: Any) -> Lease:
        return cls.made(itemdata.lease(data))

    @classmethod
    def made(cls, data: PlainData) -> Lease:
        """The record of data `itemdata.lease` gave."""
        since, until = parse_instant(data["since"]), parse_instant(data["until"])
        return cls(**{**data, "since": since, "until": until})


@record_type
class Conflict:
    """An event the rules refused when it was replayed after a merge."""

    event: EventId
    verb: str
    actor: str
    reason: str
    acknowledged: bool = False  # its actor has said they know it lost (an `ack` event)
    kept_out: bool = False  # never applied: its commit was not signed by its actor's key

    def to_data(self) -> PlainData:
        data: PlainData = {
            "event": self.event,
            "verb": self.verb,
            "actor": self.actor,
            "reason": self.reason,
        }
        if self.acknowledged:  # written only when true: older item files keep their bytes
            data["acknowledged"] = True
        if self.kept_out:
            data["kept_out"] = True
        return data

    @classmethod
    def from_data(cls, data: Any) -> Conflict:
        return cls(**itemdata.conflict(data))


@record_type
class Takeover:
    """A take of `holder`'s work by `by`: shown to `holder` until they acknowledge it."""

    holder: str
    by: str
    at: datetime
    event: EventId

    def to_data(self) -> PlainData:
        return {
            "holder": self.holder,
            "by": self.by,
            "at": format_instant(self.at),
            "event": self.event,
        }

    @classmethod
    def from_data(cls, data: Any) -> Takeover:
        return cls.made(itemdata.takeover(data))

    @classmethod
    def made(cls, data: PlainData) -> Takeover:
        """The record of data `itemdata.takeover` gave."""
        return cls(**{**data, "at": parse_instant(data["at"])})


@record_type
class Link:
    """A dependency an item holds: it is blocked by, parent of, discovered from or related
    to `item` (domain/dependencies.py says which item holds which link)."""

    type: str
    item: str
    by: str
    at: datetime

    def to_data(self) -> PlainData:
        return {"type": self.type, "item": self.item, "by": self.by, "at": format_instant(self.at)}

    @classmethod
    def from_data(cls, data: Any) -> Link:
        return cls.made(itemdata.link(data))

    @classmethod
    def made(cls, data: PlainData) -> Link:
        """The record of data `itemdata.link` gave."""
        return cls(**{**data, "at": parse_instant(data["at"])})


@record_type
class Item:
    """The current state of one item: exactly the fold of its events."""

    id: ItemId
    kind: str
    title: str
    status: str
    created_at: datetime
    created_by: str
    version: int = 0
    body: str | None = None
    tags: tuple[str, ...] = ()
    priority: int = DEFAULT_PRIORITY  # 0 (highest) .. 4
    due: datetime | None = None  # its own deadline (not an obligation's): absent while unset
    links: tuple[Link, ...] = ()  # the dependencies this item holds (domain/dependencies.py)
    taken_by: str | None = None
    taken_at: datetime | None = None
    session: str | None = None
    closed_by: str | None = None
    closed_at: datetime | None = None
    closed_note: str | None = None  # why closed_at is not the closing event's own time
    result_summary: str | None = None
    commit_sha: str | None = None
    related_commits: tuple[str, ...] = ()  # later commits naming it (a cherry-pick's copy)
    aliases: tuple[str, ...] = ()  # its ids where it was imported from (domain/aliases.py)
    reason: str | None = None
    obligation: Obligation | None = None
    previous_obligation: Obligation | None = None  # the one the current binding replaced
    conflicts: tuple[Conflict, ...] = ()
    takeovers: tuple[Takeover, ...] = ()  # takeovers their previous holder has not acknowledged
    # queue items only
    source: str | None = None
    evidence: tuple[Evidence, ...] = ()
    order_key: str | None = None
    attempts: int = 0
    last_failure: str | None = None
    blocked_reason: str | None = None
    duplicate_of: str | None = None
    parent_id: str | None = None
    lease: Lease | None = None  # while verifying

    @property
    def owes(self) -> bool:
        return self.obligation is not None and self.obligation.pending

    def to_data(self) -> PlainData:
        data: PlainData = {}
        state = self.__dict__  # the fields, in their order (a frozen record adds nothing else)
        queue = self.kind == "item"
        for name in _ITEM_FIELDS:
            if not queue and name in QUEUE_FIELDS:
                continue
            value = state[name]
            kind = type(value)
            if value is None or kind is str or kind is int or kind is bool:
                if value is None and name in _ABSENT_WHEN_UNSET:
                    continue  # items written before it existed keep their bytes
                data[name] = value
            elif name in _LISTED_WHEN_SET:
                if value:  # absent when empty: items written before it existed stay the same
                    data[name] = list(value)
            elif isinstance(value, datetime):
                data[name] = format_instant(value)
            elif isinstance(value, Obligation | Lease):
                data[name] = value.to_data()
            elif name == "tags":
                data[name] = list(value)
            elif isinstance(value, tuple):
                data[name] = [entry.to_data() for entry in value]
            else:  # what a rule stored as it came (the records do not check it)
                data[name] = value
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Item:
        """The item `data` makes (the rules are `itemdata`'s), or RecordError."""
        found = itemdata.fields(data)
        for name in _INSTANTS:
            found[name] = _time(found[name])
        for name in _TEXTS:
            found[name] = tuple(found[name])
        for name, made in _PARTS:
            found[name] = tuple(made(entry) for entry in found[name])
        for name in ("obligation", "previous_obligation"):
            if found[name] is not None:
                found[name] = Obligation.made(found[name])
        if found["lease"] is not None:
            found["lease"] = Lease.made(found["lease"])
        return cls(**found)


_ITEM_FIELDS = tuple(f.name for f in fields(Item))
_LISTED_WHEN_SET = ("related_commits", "aliases")
_ABSENT_WHEN_UNSET = frozenset(("due",))
_INSTANTS = ("created_at", "due", "taken_at", "closed_at")
_TEXTS = ("tags", "related_commits", "aliases")
_PARTS = (
    ("links", Link.made),
    ("conflicts", Conflict.from_data),
    ("takeovers", Takeover.made),
    ("evidence", Evidence.from_data),
)


def _time(text: str | None) -> datetime | None:
    """The instant of a text `itemdata` gave (the text is remembered: ~0.1 us)."""
    return None if text is None else parse_instant(text)


@record_type
class Roles:
    owners: tuple[str, ...] = ()
    chiefs: tuple[str, ...] = ()

    def is_owner(self, actor: str) -> bool:
        return actor in self.owners

    def can_review(self, actor: str) -> bool:
        return actor in self.owners or actor in self.chiefs

    def to_data(self) -> PlainData:
        return {"owners": list(self.owners), "chiefs": list(self.chiefs)}

    @classmethod
    def from_data(cls, data: Any) -> Roles:
        if data is None:
            return cls()
        if not isinstance(data, Mapping):
            raise RecordError("roles must be a mapping")
        owners = data.get("owners") or []
        chiefs = data.get("chiefs") or []
        if not all(isinstance(x, str) for x in [*owners, *chiefs]):
            raise RecordError("roles.owners and roles.chiefs must be lists of strings")
        return cls(owners=tuple(owners), chiefs=tuple(chiefs))


FORMAT_VERSION = 2  # what this gitcoop writes
FORMATS = (1, 2)  # what it reads: a format-1 ledger upgrades on its first write


@record_type
class LedgerConfig:
    """coop.yaml: the format version, the roles, settings, the keys and the Lamport clock.

    From format 2 it is the whole of the ledger's own state (docs/hardening.md, H1):
    the state a commit joins is read from its first parent alone. Format 1 kept no
    keys (they were folded from the ledger's events) and listed the events a merge
    kept out for want of a signature; that list is read, never written."""

    roles: Roles = Roles()
    settings: Mapping[str, Any] = field(default_factory=dict)
    clock: int = 0
    format: int = FORMAT_VERSION
    # the key registry (domain/keys.Keys as data): {"registered": {who: [key, ...]},
    # "proposed": {...}}; format 2 only
    keys: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    # the ledger's own events refused where they joined (format 2), as an item's are
    conflicts: tuple[Conflict, ...] = ()
    kept_out: tuple[EventId, ...] = ()  # format 1 only

    def to_data(self) -> PlainData:
        data: PlainData = {
            "format": self.format,
            "roles": self.roles.to_data(),
            "settings": dict(self.settings),
            "clock": self.clock,
        }
        if self.format >= 2:
            data["keys"] = {
                part: {who: list(keys) for who, keys in self.keys.get(part, {}).items()}
                for part in KEY_PARTS
            }
            if self.conflicts:  # written only when there are some
                data["conflicts"] = [c.to_data() for c in self.conflicts]
        elif self.kept_out:  # format 1 wrote it only when there were some
            data["kept_out"] = list(self.kept_out)
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> LedgerConfig:
        version = data.get("format")
        if version not in FORMATS or isinstance(version, bool):
            raise RecordError(
                f"ledger format {version!r} is not supported (this gitcoop reads formats "
                f"{' and '.join(map(str, FORMATS))}) — upgrade gitcoop"
            )
        try:
            settings = checked(data.get("settings"))
        except SettingError as bad:
            raise RecordError(str(bad)) from None
        if version >= 2 and "kept_out" in data:
            raise RecordError("kept_out is a format-1 list; format 2 keeps no such list")
        return cls(
            roles=Roles.from_data(data.get("roles")),
            settings=settings,
            clock=itemdata.count(data.get("clock", 0), "clock"),
            format=version,
            keys=_keys(data.get("keys")) if version >= 2 else {},
            conflicts=_conflicts(data.get("conflicts")) if version >= 2 else (),
            kept_out=_event_ids(data.get("kept_out"), "kept_out") if version == 1 else (),
        )


KEY_PARTS = ("registered", "proposed")


def _conflicts(value: Any) -> tuple[Conflict, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise RecordError("conflicts must be a list")
    return tuple(Conflict.from_data(c) for c in value)


def _keys(value: Any) -> dict[str, dict[str, tuple[str, ...]]]:
    """The key registry's data: each part a mapping of a person to a list of keys."""
    if value is None:
        return {part: {} for part in KEY_PARTS}
    if not isinstance(value, Mapping) or set(value) - set(KEY_PARTS):
        raise RecordError(f"keys must be a mapping of {' and '.join(KEY_PARTS)}")
    found: dict[str, dict[str, tuple[str, ...]]] = {}
    for part in KEY_PARTS:
        table = value.get(part) or {}
        if not isinstance(table, Mapping) or not all(
            isinstance(who, str)
            and isinstance(keys, list)
            and keys
            and all(isinstance(k, str) for k in keys)
            for who, keys in table.items()
        ):
            raise RecordError(f"keys.{part} must map each person to a list of keys")
        found[part] = {who: tuple(table[who]) for who in sorted(table)}
    return found
