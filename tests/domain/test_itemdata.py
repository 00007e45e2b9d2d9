"""`itemdata` is the one place an item's data is checked: what the records write reads back
unchanged, anything else reads as the records write it, or is refused naming its first
broken field."""

from __future__ import annotations

from copy import deepcopy
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.domain import itemdata
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.records import (
    Conflict,
    Evidence,
    Item,
    Lease,
    Link,
    Obligation,
    RecordError,
    Takeover,
    replace,
)
from tests.domain.builders import added, typed

instants = st.datetimes(
    min_value=datetime(1970, 1, 2), max_value=datetime(9999, 12, 30), timezones=st.just(UTC)
).map(lambda at: at.replace(microsecond=0))
texts = st.text(min_size=1, max_size=6)
maybe_texts = st.none() | st.text(max_size=6)
maybe_instants = st.none() | instants
mappings = st.none() | st.dictionaries(texts, texts, min_size=1, max_size=2)
obligations = st.builds(
    Obligation,
    kind=texts,
    holder=texts,
    session=maybe_texts,
    status=st.sampled_from(["pending", "resolved"]),
    since=instants,
    due=maybe_instants,
    parked=st.booleans(),
    escalated=st.booleans(),
    reason=maybe_texts,
    latest_report=mappings,
    last_review=mappings,
    disposition=maybe_texts,
    sessions=st.lists(st.text(max_size=4), max_size=2).map(tuple),
    for_owners=mappings,
    resolved_by=maybe_texts,
    resolved_at=maybe_instants,
    resolved_event=maybe_texts,
)


def tuples(strategy: Any) -> Any:
    return st.lists(strategy, max_size=2).map(tuple)


items = st.builds(
    Item,
    id=st.from_regex(r"(td|rq|it)-[0-9a-hjkmnp-tv-z]{12}", fullmatch=True).map(ItemId),
    kind=st.sampled_from(["todo", "request", "item", "other"]),
    title=texts,
    status=texts,
    created_at=instants,
    created_by=texts,
    version=st.integers(0, 50),
    body=maybe_texts,
    tags=tuples(texts),
    priority=st.integers(0, 4),
    due=maybe_instants,
    links=tuples(st.builds(Link, type=texts, item=texts, by=texts, at=instants)),
    taken_by=maybe_texts,
    taken_at=maybe_instants,
    session=maybe_texts,
    closed_by=maybe_texts,
    closed_at=maybe_instants,
    closed_note=maybe_texts,
    result_summary=maybe_texts,
    commit_sha=maybe_texts,
    related_commits=tuples(texts),
    reason=maybe_texts,
    obligation=st.none() | obligations,
    previous_obligation=st.none() | obligations,
    conflicts=tuples(
        st.builds(
            Conflict,
            event=texts.map(EventId),
            verb=texts,
            actor=texts,
            reason=texts,
            acknowledged=st.booleans(),
        )
    ),
    takeovers=tuples(
        st.builds(Takeover, holder=texts, by=texts, at=instants, event=texts.map(EventId))
    ),
    source=maybe_texts,
    evidence=tuples(
        st.builds(
            Evidence,
            path=texts,
            line=st.none() | st.integers(0, 10**6),
            quote=maybe_texts,
            head=maybe_texts,
        )
    ),
    order_key=maybe_texts,
    attempts=st.integers(0, 5),
    last_failure=maybe_texts,
    blocked_reason=maybe_texts,
    duplicate_of=maybe_texts,
    parent_id=maybe_texts,
    lease=st.none() | st.builds(Lease, by=texts, event=texts, since=instants, until=instants),
)

ODD_VALUES = [
    None,
    "",
    "x",
    0,
    -1,
    3,
    7,
    True,
    False,
    1.5,
    [],
    {},
    ["a"],
    [""],
    [{}],
    [1],
    {"a": 1},
    "2026-11-29T10:00:00Z",
    "2026-13-01T10:00:00Z",
    "2026-02-30T10:00:00Z",
    "1969-12-31T23:59:59Z",
    "2026-11-29 10:00:00",
    "2026-11-29T10:00:00+00:00",
    "pending",
    "resolved",
    "td-7k2m9x4q1c8v",
]


