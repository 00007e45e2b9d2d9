"""Format 2 names an event by its content: one id names one event (docs/hardening.md, H5)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain.ids import (
    ALPHABET,
    CONTENT_ID_LENGTH,
    EVENT_ID_RE,
    ItemId,
    content_event_id,
    is_content_id,
)
from gitcoop.domain.records import Event, EventId, RecordError, canonical

values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=12,
)


@given(values, values)
def test_the_canonical_form_names_one_value(a: Any, b: Any) -> None:
    """Equal bytes for equal values only: no value's text can be read as another's."""
    assert (canonical(a) == canonical(b)) == (_same(a, b))


def _same(a: Any, b: Any) -> bool:
    """Equality as the ledger sees it: True is not 1, and a list is a list."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def test_the_canonical_form_is_fixed() -> None:
    """The bytes every clone hashes: a change here renames every event written from now on."""
    data = {"b": [1, None, True], "a": "é", "c": {"x": False}}
    assert canonical(data) == b"ds1:as2:\xc3\xa9s1:bli1entes1:cds1:xfee"


def test_an_event_is_named_by_its_content() -> None:
    event = Event(
        id=EventId("ev-000000000000"),
        item=ItemId("td-000000000001"),
        clock=3,
        at=datetime(2026, 11, 29, 10, tzinfo=UTC),
        actor="alice@example.com",
        session=None,
        verb="note",
        args={"text": "hello"},
    )
    named = event.named_by_content()
    assert is_content_id(named.id) and EVENT_ID_RE.match(named.id)
    assert named.named_by_content() == named  # the id is not part of what it hashes
    other = Event(**{**vars(event), "args": {"text": "hello!"}}).named_by_content()
    assert other.id != named.id
    assert named.id == content_event_id(named.content())


@pytest.mark.parametrize("odd", [1.5, {1: "x"}, [{"a": 1.0}], {"a": {2: None}}, b"bytes"])
def test_what_no_event_holds_is_refused(odd: Any) -> None:
    with pytest.raises(RecordError):
        canonical(odd)


def test_an_id_is_its_hash_s_top_130_bits_in_the_alphabet() -> None:
    for content in (b"", b"x", b"ds1:as1:be", bytes(range(256))):
        value = int.from_bytes(hashlib.sha256(content).digest()[:17], "big") >> 6
        spelt = "".join(ALPHABET[(value >> (5 * n)) & 31] for n in range(CONTENT_ID_LENGTH))
        assert content_event_id(content) == f"ev-{spelt}"


def test_any_mapping_and_any_text_spell_as_a_dict_and_a_str_do() -> None:
    """Spelt by exact type first (a first sync hashes every event), by kind after."""
    from types import MappingProxyType

    class Text(str):
        pass

    plain = {"a": "x", "b": [1, {"c": True}]}
    assert canonical(MappingProxyType(plain)) == canonical(plain)
    assert canonical({Text("a"): Text("x"), "b": [1, {"c": True}]}) == canonical(plain)
    assert canonical(Text("é")) == canonical("é") == b"s2:\xc3\xa9"
    with pytest.raises(RecordError):
        canonical({"a": 1, 2: "b"})  # keys of two types: not sortable, not all text


def _spelt(value: Any) -> bytes:
    """The canonical form as its docstring defines it, spelt the plain way."""
    if isinstance(value, str):
        raw = value.encode()
        return b"s%d:%s" % (len(raw), raw)
    if isinstance(value, bool):
        return b"t" if value else b"f"
    if isinstance(value, int):
        return b"i%de" % value
    if value is None:
        return b"n"
    if isinstance(value, list | tuple):
        return b"l" + b"".join(_spelt(v) for v in value) + b"e"
    return b"d" + b"".join(_spelt(k) + _spelt(value[k]) for k in sorted(value)) + b"e"


long_keys = st.text(min_size=120, max_size=140)  # about where a key's spelling is remembered


@given(values, st.dictionaries(st.text() | long_keys, values, max_size=6))
def test_the_canonical_form_is_its_definition(a: Any, b: dict[str, Any]) -> None:
    """Keys spelt once a process and scalars in line spell as the definition does, the
    first time and every time after."""
    for value in (a, b, {"k": b}, [b, a]):
        assert canonical(value) == _spelt(value)
        assert canonical(value) == _spelt(value)


field_names = st.sampled_from(["id", "item", "clock", "at", "actor", "session", "verb"])
arguments = st.dictionaries(st.text(max_size=12) | field_names, values, max_size=6)


@given(
    arguments,
    st.integers(min_value=0, max_value=10**12),
    st.datetimes(timezones=st.just(UTC)),
    st.text(min_size=1, max_size=20),
    st.none() | st.text(max_size=20),
    st.text(min_size=1, max_size=10),
)
def test_an_events_content_is_its_data_without_the_id(
    args: dict[str, Any], clock: int, at: datetime, actor: str, session: str | None, verb: str
) -> None:
    """`Event.content` is `to_data()` without its id, in the canonical form, whatever the
    arguments hold (one named as a field, or `id`, included)."""
    event = Event(
        id=EventId("ev-000000000000"),
        item=ItemId("td-000000000001"),
        clock=clock,
        at=at,
        actor=actor,
        session=session,
        verb=verb,
        args=args,
    )
    data = event.to_data()
    del data["id"]
    assert event.content() == canonical(data) == _spelt(data)
    assert event.content_id() == content_event_id(canonical(data))
