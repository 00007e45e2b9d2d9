"""Durability and crash safety of the ledger ref: reflog, fsync, git's ref lock, retries."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.errors import BadLedger, ChangedUnderWrite
from gitcoop.store.git.lock import LockBusy, lock_path
from gitcoop.store.git.refs import Backoff, RefLocked
from gitcoop.store.ledger import transaction
from gitcoop.store.ledger.layout import REF
from gitcoop.store.ledger.repo import open_repo
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.transaction import Change, Policy
from tests.conftest import coop, coop_process, git, unavailable


class FakeClock:
    """Time that moves only when the code under test sleeps: no test waits."""

    def __init__(self, start: float) -> None:
        self.now = start
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def tip(path: Path) -> str:
    return git(path, "rev-parse", REF).strip()


def add_todo_change(title: str) -> transaction.Decide:
    """A decide callback that rewrites coop.yaml only (enough to move the ref)."""
    from dataclasses import replace

    def decide(snapshot: Snapshot) -> Change:
        from datetime import UTC, datetime

        config = replace(snapshot.config, clock=snapshot.config.clock + 1)
        return Change(title, "alice@example.com", datetime(2026, 11, 29, tzinfo=UTC), config=config)

    return decide


# -- durability ----------------------------------------------------------------


def test_the_reflog_shows_every_transition_from_init_on(repo: Path) -> None:
    assert coop("init").code == 0
    item = coop("add", "todo", "write the report").out.strip()
    assert coop("take", item).code == 0
    assert coop("done", item, "--summary", "sent").code == 0
    lines = git(repo, "reflog", "--format=%gs", REF).splitlines()
    assert len(lines) == 4
    assert lines[-1].startswith("init by alice@example.com")
    assert [line.split()[0] for line in lines] == ["done", "take", "add", "init"]


def test_a_ledger_without_a_reflog_gets_one_at_its_next_write(ledger: Path) -> None:
    (ledger / ".git" / "logs" / "refs" / "coop" / "ledger").unlink()
    assert coop("add", "todo", "logged").code == 0
    lines = git(ledger, "reflog", "--format=%gs", REF).splitlines()
    assert len(lines) == 1 and lines[0].startswith("add ")


def _fsync_calls(repo: Path, *args: str) -> int:
    if shutil.which("strace") is None:
        unavailable("strace is not installed (Debian: apt-get install strace)")
    trace = repo.parent / "trace.txt"
    exe = str(Path(sys.executable).parent / "git-coop")
    done = subprocess.run(
        ["strace", "-f", "-e", "trace=fsync,fdatasync", "-o", str(trace), exe, *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 and "ptrace" in done.stderr:
        unavailable(f"strace cannot trace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stderr
    return sum("fsync(" in line for line in trace.read_text().splitlines())


@pytest.mark.fast_only  # counts the fsyncs of a transition written as one pack
def test_writes_fsync_by_default_and_coop_fsync_false_trades_it_away(ledger: Path) -> None:
    # the ledger write's own syncs: a gc or repack the write may start afterwards is
    # git's, and syncs as git's core.fsync says (store/ledger/upkeep.py)
    git(ledger, "config", "gc.auto", "0")
    # the pack, its index and their folder (store/fast/packwrite.py), then the ref and its
    # reflog: 7 here, where ten loose objects took two each (24 in all)
    assert 3 <= _fsync_calls(ledger, "add", "todo", "durable") <= 8
    git(ledger, "config", "coop.fsync", "false")
    assert _fsync_calls(ledger, "add", "todo", "fast") == 0


# -- git's ref lock ------------------------------------------------------------


def test_a_stale_ref_lock_from_a_dead_writer_is_removed_with_a_notice(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    lock = Path(repo.ref_lock_path())
    lock.write_text("")
    os.utime(lock, (1_000, 1_000))
    notices: list[str] = []
    before = tip(ledger)
    policy = Policy(clock=lambda: 1_060.0, notice=notices.append)
    transaction.write(repo, add_todo_change("after a crash"), policy=policy)
    assert not lock.exists()
    assert git(ledger, "rev-parse", f"{REF}~1").strip() == before
    assert len(notices) == 1 and str(lock) in notices[0] and "60s old" in notices[0]


def test_a_stale_ref_lock_is_cleared_for_the_cli_too(ledger: Path) -> None:
    lock = ledger / ".git" / "refs" / "coop" / "ledger.lock"
    lock.write_text("")
    os.utime(lock, (1_000, 1_000))
    result = coop_process(ledger, "add", "todo", "next write")
    assert result.code == 0, result.err
    assert result.err.count("\n") == 1 and "removed a stale" in result.err
    assert not lock.exists()


def test_a_live_ref_lock_is_waited_for_then_named(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    lock = Path(repo.ref_lock_path())
    lock.write_text("")
    clock = FakeClock(os.stat(lock).st_mtime)
    policy = Policy(stale_after=60, ref_lock_wait=2, clock=clock, sleep=clock.sleep)
    before = tip(ledger)
    with pytest.raises(RefLocked) as caught:
        transaction.write(repo, add_todo_change("blocked"), policy=policy)
    assert caught.value.exit_code == 3
    assert str(lock) in caught.value.message and "stayed locked" in caught.value.message
    assert len(clock.slept) > 3 and clock.slept[0] < clock.slept[-1] <= 0.5  # backoff, capped
    assert lock.exists() and tip(ledger) == before


def test_a_ref_lock_that_ages_while_waiting_is_then_cleared(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    lock = Path(repo.ref_lock_path())
    lock.write_text("")
    start = os.stat(lock).st_mtime
    clock = FakeClock(start)
    notices: list[str] = []
    policy = Policy(clock=clock, sleep=clock.sleep, notice=notices.append)
    transaction.write(repo, add_todo_change("eventually"), policy=policy)
    assert not lock.exists() and len(notices) == 1 and "(5s old" in notices[0]
    assert 5.0 <= clock.now - start < 5.5  # stale after five seconds, to the pause
    assert clock.slept[:4] == [0.01, 0.02, 0.04, 0.08]  # the pauses double from 10 ms...
    assert max(clock.slept) == 0.5  # ...up to half a second


def test_a_ref_lock_exactly_five_seconds_old_is_stale_at_once(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    lock = Path(repo.ref_lock_path())
    lock.write_text("")
    clock = FakeClock(os.stat(lock).st_mtime + 5.0)
    notices: list[str] = []
    policy = Policy(clock=clock, sleep=clock.sleep, notice=notices.append)
    transaction.write(repo, add_todo_change("at once"), policy=policy)
    assert clock.slept == [] and len(notices) == 1 and not lock.exists()


class LiveGit(FakeClock):
    """A live git that holds the ref lock, touching it, for as long as anyone waits."""

    def __init__(self, lock: Path) -> None:
        super().__init__(os.stat(lock).st_mtime)
        self.lock = lock

    def sleep(self, seconds: float) -> None:
        super().sleep(seconds)
        os.utime(self.lock, (self.now, self.now))


def test_a_live_git_holding_the_ref_lock_is_waited_for_seven_seconds_then_named(
    ledger: Path,
) -> None:
    repo = open_repo(str(ledger))
    lock = Path(repo.ref_lock_path())
    lock.write_text("")
    live = LiveGit(lock)
    before = tip(ledger)
    with pytest.raises(RefLocked, match="stayed locked for 7"):
        transaction.write(
            repo, add_todo_change("blocked"), policy=Policy(clock=live, sleep=live.sleep)
        )
    assert 7.0 <= sum(live.slept) < 7.5  # the stale age and two seconds more, to the pause
    assert lock.exists() and tip(ledger) == before


def test_a_dead_writers_ref_lock_found_at_the_swap_is_cleared_and_the_swap_made_at_once(
    ledger: Path,
) -> None:
    """The lock appears after the write began (so the first clearing missed it)."""
    repo = open_repo(str(ledger))
    lock = Path(repo.ref_lock_path())
    clock = FakeClock(1_000_000_000.0)
    calls: list[str | None] = []
    inner = add_todo_change("cleared")

    def decide(snapshot: Snapshot) -> Change:
        calls.append(snapshot.commit)
        lock.write_text("")
        os.utime(lock, (1_000, 1_000))  # long dead
        return inner(snapshot)

    notices: list[str] = []
    policy = Policy(clock=clock, sleep=clock.sleep, notice=notices.append)
    transaction.write(repo, decide, policy=policy)
    assert len(calls) == 1 and clock.slept == []  # no second decision, no pause
    assert len(notices) == 1 and not lock.exists()
    assert git(ledger, "log", "-1", "--format=%s", REF).strip() == "cleared"


# -- lost swaps ----------------------------------------------------------------


def _move_ref_behind_the_writers_back(path: Path) -> None:
    current = tip(path)
    tree = git(path, "rev-parse", f"{current}^{{tree}}").strip()
    other = git(path, "commit-tree", tree, "-p", current, "-m", "someone else").strip()
    git(path, "update-ref", REF, other, current)


def test_a_lost_swap_is_retried_on_the_new_tip(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    calls: list[str | None] = []
    inner = add_todo_change("retried")

    def decide(snapshot: Snapshot) -> Change:
        calls.append(snapshot.commit)
        if len(calls) == 1:
            _move_ref_behind_the_writers_back(ledger)
        return inner(snapshot)

    transaction.write(repo, decide)
    assert len(calls) == 2 and calls[0] != calls[1]
    assert git(ledger, "rev-parse", f"{REF}~1").strip() == calls[1]
    assert git(ledger, "log", "-1", "--format=%s", f"{REF}~1").strip() == "someone else"


def test_losing_every_swap_ends_in_exit_3_after_bounded_retries(ledger: Path) -> None:
    repo = open_repo(str(ledger))
    calls: list[str | None] = []
    inner = add_todo_change("never lands")

    def decide(snapshot: Snapshot) -> Change:
        calls.append(snapshot.commit)
        _move_ref_behind_the_writers_back(ledger)
        return inner(snapshot)

    with pytest.raises(ChangedUnderWrite) as caught:
        transaction.write(repo, decide)
    assert len(calls) == 5  # five attempts, each on a fresh read
    assert caught.value.exit_code == 3
    assert "the ledger moved 5 times" in caught.value.message
    assert "changed under this write" in caught.value.message
    assert "re-read and retry" in caught.value.message
    assert git(ledger, "log", "-1", "--format=%s", REF).strip() == "someone else"


# -- reads ---------------------------------------------------------------------


def test_no_ledger_is_said_only_when_the_ref_is_absent(repo: Path) -> None:
    assert open_repo(str(repo)).tip() is None
    result = coop("list")
    assert result.code == 4 and "no ledger" in result.err


def test_an_unreadable_ref_is_retried_then_named_never_called_missing(ledger: Path) -> None:
    (ledger / ".git" / "refs" / "coop" / "ledger").write_text("not a sha at all\n")
    pauses: list[float] = []
    repo = open_repo(str(ledger))
    repo.backoff = Backoff(attempts=3, sleep=pauses.append)
    with pytest.raises(BadLedger) as caught:
        repo.tip()
    assert REF in caught.value.message and "after 3 attempts" in caught.value.message
    assert "corrupted loose reference file" in caught.value.message  # libgit2's own words
    assert pauses == [0.02, 0.04]
    result = coop("list")
    assert result.code == 4 and "no ledger" not in result.err and REF in result.err


def test_a_packed_ledger_ref_is_found(ledger: Path) -> None:
    before = tip(ledger)
    git(ledger, "pack-refs", "--all")
    assert not (ledger / ".git" / "refs" / "coop" / "ledger").exists()
    assert open_repo(str(ledger)).tip() == before
    assert coop("add", "todo", "after packing").code == 0


# -- gitcoop's own lock --------------------------------------------------------


HOLDER = """
import sys
from filelock import FileLock
lock = FileLock(sys.argv[1])
lock.acquire()
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def held_lock(ledger: Path):  # type: ignore[no-untyped-def]
    """gitcoop's lock held by a real second process until the test ends."""
    path = lock_path(str(ledger / ".git"))
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    yield path
    assert holder.stdin is not None
    holder.stdin.close()
    holder.wait(timeout=10)


def test_a_lock_held_by_a_live_process_times_out_naming_its_path(
    ledger: Path, held_lock: str
) -> None:
    repo = open_repo(str(ledger))
    before = tip(ledger)
    with pytest.raises(LockBusy) as caught:
        transaction.write(repo, add_todo_change("waits"), policy=Policy(lock_timeout=0.2))
    assert held_lock in caught.value.message and "0.2s" in caught.value.message
    assert tip(ledger) == before


def test_the_lock_timeout_comes_from_git_config(ledger: Path, held_lock: str) -> None:
    git(ledger, "config", "coop.lockTimeout", "0.3")
    result = coop("add", "todo", "waits")
    assert result.code == 3
    assert held_lock in result.err and "0.3s" in result.err


def test_a_bad_lock_timeout_is_a_usage_error(ledger: Path) -> None:
    git(ledger, "config", "coop.lockTimeout", "soon")
    result = coop("add", "todo", "x")
    assert result.code == 2 and "coop.lockTimeout" in result.err
