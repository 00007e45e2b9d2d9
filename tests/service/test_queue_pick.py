"""The pick across hit / moved / miss, with real commits touching the evidence or not."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.domain.records import Item
from gitcoop.service import queue
from gitcoop.service.pick import pick
from gitcoop.service.verify import verify
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo
from tests.conftest import git
from tests.service.queue_fixtures import CONFIRM, Code, install


@pytest.fixture
def code(ledger: Path) -> Code:
    return install(ledger)


def ready_item(code: Code, title: str = "Fix error toast") -> str:
    """An item confirmed by the verifier at the current HEAD."""
    evidence = (queue.parse_evidence("src/app.py:3"),)
    item_id = queue.add_item(code.ctx(), title, ("ui",), evidence).item.id
    code.plan(toast=CONFIRM)
    verify(code.ctx())
    return item_id


def item(code: Code, item_id: str) -> Item:
    repo = open_repo(str(code.path))
    found = Snapshot(repo, repo.tip()).item(item_id)  # type: ignore[arg-type]
    assert found is not None
    return found


def churn(code: Code, touching: int, other: int = 5) -> None:
    for n in range(touching):
        code.commit("src/app.py", f"line v{n}\n" * 50)
    for n in range(other):
        code.commit("docs/notes.md", f"n{n}\n")


def test_hit_takes_without_asking_and_binds_an_outcome(code: Code) -> None:
    item_id = ready_item(code)
    result = pick(code.ctx())
    assert result.shown is not None and result.shown.item.id == item_id
    assert [c.cache for c in result.checks] == ["hit"]
    assert code.calls() == [item_id]  # only the verify before
    taken = item(code, item_id)
    assert (taken.status, taken.taken_by, taken.session) == (
        "in_progress",
        "alice@example.com",
        "s1",
    )
    assert taken.obligation is not None and taken.obligation.kind == "outcome"


def test_moved_by_20_touching_commits_reuses_and_recaches(code: Code) -> None:
    item_id = ready_item(code)
    churn(code, touching=20)
    result = pick(code.ctx())
    assert [(c.cache, c.touching, c.action) for c in result.checks] == [("moved", 20, "reuse")]
    assert code.calls() == [item_id]
    head = git(code.path, "rev-parse", "HEAD").strip()
    assert {e.head for e in item(code, item_id).evidence} == {head}


def test_moved_by_21_touching_commits_reverifies_once_then_takes(code: Code) -> None:
    item_id = ready_item(code)
    churn(code, touching=21)
    result = pick(code.ctx())
    assert [(c.cache, c.action) for c in result.checks] == [("moved", "verify"), ("hit", "use")]
    assert code.calls() == [item_id, item_id]
    assert result.shown is not None and result.shown.item.status == "in_progress"


def test_commits_not_touching_the_evidence_do_not_count(code: Code) -> None:
    item_id = ready_item(code)
    churn(code, touching=0, other=30)
    result = pick(code.ctx())
    assert [(c.cache, c.touching) for c in result.checks] == [("moved", 0)]
    assert code.calls() == [item_id]


def test_a_cached_head_that_no_longer_exists_reverifies(code: Code) -> None:
    # no background repack after the ledger's writes: one started before the amend could
    # pack the old HEAD after the gc below pruned it (git's race, not the one under test)
    git(code.path, "config", "gc.auto", "0")
    item_id = ready_item(code)
    cached = git(code.path, "rev-parse", "HEAD").strip()
    git(code.path, "commit", "-q", "--amend", "-m", "rewritten")
    git(code.path, "reflog", "expire", "--expire=now", "--all")
    git(code.path, "gc", "-q", "--prune=now")
    assert git(code.path, "cat-file", "-t", cached, check=False).strip() != "commit"
    result = pick(code.ctx())
    assert result.checks[0].action == "verify"
    assert (
        result.checks[0].why == f"the HEAD its evidence was cached at ({cached[:12]}) is not here"
    )
    assert code.calls() == [item_id, item_id]


def test_a_cached_head_off_the_current_history_reverifies_and_names_it(code: Code) -> None:
    item_id = ready_item(code)
    cached = git(code.path, "rev-parse", "HEAD").strip()
    git(code.path, "checkout", "-q", "--orphan", "elsewhere")
    code.commit("src/app.py", "another history\n")
    result = pick(code.ctx())
    assert result.checks[0].action == "verify"
    assert result.checks[0].why.startswith(
        f"the HEAD its evidence was cached at ({cached[:12]}) is not an ancestor of HEAD"
    )
    assert code.calls() == [item_id, item_id]


def test_miss_verifies_and_a_discard_moves_on_to_the_next_item(code: Code) -> None:
    first = ready_item(code, "Fix error toast")
    second = ready_item(code, "Fix other toast")
    queue.edit(code.ctx(), first, status="blocked", reason="waiting")  # a discard: cache dropped
    queue.edit(code.ctx(), first, status="ready")
    code.plan(default={"verdict": "unclear", "reason": "cannot tell"})
    result = pick(code.ctx())
    assert [(c.cache, c.action) for c in result.checks] == [("miss", "verify"), ("hit", "use")]
    assert code.calls() == [first, second, first]
    assert item(code, first).status == "draft"
    assert result.shown is not None and result.shown.item.id == second


def test_never_asks_twice_within_one_pick(code: Code) -> None:
    item_id = ready_item(code)
    churn(code, touching=21)
    code.plan(toast={**CONFIRM, "run": "git commit -q --allow-empty -m moved"})
    result = pick(code.ctx())
    assert code.calls() == [item_id, item_id]  # HEAD moved again during the verify: still taken
    assert result.shown is not None and result.shown.item.id == item_id


def test_nothing_ready_verifies_the_drafts_and_says_why_nothing_was_picked(code: Code) -> None:
    draft = queue.add_item(code.ctx(), "A draft", (), ()).item.id
    result = pick(code.ctx())
    assert result.shown is None and result.checks == []
    assert code.calls() == [draft]  # the draft pass ran; the verdict was unclear
    assert "the queue holds 1 draft" in result.reason
    assert "verified 1 in this pick (1 draft)" in result.reason
    again = pick(code.ctx(), max_verify=0)
    assert again.shown is None and code.calls() == [draft]
    assert "--max-verify 0" in again.reason
