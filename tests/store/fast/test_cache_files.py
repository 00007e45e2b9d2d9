"""The cache's files are replaced whole: a write that fails or is stopped leaves nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gitcoop.store.fast import cache_files
from gitcoop.store.fast.cache_files import ShardFiles


class Stopped(BaseException):
    """What SIGTERM raises in a child (`split._stopped`) or here (`cli.main._stopped`)."""


def test_a_write_stopped_midway_leaves_no_file_behind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = ShardFiles(str(tmp_path / "cache"))
    assert files.write("ab.open", {"rows": [1, 2, 3]})

    def stopped(_source: str, _target: str) -> None:
        raise Stopped

    monkeypatch.setattr(cache_files.os, "replace", stopped)
    with pytest.raises(Stopped):
        files.write("ab.open", {"rows": [4]})
    assert os.listdir(tmp_path / "cache") == ["ab.open"]
    assert files.read("ab.open") == {"rows": [1, 2, 3]}
