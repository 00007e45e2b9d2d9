"""Finding items and commits by the bytes of their files finds what parsing every file finds.

`blob_search` reads raw blobs and parses only the item files holding the
string; under `COOP_REFERENCE=1` it parses every item and every event file.
Each caller checks the field it meant on what is found, so both ways must
give the same items for that check, and the same commits named.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st

from gitcoop.domain.records import Item
from gitcoop.service.context import Context, read_ledger
from gitcoop.store import fast
from gitcoop.store.fast import blob_search
from gitcoop.store.ledger import codec
from tests.conftest import coop_in, git

ACTORS = ("alice@example.com", "bob@example.com", "o'brien@example.com", "zoë@example.com")


def held_by(path: Path, actor: str) -> list[str]:
    snapshot = read_ledger(Context(path=str(path)))
    return sorted(
        i.id for i in blob_search.items_containing(snapshot, actor) if i.taken_by == actor
    )


def done_with(path: Path, sha: str) -> list[str]:
    snapshot = read_ledger(Context(path=str(path)))
    found = blob_search.items_containing(snapshot, sha)
    return sorted(i.id for i in found if i.commit_sha == sha)


def every(path: Path, keep: Callable[[Item], bool]) -> list[str]:
    """The ids of the items `keep` takes, each item parsed."""
    return sorted(i.id for i in read_ledger(Context(path=str(path))).items() if keep(i))


@pytest.fixture
def worked(ledger: Path) -> tuple[Path, list[str]]:
    """Items taken by each actor, and some done with commits of the repository."""
    shas = []
    for k in range(3):
        git(ledger, "commit", "-q", "--allow-empty", "-m", f"work {k}")
        shas.append(git(ledger, "rev-parse", "HEAD").strip())
    for k, actor in enumerate(ACTORS * 2):
        env = {"COOP_ACTOR": actor}
        made = coop_in(ledger, "add", "todo", f"work {k} by {actor}", "--json", env=env)
        assert made.code == 0, made.err
        item = made.json()["id"]
        assert coop_in(ledger, "take", item, env=env).code == 0
        if k % 3 == 0:
            done = coop_in(ledger, "done", item, "--commit", shas[k % 2], env=env)
            assert done.code == 0, done.err
    coop_in(ledger, "add", "todo", f"names {shas[2]} in its title")
    return ledger, shas


def test_items_found_by_bytes_are_those_found_by_parsing(worked: tuple[Path, list[str]]) -> None:
    path, shas = worked
    for actor in ACTORS:
        expected = every(path, lambda i, actor=actor: i.taken_by == actor)
        assert expected, actor
        assert held_by(path, actor) == expected, actor
    for sha in shas:
        assert done_with(path, sha) == every(path, lambda i, sha=sha: i.commit_sha == sha)


def test_by_reference_the_same_items_and_commits(
    worked: tuple[Path, list[str]], by_reference: None
) -> None:
    path, shas = worked
    fast.forget()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(fast.REFERENCE, "0")
        fast.forget()
        quick = [held_by(path, a) for a in ACTORS] + [done_with(path, s) for s in shas]
        named = blob_search.commits_named(read_ledger(Context(path=str(path))))
    fast.forget()
    assert fast.reference()
    assert [held_by(path, a) for a in ACTORS] + [done_with(path, s) for s in shas] == quick
    assert blob_search.commits_named(read_ledger(Context(path=str(path)))) == named
    assert set(shas) <= named


@settings(max_examples=300, deadline=None)
@given(
    value=st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1),
    cut=st.tuples(st.integers(0, 40), st.integers(1, 40)),
    style=st.sampled_from([None, "'", '"', "|", ">"]),
    width=st.sampled_from([8, 20, 4096]),
)
@example(value="0\x070", cut=(0, 1), style=">", width=8)  # ruamel's emitter raises on it
def test_a_file_holding_a_text_in_any_spelling_may_hold_it(
    value: str, cut: tuple[int, int], style: str | None, width: int
) -> None:
    """Whatever style and width YAML spells a value in (quoted, folded, escaped), a file
    whose value holds a text is one `_may_hold` keeps: the raw search misses nothing."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    start = min(cut[0], len(value) - 1)
    needle = value[start : start + cut[1]]
    assume(needle.strip())
    writer = YAML()
    writer.width, writer.default_style, writer.allow_unicode = width, style, True
    out = io.StringIO()
    try:
        writer.dump({"title": value}, out)
        read = YAML(typ="safe").load(out.getvalue().encode("utf-8"))
    except (YAMLError, IndexError):  # texts ruamel will not write in a style, or read back
        read = None
    data = out.getvalue().encode("utf-8")
    assume(read == {"title": value})  # a spelling that holds the value
    parts = [part.encode("utf-8") for part in needle.split()]
    assert blob_search._may_hold(data, parts, "'" in needle), (needle, data)


@settings(max_examples=300, deadline=None)
@given(
    around=st.tuples(st.text(max_size=12), st.text(max_size=12)),
    sha=st.text("0123456789abcdef", min_size=40, max_size=40),
    style=st.sampled_from([None, "'", '"', "|", ">", "escaped"]),
    width=st.sampled_from([8, 20, 4096]),
)
def test_a_file_naming_a_commit_in_any_spelling_is_parsed(
    around: tuple[str, str], sha: str, style: str | None, width: int
) -> None:
    """A file whose values name a sha holds, in any spelling, a backslash or a run of hex
    digits a sha's length in its bytes: `commits_named` parses it, and misses nothing."""
    import io

    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    value = around[0] + sha + around[1]
    writer = YAML()
    writer.width, writer.allow_unicode = width, True
    writer.default_style = None if style == "escaped" else style
    out = io.StringIO()
    if style == "escaped":  # as no writer spells it, but YAML reads it: every character escaped
        escaped = "".join(f"\\U{ord(c):08x}" for c in value)
        out.write(f'note: "{escaped}"\n')
    try:
        if style != "escaped":
            writer.dump({"note": value}, out)
        read = YAML(typ="safe").load(out.getvalue().encode("utf-8"))
    except (YAMLError, IndexError):  # texts ruamel will not write in a style, or read back
        read = None
    data = out.getvalue().encode("utf-8")
    assume(read == {"note": value} and blob_search._SHA.search(value.encode("utf-8")))
    assert blob_search._may_name_commits(data), data


def test_a_number_names_no_commit() -> None:
    """A sha is text: an int whose digits run a sha's length (or whose written form runs
    longer, as with leading zeros) names no commit either way."""
    for data in (b"note: 01234567890123456789012345678901234567890\n", b"n: -0" + b"1" * 40):
        values = b"\n".join(blob_search._values(codec.load(data, "events/x.yaml")))
        assert blob_search._SHA.findall(values) == []  # as its bytes, unparsed, say
