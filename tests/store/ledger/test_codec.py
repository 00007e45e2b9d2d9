"""The YAML codec: deterministic bytes, and safe loading that refuses hostile input."""

from __future__ import annotations

from datetime import datetime

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gitcoop.domain.records import Item
from gitcoop.errors import BadLedger
from gitcoop.store.fast import yaml_lines
from gitcoop.store.ledger import codec
from tests.domain.builders import added, event, run


def test_same_state_gives_the_same_bytes_whatever_the_key_order() -> None:
    data = {"b": 1, "a": {"z": None, "y": [1, "two"]}, "c": "x: y"}
    shuffled = {"c": "x: y", "a": {"y": [1, "two"], "z": None}, "b": 1}
    assert codec.dump(data) == codec.dump(shuffled)
    assert codec.dump(data).startswith(b"a:\n")


def test_an_item_round_trips_exactly() -> None:
    item = run(
        added(), event("take", session="s1"), event("done", summary="fixed: it", commit="0123")
    )
    raw = codec.dump(item.to_data())
    assert Item.from_data(codec.load(raw, "x.yaml")) == item
    assert codec.dump(codec.load(raw, "x.yaml")) == raw


@pytest.mark.parametrize(
    "text",
    [
        "yes",
        "no",
        "null",
        "~",
        "012",
        "1e3",
        "true",
        "2026-11-29",
        "*x",
        "&a",
        "!t",
        "- a",
        "a: b",
        "",
    ],
)
def test_strings_that_look_like_other_things_stay_strings(text: str) -> None:
    assert codec.load(codec.dump({"v": text}), "x.yaml") == {"v": text}


@pytest.mark.parametrize(
    ("raw", "rule"),
    [
        (b"a: &x 1\nb: *x\n", "anchors"),
        (b"a: *x\n", "aliases"),
        (b"a: !!python/object:os.system x\n", "tags"),
        (b"a: !custom x\n", "tags"),
        (b"a: 1\na: 2\n", "duplicate key"),
        (b"- 1\n- 2\n", "must be a mapping"),
        (b"just text\n", "must be a mapping"),
        (b"", "must be a mapping"),
        (b"a: " + b"[" * 50 + b"]" * 50 + b"\n", "nested deeper"),
        (b"a: b: c\n", "malformed"),
        (b"\xff\xfe\x00", "not valid UTF-8"),
        (b"a: 1\n---\nb: 2\n", "more than one YAML document"),
        (b"? [a]\n: 1\n", "keys must be plain strings"),
    ],
)
def test_hostile_or_broken_documents_are_refused_naming_the_path(raw: bytes, rule: str) -> None:
    with pytest.raises(BadLedger) as refusal:
        codec.load(raw, "items/7k/td-x.yaml")
    assert refusal.value.message.startswith("items/7k/td-x.yaml: ")
    assert rule in refusal.value.message


def test_billion_laughs_is_refused_at_the_first_anchor() -> None:
    lol = b'a: &a ["lol","lol"]\nb: &b [*a,*a]\nc: &c [*b,*b]\nd: [*c,*c]\n'
    with pytest.raises(BadLedger, match="anchors"):
        codec.load(lol, "coop.yaml")


def test_oversized_documents_are_refused_before_parsing() -> None:
    with pytest.raises(BadLedger, match="over the 10-byte cap"):
        codec.load(b"a: 123456789012\n", "coop.yaml", max_bytes=10)


plain_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def strings(value: object) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in (*strings(k), *strings(v))]
    if isinstance(value, list):
        return [s for v in value for s in strings(v)]
    return []


@settings(max_examples=400)
@given(st.dictionaries(st.text(max_size=10), plain_values, max_size=6))
def test_the_event_writer_matches_ruamels_dumper_byte_for_byte(data: dict[str, object]) -> None:
    # except where ruamel writes plain what YAML 1.2 core reads as a number (below)
    assume(all(isinstance(yaml_lines.plain(s), str) for s in strings(data)))
    assert codec.dump(data) == codec.representer_dump(data)


def test_ruamels_dumper_writes_some_core_floats_plain() -> None:
    assert codec.representer_dump({"v": ".5e5"}) == b"v: .5e5\n"  # why the writer checks


@pytest.mark.parametrize("text", [".5e5", ".1E1", "+.1e0", "-.5e3", "1.e5"])
def test_strings_that_yaml_core_reads_as_numbers_are_quoted(text: str) -> None:
    assert b"'" in codec.dump({"v": text})
    assert codec.load(codec.dump({"v": text, text: [text]}), "x.yaml") == {"v": text, text: [text]}


@pytest.mark.parametrize(
    "text",
    [
        "yes",
        "012",
        "0x1F",
        "0o17",
        ".inf",
        "-.nan",
        "1_000",
        "2026-11-29",
        "2026-11-29T10:00:00Z",
        "~",
        "",
        " lead",
        "trail ",
        "a: b",
        "# c",
        "- d",
        "it's",
        'say "hi"',
        "a\nb",
        "tab\there",
        "\u2028",
        "\x85",
        "🙂",
        "é",
        "x" * 200,
        "<<",
        "=",
        "null",
        "Null",
        "TRUE",
        "1e3",
        "+1",
        "!tag",
        "&anchor",
        "*alias",
        "<<x",
        "=x",
        "f",
        "N",
    ],
)
def test_tricky_strings_are_written_as_ruamel_writes_them(text: str) -> None:
    data = {"v": text, text: [text]}
    assert codec.dump(data) == codec.representer_dump(data)
    assert codec.load(codec.dump(data), "x.yaml") == data


def test_floats_fall_back_to_ruamels_representer() -> None:
    assert codec.dump({"f": 1.5}) == codec.representer_dump({"f": 1.5}) == b"f: 1.5\n"


@given(
    st.datetimes(),
    st.integers(min_value=0, max_value=19),
    st.sampled_from(["-", "T", ":", "Z", " ", "/", "0", "9", "x", "", "00"]),
    st.booleans(),
)
def test_an_instant_as_written_is_a_timestamp_to_ruamels_resolver(
    at: datetime, where: int, put: str, spoil: bool
) -> None:
    """`written_instant` answers for ruamel's resolver only where it reads a timestamp;
    anything near that shape but not it goes to the resolver, and is written as ruamel
    writes it."""
    text = at.strftime("%Y-%m-%dT%H:%M:%SZ").rjust(20, "0")
    if spoil:
        text = text[:where] + put + text[where + 1 :]
    if codec.written_instant(text):
        assert codec.representer_dump({"v": text}) == f"v: '{text}'\n".encode()
    data = {"v": text, text: [text]}
    assert codec.dump(data) == codec.representer_dump(data)


def test_the_instants_gitcoop_writes_take_the_known_answer() -> None:
    assert codec.written_instant("2026-11-29T10:00:00Z")
    assert not codec.written_instant("2026-11-29T10:00:00")
    assert not codec.written_instant("2026-11-29 10:00:00Z")
    assert not codec.written_instant("２０２６-11-29T10:00:00Z")  # digits, but not ASCII


@pytest.mark.parametrize("text", ["a: " + "1" * 5000 + "\n", "a:\n- " + "9" * 4400 + "\n"])
def test_a_number_too_long_to_read_is_a_refusal_naming_the_path(text: str) -> None:
    with pytest.raises(BadLedger, match=r"x\.yaml: .*digits"):
        codec.load(text.encode(), "x.yaml")
