"""`git -c key=value coop ...`: what git passes on in GIT_CONFIG_PARAMETERS is honoured."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitcoop.store.git.config import config_key, config_parameters
from gitcoop.store.ledger.repo import open_repo
from tests.conftest import git, make_repo


def parameters(path: Path, *settings: str) -> str:
    """What git itself exports for `git -c ...` (through an alias that prints it)."""
    git(path, "config", "alias.params", "!printf '%s' \"$GIT_CONFIG_PARAMETERS\"")
    args = ["git"]
    for setting in settings:
        args += ["-c", setting]
    return subprocess.run([*args, "params"], cwd=path, capture_output=True, text=True).stdout


@pytest.mark.parametrize(
    ("setting", "key", "value"),
    [
        ("coop.verifier=echo 'hi' ! there", "coop.verifier", "echo 'hi' ! there"),
        ("Coop.VerifierTimeout=5m", "coop.verifiertimeout", "5m"),
        ("core.bare", "core.bare", "true"),
        ("remote.Origin.url=a=b", "remote.Origin.url", "a=b"),
        ("coop.verifier=", "coop.verifier", ""),
    ],
)
def test_what_git_passes_is_read_back(tmp_path: Path, setting: str, key: str, value: str) -> None:
    path = make_repo(tmp_path / "r")
    found = config_parameters(parameters(path, setting, "user.name=x"))
    assert found[key] == value and found["user.name"] == "x"


def test_the_older_form_is_read_too() -> None:
    assert config_parameters("'coop.verifier=a b' 'x.y'") == {"coop.verifier": "a b", "x.y": "true"}
    assert config_parameters("'broken") == {}


def test_git_c_wins_over_the_config_files(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    git(path, "config", "coop.verifier", "from-file")
    repo = open_repo(str(path), parameters(path, "coop.verifier=from-c"))
    assert repo.config_value("coop.verifier") == "from-c"
    assert repo.config_value("coop.VERIFIER") == "from-c"
    assert open_repo(str(path)).config_value("coop.verifier") == "from-file"
    assert config_key("Remote.Origin.URL") == "remote.Origin.url"
