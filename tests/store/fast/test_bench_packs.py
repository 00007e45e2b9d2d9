"""The bench's ledger written as one pack is the ledger `git fast-import` writes."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.conftest import coop_in, git


def test_the_pack_writer_makes_the_commits_fast_import_makes(tmp_path: Path) -> None:
    from bench import ledger

    tips = {}
    for writer in ("pack", "fast-import"):
        path = ledger.build(tmp_path / writer, 600, links=40, unsettled=60, writer=writer)
        tips[writer] = git(path, "rev-parse", "refs/coop/ledger").strip()
    assert tips["pack"] == tips["fast-import"]
    packed = tmp_path / "pack"
    checked = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"], cwd=packed, capture_output=True, text=True
    )
    assert checked.returncode == 0, checked.stderr
    assert coop_in(packed, "fsck").code == 0
    assert len(coop_in(packed, "list", "--all", "--json").json()) == 600
