"""The tests' own ledger surgery (tests/rawledger.py) holds up beside gitcoop's upkeep.

A gitcoop write may start `git repack -d` in the background (store/ledger/upkeep.py),
which removes the loose-object folders it empties; a surgery write that lands
in such a folder as it goes must try again, as the store's own writes do.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import coop_in, git_loop, make_repo
from tests.rawledger import BLOB, open_raw, put, read


def test_surgery_writes_beside_a_roll_up_loop_all_land(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "repo")
    assert coop_in(path, "init").code == 0
    loose = []
    with git_loop(path, "while :; do git repack -d -q; done"):
        for n in range(300):
            put(path, ["note"], b"surgery %d\n" % n, BLOB)
            loose.append(open_raw(path).write(3, b"loose %d\n" % n))
    assert read(path, "note") == b"surgery 299\n"
    raw = open_raw(path)
    assert [bytes(raw[oid].data) for oid in loose] == [b"loose %d\n" % n for n in range(300)]
