"""Bulk reads pause the cycle collector, and always leave it as they found it."""

from __future__ import annotations

import gc
import weakref

import pytest

from gitcoop.store.fast import memory

pytestmark = pytest.mark.fast_only  # the collector's pauses: none under COOP_REFERENCE=1


def test_the_collector_is_paused_inside_and_running_after() -> None:
    assert gc.isenabled()
    with memory.bulk():
        assert not gc.isenabled()
        with memory.bulk():  # nested: the inner one leaves it paused
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_the_collector_runs_again_after_a_failure() -> None:
    with pytest.raises(ValueError), memory.bulk():
        raise ValueError("a refused ledger")
    assert gc.isenabled()


def test_a_paused_collector_stays_paused() -> None:
    gc.disable()
    try:
        with memory.bulk():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_what_a_bulk_read_made_is_not_walked_again_by_the_collector() -> None:
    with memory.bulk():
        made = [[n] for n in range(10_000)]  # lists are tracked (a dict of numbers is not)
    assert gc.get_count()[0] < len(made)  # moved out of the youngest generation
    assert gc.isenabled()


def test_a_cycle_alive_in_a_bulk_read_is_collected_once_it_is_garbage() -> None:
    """A long-lived process (the MCP server, the tests) reads in bulk again and again:
    nothing a bulk read kept alive may outlive its last reference (a repository it
    held open would keep its pack files open)."""

    class Held:
        pass

    with memory.bulk():
        held = Held()
        held.me = held  # type: ignore[attr-defined]
        alive = weakref.ref(held)
    del held
    gc.collect()
    assert alive() is None
