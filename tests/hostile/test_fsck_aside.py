"""fsck checks a commit only a merge's second parent reaches as a fetch does (H5-H7).

mallory's own clone holds a merge whose second parent carries a forgery each: the
forgeries tests/hostile/test_second_parent.py shows a fetch refusing. fsck, which
checks the same rules on the local ledger, checked such a commit's event files for
drops and clocks only, and passed the rest: an event in another's name, a clock past
its bounds, an empty folder, a listing git could not have written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.store.fast import REFERENCE
from tests.conftest import Clones, coop_in
from tests.hostile.forge import Team, team
from tests.hostile.test_second_parent import FORGERIES, merge_with_side

ASIDE = ["by-someone-else", "clock-too-far", "empty-folder", "repeated-entry", "gitlink-fan-out"]


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


@pytest.mark.parametrize("mode", ["incremental", "full", "reference"])
@pytest.mark.parametrize("forgery", ASIDE)
def test_fsck_finds_what_a_merges_second_parent_carries(
    crew: Team, forgery: str, mode: str
) -> None:
    assert coop_in(crew.mallory, "fsck").code == 0  # the honest tip, checked whole
    side, _ = merge_with_side(crew, FORGERIES[forgery])  # mallory's ledger is the merge
    args = ["--full"] if mode == "full" else []
    env = {REFERENCE: "1"} if mode == "reference" else {}
    checked = coop_in(crew.mallory, "fsck", *args, env=env)
    said = checked.out + checked.err
    assert checked.code == 1, (checked.code, said)
    assert f"[history] in commit {side[:12]} (aside): " in said, said  # the side's own check
    assert "Traceback" not in said