def places(data: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key and list index in `data`, nested ones too."""
    found = []
    if isinstance(data, dict):
        for key, value in data.items():
            found.append((*path, key))
            found += places(value, (*path, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.append((*path, index))
            found += places(value, (*path, index))
    return found


def variants(data: dict[str, Any]) -> Any:
    """`data` with one change: each place set to each odd value, dropped, or given a sibling."""
    for where in places(data):
        for action in ("drop", *range(len(ODD_VALUES)), "add"):
            copy = deepcopy(data)
            *parents, last = where
            holder: Any = copy
            for step in parents:
                holder = holder[step]
            if action == "drop":
                del holder[last]
            elif action == "add":
                if not isinstance(holder, dict):
                    continue
                holder["acknowledged" if "verb" in holder else "extra"] = True
            else:
                holder[last] = ODD_VALUES[action]
            yield copy
    for name in ("tag", "related_commits", "due", "extra"):
        for value in ODD_VALUES:
            yield {**deepcopy(data), name: value}


@settings(max_examples=300)
@given(items)
def test_what_the_records_write_reads_back_unchanged(item: Item) -> None:
    data = item.to_data()
    assert typed(itemdata.checked(data)) == typed(data)
    assert typed(Item.from_data(data).to_data()) == typed(data)


def outcome(data: dict[str, Any]) -> Any:
    """What `checked` gives (typed), or the message of its refusal."""
    try:
        return typed(itemdata.checked(data))
    except RecordError as refused:
        return str(refused)


@settings(max_examples=40, deadline=None)
@given(items)
def test_a_changed_item_reads_as_its_records_write_it(item: Item) -> None:
    for data in variants(item.to_data()):
        found = outcome(data)
        try:
            rebuilt = typed(Item.from_data(data).to_data())
        except RecordError as refused:
            assert found == str(refused), data
            continue
        assert found == rebuilt, data
        assert outcome(itemdata.checked(data)) == found  # as written, it reads back the same


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"version": -1, "body": 5}, "version"),  # a count before a text
        ({"body": 5, "priority": 9}, "body"),  # a text before a count
        ({"title": "", "created_at": "soon"}, "title"),
        ({"created_at": "soon", "closed_note": 5}, "created_at"),
        ({"tags": "x", "taken_by": 3}, "tags"),
        ({"source": 3, "lease": 5}, "source"),  # a queue's fields are checked on any item
    ],
)
def test_the_first_field_that_breaks_a_rule_is_named(changes: dict[str, Any], named: str) -> None:
    data = {**added().to_data(), **changes}
    with pytest.raises(RecordError, match=f"^{named} "):
        itemdata.checked(data)


@settings(max_examples=60, deadline=None)
@given(items)
def test_a_quiet_summary_is_the_summary_of_a_settled_item_needing_nothing(item: Item) -> None:
    from gitcoop.store.fast.cache_rows import in_view, quiet_summary, summarise

    for data in [item.to_data(), *variants(item.to_data())]:
        quiet = quiet_summary(item.id, data)
        if quiet is None:
            continue
        assert not in_view(quiet)
        assert all(type(t) is str for t in quiet.tags) and type(quiet.kind) is str
        assert all(type(a) is str and type(b) is str for a, b in quiet.links)
        if outcome(data) == typed(data):  # a file read as it is: the same summary
            assert quiet == summarise(data)
    settled = replace(item, status="done", conflicts=(), takeovers=(), obligation=None)
    assert quiet_summary(item.id, settled.to_data()) == summarise(settled.to_data())
    assert quiet_summary(item.id, replace(settled, status="open").to_data()) is None


@settings(max_examples=40, deadline=None)
@given(items)
def test_a_heading_reads_as_the_whole_item_does(item: Item) -> None:
    """`heading` checks the few fields `owed` shows by the same rules as `fields`: what
    `fields` reads, `heading` reads the same; what `heading` refuses, `fields` refuses."""
    for data in [item.to_data(), *variants(item.to_data())]:
        try:
            whole: dict[str, Any] | None = itemdata.fields(data)
        except RecordError:
            whole = None
        try:
            found = itemdata.heading(data)
        except RecordError:
            assert whole is None, data
            continue
        if whole is not None:
            expected = {name: whole[name] for name in ("id", "title", "version", "taken_at")}
            assert found == {**expected, "conflicts": len(whole["conflicts"])}, data
