"""Objects are read with their ids checked, except where a fetch has just checked them."""

from __future__ import annotations

import gc
import os
import subprocess
import zlib
from pathlib import Path

import pytest

from gitcoop.errors import BadLedger
from gitcoop.store.repository import PACK_FILES_OPEN, fetched_reads, open_repo
from tests.conftest import coop_in, git, make_repo

WRONG_ID = "1" * 40  # a name no content "blob 3\0abc" hashes to


def plant(repo: Path) -> None:
    """A loose object whose name is not the hash of what it holds (a corrupt disk)."""
    folder = repo / ".git" / "objects" / WRONG_ID[:2]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / WRONG_ID[2:]).write_bytes(zlib.compress(b"blob 3\0abc"))


def test_a_mismatched_object_is_refused_but_inside_fetched_reads(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    plant(path)
    repo = open_repo(str(path))
    with pytest.raises(BadLedger, match="cannot be read"):
        repo.blob_bytes(WRONG_ID, "items/11/x.yaml", 1024)
    with fetched_reads(True):
        assert repo.blob_bytes(WRONG_ID, "items/11/x.yaml", 1024) == b"abc"
    with pytest.raises(BadLedger, match="cannot be read"):  # checked again after
        repo.blob_bytes(WRONG_ID, "items/11/x.yaml", 1024)
    with fetched_reads(False), pytest.raises(BadLedger):
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


def _target(fd: str) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return ""
