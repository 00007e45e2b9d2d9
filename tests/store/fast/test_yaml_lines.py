"""The line reader agrees with the YAML parser wherever it reads, and reads what gitcoop writes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.errors import BadLedger
from gitcoop.store.fast import yaml_lines
from gitcoop.store.ledger import codec
from tests.conftest import coop, git
from tests.domain.builders import typed

identifiers = st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True)
keys = identifiers | st.sampled_from(["true", "Null", "x y", "a:b", "-k", "'q'", "1", ""])
scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**12), max_value=10**12)
    | st.text(max_size=12)
    | st.sampled_from(["yes", "012", "1e3", ".5", "-", "~", "a: b", "x #y", "it's", "'", "[]"])
    | st.just([])
    | st.just({})
)
documents: Any = st.recursive(
    st.dictionaries(keys, scalars, min_size=1, max_size=5),
    lambda inner: st.dictionaries(
        keys, scalars | inner | st.lists(scalars, max_size=2), min_size=1
    ),
    max_leaves=15,
)


def agrees(text: str) -> dict[str, Any] | None:
    """The reader's result, checked against the parser's whenever the reader gives one."""
    fast = yaml_lines.read(text)
    if fast is not None:
        assert typed(fast) == typed(codec.parse(text, "x.yaml")), text
    return fast


@settings(max_examples=500)
@given(documents)
def test_what_the_codec_writes_reads_as_the_parser_reads_it(data: dict[str, Any]) -> None:
    text = codec.dump(data).decode()
    agrees(text)
    assert typed(codec.load(text.encode(), "x.yaml")) == typed(codec.parse(text, "x.yaml"))


@settings(max_examples=1500)
@given(documents, st.data())
def test_mutated_files_read_as_the_parser_reads_them_or_go_to_it(
    data: dict[str, Any], draw: st.DataObject
) -> None:
    text = codec.dump(data).decode()
    for _ in range(draw.draw(st.integers(1, 3))):
        # anywhere, or where YAML is most particular: line ends, and after a key
        seams = [i for i, c in enumerate(text) if c == "\n"] + [
            i + 2 for i in range(len(text)) if text.startswith(": ", i)
        ]
        anywhere = st.integers(0, len(text))
        at = draw.draw(st.one_of(anywhere, st.sampled_from(seams)) if seams else anywhere)
        cut = draw.draw(st.integers(0, 2))
        noise = draw.draw(
            st.sampled_from(
                [
                    " ",
                    "  ",
                    ":",
                    ": ",
                    "#",
                    " #",
                    "'",
                    "''",
                    "\n",
                    "- ",
                    "\t",
                    "&a ",
                    "*a",
                    "!x ",
                    "---\n",
                    '"',
                    "~",
                    "\u2028",
                    "{",
                    "[",
                    "key: v\n",
                    "true: 1\n",
                    "x:\n",
                    "  y: 2\n",
                ]
            )
        )
        text = text[:at] + noise + text[at + cut :]
    try:
        expected = typed(codec.parse(text, "x.yaml"))
    except BadLedger:
        assert yaml_lines.read(text) is None, text  # whatever the parser refuses, so does this
        return
    fast = yaml_lines.read(text)
    assert fast is None or typed(fast) == expected, text


def test_every_file_gitcoop_writes_for_todos_and_requests_needs_no_parser(ledger: Path) -> None:
    todo = coop("add", "todo", "Fix: the 'quoted' #3 path — naïve", "--json").json()["id"]
    request = coop("add", "request", "Review: a: b", "--json").json()["id"]
    for args in (("take", todo), ("note", todo, "halfway: 50%"), ("done", todo), ("take", request)):
        assert coop(*args).code == 0
    listing = git(ledger, "ls-tree", "-r", "--name-only", "refs/coop/ledger")
    paths = listing.split()
    assert len(paths) > 8
    for path in paths:
        text = git(ledger, "cat-file", "blob", f"refs/coop/ledger:{path}")
        assert agrees(text) is not None, text


@pytest.mark.parametrize(
    "text",
    [
        "a: 1\n  b: 2\n",  # deeper without an opening key
        "a:\nb: 1\n",  # `a:` is null, not a mapping
        "a: 1\na: 2\n",  # duplicate key: the parser refuses it
        "true: 1\n",  # a bool key: the parser refuses it
        "a: 'x\n",  # an unclosed quote
        "a: x\n  y\n",  # a folded plain scalar
        "a: 1",  # no final newline
        "\ufeffa: 1\n",  # a byte-order mark
        "a: &x 1\n",
        "a: !!str 1\n",
        "- 1\n",
        "a: 1 # note\n",
        "a: x \n",  # a plain scalar's trailing space is not part of it
        "a:\n- []\n- {}\n",  # a list of containers
        "".join("  " * i + f"k{i}:\n" for i in range(11)) + "  " * 11 + "x: []\n",  # too deep
        "".join("  " * i + f"k{i}:\n" for i in range(12)) + "  " * 11 + "- x\n",  # too deep
        "",
    ],
)
def test_anything_else_is_left_to_the_parser(text: str) -> None:
    assert yaml_lines.read(text) is None


@settings(max_examples=2000)
@given(st.text() | st.text(st.characters(codec="ascii")))
def test_the_quick_check_for_unusual_characters_agrees_with_the_pattern(text: str) -> None:
    import re

    assert yaml_lines.unusual(text) == bool(re.search(yaml_lines._UNUSUAL_PATTERN, text))


def test_lines_are_read_alike_whether_remembered_or_not() -> None:
    text = codec.dump({"a": {"b": ["x", "y"], "c": "it's: here"}, "d": 1, "e": []}).decode()
    first = yaml_lines.read(text)
    yaml_lines._seen.clear()
    assert yaml_lines.read(text) == first
    assert yaml_lines.read(text) == first  # every line remembered now
