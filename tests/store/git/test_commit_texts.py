"""A commit's message, emails and times are read whatever its headers say, as git shows them.

The headers are their writer's word: git takes any `encoding` name and any number of
seconds. A name Python knows as a text encoding is read in it (as `git log` shows it);
any other (unknown, or a codec that is not a text encoding) as UTF-8; a time past what
Python's datetime holds as the nearest it holds. Both ways of reading a commit, libgit2's
and git's own (`read_commit_by_git`, for repositories libgit2 cannot open), agree.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gitcoop.store.git import worktree
from gitcoop.store.git.objects import Oid
from gitcoop.store.git.repo import Repo, opened


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, input=stdin, capture_output=True, text=True, check=True
    )
    return done.stdout.strip()


def written(path: Path, when: str = "1796500000 +0000", headers: str = "") -> str:
    """A commit written by hand as HEAD of a new repository: its id."""
    git(path, "init", "-q")
    tree = git(path, "mktree", stdin="")
    raw = f"tree {tree}\nauthor m <m@x> {when}\ncommitter m <m@x> {when}\n{headers}\nfar\n"
    made = git(path, "hash-object", "-t", "commit", "-w", "--stdin", stdin=raw)
    git(path, "update-ref", "HEAD", made)
    return made


@pytest.mark.parametrize(
    ("encoding", "shown", "email"),
    [
        ("ISO-8859-1", "café", "zoë@example.com"),
        ("no-such-codec", "caf\\xe9", "zo\\xeb@example.com"),
        ("rot13", "caf\\xe9", "zo\\xeb@example.com"),  # a codec, not a text encoding
    ],
)
def test_a_message_and_emails_read_in_the_encoding_the_commit_names_when_python_knows_it(
    tmp_path: Path, encoding: str, shown: str, email: str
) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "msg").write_bytes("café\n".encode("latin-1"))
    env = {key.encode(): value.encode() for key, value in os.environ.items()}
    env[b"GIT_AUTHOR_NAME"] = env[b"GIT_COMMITTER_NAME"] = b"zo\xeb"
    env[b"GIT_AUTHOR_EMAIL"] = env[b"GIT_COMMITTER_EMAIL"] = b"zo\xeb@example.com"
    setting = ["-c", f"i18n.commitEncoding={encoding}"]
    commit = ["commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", "msg"]
    subprocess.run(["git", *setting, *commit], cwd=tmp_path, env=env, check=True)
    found = worktree.read_commit(opened(Repo, str(tmp_path)))
    assert found.message == f"{shown}\n"
    assert found.author_email == found.committer_email == email


@pytest.mark.parametrize("when", ["253402400000 +0000", "253402300799 +1200", "253402300799 +1400"])
def test_a_time_past_year_9999_reads_as_the_last_second_python_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, when: str
) -> None:
    made = written(tmp_path, when)
    repo = opened(Repo, str(tmp_path))
    sha, at, *_ = repo.commit_summary(Oid(made))
    assert (sha, at.year) == (made, 9999)
    assert worktree.read_commit(repo).committed_at.year == 9999
    monkeypatch.chdir(tmp_path)
    by_git = worktree.read_commit_by_git()
    assert by_git is not None and (by_git.sha, by_git.committed_at.year) == (made, 9999)
