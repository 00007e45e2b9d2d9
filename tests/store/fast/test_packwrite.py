"""A write's objects as one pack: the bytes git would make, read back by git itself."""

from __future__ import annotations

import hashlib
import os
import struct
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.store.fast import packwrite
from gitcoop.store.repository import Oid, open_repo
from tests.conftest import git, make_repo

BLOB, TREE = 0o100644, 0o040000
# names that sort differently as folders ("a" + "/" after "a-b", "a.b") than as files
NAMES = st.text(alphabet="ab-._0", min_size=1, max_size=4).filter(lambda n: n not in (".", ".."))


def oid_of(content: bytes, kind: bytes = b"tree") -> str:
    return hashlib.sha1(b"%s %d\0" % (kind, len(content)) + content).hexdigest()


@pytest.fixture(scope="module")
def raw(tmp_path_factory: pytest.TempPathFactory) -> pygit2.Repository:
    return pygit2.Repository(str(make_repo(tmp_path_factory.mktemp("trees") / "r")))


@settings(max_examples=150, deadline=None)
@given(
    base=st.dictionaries(NAMES, st.booleans(), max_size=12),
    changes=st.dictionaries(NAMES, st.booleans(), min_size=1, max_size=4),
)
def test_a_changed_tree_is_the_tree_libgit2_builds(
    raw: pygit2.Repository, base: dict[str, bool], changes: dict[str, bool]
) -> None:
    blob, folder = raw.create_blob(b"x"), raw.TreeBuilder().write()
    before = raw.TreeBuilder()
    for name, is_folder in base.items():
        before.insert(name, folder if is_folder else blob, TREE if is_folder else BLOB)
    tree = raw[before.write()]
    other = raw.create_blob(b"y")
    builder = raw.TreeBuilder(tree)
    wanted: dict[str, packwrite.Entry] = {}
    for name, is_folder in changes.items():
        oid = folder if is_folder else other
        builder.insert(name, oid, TREE if is_folder else BLOB)
        wanted[name] = (TREE if is_folder else BLOB, oid.raw)
    expected = raw[builder.write()].read_raw()
    assert packwrite.changed_tree(tree.read_raw(), wanted) == expected


def test_a_base_out_of_git_s_order_or_naming_a_file_twice_comes_out_as_libgit2_writes_it(
    raw: pygit2.Repository,
) -> None:
    blob = raw.create_blob(b"x")
    entry = lambda name: b"100644 %s\0%s" % (name, blob.raw)  # noqa: E731
    hostile = entry(b"b") + entry(b"a") + entry(b"b")
    tree = raw[raw.odb.write(pygit2.enums.ObjectType.TREE, hostile)]
    builder = raw.TreeBuilder(tree)
    builder.insert("c", blob, BLOB)
    ours = packwrite.changed_tree(hostile, {"c": (BLOB, blob.raw)})
    assert ours == raw[builder.write()].read_raw() == entry(b"a") + entry(b"b") + entry(b"c")


def test_unusual_modes_and_names_in_a_base_come_out_as_libgit2_writes_them(
    raw: pygit2.Repository,
) -> None:
    blob, folder = raw.create_blob(b"x"), raw.TreeBuilder().write()
    # 040000 is a folder (sorted as "a/"), padded; a name with a slash, as libgit2 reads it
    base = b"100644 a-b\0%s040000 a\0%s100664 odd\0%s100644 x/y\0%s" % (
        blob.raw,
        folder.raw,
        blob.raw,
        blob.raw,
    )
    tree = raw[raw.odb.write(pygit2.enums.ObjectType.TREE, base)]
    builder = raw.TreeBuilder(tree)
    builder.insert("c", blob, BLOB)
    ours = packwrite.changed_tree(base, {"c": (BLOB, blob.raw)})
    assert ours == raw[builder.write()].read_raw()
    assert ours.startswith(b"100644 a-b\0") and b"40000 a\0" in ours and b"040000" not in ours


