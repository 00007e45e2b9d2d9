"""Work split between cores gives what the same work gives in one process."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gitcoop.errors import BadLedger
from gitcoop.store import fast
from gitcoop.store.fast import split


def halves_of(numbers: list[int]) -> tuple[object, object]:
    def work(which: int) -> object:
        part = numbers[which::2]
        return {"sum": sum(part), "items": part, "pid": os.getpid()}

    return split.halves(work)


def test_halves_are_what_one_process_makes() -> None:
    mine, theirs = halves_of(list(range(1000)))
    assert isinstance(mine, dict) and isinstance(theirs, dict)
    assert (mine["items"], theirs["items"]) == (list(range(0, 1000, 2)), list(range(1, 1000, 2)))
    assert mine["pid"] == os.getpid()
    if (os.cpu_count() or 1) >= 2 and not fast.reference():  # the second half ran beside
        assert theirs["pid"] != os.getpid()


def test_by_reference_both_halves_are_made_here(by_reference: None) -> None:
    mine, theirs = halves_of(list(range(10)))
    assert isinstance(mine, dict) and isinstance(theirs, dict)
    assert mine["pid"] == theirs["pid"] == os.getpid()


def test_a_refusal_in_the_child_is_raised_here() -> None:
    def work(which: int) -> int:
        if which == 1:
            raise BadLedger("items/ab/td-x.yaml: a forged item")
        return 0

    with pytest.raises(BadLedger, match="a forged item"):
        split.halves(work)


def test_a_child_that_dies_has_its_half_made_here() -> None:
    parent = os.getpid()

    def work(which: int) -> int:
        if which == 1 and os.getpid() != parent:
            os._exit(9)  # killed, out of memory: nothing said through the pipe
        return which + 10

    assert split.halves(work) == (10, 11)


class Stopped(BaseException):
    """What SIGTERM (`cli.main._stopped`) or Ctrl-C raise in this process's half."""


def _forks() -> None:
    if fast.reference() or not split._can_fork():
        pytest.skip("the halves are made in one process here")


def test_a_stopped_half_stops_the_child_rather_than_wait_for_it() -> None:
    _forks()
    ready_r, ready_w = os.pipe()
    late_r, late_w = os.pipe()
    parent = os.getpid()

    def work(which: int) -> int:
        if which == 1 and os.getpid() != parent:
            os.write(ready_w, b"c")
            select.select([], [], [], 30)  # a long half
            os.write(late_w, b"late")
            return 1
        os.close(ready_w)
        os.close(late_w)
        assert os.read(ready_r, 1) == b"c"  # the child is at work
        raise Stopped

    with pytest.raises(Stopped):
        split.halves(work)
    assert os.read(late_r, 16) == b""  # no writer left, and the child never finished
    os.close(ready_r)
    os.close(late_r)


def test_a_child_ends_with_its_parent_even_when_that_is_killed() -> None:
    _forks()
    late_r, late_w = os.pipe()
    script = f"""
import os, select, signal
from gitcoop.store.fast import split
ready_r, ready_w = os.pipe()
parent = os.getpid()
def work(which):
    if which == 1 and os.getpid() != parent:
        os.write(ready_w, b"c")
        select.select([], [], [], 30)  # a long half
        os.write({late_w}, b"late")
        return 1
    os.read(ready_r, 1)  # the child is at work
    os.kill(parent, signal.SIGKILL)
split.halves(work)
"""
    killed = subprocess.run([sys.executable, "-c", script], pass_fds=(late_w,), check=False)
    os.close(late_w)
    assert killed.returncode == -signal.SIGKILL
    assert os.read(late_r, 16) == b""  # the child went with it, its half unfinished
    os.close(late_r)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(), max_size=300), st.integers(1, 80))
def test_shares_together_are_the_whole(items: list[int], smallest: int) -> None:
    found = split.shares(items, lambda share: [n * 2 for n in share], smallest)
    assert [n for part in found for n in part] == [n * 2 for n in items]
    assert all(len(part) >= min(smallest, len(items)) for part in found[:-1])
    assert len(found) <= max(1, os.cpu_count() or 1)


def test_by_reference_there_is_one_share(by_reference: None) -> None:
    assert split.shares(list(range(1000)), len, 1) == [1000]


def test_a_failing_share_fails_the_whole() -> None:
    def work(share: list[int]) -> int:
        if 999 in share:
            raise BadLedger("git could not check the ledger's signatures")
        return len(share)

    with pytest.raises(BadLedger):
        split.shares(list(range(1000)), work, 1)


def test_a_half_stopped_while_it_reads_the_answer_stops_the_child() -> None:
    """Stopped after its own half, while it waits for the child's answer: the child is
    stopped too, not left writing to a pipe nobody reads."""
    _forks()
    done_r, done_w = os.pipe()
    late_r, late_w = os.pipe()
    parent = os.getpid()
    previous = signal.signal(signal.SIGUSR1, _raise_stopped)

    def work(which: int) -> int:
        if which == 1 and os.getpid() != parent:
            os.read(done_r, 1)  # this process's half is over
            os.kill(parent, signal.SIGUSR1)
            select.select([], [], [], 30)  # a long half
            os.write(late_w, b"late")
            return 1
        os.close(done_r)
        os.close(late_w)
        os.write(done_w, b"d")
        return 0

    try:
        with pytest.raises(Stopped):
            split.halves(work)
            select.select([], [], [], 30)  # the signal may come once halves has returned
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert os.read(late_r, 16) == b""  # no writer left, and the child never finished
    os.close(done_w)
    os.close(late_r)


def _raise_stopped(_number: int, _frame: object) -> None:
    raise Stopped


def test_the_cores_are_those_the_process_may_run_on() -> None:
    if not hasattr(os, "sched_setaffinity"):
        pytest.skip("no CPU affinity here")
    script = (
        "import os; os.sched_setaffinity(0, {min(os.sched_getaffinity(0))}); "
        "from gitcoop.store.fast import split; print(split._cores(), split._can_fork())"
    )
    pinned = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert pinned.stdout.split() == ["1", "False"]
