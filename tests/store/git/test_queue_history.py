"""Counting commits that touch evidence paths, on a real repository."""

from __future__ import annotations

from pathlib import Path

from gitcoop.store.git.ancestry import count_touching, current_head, exists, is_ancestor
from gitcoop.store.ledger.repo import open_repo
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


def test_a_merge_is_one_first_parent_step_and_its_side_commits_do_not_count(
    tmp_path: Path,
) -> None:
    path = make_repo(tmp_path / "r")
    start = commit(path, "src/app.py", "v0\n")
    git(path, "checkout", "-q", "-b", "side")
    for n in range(4):
        commit(path, "src/app.py", f"side {n}\n")
    git(path, "checkout", "-q", "main")
    commit(path, "src/app.py", "main 1\n")
    commit(path, "docs/readme.md", "r\n")
    git(path, "merge", "-q", "--no-ff", "-X", "theirs", "-m", "merge side", "side")
    repo = open_repo(str(path))
    head = current_head(repo)
    assert head is not None
    # main 1 and the merge touch src/app.py; the four side commits are the merge's
    assert count_touching(repo, start, head, ["src/app.py"], limit=20) == 2
    side_tip = git(path, "rev-parse", "side").strip()
    # from the side's tip: main's own commit is new to it, and so is the merge step
    assert count_touching(repo, side_tip, head, ["src/app.py"], limit=20) == 2


def test_ancestry_backwards_sideways_and_missing(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    first = commit(path, "a.txt", "a\n")
    second = commit(path, "a.txt", "b\n")
    git(path, "checkout", "-q", "-b", "side", first)
    third = commit(path, "b.txt", "c\n")
    repo = open_repo(str(path))
    assert is_ancestor(repo, first, second) and is_ancestor(repo, first, first)
    assert not is_ancestor(repo, second, first)  # backwards
    assert not is_ancestor(repo, second, third)  # sideways
    assert not is_ancestor(repo, "0" * 40, third)  # missing


def test_an_evidence_path_deleted_or_created_since_counts_as_touched(tmp_path: Path) -> None:
    path = make_repo(tmp_path / "r")
    start = commit(path, "src/app.py", "v0\n")
    git(path, "rm", "-q", "src/app.py")
    git(path, "commit", "-q", "-m", "delete it")
    commit(path, "src/new.py", "n\n")  # not there at the cached HEAD, nor at its parent
    repo = open_repo(str(path))
    head = current_head(repo)
    assert head is not None
    assert count_touching(repo, start, head, ["src/app.py"], limit=20) == 1
    assert count_touching(repo, start, head, ["src/new.py"], limit=20) == 1
