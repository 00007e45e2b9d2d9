"""A path below a tree is found as pygit2 finds it, and the lookup holds no path after.

pygit2 1.21's `tree[path]` keeps a reference to every path string it is given, so a
process looking up new paths grew without end (a whole fsck of a million items: ~350 MB);
`objects.entry_at` finds each name by its position instead."""

from __future__ import annotations

import sys
from pathlib import Path

import pygit2
import pytest

from gitcoop.domain.ids import ItemId
from gitcoop.errors import BadLedger
from gitcoop.store.git.objects import entry_at
from gitcoop.store.ledger.repo import open_repo
from gitcoop.store.ledger.snapshot import Snapshot
from tests.conftest import coop, git
from tests.rawledger import EXEC, REF, TREE, Entry, open_raw, put, rewrite


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


def test_an_items_blob_found_in_its_fan_outs_listing_is_the_one_found_by_path(
    ledger: Path,
) -> None:
    """`item_blob` given its fan-out folder's listing, checked as git writes it (as a
    fetch check holds it), finds what a lookup by path finds, and refuses what it
    refuses with the same words."""
    for title in ("one", "two"):
        assert coop("add", "todo", title).code == 0
    names = git(ledger, "ls-tree", "-r", "--name-only", REF, "items").split()
    first, second = (name.rsplit("/", 1)[1][:-5] for name in names)
    fan = first[3:5]
    put(ledger, ["items", fan, f"{first}.yaml"], b"x: 1\n", mode=EXEC)
    put(
        ledger,
        ["items", fan, f"td-{fan}0000000000.yaml"],
        oid=pygit2.Oid(hex="4b825dc642cb6eb9a060e54bf8d69288fbee4904"),
        mode=TREE,
    )
    repo = open_repo(str(ledger))
    snapshot = Snapshot(repo, repo.tip())

    def listing(item_id: str) -> dict[str, tuple[int, str]]:
        folder = entry_at(snapshot.tree, f"items/{item_id[3:5]}")
        return repo.written(str(folder.id), "items/..") if folder is not None else {}

    for item_id in (first, second, f"td-{fan}0000000000", f"td-{fan}zzzzzzzzzz", "td-9999999999zz"):
        try:
            by_path = str(snapshot.item_blob(item_id))
        except BadLedger as error:
            by_path = error.message
        try:
            by_listing = str(snapshot.item_blob(item_id, listing(item_id)))
        except BadLedger as error:
            by_listing = error.message
        assert by_path == by_listing, item_id
    with pytest.raises(BadLedger, match="mode 100755 is not allowed"):
        snapshot.item_blob(first, listing(first))
    with pytest.raises(BadLedger, match="mode 40000 is not allowed"):
        snapshot.item_blob(ItemId(f"td-{fan}0000000000"), listing(f"td-{fan}0000000000"))


def test_a_folder_named_as_a_files_prefix_is_read_alike_in_gits_order_only(
    ledger: Path,
) -> None:
    """A folder `td` and an item file `td-….yaml` in one fan-out folder: git writes the
    file first (it sorts a folder's name as if it ended in "/"), and a listing of that
    tree finds what a lookup by path finds. In byte order the folder comes first, where a
    lookup by path (a bisect in git's order) misses the file: `Repo.written` refuses that
    tree, so no listing a check holds can answer otherwise than a lookup."""
    assert coop("add", "todo", "one").code == 0
    [name] = git(ledger, "ls-tree", "-r", "--name-only", REF, "items").split()
    item_id = name.rsplit("/", 1)[1][:-5]
    fan = item_id[3:5]
    raw = open_raw(ledger)
    empty = raw.write(pygit2.enums.ObjectType.TREE, b"")

    def with_folder(first: bool) -> str:
        def change(listed: list[Entry]) -> list[Entry]:
            folder: Entry = (b"40000", b"td", empty)
            return [folder, *listed] if first else [*listed, folder]

        tree = rewrite(raw, raw.revparse_single(REF).tree.id, ["items", fan], change)
        folder = raw[tree] / "items" / fan
        return str(folder.id)

    repo = open_repo(str(ledger))
    snapshot = Snapshot(repo, repo.tip())
    gits = repo.written(with_folder(first=False), f"items/{fan}")
    assert list(gits) == [f"{item_id}.yaml", "td"]
    assert snapshot.item_blob(ItemId(item_id), gits) == snapshot.item_blob(ItemId(item_id))
    with pytest.raises(BadLedger, match=f"items/{fan}: a tree whose entries are not as git"):
        repo.written(with_folder(first=True), f"items/{fan}")
