"""A repository shared with a group (`git init --shared`, core.sharedRepository): the files
gitcoop makes there are the group's to write, as git's own are."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.store.git.repo import shared_umask
from tests.conftest import git


@pytest.mark.parametrize(
    ("value", "umask", "wanted"),
    [
        ("group", 0o022, 0o002),
        ("true", 0o077, 0o007),
        ("all", 0o077, 0o002),
        ("world", 0o022, 0o002),
        ("0660", 0o022, 0o007),  # folders 0770: x where r, as git gives them
        ("0640", 0o002, 0o027),
        ("0002", 0o022, 0o002),  # git's old spelling of everybody
        ("01", 0o077, 0o007),  # and of group
        ("640", 0o022, 0o027),  # a mode without its leading 0
        ("0066", 0o022, 0o022),  # a mode its owner cannot use: git refuses it
        ("umask", 0o027, 0o027),
        ("false", 0o077, 0o077),
        ("nonsense", 0o022, 0o022),
    ],
)
def test_the_umask_for_each_way_of_sharing(value: str, umask: int, wanted: int) -> None:
    assert oct(shared_umask(value, umask)) == oct(wanted)


def coop_with_umask(repo: Path, umask: int, *args: str) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(
        ["git", "coop", *args],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        preexec_fn=lambda: os.umask(umask),  # the child's own umask
    )
    assert done.returncode == 0, done.stderr


def test_a_group_shared_repository_keeps_the_ledger_writable_by_its_group(
    tmp_path: Path,
) -> None:
    repo = tmp_path / "shared"
    git(tmp_path, "init", "-q", "--shared=group", str(repo))
    git(repo, "config", "user.email", "alice@example.com")
    coop_with_umask(repo, 0o077, "init")
    coop_with_umask(repo, 0o077, "add", "todo", "for the whole group")
    made = [
        path
        for top in ("refs/coop", "logs/refs/coop", "objects")
        for path in (repo / ".git" / top).rglob("*")
    ]
    assert any(p.name == "ledger" for p in made)
    for path in made:
        mode = stat.S_IMODE(path.stat().st_mode)
        if path.is_dir():
            assert mode & 0o070 == 0o070, (path, oct(mode))
        elif mode & 0o200:  # a file its maker may write, the group may too
            assert mode & 0o060 == 0o060, (path, oct(mode))
        else:  # an object or a pack: read-only, and readable by the group
            assert mode & 0o040, (path, oct(mode))


def test_the_shared_modes_never_reach_a_file_outside_the_repository(tmp_path: Path) -> None:
    """A repository shared as 0666: what gitcoop writes elsewhere (an export of the
    signing keys) is made with the user's own umask, not world-writable."""
    repo = tmp_path / "shared"
    git(tmp_path, "init", "-q", "--shared=0666", str(repo))
    git(repo, "config", "user.email", "alice@example.com")
    coop_with_umask(repo, 0o022, "init")
    out = tmp_path / "allowed_signers"
    coop_with_umask(repo, 0o022, "keys", "export", "-o", str(out))
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    ledger = repo / ".git" / "refs" / "coop" / "ledger"
    assert stat.S_IMODE(ledger.stat().st_mode) == 0o666  # inside, the repository's modes


def test_threads_writing_at_once_put_the_users_umask_back(tmp_path: Path) -> None:
    """The board writes from several threads: the umask is the shared one while any of
    them writes, and the user's again once all are done."""
    import threading

    from gitcoop.store.repository import open_repo

    repo_path = tmp_path / "shared"
    git(tmp_path, "init", "-q", "--shared=group", str(repo_path))
    repo = open_repo(str(repo_path))
    own = os.umask(0o027)
    try:
        inside = threading.Barrier(2)
        seen: list[int] = []

        def write() -> None:
            with repo.shared_modes():
                inside.wait(timeout=30)  # both inside at once
                current = os.umask(0)
                os.umask(current)
                seen.append(current)
                inside.wait(timeout=30)  # neither leaves before the other has looked

        threads = [threading.Thread(target=write) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert seen == [0o007, 0o007]
        after = os.umask(0o027)
        assert after == 0o027
    finally:
        os.umask(own)


def test_upkeeps_own_files_are_the_groups_too(tmp_path: Path) -> None:
    repo = tmp_path / "shared"
    git(tmp_path, "init", "-q", "--shared=group", str(repo))
    git(repo, "config", "user.email", "alice@example.com")
    coop_with_umask(repo, 0o022, "init")
    for n in range(3):
        coop_with_umask(repo, 0o022, "add", "todo", f"work {n}")
    made = [p for p in (repo / ".git").iterdir() if p.name.startswith("coop") and p.is_file()]
    assert made, list((repo / ".git").iterdir())
    for path in made:
        assert stat.S_IMODE(path.stat().st_mode) & 0o060 == 0o060, (path, oct(path.stat().st_mode))
