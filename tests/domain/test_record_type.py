"""`record_type` makes what `dataclass(frozen=True)` makes: the same fields, defaults,
equality, hash equality, text and refusals (domain/record_type.py)."""

from __future__ import annotations

import dataclasses
import pickle
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain.record_type import record_type

values = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=5), st.tuples(st.integers())
)


def make(decorate: Any) -> Any:
    """The same class, made by `decorate`."""

    class Sample:
        name: str
        count: int = 0
        tags: list[str] = field(default_factory=list)
        hidden: Any = field(default=None, repr=False, compare=False)

    Sample.__qualname__ = "Sample"
    return decorate(Sample)


Made = make(record_type)
Reference = make(dataclass(frozen=True))


@record_type
class Empty:
    """No fields at all."""


@record_type
class Pickled:
    a: int
    b: str = "x"


@given(values, values, st.lists(st.text(max_size=3), max_size=3), values)
def test_same_text_equality_and_hash_as_a_frozen_dataclass(
    name: Any, count: Any, tags: list[str], hidden: Any
) -> None:
    ours, theirs = Made(name, count, tags, hidden), Reference(name, count, tags, hidden)
    assert repr(ours) == repr(theirs)
    assert ours == Made(name, count, list(tags), "something else")  # hidden is not compared
    assert (ours == Made(name, count, [*tags, "more"])) is False
    assert dataclasses.asdict(ours) == dataclasses.asdict(theirs)
    assert dataclasses.astuple(ours) == dataclasses.astuple(theirs)
    with pytest.raises(TypeError):
        hash(ours)  # a list field: unhashable, as in a frozen dataclass
    with pytest.raises(TypeError):
        hash(theirs)
    kept = Made(name, count, tuple(tags), hidden)
    assert hash(kept) == hash(Made(name, count, tuple(tags), "something else"))
    assert kept == Made(name, count, tuple(tags)) and hash(Reference(name, count, tuple(tags)))


def test_defaults_and_factories_as_a_frozen_dataclass() -> None:
    first, second = Made("a"), Made("a")
    assert (first.count, first.tags, first.hidden) == (0, [], None)
    assert first.tags is not second.tags  # a fresh list each time, as default_factory gives
    assert repr(first) == repr(Reference("a"))
    assert Made("a", tags=["t"]) == Made(name="a", count=0, tags=["t"])
    assert [f.name for f in dataclasses.fields(Made)] == ["name", "count", "tags", "hidden"]
    assert dataclasses.is_dataclass(Made)
    assert dataclasses.replace(first, count=3) == Made("a", 3)
    with pytest.raises(TypeError):
        Made()  # the required field is required
    with pytest.raises(TypeError):
        Made("a", nope=1)


def test_assignment_and_deletion_are_refused_as_a_frozen_dataclass() -> None:
    made = Made("a")
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.name = "b"
    with pytest.raises(dataclasses.FrozenInstanceError):
        del made.count
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.other = 1  # type: ignore[attr-defined]
    assert made.name == "a"


def test_other_classes_and_no_fields() -> None:
    assert Made("a") != Reference("a")  # another class is never equal
    assert Made("a").__eq__(Reference("a")) is NotImplemented
    assert Empty() == Empty() and hash(Empty()) == hash(Empty())
    assert repr(Empty()) == "Empty()"
    assert pickle.loads(pickle.dumps(Pickled(1))) == Pickled(1)


def test_a_class_defining_what_record_type_makes_is_refused() -> None:
    class Own:
        a: int

        def __repr__(self) -> str:
            return "mine"

    with pytest.raises(TypeError, match="record_type makes"):
        record_type(Own)
