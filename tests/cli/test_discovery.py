"""Which repository a command acts on: the one git would (GIT_DIR exactly, the search
stopped at GIT_CEILING_DIRECTORIES), and a clear refusal where git has none."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import coop_process, git, make_repo


def ledger_tip(repo: Path) -> str:
    return git(repo, "for-each-ref", "--format=%(objectname)", "refs/coop/ledger").strip()


def outer(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "outer")
    assert coop_process(repo, "init").code == 0
    (repo / "sub" / "a").mkdir(parents=True)
    return repo


def test_git_dir_naming_a_plain_folder_is_no_repository(tmp_path: Path) -> None:
    """git takes GIT_DIR as the repository, never searching above it: a folder inside
    another repository's worktree is not that repository."""
    repo = outer(tmp_path)
    before = ledger_tip(repo)
    for named in (repo / "sub" / "a", repo / ".git" / "HEAD"):
        done = coop_process(tmp_path, "add", "todo", "lost", env={"GIT_DIR": str(named)})
        assert done.code == 4 and "not a git repository" in done.err, (named, done)
        assert len(done.err.strip().splitlines()) == 1
    assert ledger_tip(repo) == before


def test_git_dir_naming_the_repository_is_used(tmp_path: Path) -> None:
    repo = outer(tmp_path)
    done = coop_process(tmp_path, "add", "todo", "found", env={"GIT_DIR": str(repo / ".git")})
    assert done.code == 0, done.err
    assert "found" in coop_process(repo, "list").out


def test_the_search_stops_at_git_ceiling_directories(tmp_path: Path) -> None:
    repo = outer(tmp_path)
    ceiling = {"GIT_CEILING_DIRECTORIES": str(repo / "sub")}
    done = coop_process(repo / "sub" / "a", "list", env=ceiling)
    assert done.code == 4 and "not a git repository" in done.err, done
    assert coop_process(repo / "sub" / "a", "list").code == 0  # without it, found above


def test_a_dot_git_file_that_is_no_gitfile_is_one_clear_line(tmp_path: Path) -> None:
    folder = tmp_path / "x"
    folder.mkdir()
    (folder / ".git").write_text("garbage\n")
    done = coop_process(folder, "status")
    assert done.code == 4 and "not a git repository" in done.err, done
    assert "bug" not in done.err and len(done.err.strip().splitlines()) == 1
