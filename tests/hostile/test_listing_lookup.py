"""A fan-out folder in byte order but not in git's, on a base this clone holds as its own.

The victim's ledger was moved by hand (a plain `git fetch` and `git update-ref`) to a
commit P of mallory's whose `items/<fan>` holds, before the item files, a folder named
`td`: sorted by bytes ("td" < "td-..."), but not in git's order (a folder sorts as
"td/", after "td-..."). mallory then pushes C on P, adding an item B of that folder, its
file written as its `add` makes it. A lookup of B's file by path (a bisect in git's
order) misses it, and a listing would find it: H7 takes a tree only in git's order
(`trees._as_git_writes`), so both checks, a folder at a time and a commit at a time
(COOP_REFERENCE=1), refuse C for that folder, and the ledger stays at P.
"""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from gitcoop.store.fast import REFERENCE
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    MALLORY,
    REF,
    add_event,
    commit,
    files,
    new_event,
    push,
    team,
    tip,
    write_tree,
)
from tests.rawledger import Entry, open_raw, rewrite


def _with_junk(path: Path, tree: str, fan: str) -> str:
    """`tree` with a folder `td` put first in `items/<fan>` (byte order, not git's)."""
    raw = open_raw(path)
    empty = raw.write(pygit2.enums.ObjectType.TREE, b"")

    def junk(listed: list[Entry]) -> list[Entry]:
        return [(b"40000", b"td", empty), *(e for e in listed if e[1] != b"td")]

    return str(rewrite(raw, pygit2.Oid(hex=tree), ["items", fan], junk))


@pytest.mark.parametrize("reference", [False, True])
def test_an_item_file_after_a_folder_named_as_its_prefix_is_judged_alike(
    clones: Clones, tmp_path: Path, reference: bool
) -> None:
    crew = team(clones, tmp_path)
    fan = crew.todo[3:5]
    base = tip(crew.mallory)
    content = files(crew.mallory)
    p_tree = _with_junk(
        crew.mallory, git(crew.mallory, "rev-parse", f"{base}^{{tree}}").strip(), fan
    )
    p = commit(crew.mallory, p_tree, [base], MALLORY, message="P")
    push(crew.mallory, p)
    # the victim's ledger moved to P by hand
    git(crew.victim, "fetch", "-q", "origin", f"+{REF}:refs/coop/by-hand")
    git(crew.victim, "update-ref", REF, p)
    added = new_event(content, f"td-{fan}0000000000", "add", kind="todo", title="b")
    c_tree = _with_junk(crew.mallory, write_tree(crew.mallory, add_event(content, added)), fan)
    c = commit(crew.mallory, c_tree, [p], MALLORY, message="C")
    push(crew.mallory, c)
    # a plain git fetch through the refspec `remote setup` adds brings it unchecked
    assert coop_in(crew.victim, "remote", "setup", "origin").code == 0
    git(crew.victim, "fetch", "-q", "origin")  # plain git: transfer.fsckObjects is off
    env = {REFERENCE: "1"} if reference else {}
    synced = coop_in(crew.victim, "sync", env=env)
    assert synced.code == 4, (synced.code, synced.err)
    assert tip(crew.victim) == p, f"the ledger moved to C: {synced.err}"
    assert "the local ledger is unchanged" in synced.err, synced.err
    assert f"items/{fan}: a tree whose entries are not as git writes them" in synced.err
