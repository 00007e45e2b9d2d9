"""A fan-out's item ids read from its tree's bytes: what reading it entry by entry says."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop import errors
from gitcoop.store import fast
from gitcoop.store.fast import tree_bytes
from gitcoop.store.git import objects
from gitcoop.store.ledger.layout import is_item_file
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo
from tests.conftest import make_repo

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
RANDOM = st.text(alphabet=ALPHABET, min_size=12, max_size=12).map(lambda r: "3k" + r[2:])
PLAIN = st.builds(
    lambda kind, rest: f"{kind}-{rest}.yaml", st.sampled_from(["td", "rq", "it"]), RANDOM
)
# near misses of an item file: another kind, a short or long id, a letter Crockford leaves
# out, upper case, another suffix, bytes that are not UTF-8
ODD = st.sampled_from(
    [
        "cf-3k0000000000.yaml",
        "td-3k000000000.yaml",
        "td-3k00000000000.yaml",
        "td-3k000000000i.yaml",
        "TD-3k0000000000.yaml",
        "td-3k0000000000.yml",
        "td-3k0000000000.yaml.",
        "td-3k0000000000",
        "a",
        "td-3k\udcff00000000.yaml",
    ]
)
MODES = st.sampled_from(
    [b"100644", b"100644", b"100644", b"100755", b"100664", b"40000", b"120000"]
)


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> pygit2.Repository:
    return pygit2.Repository(str(make_repo(tmp_path_factory.mktemp("fans") / "r")))


def entry_by_entry(tree: pygit2.Tree) -> list[tuple[str, str]] | None:
    """(id, blob id) of each entry, or None where a name or mode is not an item file's (as
    the ledger refuses)."""
    found = []
    for entry in tree:
        if not is_item_file(entry.name, entry.filemode):
            return None
        found.append((entry.name[:-5], str(entry.id)))
    return found


@settings(max_examples=100, deadline=None)
@given(st.lists(st.tuples(st.one_of(PLAIN, PLAIN, PLAIN, ODD), MODES), max_size=12))
def test_the_bytes_of_a_fan_out_say_what_its_entries_say(
    raw: pygit2.Repository, entries: list[tuple[str, bytes]]
) -> None:
    named = {name.encode("utf-8", "surrogateescape"): mode for name, mode in entries}
    blobs = {n: raw.create_blob(n) for n in named}  # ids with every byte, NUL and "1" too
    content = b"".join(b"%s %s\0%s" % (named[n], n, blobs[n].raw) for n in sorted(named))
    tree = raw[raw.odb.write(pygit2.enums.ObjectType.TREE, content)]
    files = tree_bytes.item_files(tree.read_raw())
    slow = entry_by_entry(tree)
    if files is not None:  # read from the bytes: exactly what the entries say
        assert files == slow
        assert tree_bytes.item_ids(tree.read_raw()) == [item for item, _ in files]
    else:  # not plainly a fan-out of item files: left to the entries
        assert tree_bytes.item_ids(tree.read_raw()) is None
        assert slow is None or any(m != b"100644" for m in named.values())


def test_a_plain_fan_out_is_read_from_its_bytes(raw: pygit2.Repository) -> None:
    blob = raw.create_blob(b"x")
    names = [b"rq-3k0000000001.yaml", b"td-3k0000000000.yaml", b"td-3kzzzzzzzzzz.yaml"]
    content = b"".join(b"100644 %s\0%s" % (n, blob.raw) for n in names)
    assert tree_bytes.item_ids(content) == [n[:-5].decode() for n in names]
    assert tree_bytes.item_files(content) == [(n[:-5].decode(), str(blob)) for n in names]
    assert tree_bytes.item_ids(b"") == []
    assert tree_bytes.item_ids(content[:-1]) is None  # cut short
    assert tree_bytes.item_ids(content.replace(b"100644", b"100755", 1)) is None


def test_a_snapshot_refuses_a_fan_out_holding_another_file_both_ways(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The listing a write resolves its id in: a stray file refuses it, fast or not, and
    a mode git reads as a file's (100664) is still read entry by entry."""
    repo = open_repo(str(make_repo(tmp_path / "r")))
    git = repo.raw
    blob = git.create_blob(b"x")

    def ledger(fan: bytes) -> Snapshot:
        fanned = git.odb.write(pygit2.enums.ObjectType.TREE, fan)
        items = git.odb.write(pygit2.enums.ObjectType.TREE, b"40000 3k\0" + fanned.raw)
        root = git.odb.write(
            pygit2.enums.ObjectType.TREE,
            b"100644 coop.yaml\0%s40000 items\0%s" % (blob.raw, items.raw),
        )
        sig = pygit2.Signature("a", "a@example.com", 0, 0)
        commit = git.create_commit(None, sig, sig, "x", root, [])
        return Snapshot(repo, str(commit))  # type: ignore[arg-type]

    good = b"100644 td-3k0000000000.yaml\0" + blob.raw
    odd = b"100664 td-3k0000000001.yaml\0" + blob.raw
    stray = b"100644 notes.txt\0" + blob.raw
    for by_reference in ("", "1"):
        monkeypatch.setenv(fast.REFERENCE, by_reference)
        fast.forget()
        assert ledger(good + odd).item_ids("3k") == ["td-3k0000000000", "td-3k0000000001"]
        with pytest.raises(errors.BadLedger, match="not an allowed item file"):
            ledger(stray + good).item_ids("3k")
    fast.forget()


ANY_NAME = st.one_of(
    st.text(alphabet="ab-._0/é", min_size=1, max_size=4),
    st.binary(min_size=1, max_size=3).filter(lambda b: b"\0" not in b),
)
ANY_MODE = st.sampled_from(
    [b"40000", b"040000", b"100644", b"100755", b"100664", b"120000", b"160000", b"644"]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(ANY_NAME, ANY_MODE), max_size=8), st.booleans())
def test_a_listing_from_the_bytes_is_pygit2_s(
    raw: pygit2.Repository, entries: list[tuple[str | bytes, bytes]], in_order: bool
) -> None:
    """Names twice, out of order, not UTF-8, with a slash; modes git spells otherwise:
    the same listing either way."""
    blob = raw.create_blob(b"x")
    named = [(n.encode() if isinstance(n, str) else n, m) for n, m in entries]
    if in_order:
        named.sort()
    content = b"".join(b"%s %s\0%s" % (m, n, blob.raw) for n, m in named)
    tree = raw[raw.odb.write(pygit2.enums.ObjectType.TREE, content)]
    assert tree_bytes.listing(tree) == objects.listing(tree)
