"""Objects are read with their ids checked, except where a fetch has just checked them."""

from __future__ import annotations

import zlib
from pathlib import Path

import pytest

from gitcoop.errors import BadLedger
from gitcoop.store.repository import fetched_reads, open_repo
from tests.conftest import make_repo

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
