"""#8 The small ones: a reused id, a one-character prefix, undecodable bytes, a negative version.

(A journal entry that can never replay, and a take dated in the future shown by
`owed`, belong to the hooks and the owed work.)
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.conftest import coop, coop_process, git
from tests.hostile.forge import DOCUMENTED


def state(path: Path) -> str:
    return git(path, "rev-parse", "refs/coop/ledger")


def test_add_refuses_an_id_already_in_use(ledger: Path) -> None:
    seeded = {"COOP_SEED": "same"}
    first = coop("add", "todo", "first", "--json", env=seeded)
    assert first.code == 0
    before = state(ledger)
    again = coop("add", "todo", "second", env=seeded)
    assert again.code == 1 and "already exists" in again.err
    assert state(ledger) == before
    assert coop("show", first.json()["id"], "--json").json()["title"] == "first"


def test_a_prefix_shorter_than_a_label_names_nothing(ledger: Path) -> None:
    todo = coop("add", "todo", "only one").out.strip()
    before = state(ledger)
    for short in ("x", todo[3], f"td-{todo[3:6]}"):
        result = coop("take", short)
        assert result.code == 1 and "too short to name an item" in result.err
    assert state(ledger) == before
    assert coop("take", todo).code == 0  # the label it is shown by works


def test_bytes_that_are_not_utf8_in_an_argument_are_a_usage_error(ledger: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    before = state(ledger)
    done = subprocess.run(
        [b"git", b"coop", b"add", b"todo", b"caf\xe9"], cwd=ledger, env=env, capture_output=True
    )
    assert done.returncode == 2, done.stderr
    assert b"argument 3" in done.stderr and b"not valid UTF-8" in done.stderr
    assert b"\\udce9" in done.stderr  # shown escaped, never as raw bytes
    assert state(ledger) == before
    as_actor = coop_process(ledger, "list", env={"COOP_ACTOR": "eve\udce9"})
    assert as_actor.code in DOCUMENTED


def test_a_negative_expected_version_is_a_usage_error(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    before = state(ledger)
    result = coop_process(ledger, "take", todo, "--expect-version", "-5")
    assert result.code == 2 and "--expect-version" in result.err
    assert state(ledger) == before
