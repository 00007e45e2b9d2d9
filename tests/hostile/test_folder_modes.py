"""A fan-out folder's entry whose mode changes and whose id does not, on the first-parent
chain, checked by the folder-at-a-time check and by the whole-commit one alike.

mallory pushes a commit on the tip that adds no event; its tree is the tip's but for
`items/<fan>`, made a gitlink (mode 160000) of the same tree id, which git's transport
carries without walking it. The whole-commit check compared the listing of items/ by
ids, so it read the folder as unchanged and moved the ledger to a tree no read could
open; it is the check of a ledger that requires signed commits, and of a commit held
aside that a second remote makes a first parent. A fan-out folder is a tree (H7: names
and modes as git writes them), and a changed mode is a change (H3).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pygit2
import pytest

from gitcoop.store.fast import REFERENCE
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import MALLORY, REF, Team, commit, team, tip
from tests.hostile.policy import signed_team
from tests.hostile.test_second_parent import PATHS, on_path, pushed
from tests.rawledger import Entry, open_raw, rewrite


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def _gitlinked(crew: Team, top: str) -> str:
    """The tip's tree with `top/<fan>` (the todo's fan-out) a gitlink of the same id."""
    raw = open_raw(crew.mallory)
    fan = crew.todo[3:5].encode()

    def linked(listed: list[Entry]) -> list[Entry]:
        return [(b"160000" if name == fan else mode, name, oid) for mode, name, oid in listed]

    root: pygit2.Oid = raw.revparse_single(REF).tree.id
    return str(rewrite(raw, root, [top], linked))


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("top", ["items", "events"])
def test_a_fanout_folder_made_a_gitlink_on_the_chain_is_refused_by_both_checks(
    crew: Team, clones: Clones, top: str, path: str
) -> None:
    made = commit(crew.mallory, _gitlinked(crew, top), [tip(crew.mallory)], MALLORY)
    pushed(crew, made)
    where = on_path(crew, clones, path)
    twin = where.parent / f"{where.name}-reference"
    shutil.copytree(where, twin, symlinks=True)
    said = []
    for clone, env in ((where, {}), (twin, {REFERENCE: "1"})):
        before = git(clone, "rev-parse", "-q", "--verify", REF, check=False).strip()
        synced = coop_in(clone, "sync", env=env)
        assert synced.code == 4, (env, synced.code, synced.err)
        assert f"commit {made[:12]}" in synced.err, (env, synced.err)
        assert "the local ledger is unchanged" in synced.err, (env, synced.err)
        assert git(clone, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
        said.append(synced.err)
    if top == "items":  # nothing dropped: the layout names the entry
        assert f"items/{crew.todo[3:5]}: not an allowed name or mode" in said[1], said
    assert said[0] == said[1]


@pytest.mark.parametrize("local", [False, True])
def test_a_ledger_requiring_signed_commits_refuses_the_gitlinked_fanout(
    clones: Clones, tmp_path: Path, local: bool
) -> None:
    """Under `require_signed` every fetch is checked whole (`windows.streamable`): the
    path a person's clone takes, no COOP_REFERENCE needed. mallory's commit adds no event,
    so it needs no signature; with local work the victim would merge it and push it on."""
    crew = signed_team(clones, tmp_path).crew
    if local:
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    before = tip(crew.victim)
    made = commit(crew.mallory, _gitlinked(crew, "items"), [tip(crew.mallory)], MALLORY)
    git(crew.mallory, "update-ref", REF, made)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{made}:{REF}")
    for _ in range(2):  # a second sync neither takes it in nor pushes anything on
        synced = coop_in(crew.victim, "sync")
        assert synced.code == 4, (synced.code, synced.err)
        assert "not an allowed name or mode" in synced.err, synced.err
        assert tip(crew.victim) == before
    assert git(crew.remote, "rev-parse", REF).strip() == made  # only mallory's own push
