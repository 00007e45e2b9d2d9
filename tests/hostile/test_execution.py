"""#1 Nothing from the ledger is ever executed: a verifier comes from local git config only."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.domain.settings import SETTINGS
from gitcoop.service import ledger
from gitcoop.service.context import Context
from tests.conftest import Clones, coop_in, coop_process, git
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    Team,
    add_event,
    config,
    files,
    new_event,
    publish,
    team,
    tip,
    with_config,
)


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def draft(crew: Team) -> None:
    """A queue item the victim's `verify` and `pick` would send to a verifier."""
    added = coop_in(crew.victim, "add", "item", "Fix the toast", "--evidence", "src/app.py:3")
    assert added.code == 0, added.err


def test_an_owners_suggested_verifier_is_printed_never_run(crew: Team) -> None:
    ctx = Context(path=str(crew.alice), actor=ALICE)
    ledger.change_setting(ctx, "verifier", crew.shell)
    assert coop_in(crew.alice, "sync").code == 0
    assert crew.victim_runs("sync").code == 0  # a suggestion is a legitimate setting
    draft(crew)
    verify = crew.victim_runs("verify")
    assert verify.code == 1
    assert "this ledger suggests" in verify.err
    assert "to use it: git config coop.verifier '" in verify.err
    assert crew.victim_runs("pick").code in (1, 5)  # nothing ready; never a verifier run
    assert crew.victim_runs("list").code == 0
    assert crew.victim_runs("add", "todo", "later work").code == 0


def test_a_verifier_planted_in_coop_yaml_is_refused_at_sync(crew: Team) -> None:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["settings"] = {"verifier": crew.shell}
    publish(crew.mallory, with_config(content, data))
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4
    assert "coop.yaml: is not the state its first parent and the events it adds" in synced.err
    assert tip(crew.victim) == before
    draft(crew)
    assert crew.victim_runs("verify").code == 1
    assert crew.victim_runs("list").code == 0 and crew.victim_runs("fsck").code == 0


def test_an_unknown_setting_in_the_ledger_is_refused_and_means_nothing(crew: Team) -> None:
    """A setting this gitcoop does not know, holding a shell command, as an owner's event.

    Until format 2 an unknown key written into coop.yaml was kept as a newer gitcoop's and
    meant nothing. coop.yaml is now exactly the state its events make (H3), so the way in
    is a `config` event: alice's (in her name, with no signing policy), refused where it
    joins as an unknown setting (H2), listed by fsck as a note; nothing runs, no verifier."""
    content = files(crew.mallory)
    for key, value in (("verifier_timeout", "1s"), ("hook", crew.shell)):
        planted = new_event(content, LEDGER, "config", actor=ALICE, key=key, value=value)
        content = add_event(content, planted)
    assert "hook" not in config(content).settings  # the honest writer's coop.yaml
    publish(crew.mallory, content, author=ALICE)
    assert crew.victim_runs("sync").code == 0
    held = config(files(crew.victim)).settings
    assert "hook" not in held and "verifier_timeout" not in held, held
    checked = crew.victim_runs("fsck")
    assert checked.code == 0, checked.out
    assert sum("unknown setting" in line for line in checked.out.splitlines()) == 2, checked.out
    draft(crew)
    verify = crew.victim_runs("verify")
    assert verify.code == 1 and "no verifier is configured" in verify.err


def test_an_unknown_setting_written_into_coop_yaml_is_refused(crew: Team) -> None:
    """The old form of the attack, coop.yaml edited by hand: not the state (H3)."""
    content = files(crew.mallory)
    data = config(content).to_data()
    data["settings"] = {"verifier_timeout": "1s", "hook": crew.shell}
    publish(crew.mallory, with_config(content, data))
    before = tip(crew.victim)
    synced = crew.victim_runs("sync")
    assert synced.code == 4 and "coop.yaml: is not the state" in synced.err, synced.err
    assert tip(crew.victim) == before
    draft(crew)
    verify = crew.victim_runs("verify")
    assert verify.code == 1 and "no verifier is configured" in verify.err


def test_only_local_git_config_starts_a_verifier_and_git_c_counts(crew: Team) -> None:
    draft(crew)
    local = crew.marker.parent / "LOCAL"
    verifier = f'touch {local}; echo \'{{"verdict": "unclear"}}\''
    done = coop_process(crew.victim, "verify", env={"GIT_CONFIG_PARAMETERS": ""})
    assert done.code == 1 and not local.exists()
    ran = _git_c(crew.victim, f"coop.verifier={verifier}", "coop", "verify", "--json")
    assert ran.returncode == 0, ran.stderr
    assert local.exists() and not crew.marker.exists()
    git(crew.victim, "config", "coop.verifier", "false")  # a config file loses to -c
    local.unlink()
    again = _git_c(crew.victim, f"coop.verifier={verifier}", "coop", "verify", "--json")
    assert again.returncode == 0 and local.exists()


def _git_c(path: Path, setting: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["git", "-c", setting, *args], cwd=path, env=env, capture_output=True, text=True
    )


def test_the_settings_a_ledger_carries_name_no_program_but_the_suggestion() -> None:
    assert {s.name for s in SETTINGS.values() if s.is_text} == {"verifier"}
