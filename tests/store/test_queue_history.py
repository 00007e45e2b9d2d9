"""Counting commits that touch evidence paths, on a real repository."""

from __future__ import annotations

from pathlib import Path

from gitcoop.store.history import count_touching, current_head, exists
from gitcoop.store.repository import open_repo
from tests.conftest import git, make_repo


def commit(repo: Path, path: str, text: str) -> str:
    target = repo / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    git(repo, "add", path)
    git(repo, "commit", "-q", "-m", f"change {path}")
    return git(repo, "rev-parse", "HEAD").strip()


def test_counts_only_commits_touching_the_paths(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    start = commit(path, "src/app.py", "v0\n")
    for n in range(3):
        commit(path, "src/app.py", f"v{n + 1}\n")
        commit(path, "docs/readme.md", f"r{n}\n")
    commit(path, "src/lib/util.py", "x\n")
    repo = open_repo(str(path))
    head = current_head(repo)
    assert head is not None
    assert count_touching(repo, start, head, ["src/app.py"], limit=20) == 3
    assert count_touching(repo, start, head, ["src"], limit=20) == 4  # a folder
    assert count_touching(repo, start, head, ["docs/readme.md", "src/app.py"], limit=1) == 2
    assert count_touching(repo, start, head, [], limit=20) == 0
    assert count_touching(repo, head, head, ["src/app.py"], limit=20) == 0


def test_exists_and_unborn_head(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    repo = open_repo(str(path))
    assert current_head(repo) is None
    sha = commit(path, "a.txt", "a\n")
    assert exists(open_repo(str(path)), sha)
    assert not exists(repo, "0" * 40)
    assert not exists(repo, "deadbeef" * 5)
