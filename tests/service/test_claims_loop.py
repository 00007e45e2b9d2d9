"""The claim loop itself (service/claims.py): bounded, jittered, and never moving the
local ref to a claim the remote did not take. A real remote over file://; the pauses
are recorded instead of slept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from gitcoop.errors import ChangedUnderWrite
from gitcoop.service import claims
from gitcoop.service.claims import Sharing, Tries
from gitcoop.store.ledger import transaction
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.transaction import Change
from gitcoop.store.repository import Oid, open_repo
from tests.conftest import Clones, coop_in, git

NOW = datetime(2026, 11, 29, 10, tzinfo=UTC)


def test_pauses_are_a_random_share_of_a_doubling_bound() -> None:
    asked: list[tuple[float, float]] = []
    slept: list[float] = []

    def jitter(low: float, high: float) -> float:
        asked.append((low, high))
        return high / 2

    tries = Tries(sleep=slept.append, jitter=jitter)
    for attempt in range(4):
        tries.pause(attempt)  # a fast remote: from first_pause
    for attempt in range(1, 6):
        tries.pause(attempt, round_trip=0.7)  # a slow round: from its own length
    assert asked == [
        *[(0.0, 0.02), (0.0, 0.04), (0.0, 0.08)],
        *[(0.0, 0.7), (0.0, 1.4), (0.0, 1.4), (0.0, 1.4), (0.0, 1.4)],  # two slow rounds
    ]
    assert slept == [high / 2 for _, high in asked]  # none before the first attempt


def stand_in(snapshot: Snapshot) -> Change:
    """A decision standing in for a claim: a commit on the tip that was read."""
    return Change("take by bob@example.com", "bob@example.com", NOW, config=snapshot.config)


def test_a_claim_the_remote_keeps_refusing_gives_up_and_never_lands_here(
    clones: Clones,
) -> None:
    a, b = clones.clone("alice"), clones.clone("bob")
    assert coop_in(a, "init").code == 0
    assert coop_in(a, "add", "todo", "x").code == 0
    for path in (a, b):
        assert coop_in(path, "sync").code == 0
    repo = open_repo(str(b))
    slept: list[float] = []
    tries = Tries(attempts=3, sleep=slept.append)
    share = Sharing(repo, "origin", "bob@example.com", NOW, False, tries)
    prepared: list[Oid] = []

    def prepare() -> Oid | None:
        done = transaction.prepare(repo, stand_in)
        assert done.commit is not None
        prepared.append(done.commit)
        assert coop_in(a, "add", "todo", f"alice moves first {len(prepared)}").code == 0
        assert coop_in(a, "sync").code == 0  # the remote moves after bob's fetch
        return done.commit

    def land() -> bool:
        raise AssertionError("a refused claim must never land")

    with pytest.raises(ChangedUnderWrite, match="gave up after 3 attempts: origin kept moving"):
        claims.claim(share, prepare, land)
    assert len(prepared) == 3 and len(slept) == 2
    history = git(b, "rev-list", "refs/coop/ledger").split()
    assert not set(prepared) & set(history)  # bob's ledger never held a refused claim
    remote = git(clones.root / "remote.git", "rev-list", "refs/coop/ledger").split()
    assert not set(prepared) & set(remote)
