"""Shared helpers for the hook tests: real commits through real hooks."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import coop, git

BIN = str(Path(sys.executable).parent)


def with_gitcoop_on_path(monkeypatch: object) -> None:
    """Hooks run `git coop`: this venv's git-coop must come first on PATH."""
    monkeypatch.setenv("PATH", BIN + os.pathsep + os.environ["PATH"])  # type: ignore[attr-defined]


GIT = shutil.which("git") or "git"


def commit(
    repo: Path,
    message: str,
    name: str = "file.txt",
    content: str | None = None,
    *extra: str,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Change a file and commit it with `message` (given with -F, like an editor's).

    `env` replaces the environment git runs in (and the hooks with it).
    """
    path = repo / name
    previous = path.read_text() if path.exists() else ""
    path.write_text(content if content is not None else previous + "x\n")
    git(repo, "add", name)
    message_file = repo.parent / "message.txt"
    message_file.write_text(message)
    return subprocess.run(
        [GIT, "commit", "-q", "-F", str(message_file), *extra],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )


def bare_env(**extra: str) -> dict[str, str]:
    """The test's environment with PATH emptied, as a GUI or an IDE may run git."""
    return {**os.environ, "PATH": "", **extra}


def head(repo: Path) -> str:
    return git(repo, "rev-parse", "HEAD").strip()


def item(ref: str) -> dict[str, object]:
    shown = coop("show", ref, "--json")
    assert shown.code == 0, shown.err
    result: dict[str, object] = shown.json()
    return result


def add(kind: str, title: str) -> str:
    added = coop("add", kind, title, "--json")
    assert added.code == 0, added.err
    return str(added.json()["id"])


def ledger_tip(repo: Path) -> str:
    return git(repo, "rev-parse", "refs/coop/ledger").strip()
