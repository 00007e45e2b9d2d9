"""Objects are read with their ids checked."""

from __future__ import annotations

import gc
import os
import subprocess
import zlib
from pathlib import Path

import pygit2
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.errors import BadLedger
from gitcoop.store.git import repo as repo_module
from gitcoop.store.git.repo import PACK_FILES_OPEN
from gitcoop.store.ledger.repo import Repo, open_repo
from tests.conftest import coop_in, git, make_repo

WRONG_ID = "1" * 40  # a name no content "blob 3\0abc" hashes to


def plant(repo: Path) -> None:
    """A loose object whose name is not the hash of what it holds (a corrupt disk)."""
    folder = repo / ".git" / "objects" / WRONG_ID[:2]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / WRONG_ID[2:]).write_bytes(zlib.compress(b"blob 3\0abc"))


def test_a_mismatched_object_is_refused(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    plant(path)
    repo = open_repo(str(path))
    with pytest.raises(BadLedger, match="cannot be read"):
        repo.blob_bytes(WRONG_ID, "items/11/x.yaml", 1024)


def test_many_blobs_read_together_are_checked_as_one_is(tmp_path: Path) -> None:
    """`blobs_bytes` (a first sync's event files) reads what `blob_bytes` reads, and
    refuses what it refuses with the same words: a missing object, a tree, a file over
    the cap, an object whose name is not its content's hash."""
    path = make_repo(tmp_path / "r")
    plant(path)
    repo = open_repo(str(path))
    small = str(repo.raw.create_blob(b"small"))
    large = str(repo.raw.create_blob(b"x" * 2000))
    tree = str(repo.raw.TreeBuilder().write())
    assert repo.blobs_bytes([(small, "a"), (small, "b")], 1024) == [b"small", b"small"]
    for bad in ("2" * 40, tree, large, WRONG_ID):
        with pytest.raises(BadLedger) as one:
            repo.blob_bytes(bad, "events/x.yaml", 1024)
        with pytest.raises(BadLedger) as many:
            repo.blobs_bytes([(small, "a"), (bad, "events/x.yaml")], 1024)
        assert many.value.message == one.value.message


def test_bulk_reads_find_packed_loose_and_newly_fetched_objects(
    tmp_path: Path,
) -> None:
    """Bulk reads find a packed object, a loose one and one in a pack written after the
    repository was opened (as a fetch writes one), and refuse what is wrong with the
    words a single read uses."""
    path = make_repo(tmp_path / "r")
    repo = open_repo(str(path))
    packed = _packed(path, b"packed\n")
    loose = str(repo.raw.create_blob(b"loose\n"))
    tree = repo.raw.TreeBuilder()
    tree.insert("a.yaml", loose, 0o100644)
    tree_id = str(tree.write())
    large = str(repo.raw.create_blob(b"x" * 2000))
    later = _packed(path, b"fetched after\n")  # a pack the open repository never saw
    found = repo.blobs_bytes([(packed, "a"), (loose, "b"), (later, "c")], 1024)
    assert found == [b"packed\n", b"loose\n", b"fetched after\n"]
    repo.check_written(tree_id, "events/11")
    assert repo._raw_entries(tree_id, "events/11") == {"a.yaml": (0o100644, loose)}
    for bad in ("2" * 40, tree_id, large):
        with pytest.raises(BadLedger) as one:
            repo.blob_bytes(bad, "events/x.yaml", 1024)
        with pytest.raises(BadLedger) as many:
            repo.blobs_bytes([(packed, "a"), (bad, "events/x.yaml")], 1024)
        assert many.value.message == one.value.message
    with pytest.raises(BadLedger, match="missing from the object store"):
        repo.check_written("3" * 40, "events/12")
    with pytest.raises(BadLedger, match="has tree mode but is not a tree"):
        repo.check_written(packed, "events/13")


def _packed(path: Path, content: bytes) -> str:
    """A blob written into a pack of its own, and no loose copy."""
    oid = (
        subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=path,
            input=content,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    subprocess.run(
        ["git", "pack-objects", "-q", ".git/objects/pack/pack"],
        cwd=path,
        input=(oid + "\n").encode(),
        capture_output=True,
        check=True,
    )
    git(path, "prune-packed")
    return oid


def test_a_repository_let_go_closes_its_pack_files(tmp_path: Path) -> None:
    """A transition writes a pack, and the cyclic collector frees a pygit2 Repository
    only now and then: commands run in one process held a descriptor for each pack of
    each repository they had opened."""
    path = make_repo(tmp_path / "r")
    assert coop_in(path, "init").code == 0
    git(path, "config", "gc.auto", "0")  # every pack stays: one a write
    gc.collect()
    gc.disable()
    try:
        before = len(os.listdir("/proc/self/fd"))
        for n in range(40):
            assert coop_in(path, "add", "todo", f"work number {n}").code == 0
            assert coop_in(path, "list").code == 0
        assert len(os.listdir("/proc/self/fd")) <= before + 5
    finally:
        gc.enable()
    assert len(list((path / ".git" / "objects" / "pack").glob("*.pack"))) >= 40


def test_a_long_lived_process_keeps_only_so_many_pack_files_open(tmp_path: Path) -> None:
    """libgit2 keeps every pack file it read open, by default without a limit: a process
    that syncs again and again (the MCP server, the tests) ran out of file descriptors
    as fetches and repacks made packs. The repository caps them (`PACK_FILES_OPEN`)."""
    path = make_repo(tmp_path / "r")
    blobs = []
    for n in range(PACK_FILES_OPEN + 20):  # one pack for each blob
        oid = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=path,
            input=f"blob {n}\n",
            text=True,
            capture_output=True,
            check=True,
        ).stdout.strip()
        subprocess.run(
            ["git", "pack-objects", "-q", ".git/objects/pack/pack"],
            cwd=path,
            input=oid + "\n",
            text=True,
            capture_output=True,
            check=True,
        )
        blobs.append(oid)
    git(path, "prune-packed")
    repo = open_repo(str(path))
    for oid in blobs:
        repo.blob_bytes(oid, "items/11/x.yaml", 1024)
    open_packs = [fd for fd in os.listdir("/proc/self/fd") if ".pack" in _target(fd)]
    assert 0 < len(open_packs) <= PACK_FILES_OPEN


SMALL_WINDOW = 64 * 1024  # the caps scaled down to a small ledger's pack


@pytest.mark.skipif(not os.path.exists("/proc/self/smaps"), reason="reads Linux's smaps")
def test_a_read_of_every_file_keeps_only_so_much_of_a_pack_mapped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """libgit2 maps a pack in windows of 1 GiB, up to 8 GiB, and unmaps none below that:
    a cold read of a million items kept 242 MB of its pack resident. The repository
    caps the windows (`PACK_WINDOW`, `PACK_MAPPED_MOST`); here both are scaled down so
    that a small ledger's pack spans many windows, and every file still reads right."""
    from bench import ledger

    path = ledger.build(tmp_path / "r", 1500, unsettled=200)
    (pack,) = (path / ".git" / "objects" / "pack").glob("*.pack")
    assert pack.stat().st_size > 40 * SMALL_WINDOW
    listed = git(path, "ls-tree", "-r", "refs/coop/ledger").splitlines()
    files = [(line.split()[2], line.split("\t")[1]) for line in listed]
    chosen = pygit2.settings
    before = chosen.mwindow_size, chosen.mwindow_mapped_limit
    monkeypatch.setattr(repo_module, "PACK_WINDOW", SMALL_WINDOW)
    monkeypatch.setattr(repo_module, "PACK_MAPPED_MOST", 4 * SMALL_WINDOW)
    try:
        repo = open_repo(str(path))
        for oid, name in files:
            assert Repo.blob_id(repo.blob_bytes(oid, name, 1 << 20)) == oid
        mapped = _resident(str(pack))
    finally:
        chosen.mwindow_size, chosen.mwindow_mapped_limit = before
    assert len(files) > 8000
    assert 0 < mapped <= 5 * SMALL_WINDOW  # the cap, and the window open when it was met


def _resident(name: str) -> int:
    """Bytes of the file `name` resident in this process's mappings (Linux's smaps)."""
    total, current = 0, ""
    with open("/proc/self/smaps") as maps:
        for line in maps:
            head = line.split()
            if head and "-" in head[0] and not head[0].endswith(":"):
                current = head[-1] if len(head) > 5 else ""
            elif head[:1] == ["Rss:"] and current == name:
                total += int(head[1]) * 1024
    return total


def _target(fd: str) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""


@settings(max_examples=200)
@given(st.binary(max_size=3000))
def test_a_blob_id_is_the_id_git_gives_those_bytes(data: bytes) -> None:
    assert Repo.blob_id(data) == str(pygit2.hash(data))
