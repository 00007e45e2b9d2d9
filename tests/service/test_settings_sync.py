"""Settings as the ledger's own events: written by owners, merged by replay, checked by fsck."""

from __future__ import annotations

from pathlib import Path

import pytest

from gitcoop.errors import Refused
from gitcoop.service import ledger as verbs
from gitcoop.service.context import Context
from tests.conftest import Clones, coop, coop_in, git
from tests.rawledger import put, read
from tests.service.test_sync import sync, two


def ctx(path: Path, actor: str) -> Context:
    return Context(path=str(path), actor=actor)


def test_an_owner_sets_and_resets_a_setting_and_fsck_agrees(ledger: Path) -> None:
    assert verbs.change_setting(ctx(ledger, "alice@example.com"), "topup_size", 25) == {
        "topup_size": 25
    }
    assert coop("fsck").code == 0
    with pytest.raises(Refused, match="only owners"):
        verbs.change_setting(ctx(ledger, "bob@example.com"), "topup_size", 1)
    assert dict(verbs.change_setting(ctx(ledger, "alice@example.com"), "topup_size", None)) == {}
    assert coop("fsck").code == 0


def test_fsck_names_settings_that_are_not_the_fold(ledger: Path) -> None:
    text = read(ledger, "coop.yaml").decode().replace("settings: {}", "settings:\n  topup_size: 9")
    put(ledger, ["coop.yaml"], text.encode())
    result = coop("fsck")
    assert result.code == 1
    assert "coop.yaml: [state] in commit " in result.out  # its settings are no event's
    assert "is not the state its first parent and the events it adds make" in result.out


def test_a_merge_replays_both_sides_setting_changes(clones: Clones) -> None:
    a, b = two(clones)
    assert coop_in(a, "roles", "add", "owner", "bob@example.com").code == 0
    sync(a)
    sync(b)
    verbs.change_setting(ctx(a, "alice@example.com"), "topup_size", 20)
    later = Context(path=str(b), actor="bob@example.com", now=ctx(b, "x").now.replace(year=2027))
    verbs.change_setting(later, "max_same_shape", 7)
    sync(a)
    sync(b)
    sync(a)
    for path in (a, b):
        assert "topup_size: 20" in git(path, "show", "refs/coop/ledger:coop.yaml")
        assert "max_same_shape: 7" in git(path, "show", "refs/coop/ledger:coop.yaml")
        assert coop_in(path, "fsck").code == 0
