"""Finding items and commits by the bytes of their files finds what parsing every file finds.

`blob_search` reads raw blobs and parses only the item files holding the
string; under `COOP_REFERENCE=1` it parses every item and every event file.
Each caller checks the field it meant on what is found, so both ways must
give the same items for that check, and the same commits named.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from gitcoop.domain.records import Item
from gitcoop.service.context import Context, read_ledger
from gitcoop.store import fast
from gitcoop.store.fast import blob_search
from tests.conftest import coop_in, git

ACTORS = ("alice@example.com", "bob@example.com", "o'brien@example.com", "zoë@example.com")


def held_by(path: Path, actor: str) -> list[str]:
    snapshot = read_ledger(Context(path=str(path)))
    return sorted(
        i.id for i in blob_search.items_containing(snapshot, actor) if i.taken_by == actor
    )


def done_with(path: Path, sha: str) -> list[str]:
    snapshot = read_ledger(Context(path=str(path)))
    found = blob_search.items_containing(snapshot, sha)
    return sorted(i.id for i in found if i.commit_sha == sha)


def every(path: Path, keep: Callable[[Item], bool]) -> list[str]:
    """The ids of the items `keep` takes, each item parsed."""
    return sorted(i.id for i in read_ledger(Context(path=str(path))).items() if keep(i))


@pytest.fixture
def worked(ledger: Path) -> tuple[Path, list[str]]:
    """Items taken by each actor, and some done with commits of the repository."""
    shas = []
    for k in range(3):
        git(ledger, "commit", "-q", "--allow-empty", "-m", f"work {k}")
        shas.append(git(ledger, "rev-parse", "HEAD").strip())
    for k, actor in enumerate(ACTORS * 2):
        env = {"COOP_ACTOR": actor}
        made = coop_in(ledger, "add", "todo", f"work {k} by {actor}", "--json", env=env)
        assert made.code == 0, made.err
        item = made.json()["id"]
        assert coop_in(ledger, "take", item, env=env).code == 0
        if k % 3 == 0:
            done = coop_in(ledger, "done", item, "--commit", shas[k % 2], env=env)
            assert done.code == 0, done.err
    coop_in(ledger, "add", "todo", f"names {shas[2]} in its title")
    return ledger, shas


def test_items_found_by_bytes_are_those_found_by_parsing(worked: tuple[Path, list[str]]) -> None:
    path, shas = worked
    for actor in ACTORS:
        expected = every(path, lambda i, actor=actor: i.taken_by == actor)
        assert expected, actor
        assert held_by(path, actor) == expected, actor
    for sha in shas:
        assert done_with(path, sha) == every(path, lambda i, sha=sha: i.commit_sha == sha)


def test_by_reference_the_same_items_and_commits(
    worked: tuple[Path, list[str]], by_reference: None
) -> None:
    path, shas = worked
    fast.forget()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(fast.REFERENCE, "0")
        fast.forget()
        quick = [held_by(path, a) for a in ACTORS] + [done_with(path, s) for s in shas]
        named = blob_search.commits_named(read_ledger(Context(path=str(path))))
    fast.forget()
    assert fast.reference()
    assert [held_by(path, a) for a in ACTORS] + [done_with(path, s) for s in shas] == quick
    assert blob_search.commits_named(read_ledger(Context(path=str(path)))) == named
    assert set(shas) <= named
