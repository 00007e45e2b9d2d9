"""What a person reads is in plain words; what the ledger stores keeps its names."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Clones, coop, coop_in

LATER = {"COOP_NOW": "2026-11-29T14:00:00Z"}


def test_a_take_without_a_session_owes_a_review_in_plain_words(ledger: Path) -> None:
    todo = coop("add", "todo", "no session").out.strip()
    assert coop("take", todo).code == 0
    owed = coop("owed", env=LATER)
    assert "review owed (taken without a session)" in owed.out
    assert "legacy_binding" not in owed.out
    shown = coop("show", todo).out
    assert "review owed (taken without a session), pending" in shown
    assert "legacy_binding" not in shown
    assert coop("owed", "--json", env=LATER).json()[0]["kind"] == "legacy_binding"
    assert coop("show", todo, "--json").json()["obligation"]["kind"] == "legacy_binding"


def test_a_settled_item_is_never_re_taken_in_plain_words(ledger: Path) -> None:
    todo = coop("add", "todo", "finished").out.strip()
    assert coop("done", todo).code == 0
    refused = coop("take", todo)
    assert refused.code == 1
    assert "settled items are never re-taken" in refused.err
    assert "terminal rows" not in refused.err


def test_owed_shows_each_hint_on_its_own_line(ledger: Path) -> None:
    todo = coop("add", "todo", "stuck work").out.strip()
    assert coop("take", todo, "--as", "bob@example.com", "--session", "s1").code == 0
    assert (
        coop("report", todo, "blocked", "--reason", "needs keys", "--as", "bob@example.com").code
        == 0
    )
    assert coop("review", todo, "escalate", "--reason", "help him").code == 0
    lines = coop("owed", env=LATER).out.splitlines()
    row = next(n for n, line in enumerate(lines) if line.startswith(todo))
    hints = [line.strip() for line in lines[row + 1 :] if line.startswith("    ")]
    assert any(h.startswith("escalated to owners by alice@example.com") for h in hints)
    assert "blocked: needs keys" in hints
    assert "session s1" in hints
    assert all(" — " not in line for line in lines[row:])


def lost_take(clones: Clones, owners: tuple[str, ...] = ()) -> tuple[Path, str]:
    """Two clones take one todo; the second's take loses on sync. (That clone, the todo.)"""
    first, second = clones.clone("first"), clones.clone("second", "bob@example.com")
    assert coop_in(first, "init").code == 0
    coop_in(first, "remote", "setup", "origin")
    for owner in owners:
        coop_in(first, "roles", "add", "owner", owner)
    todo = coop_in(first, "add", "todo", "wanted twice").out.strip()
    assert coop_in(first, "sync").code == 0
    coop_in(second, "remote", "setup", "origin")
    assert coop_in(second, "sync").code == 0
    assert coop_in(first, "take", todo, "--session", "a").code == 0
    assert coop_in(first, "sync").code == 0
    later = {"COOP_NOW": "2026-11-29T10:05:00Z"}  # the later of two takes of one clock loses
    assert coop_in(second, "take", todo, "--session", "b", env=later).code == 0
    assert coop_in(second, "sync").code == 8  # bob's take lost
    return second, todo


def test_conflicts_are_counted_in_words_that_agree(clones: Clones) -> None:
    second, _ = lost_take(clones, owners=("bob@example.com",))
    listed = coop_in(second, "list").out
    assert "[1 conflict]" in listed and "conflicts" not in listed
    owed = coop_in(second, "owed", env=LATER).out
    assert "conflict" in owed and "settle it: git coop resolve" in owed
    assert "1 conflict on this item" in owed


def test_a_refusal_says_the_same_plain_words_in_json(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    assert coop("done", todo).code == 0
    again = coop("take", todo, "--json")
    assert again.code == 1
    assert "settled items are never re-taken" in again.json()["error"]["message"]
    assert "terminal rows" not in again.out + again.err


def test_a_lost_take_is_not_told_to_force_its_way_back(clones: Clones) -> None:
    second, _ = lost_take(clones)
    owed = coop_in(second, "owed", env=LATER).out
    assert "your take lost: " in owed and "already taken by first@example.com" in owed
    assert "--force" not in owed


def test_stored_refusals_read_as_plain_sentences() -> None:
    from gitcoop.cli import wording

    stored = "todo td-x is taken by bob — only they can done it; --force to done it anyway"
    assert wording.plain(stored).endswith("only they can finish it; --force to finish it anyway")
    lost = (
        "todo td-x is already taken by bob (since 2026-11-29 10:00 UTC) — --force to take it over"
    )
    assert wording.lost(lost) == "todo td-x is already taken by bob (since 2026-11-29 10:00 UTC)"
