"""A path below a tree is found as pygit2 finds it, and the lookup holds no path after.

pygit2 1.21's `tree[path]` keeps a reference to every path string it is given, so a
process looking up new paths grew without end (a whole fsck of a million items: ~350 MB);
`objects.entry_at` finds each name by its position instead."""

from __future__ import annotations

import sys
from pathlib import Path

import pygit2

from gitcoop.store.git.objects import entry_at
from gitcoop.store.ledger.repo import open_repo
from gitcoop.store.ledger.snapshot import Snapshot
from tests.conftest import coop, git
from tests.rawledger import REF


def test_every_path_and_some_missing_are_found_as_pygit2_finds_them(ledger: Path) -> None:
    for title in ("one", "two", "three"):
        assert coop("add", "todo", title).code == 0
    repo = open_repo(str(ledger))
    tree = repo.raw.revparse_single(REF).tree
    paths = git(ledger, "ls-tree", "-r", "-t", "--name-only", REF).split()
    missing = [f"{p}x" for p in paths] + [f"{p}/x" for p in paths] + ["x/y", "items/zz/x"]
    assert len(paths) > 10
    for path in paths + missing:
        try:
            expected = tree[path]
        except KeyError:
            expected = None
        found = entry_at(tree, path)
        if expected is None:
            assert found is None, path
        else:
            assert found is not None, path
            assert (found.name, found.id, found.filemode) == (
                expected.name,
                expected.id,
                expected.filemode,
            )
            assert isinstance(found.id, pygit2.Oid)


def test_looking_up_new_paths_holds_none_of_them(ledger: Path) -> None:
    assert coop("add", "todo", "one").code == 0
    repo = open_repo(str(ledger))
    snapshot = Snapshot(repo, repo.tip())

    def look(round_: int) -> None:
        for n in range(2000):  # each id a new string, and no such item
            assert snapshot.item_blob(f"td-{round_}x{n:05d}") is None

    look(0)  # the trees on the way are parsed and kept once
    before = sys.getallocatedblocks()
    look(1)
    assert sys.getallocatedblocks() - before < 200  # it was one block a lookup: 2,000
