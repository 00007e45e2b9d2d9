"""Property: the folder-at-a-time check judges a fetched history as the reference does.

The fast path (`store/boundary/windows.py`) and the whole-commit check must
give one verdict on every history. Each example is a mutated push of
`test_mutated_ledgers.py` (the same forged pushes); the victim, with or
without local work of its own, is copied, and one copy syncs with
`COOP_REFERENCE=1` (every history through the whole-commit check), one
without, and one without with its folders shared between two processes
(`test_split_check.py`). All exit with the same code; accepted, their ledgers'
tips hold the same tree, and `fsck --full --json`, each with its own path,
gives the same verdict.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, given, settings

from gitcoop.store.fast import REFERENCE
from tests.conftest import coop_in, git
from tests.hostile.forge import files
from tests.hostile.test_mutated_ledgers import (
    CHECKS,
    copy_of,
    mutate,
    mutations,
    push_raw,
    template,
)
from tests.hostile.test_split_check import shared

__all__ = ["template"]  # the module fixture, shared with the mutated-ledgers test

ON = {REFERENCE: "1"}


@settings(max_examples=12, deadline=None, suppress_health_check=CHECKS)
@given(mutations())
def test_the_fast_path_agrees_with_the_reference(template: Path, m: dict[str, Any]) -> None:
    compare(template, m)


@pytest.mark.long
@settings(max_examples=300, deadline=None, suppress_health_check=CHECKS)
@given(mutations())
def test_the_fast_path_agrees_with_the_reference_on_many(template: Path, m: dict[str, Any]) -> None:
    compare(template, m)


def compare(template: Path, m: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        alice, victim = copy_of(template, Path(tmp) / "team")
        content, author = mutate(files(alice), m)
        assume(push_raw(alice, content, author))
        if m["diverged"]:
            assert coop_in(victim, "add", "todo", "local work").code == 0
        twin, third = Path(tmp) / "team" / "twin", Path(tmp) / "team" / "third"
        shutil.copytree(victim, twin, symlinks=True)
        shutil.copytree(victim, third, symlinks=True)
        reference, fast = verdict(victim, ON), verdict(twin, {})
        assert reference == fast, (m, reference, fast)
        with shared(True):
            between = verdict(third, {})
        assert between == fast, (m, between, fast)


def verdict(path: Path, env: dict[str, str]) -> tuple[Any, ...]:
    """The sync's exit code and, accepted, the tip's tree and fsck's report."""
    synced = coop_in(path, "sync", env=env)
    if synced.code != 0:
        return (synced.code,)
    tree = git(path, "rev-parse", "refs/coop/ledger^{tree}")
    checked = coop_in(path, "fsck", "--full", "--json", env=env)
    return synced.code, tree, checked.code, checked.json()
