"""`Repo.changes` (raw trees, level by level) names what libgit2's tree diff names.

The inbound check compares every fetched commit with its parents; libgit2's
diff flattens both trees, which made a first sync of a long history several
times slower (docs/performance.md), so the comparison is written by hand and
checked here against the library it shadows.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pygit2
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger.repo import open_repo
from tests.conftest import make_repo
from tests.rawledger import BLOB, EXEC, GITLINK, LINK, TREE, open_raw, write_tree

names = st.sampled_from(["a", "b", "c.yaml", "00", "td-x", "é"])
leaf = st.tuples(
    st.sampled_from([BLOB, BLOB, EXEC, LINK, GITLINK]), st.sampled_from([b"1", b"2", b"3"])
)


def folders(depth: int) -> st.SearchStrategy[dict[str, Any]]:
    """Trees at most `depth` folders deep (Repo.changes names deeper folders themselves)."""
    if depth == 0:
        return st.dictionaries(names, leaf, max_size=4)
    return st.dictionaries(names, st.one_of(leaf, folders(depth - 1)), max_size=4)


trees = folders(5)


def build(raw: pygit2.Repository, tree: dict[str, Any]) -> pygit2.Oid:
    entries: dict[str, tuple[int, pygit2.Oid]] = {}
    for name, value in tree.items():
        if isinstance(value, dict):
            entries[name] = (TREE, build(raw, value))
        else:
            entries[name] = (value[0], raw.create_blob(value[1]))
    return write_tree(raw, entries)


def commit(raw: pygit2.Repository, events: dict[str, Any]) -> str:
    root = write_tree(raw, {"events": (TREE, build(raw, events))})
    sig = pygit2.Signature("t", "t@example.com", 1_800_000_000, 0)
    return str(raw.create_commit(None, sig, sig, "t", root, []))


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_repo(tmp_path_factory.mktemp("trees") / "r")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=trees, after=trees)
def test_changes_agree_with_libgit2s_diff(
    scratch: Path, before: dict[str, Any], after: dict[str, Any]
) -> None:
    raw = open_raw(scratch)
    old, new = Oid(commit(raw, before)), Oid(commit(raw, after))
    repo = open_repo(str(scratch))
    ours = sorted((d.status, d.path, d.oid, d.mode) for d in repo.changes(old, new, "events"))
    theirs = sorted((d.status, d.path, d.oid, d.mode) for d in repo.deltas(old, new, "events"))
    assert ours == theirs  # as lists: a change named twice is a breach reported twice


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=trees, after=trees, chosen=st.sets(names))
def test_changes_under_chosen_folders_are_those_of_the_whole_comparison(
    scratch: Path, before: dict[str, Any], after: dict[str, Any], chosen: set[str]
) -> None:
    """A half of a first sync compares only its own top-level folders: exactly the changes
    the whole comparison names under them, and nothing under the others."""
    raw = open_raw(scratch)
    old, new = Oid(commit(raw, before)), Oid(commit(raw, after))
    repo = open_repo(str(scratch))
    whole = {(d.status, d.path, d.oid, d.mode) for d in repo.changes(old, new, "events")}
    part = repo.changes(old, new, "events", lambda name: name in chosen)
    expected = {d for d in whole if d[1].split("/")[1] in chosen}
    assert {(d.status, d.path, d.oid, d.mode) for d in part} == expected


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(after=trees, chosen=st.sets(names))
def test_changes_from_no_commit_name_every_file_added_as_libgit2s_diff_does(
    scratch: Path, after: dict[str, Any], chosen: set[str]
) -> None:
    """A first sync's first commit has no parent: everything in it is added (under the
    chosen folders only, for a half)."""
    raw = open_raw(scratch)
    new = Oid(commit(raw, after))
    repo = open_repo(str(scratch))
    found = repo.changes(None, new, "events")
    theirs = {(d.status, d.path, d.oid, d.mode) for d in repo.deltas(None, new, "events")}
    assert {(d.status, d.path, d.oid, d.mode) for d in found} == theirs
    part = repo.changes(None, new, "events", lambda name: name in chosen)
    assert set(part) == {d for d in found if d.path.split("/")[1] in chosen}


def folders_in(tree: dict[str, Any], path: str = "events") -> dict[str, bool]:
    """path -> whether it is empty, of every folder in `tree`."""
    found: dict[str, bool] = {}
    for name, value in tree.items():
        if isinstance(value, dict):
            found[f"{path}/{name}"] = not value
            found.update(folders_in(value, f"{path}/{name}"))
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=trees | st.none(), after=trees)
def test_changes_with_empty_name_each_new_empty_folder_besides(
    scratch: Path, before: dict[str, Any] | None, after: dict[str, Any]
) -> None:
    """With `empty` (the inbound check), an empty folder of the newer tree where the older
    has no folder is named as added with its tree mode; the rest is as ever. (Where the
    older has a folder, its files are deleted, or it held an empty folder itself.)"""
    raw = open_raw(scratch)
    old = Oid(commit(raw, before)) if before is not None else None
    new = Oid(commit(raw, after))
    repo = open_repo(str(scratch))
    found = repo.changes(old, new, "events", empty=True)
    plain = [d for d in found if d.mode != TREE]
    assert plain == repo.changes(old, new, "events")
    had = folders_in(before or {})
    expected = {path for path, bare in folders_in(after).items() if bare and path not in had}
    named = [d for d in found if d.mode == TREE]
    assert {d.path for d in named} == expected
    assert all(d.status == "added" and d.oid == EMPTY for d in named)


EMPTY = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=trees | st.none(), after=trees, empty=st.booleans())
def test_changes_in_one_folder_are_those_of_the_whole_comparison_there(
    scratch: Path, before: dict[str, Any] | None, after: dict[str, Any], empty: bool
) -> None:
    """`changes_in` (a check that reads one fan-out folder at a time) opens only that
    folder, and names what `changes` names there: files, kinds changed, empty folders."""
    raw = open_raw(scratch)
    old = Oid(commit(raw, before)) if before is not None else None
    new = Oid(commit(raw, after))
    repo = open_repo(str(scratch))
    for name in {*(before or {}), *after}:
        whole = repo.changes(old, new, "events", name.__eq__, empty)
        assert repo.changes_in(old, new, "events", name, empty) == whole, name
