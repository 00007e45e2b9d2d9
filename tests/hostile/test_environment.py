"""#7 Environment failures get their documented exit codes, never 70, with nothing half-written.

Real processes throughout: a `git gc`/`git prune` loop running beside the
writes, a read-only bind mount of `.git` and a full tmpfs in a private mount
namespace (`unshare -m`), an immutable objects folder (`chattr +i`, which
binds root too). Where the machine cannot do one of these the test is skipped
with the reason; docs/hardening.md says what each covers.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from contextlib import AbstractContextManager
from pathlib import Path

import pytest

from tests.conftest import coop_in, coop_process, git, git_loop, make_repo
from tests.hostile.forge import DOCUMENTED

BIN = str(Path(sys.executable).parent)


@pytest.fixture
def ledger_repo(tmp_path: Path) -> Path:
    path = make_repo(tmp_path / "repo")
    assert coop_in(path, "init").code == 0
    assert coop_in(path, "add", "todo", "first").code == 0
    return path


def ledger_state(path: Path) -> tuple[str, str]:
    return git(path, "rev-parse", "refs/coop/ledger"), git(path, "reflog", "refs/coop/ledger")


def gc_loop(path: Path) -> AbstractContextManager[None]:
    """Another process: gc --auto (made to run every time) and prune, as fast as they go."""
    gc, prune = "git -c gc.auto=1 gc --auto --quiet", "git prune --expire=2.weeks.ago"
    script = f"while :; do {gc}; {prune}; done"
    return git_loop(path, script)


def test_writes_beside_a_gc_loop_all_land(ledger_repo: Path) -> None:
    git(ledger_repo, "config", "coop.fsync", "false")  # the race is in the folders, not the disk
    codes = []
    with gc_loop(ledger_repo):
        for n in range(60):
            result = coop_in(ledger_repo, "add", "todo", f"work {n}")
            codes.append(result.code)
            assert "unexpected" not in result.err, result.err
    assert codes == [0] * 60
    assert coop_in(ledger_repo, "fsck").code == 0
    assert len(coop_in(ledger_repo, "list", "--json").json()) == 61


def test_writes_beside_a_loop_of_plain_prunes_all_land(ledger_repo: Path) -> None:
    """`git prune` with no expiry removes every unreachable loose object and every tmp_
    file in objects/pack at once: a write's pack is written where it does not look."""
    git(ledger_repo, "config", "coop.fsync", "false")
    with git_loop(ledger_repo, "while :; do git prune; done"):
        codes = [coop_in(ledger_repo, "add", "todo", f"work {n}").code for n in range(40)]
    assert codes == [0] * 40
    assert coop_in(ledger_repo, "fsck").code == 0
    git(ledger_repo, "rev-list", "--objects", "refs/coop/ledger")


def namespace(script: str) -> subprocess.CompletedProcess[str]:
    """Run `script` in a private mount namespace, with this gitcoop on PATH."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-ec", script],
        env=env,
        capture_output=True,
        text=True,
    )


def needs_mounts() -> None:
    if shutil.which("unshare") is None or namespace("mount -t tmpfs none /mnt").returncode:
        pytest.skip("no private mount namespace here (unshare -m and mount need CAP_SYS_ADMIN)")


def test_a_read_only_git_dir_exits_9_and_keeps_the_ledger(ledger_repo: Path) -> None:
    needs_mounts()
    before = ledger_state(ledger_repo)
    done = namespace(
        f"cd {ledger_repo}; mount --bind .git .git; mount -o remount,ro,bind .git\n"
        'set +e; git coop add todo second; echo "add=$?"; git coop list >/dev/null; '
        'echo "list=$?"'
    )
    assert "add=9" in done.stdout and "list=0" in done.stdout, done.stdout + done.stderr
    assert "read-only" in done.stderr and "unexpected" not in done.stderr
    assert ledger_state(ledger_repo) == before
    assert coop_in(ledger_repo, "add", "todo", "second").code == 0  # writable again: work goes on


def test_a_read_only_git_dir_still_says_what_the_hooks_journaled(ledger_repo: Path) -> None:
    """The journal cannot be recorded in a read-only repository: a read runs on, and says
    that something waits and why (every command says once what waits, docs/hooks.md)."""
    from gitcoop.store.ledger import journal

    needs_mounts()
    todo = coop_in(ledger_repo, "add", "todo", "closed in a commit").out.strip()
    entry = {
        "kind": "trailers",
        "actor": "alice@example.com",
        "session": None,
        "at": "2026-11-29T10:00:00Z",
        "commit": "1" * 40,
        "requests": [{"verb": "done", "ref": todo, "args": {"commit": "1" * 40}}],
    }
    journal.append(str(ledger_repo / ".git"), entry)
    done = namespace(
        f"cd {ledger_repo}; mount --bind .git .git; mount -o remount,ro,bind .git\n"
        'set +e; git coop list; echo "list=$?"'
    )
    assert "list=0" in done.stdout and "closed in a commit" in done.stdout, done.stderr
    assert "journal" in done.stderr and "read-only" in done.stderr, done.stderr
    assert "git coop hook replay" in done.stderr
    assert journal.has_entries(str(ledger_repo / ".git"))


def test_a_full_disk_exits_9_and_the_next_write_lands(ledger_repo: Path) -> None:
    needs_mounts()
    done = namespace(
        f"mount -t tmpfs -o size=1m tmpfs /mnt; cp -a {ledger_repo} /mnt/repo; cd /mnt/repo\n"
        "dd if=/dev/zero of=/mnt/fill bs=4k 2>/dev/null || true\n"
        "set +e; before=$(git rev-parse refs/coop/ledger)\n"
        'git coop add todo second; echo "add=$?"\n'
        'test "$before" = "$(git rev-parse refs/coop/ledger)" && echo unchanged\n'
        'git coop list >/dev/null; echo "list=$?"; rm /mnt/fill\n'
        'git coop add todo third >/dev/null; echo "after=$?"; git coop fsck >/dev/null; '
        'echo "fsck=$?"'
    )
    out = done.stdout
    assert "add=9" in out and "unchanged" in out, out + done.stderr
    assert "list=0" in out and "after=0" in out and "fsck=0" in out, out + done.stderr
    assert "disk is full" in done.stderr and "unexpected" not in done.stderr


def test_an_object_store_root_cannot_write_exits_9(ledger_repo: Path) -> None:
    objects = ledger_repo / ".git" / "objects"
    folders = [str(objects), str(objects / "pack")]  # a write makes a pack; a first, loose too
    if os.geteuid() == 0:
        locked = subprocess.run(["chattr", "+i", *folders], capture_output=True)
        if locked.returncode:
            pytest.skip(f"chattr +i is not available here: {locked.stderr.decode().strip()}")
        unlock = ["chattr", "-i", *folders]
    else:
        for folder in folders:
            os.chmod(folder, 0o555)
        unlock = ["chmod", "755", *folders]
    try:
        before = ledger_state(ledger_repo)
        result = coop_process(ledger_repo, "add", "todo", "a title long enough to be new")
        assert result.code == 9, result.err
        assert result.code in DOCUMENTED and "unexpected" not in result.err
        assert ledger_state(ledger_repo) == before
        assert coop_process(ledger_repo, "list").code == 0
    finally:
        subprocess.run(unlock, check=True)
    assert coop_process(ledger_repo, "add", "todo", "later").code == 0
    assert coop_process(ledger_repo, "fsck").code == 0
