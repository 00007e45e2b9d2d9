"""Transactions: one commit per write, parent = the tip read, moved only by compare-and-swap."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from gitcoop.domain.records import LedgerConfig
from gitcoop.errors import ChangedUnderWrite
from gitcoop.store.ledger import transaction
from gitcoop.store.ledger.layout import REF
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.transaction import Change
from gitcoop.store.repository import open_repo
from tests.conftest import coop, git
from tests.domain.builders import T0


def bump(snapshot: Snapshot) -> Change:
    config = snapshot.config
    return Change(
        "bump", "alice@example.com", T0, config=LedgerConfig(config.roles, {}, config.clock + 1)
    )


def test_a_write_is_one_commit_whose_parent_is_the_tip_read(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    before = repo.tip()
    outcome = transaction.write(repo, bump)
    after = repo.tip()
    assert outcome.snapshot.commit == after
    assert after is not None and repo.commit_parents(after) == [before]


def test_nothing_to_change_moves_nothing(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    before = repo.tip()
    outcome = transaction.write(repo, lambda snapshot: None)
    assert outcome.change is None
    assert repo.tip() == before


def test_a_lost_swap_retries_from_a_fresh_read(ledger: Path) -> None:
    """A second writer moves the ref between this writer's read and its swap."""
    repo = open_repo(str(ledger))
    seen: list[str | None] = []

    def racing(snapshot: Snapshot) -> Change:
        seen.append(snapshot.commit)
        if len(seen) == 1:  # someone else writes after our read
            other = open_repo(str(ledger))
            tip = other.tip()
            assert tip is not None
            commit = transaction.commit_change(
                other, Snapshot(other, tip), bump(Snapshot(other, tip))
            )
            assert other.swap(tip, commit, "outside write")
        return bump(snapshot)

    outcome = transaction.write(repo, racing)
    assert len(seen) == 2 and seen[0] != seen[1]
    assert outcome.snapshot.commit == repo.tip()
    assert outcome.snapshot.config.clock == Snapshot(repo, seen[0]).config.clock + 2


def test_always_losing_the_swap_ends_with_changed_under_write(ledger: Path) -> None:
    repo = open_repo(str(ledger))

    def always_racing(snapshot: Snapshot) -> Change:
        other = open_repo(str(ledger))
        tip = other.tip()
        assert tip is not None
        commit = transaction.commit_change(other, Snapshot(other, tip), bump(Snapshot(other, tip)))
        assert other.swap(tip, commit, "outside write")
        return bump(snapshot)

    with pytest.raises(ChangedUnderWrite, match="changed under this write — re-read and retry"):
        transaction.write(repo, always_racing)


def test_swap_refuses_when_the_ref_is_not_at_the_expected_tip(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    tip = repo.tip()
    assert tip is not None
    commit = transaction.commit_change(repo, Snapshot(repo, tip), bump(Snapshot(repo, tip)))
    assert not repo.swap(None, commit, "create")  # it exists: not at "absent"
    assert repo.tip() == tip
    assert repo.swap(tip, commit, "move")
    assert repo.tip() == commit


def test_init_creates_the_reflog_and_every_write_is_logged(ledger: Path) -> None:
    coop("add", "todo", "one")
    coop("add", "todo", "two")
    log = git(ledger, "reflog", "--format=%gs", REF).splitlines()
    assert log[0].startswith("add ") and log[-1].startswith("init by alice@example.com")
    assert len(log) == 3


def test_ledger_writes_never_touch_head_index_or_worktree(ledger: Path) -> None:
    (ledger / "file.txt").write_text("work in progress\n")
    git(ledger, "add", "file.txt")
    (ledger / "other.txt").write_text("untracked\n")
    status = git(ledger, "status", "--porcelain")
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo)
    coop("done", todo, "--summary", "s")
    assert git(ledger, "status", "--porcelain") == status
    raw = pygit2.Repository(str(ledger))
    assert raw.head_is_unborn
    git(ledger, "fsck", "--strict", "--no-dangling")  # raises on any error


def test_prepare_writes_the_commit_and_moves_no_ref_until_it_lands(ledger: Path) -> None:
    """A claim decided by a remote: committed as objects, landed only once it was taken."""
    repo = open_repo(str(ledger))
    before = repo.tip()
    prepared = transaction.prepare(repo, bump)
    assert prepared.commit is not None and prepared.change is not None
    assert repo.tip() == before  # nobody here sees the claim yet
    assert repo.commit_parents(prepared.commit) == [before]
    assert transaction.land(repo, prepared)
    assert repo.tip() == prepared.commit


def test_prepare_with_nothing_to_change_commits_nothing(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    prepared = transaction.prepare(repo, lambda snapshot: None)
    assert (prepared.commit, prepared.change) == (None, None)
    assert prepared.snapshot.commit == repo.tip()


def test_a_prepared_commit_does_not_land_on_a_ledger_that_moved(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    prepared = transaction.prepare(repo, bump)
    moved = transaction.write(repo, bump).snapshot.commit
    assert not transaction.land(repo, prepared)
    assert repo.tip() == moved


def test_a_change_writes_each_item_and_event_at_its_path_and_keeps_the_rest(ledger: Path) -> None:
    from gitcoop.domain.lifecycle import HANDLERS
    from gitcoop.store.ledger.layout import event_path, item_path
    from tests.domain.builders import ROLES, TODO, event

    repo = open_repo(str(ledger))
    before = Snapshot(repo, repo.tip())
    added = event("add", kind="todo", title="laid out", clock=before.config.clock + 1)
    note = event("note", text="only an event", item=TODO, clock=before.config.clock + 2)
    item = HANDLERS["add"](None, added, ROLES)

    def decide(snapshot: Snapshot) -> Change:
        return Change("add", "alice@example.com", T0, items={TODO: item}, events=[added])

    transaction.write(repo, decide)
    transaction.write(repo, lambda s: Change("note", "alice@example.com", T0, events=[note]))
    after = Snapshot(repo, repo.tip())
    for path in (event_path(added), event_path(note), item_path(TODO)):
        assert git(ledger, "cat-file", "-t", f"refs/coop/ledger:{path}").strip() == "blob", path
    assert after.config == before.config  # coop.yaml kept
    assert {e.id for e in before.all_events()} <= {e.id for e in after.all_events()}