def test_a_signed_commit_in_a_pack_is_the_one_libgit2_writes(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    repo = open_repo(str(path))
    tree = repo.raw.TreeBuilder().write()
    when = datetime(2026, 11, 29, 10, tzinfo=UTC)
    content = repo.commit_content(tree.raw, None, [], "bob@example.com", when, "take td-x\n")
    for armour in (
        "-----BEGIN SSH SIGNATURE-----\nU1NI\nU0lH\n-----END SSH SIGNATURE-----\n",
        "one",
    ):
        theirs = repo.raw.create_commit_with_signature(content.decode(), armour)
        ours = packwrite.signed(content, armour)
        assert oid_of(ours, b"commit") == str(theirs)


def test_what_is_not_a_tree_or_an_entry_is_refused() -> None:
    with pytest.raises(ValueError, match="could not read"):
        packwrite.changed_tree(b"100644 a\0short", {"b": (BLOB, b"\1" * 20)})
    for bad in ("", ".", "..", "a/b", "a\0b"):  # as a change: gitcoop's names are plain
        with pytest.raises(ValueError, match="not a tree entry"):
            packwrite.changed_tree(b"", {bad: (BLOB, b"\1" * 20)})


def test_a_pack_is_read_back_by_git_and_libgit2(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    pack = packwrite.Pack()
    sizes = (0, 15, 16, 2047, 2048, 300_000)  # one, two and three bytes of size header
    blobs = [pack.blob(os.urandom(n // 2) + b"a" * (n - n // 2)) for n in sizes]
    names = {f"f{n}": (BLOB, oid) for n, oid in zip(sizes, blobs, strict=True)}
    tree = pack.tree(b"", {**names, "sub": (TREE, pack.tree(b"", {"x": (BLOB, blobs[0])}))})
    folder = repo / ".git" / "objects" / "pack"
    keeps: list[str] = []
    name = packwrite.write(pack, str(folder), True, keeps)
    assert keeps == [str(folder / f"pack-{name}.keep")]
    made_by = packwrite.keeper((folder / f"pack-{name}.keep").read_bytes())
    assert made_by == (os.getpid(), os.uname().nodename.encode())
    assert packwrite.kept_by_the_living(*made_by)
    listed = git(repo, "verify-pack", "-v", str(folder / f"pack-{name}.idx"))
    assert f"non delta: {len(pack.objects)} objects" in listed
    for oid in blobs:
        assert oid_of(_cat(repo, oid), b"blob") == oid.hex()
    assert git(repo, "ls-tree", "-r", tree.hex()).count("\n") == len(sizes) + 1
    raw = pygit2.Repository(str(repo))
    assert len(raw[pygit2.Oid(raw=blobs[-1])].data) == sizes[-1]
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(packwrite.INCOMING)]
    packwrite.unkeep(keeps)
    assert not (folder / f"pack-{name}.keep").exists() and keeps == []
    (folder / f"pack-{name}.keep").write_bytes(b"git's own\n")  # written again: not ours
    assert packwrite.write(pack, str(folder), False, keeps) == name and keeps == []
    assert (folder / f"pack-{name}.keep").read_bytes() == b"git's own\n"


def _cat(repo: Path, oid: bytes) -> bytes:
    done = subprocess.run(
        ["git", "cat-file", "blob", oid.hex()], cwd=repo, capture_output=True, check=True
    )
    return done.stdout


def test_the_index_says_where_each_object_is_even_past_two_gigabytes() -> None:
    ids = sorted(hashlib.sha1(b"%d" % n).digest() for n in range(5))
    offsets = [12, 100, 0x7FFFFFFF, 0x80000000, 0x1_0000_0000]
    rows = [(oid, n, offset) for n, (oid, offset) in enumerate(zip(ids, offsets, strict=True))]
    index = packwrite._index(list(reversed(rows)), b"\7" * 20)
    assert index[:8] == b"\377tOc" + struct.pack(">I", 2)
    fan = struct.unpack(">256I", index[8 : 8 + 1024])
    assert fan[255] == 5 and fan[ids[0][0]] >= 1
    at = 8 + 1024
    assert [index[at + 20 * i : at + 20 * i + 20] for i in range(5)] == ids
    at += 100
    assert struct.unpack(">5I", index[at : at + 20]) == (0, 1, 2, 3, 4)  # CRC-32s, in id order
    small = struct.unpack(">5I", index[at + 20 : at + 40])
    large = struct.unpack(">2Q", index[at + 40 : at + 56])
    found = [large[o & 0x7FFFFFFF] if o & 0x80000000 else o for o in small]
    assert found == offsets
    assert index[at + 56 : at + 76] == b"\7" * 20
    assert index[-20:] == hashlib.sha1(index[:-20]).digest()


def test_a_pack_that_cannot_be_written_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pack = packwrite.Pack()
    pack.blob(b"content")

    def full(*_: object) -> bytes:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(packwrite, "_index", full)  # the pack is placed, its index fails
    with pytest.raises(OSError):
        packwrite.write(pack, str(tmp_path / "pack"), False, [])
    assert list(tmp_path.iterdir()) == [tmp_path / "pack"]  # no temporary beside the packs
    assert list((tmp_path / "pack").iterdir()) == []  # no pack without its index, no keep


def test_a_commit_in_a_pack_is_the_commit_libgit2_writes(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    repo = open_repo(str(path))
    base = repo.raw[repo.raw.TreeBuilder().write()]
    pack = packwrite.Pack()
    tree = pack.tree(b"", {"a": (BLOB, pack.blob(b"a\n"))})
    when = datetime(2026, 11, 29, 10, tzinfo=UTC)
    message = "take td-x by bob@example.com\n\nwith a body: ünïcode\n"
    content = repo.commit_content(tree, base, [], "bob@example.com", when, message)
    commit = pack.add(packwrite.COMMIT, content)
    repo.write_pack(pack)
    repo.unkeep()
    again = repo.write_commit(pygit2.Oid(raw=tree), [], "bob@example.com", when, message)
    assert again == Oid(commit.hex())
    assert git(path, "cat-file", "-t", commit.hex()).strip() == "commit"
