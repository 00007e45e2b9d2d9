"""The hand-written writer of the block shape: ruamel's emitter's bytes, or no answer."""

from __future__ import annotations

import string
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.domain.records import Item
from gitcoop.store.fast import yaml_emitter, yaml_lines
from gitcoop.store.ledger import codec
from tests.domain.builders import added, event, run

# characters where YAML is particular, beside ordinary ones
TRICKY = " -?:,[]{}#&*!|>'\"%@`~=<.+_0123456789eExXoObB\t\n\u00a0\u2028\x85é🙂" + "tTfFnNyY"
words = st.text(
    alphabet=st.sampled_from(TRICKY) | st.characters(exclude_categories=("Cs",)), max_size=12
) | st.sampled_from(
    sorted(
        yaml_emitter.LETTER_WORDS
        | {"yes", "no", "on", "off", "~", "<<", "=", "2026-11-29T10:00:00Z"}
    )
)
keys = st.text(alphabet=string.ascii_letters + string.digits + "_-. ", min_size=1, max_size=10)
scalars = st.none() | st.booleans() | st.integers(-(2**70), 2**70) | words
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=4),
    max_leaves=14,
)
documents = st.dictionaries(keys, values, min_size=1, max_size=6)


def reference(data: dict[str, Any]) -> bytes:
    return codec.emitted(codec._sorted(data))


@settings(max_examples=1500)
@given(documents)
def test_what_it_writes_is_what_ruamels_emitter_writes(data: dict[str, Any]) -> None:
    written = yaml_emitter.text(codec._sorted(data), codec._plain_is_str)
    if written is not None:
        assert written.encode() == reference(data)
    assert codec.dump(data) == reference(data)


@settings(max_examples=400)
@given(
    st.text(alphabet=st.sampled_from(TRICKY), max_size=8)
    | st.text(alphabet=st.characters(exclude_categories=("Cs",)), max_size=8)
)
def test_a_string_in_every_place_is_written_as_ruamel_writes_it(text: str) -> None:
    data = {"v": text, "l": [text, "x"], "m": {"k": text}, "e": [{"a": text, "b": [text]}]}
    assert codec.dump(data) == reference(data)
    if yaml_emitter.text(codec._sorted(data), codec._plain_is_str) is not None:
        assert codec.load(codec.dump(data), "x.yaml") == data


def test_the_words_of_letters_are_all_that_ruamels_resolver_reads_as_other_than_strings() -> None:
    """`LETTER_WORDS` stands in for ruamel's resolver on strings starting with a letter
    (or `_`, which keys may start with): only bool and null rules apply to them, and the
    words are exactly those their patterns take."""
    codec.dump({"v": "1"})  # loads the resolver
    table = codec._resolver_events.implicit
    assert table[None] == []  # no rule tried for every first character
    taken: set[str] = set()
    candidates = {w for w in yaml_emitter.LETTER_WORDS} | {
        "yes",
        "No",
        "on",
        "OFF",
        "y",
        "n",
        "nul",
    }
    for first in [*yaml_emitter.LETTERS, "_"]:
        for tag, pattern in table.get(first, []):
            assert tag in ("tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"), (first, tag)
            taken |= {w for w in candidates if w[0] == first and pattern.match(w)}
    assert taken == set(yaml_emitter.LETTER_WORDS)


@pytest.mark.parametrize(
    "data",
    [
        {"v": 1.5},
        {"v": [[1]]},
        {"v": [{}]},
        {"v": [[]]},
        {"v": "a\nb"},
        {"v": "tab\there"},
        {"v": "x" * (yaml_emitter.MAX_TEXT + 1)},
        {"k" * (yaml_emitter.MAX_KEY + 1): 1},
        {"true": 1},
        {"-k": 1},
        {"v": "\u00a0"},
    ],
)
def test_what_it_is_not_sure_of_goes_to_ruamel(data: dict[str, Any]) -> None:
    assert yaml_emitter.text(codec._sorted(data), codec._plain_is_str) is None
    assert codec.dump(data) == reference(data)


def test_the_files_gitcoop_writes_take_the_fast_way_asking_the_resolver_little() -> None:
    item = run(
        added(),
        event("take", session="s1"),
        event("note", text="it's: half done #1"),
        event("done", summary="fixed: it", commit="0123abc"),
    )
    data = item.to_data()
    seen: list[str] = []

    def asked(value: str) -> bool:
        seen.append(value)
        return codec._plain_is_str(value)

    written = yaml_emitter.text(codec._sorted(data), asked)
    assert written is not None and written.encode() == reference(data)
    assert seen == ["0123abc"]  # only the commit, which starts with a digit
    assert Item.from_data(codec.load(written.encode(), "x.yaml")) == item
    assert yaml_lines.read(written) == data
