"""Fixtures: real temporary git repositories, a fixed clock, and a CLI runner.

HOME and the git config are pointed at the test's own folder, so no test can
read or write the real home directory or the user's git configuration.
"""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import pygit2
import pytest

from gitcoop.cli.main import main
from gitcoop.store import fast

NOW = "2026-11-29T10:00:00Z"

# `pytest -m quick`: the rules without git, the layers, and each verb once
# through the CLI against a real repository; about a minute of CPU, for use
# while working (README, Contributing). The whole suite runs before a push.
QUICK = (
    "tests/domain/",
    "tests/test_layers.py",
    "tests/cli/test_first_steps.py",
    "tests/cli/test_usage_errors.py",
    "tests/cli/test_status.py",
    "tests/service/test_writer.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Marks the quick subset; and under COOP_REFERENCE=1 (every fast path routed to the
    path it shadows) skips a test of how a fast path works, saying so: it has nothing
    to check there."""
    root = Path(str(config.rootpath))
    by_reference = os.environ.get(fast.REFERENCE) == "1"
    skip = pytest.mark.skip(reason="how a fast path works: COOP_REFERENCE=1 takes none")
    for item in items:
        where = Path(str(item.path)).relative_to(root).as_posix()
        if where.startswith(QUICK):
            item.add_marker(pytest.mark.quick)
        if by_reference and item.get_closest_marker("fast_only") is not None:
            item.add_marker(skip)


def unavailable(reason: str) -> NoReturn:
    """A tool a test needs is missing here (strace, git-daemon, sshd).

    Outside CI the test is skipped and says why (-rs). Under CI (`CI=true`),
    where .ci/run installs every such tool, it fails instead: a guard that
    silently skips guards nothing.
    """
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} — .ci/run installs it; under CI this test must run, not skip")
    pytest.skip(reason)


@pytest.fixture(autouse=True)
def isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Iterator[None]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / "gitconfig"))
    for name in ("COOP_ACTOR", "COOP_SESSION", "COOP_NOW", "COOP_SEED", "GIT_DIR", "GIT_WORK_TREE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("COOP_NOW", NOW)
    # libgit2 ignores GIT_CONFIG_*: point its config search paths at the test's home too
    levels = (
        pygit2.enums.ConfigLevel.SYSTEM,
        pygit2.enums.ConfigLevel.GLOBAL,
        pygit2.enums.ConfigLevel.XDG,
    )
    saved = {level: pygit2.settings.search_path[level] for level in levels}
    for level in levels:
        pygit2.settings.search_path[level] = str(home)
    yield
    for level, value in saved.items():
        pygit2.settings.search_path[level] = value


def git(cwd: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout


def make_repo(path: Path, email: str = "alice@example.com") -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.email", email)
    git(path, "config", "user.name", email.split("@")[0])
    return path


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh repository, the current directory for in-process CLI calls."""
    path = make_repo(tmp_path / "repo")
    monkeypatch.chdir(path)
    return path


@dataclass
class Result:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def coop(*args: str, env: dict[str, str] | None = None) -> Result:
    """Run `git coop ARGS` in-process in the current directory."""
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    fast.forget()  # COOP_REFERENCE, read once per process, may differ for this command
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(list(args))
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        fast.forget()
    return Result(code, out.getvalue(), err.getvalue())


def coop_process(cwd: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """Run `git coop ARGS` as a real process, through git, like a user does."""
    full_env = {**os.environ, **(env or {})}
    bin_dir = str(Path(sys.executable).parent)
    full_env["PATH"] = bin_dir + os.pathsep + full_env.get("PATH", "")
    done = subprocess.run(
        ["git", "coop", *args], cwd=cwd, capture_output=True, text=True, env=full_env, check=False
    )
    return Result(done.returncode, done.stdout, done.stderr)


@pytest.fixture
def ledger(repo: Path) -> Iterator[Path]:
    """A repository with an initialised ledger owned by alice@example.com."""
    result = coop("init")
    assert result.code == 0, result.err
    yield repo


@dataclass
class Clones:
    """A bare remote and clones of it, each with its own actor: git-bug's sync fixture."""

    root: Path
    url: str

    def clone(self, name: str, email: str | None = None) -> Path:
        path = make_repo(self.root / name, email or f"{name}@example.com")
        git(path, "remote", "add", "origin", self.url)
        return path


@pytest.fixture
def clones(tmp_path: Path) -> Clones:
    """An empty bare repository reached over file://, and a way to make clones of it."""
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    return Clones(tmp_path, remote.as_uri())


def coop_in(path: Path, *args: str, env: dict[str, str] | None = None) -> Result:
    """Run `git coop ARGS` in-process with `path` as the current directory."""
    saved = os.getcwd()
    os.chdir(path)
    try:
        return coop(*args, env=env)
    finally:
        os.chdir(saved)


@contextmanager
def git_loop(path: Path, script: str) -> Iterator[None]:
    """Another process running the shell `script` in `path` (a loop of git commands, as
    fast as they go) while the body runs; killed with all it started at the end."""
    loop = subprocess.Popen(
        ["sh", "-c", script],
        cwd=path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        yield
    finally:
        os.killpg(loop.pid, signal.SIGKILL)
        loop.wait()
