"""The open index's keys, incoming links and text index answer as the whole index does.

`show`'s links come from the item's own group's index of incoming links, `status`
from the tallies and the holder index, `owed` from the due index (store/fast/open_keys.py), a
plain `list --grep` from the open part of the text index (store/fast/activity.py). Each
is held here to the answer worked out from every open row and the graph of every
item, after random writes, merges and syncs.
"""

from __future__ import annotations

import os
import random
import tempfile
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gitcoop.domain import obligations, readiness, resolution
from gitcoop.domain.ids import ItemId, fanout
from gitcoop.domain.lifecycle import TERMINAL, bound
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant
from gitcoop.service import dependencies, owed, queries, status
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.dependencies import IN_NAMES, OUT_NAMES, Links, Other, open_index
from tests.conftest import Clones, coop_in, make_repo

ACTORS = ("alice@example.com", "bob@example.com", "carol@example.com")
TIMES = ("2026-11-29T08:00:00Z", "2026-11-29T10:00:00Z", "2026-12-01T10:00:00Z")
PHRASES = ("blocks", "parent-of", "related", "discovered-from", "child-of")


# -- the answers worked out from every open row and the whole graph ------------------


def links_from_the_whole_graph(path: Path, item_id: str) -> Links:
    snapshot = read_ledger(Context(path=str(path)))
    item = snapshot.item(ItemId(item_id))
    assert item is not None
    found = open_index(snapshot)
    graph = found.graph
    outgoing: dict[str, list[Other]] = {name: [] for name in OUT_NAMES.values()}
    for link in item.links:
        if link.type in OUT_NAMES:
            outgoing[OUT_NAMES[link.type]].append(found.other(link.item))
    children = sorted(
        (n.id for n in graph.nodes.values() if n.parent_id == item.id),
        key=lambda child: (fanout(child), child),
    )
    outgoing["children"] += [found.other(child) for child in children]
    incoming: dict[str, list[Other]] = {name: [] for name in IN_NAMES.values()}
    for kind, holder in graph.incoming.get(item.id, ()):
        if kind in IN_NAMES:
            incoming[IN_NAMES[kind]].append(found.other(holder))
    cycles = [[found.other(i) for i in cycle] for cycle in graph.cycles() if item.id in cycle]
    return Links(outgoing, incoming, graph.blockers(item.id), cycles)


def status_from_every_row(ctx: Context) -> tuple[dict[str, dict[str, int]], list[str], int]:
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    actor = ctx.who(snapshot.repo)
    counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    view = snapshot.open_view(snapshot.cache)
    for tally in view.settled:
        counts[tally.kind][tally.status] += tally.number
    held, overdue, now = [], 0, format_instant(ctx.now)
    for row in view.rows:
        s = row.summary
        counts[s.kind][s.status] += 1
        overdue += s.status not in TERMINAL and readiness.overdue(s.due, now)
        if bound(s.status, s.taken_by) and s.taken_by == actor:
            held.append((s.taken_at or "", row.item_id))
    held.sort(key=lambda entry: entry[0])
    return (
        {kind: dict(by) for kind, by in sorted(counts.items())},
        [item_id for _, item_id in held],
        overdue,
    )


def owed_from_every_row(ctx: Context, include_not_due: bool, mine: bool) -> list[Any]:
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    actor = ctx.who(snapshot.repo)
    roles = snapshot.config.roles
    found, unsettled, taken, lost = [], [], [], []
    for row in snapshot.open_view(snapshot.cache).rows:
        s = row.summary
        if not (s.obligation_status == "pending" or s.conflicts or actor in s.notified):
            continue
        item = Item.from_data(row.data())
        if roles.is_owner(actor):
            unsettled += [(item.id, row.label, c.event) for c in item.conflicts]
        taken += [(item.id, t.at) for t in obligations.takeovers_for(item, actor)]
        lost += [(item.id, c.event) for c in resolution.unacknowledged(item, actor)]
        if not item.owes or (mine and not obligations.concerns(item, actor, roles)):
            continue
        marks = obligations.pressing(item, ctx.now, actor, roles)
        if marks or include_not_due:
            found.append((item.id, row.label, marks))
    return [sorted(found), sorted(unsettled), sorted(taken), sorted(lost)]


def owed_now(ctx: Context, include_not_due: bool, mine: bool) -> list[Any]:
    got = owed.owed(ctx, include_not_due, mine)
    return [
        sorted((e.item.id, e.label, e.marks) for e in got.obligations),
        sorted((u.item.id, u.label, u.conflict.event) for u in got.conflicts),
        sorted((t.item.id, t.takeover.at) for t in got.takeovers),
        sorted((lost.item.id, lost.conflict.event) for lost in got.lost),
    ]


def check_all(path: Path) -> None:
    """Every item's links, and each actor's status and owed at a few instants."""
    snapshot = read_ledger(Context(path=str(path)))
    for item_id in snapshot.item_ids():
        item = snapshot.item(item_id)
        assert item is not None
        now = dependencies.links(snapshot, item)
        assert now == links_from_the_whole_graph(path, item_id), item_id
    in_view = {e["id"] for e in coop_in(path, "list", "--json").json()}
    for needle in ("work 1", "NOTE", "w"):
        plain = [e["id"] for e in coop_in(path, "list", "--json", "--grep", needle).json()]
        every = coop_in(path, "list", "--json", "--all", "--grep", needle).json()
        assert plain == [e["id"] for e in every if e["id"] in in_view], needle
    for actor in ACTORS:
        for at in TIMES:
            ctx = Context(path=str(path), actor=actor, now=_instant(at))
            found = status.status(ctx)
            counts, held, overdue = status_from_every_row(ctx)
            assert found.counts == counts
            assert found.overdue == overdue
            assert list(found.counts) == list(counts)
            assert [list(v) for v in found.counts.values()] == [list(v) for v in counts.values()]
            assert [row.item_id for row in found.held] == held
            every = {r.item_id: r for r in queries.list_rows(ctx, include_settled=True).listed}
            for row in found.held:
                assert (row.label, row.json, row.brief) == (
                    every[row.item_id].label,
                    every[row.item_id].json,
                    every[row.item_id].brief,
                )
            few = status.status(ctx, limit=2)
            assert [row.item_id for row in few.held] == held[:2]
            assert few.holding == found.holding == len(held)
            whole = found.owed.obligations
            assert [e.item.id for e in few.owed.obligations] == [e.item.id for e in whole[:2]]
            assert few.owed.unread == max(0, len(whole) - 2)
            assert few.owed.pressing == found.owed.pressing
            for include_not_due in (False, True):
                for mine in (False, True):
                    assert owed_now(ctx, include_not_due, mine) == owed_from_every_row(
                        ctx, include_not_due, mine
                    ), (actor, at, include_not_due, mine)


def _instant(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC)


# -- random writes -------------------------------------------------------------------


@contextmanager
def random_ledger(seed: int, steps: int) -> Iterator[tuple[Path, list[str]]]:
    """A new ledger in a temporary repository (the working directory while it lasts)
    after `steps` random writes of `seed`: its path and the ids it made."""
    rng = random.Random(seed)
    saved = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        path = make_repo(Path(tmp) / "repo")
        try:
            os.chdir(path)
            assert coop_in(path, "init").code == 0
            made: list[str] = []
            for _ in range(steps):
                random_step(path, rng, made)
            yield path, made
        finally:
            os.chdir(saved)


def random_step(path: Path, rng: random.Random, made: list[str]) -> None:
    """One write of a random kind, by a random person at a random time (a refused one
    changes nothing, which is as good a step as any)."""
    actor = rng.choice(ACTORS)
    env = {"COOP_NOW": rng.choice(TIMES[:2]), "COOP_ACTOR": actor}
    choice = rng.random()
    if choice < 0.25 or len(made) < 2:
        kind = rng.choice(("todo", "todo", "request"))
        due = ("--due", rng.choice(TIMES)) if rng.random() < 0.5 else ()
        result = coop_in(path, "add", kind, f"work {len(made)}", *due, "--json", env=env)
        if result.code == 0:
            made.append(str(result.json()["id"]))
        return
    one, two = rng.sample(made, 2)
    if choice < 0.5:
        action = "remove" if rng.random() < 0.2 else "add"
        coop_in(path, "dep", action, one, rng.choice(PHRASES), two, env=env)
        return
    verbs = [
        ("take", one),
        ("take", one, "--force"),
        ("release", one, "--reason", "back"),
        ("done", one),
        ("close", one),
        ("abandon", one, "--reason", "no"),
        ("note", one, "a note"),
        ("ack", one),
        ("edit", one, "--tag", "t"),
        ("edit", one, "--due", rng.choice((*TIMES, "none"))),
    ]
    coop_in(path, *rng.choice(verbs), env=env)


def test_the_keys_equal_the_whole_index_after_random_writes(ledger: Path) -> None:
    rng = random.Random(43)
    made: list[str] = []
    for step in range(60):
        random_step(ledger, rng, made)
        if step % 15 == 14:
            check_all(ledger)


def test_the_keys_equal_the_whole_index_after_merges_and_syncs(clones: Clones) -> None:
    """Two clones writing offline and syncing: conflicts, takeovers, lost events and
    cycles that no single clone could write (each adds half of one)."""
    a, b = clones.clone("alice"), clones.clone("bob")
    assert coop_in(a, "init").code == 0
    made = [coop_in(a, "add", "todo", f"w{k}", "--json").json()["id"] for k in range(6)]
    assert coop_in(a, "sync").code == 0
    assert coop_in(b, "sync").code == 0
    assert coop_in(a, "dep", "add", made[0], "blocks", made[1]).code == 0
    assert coop_in(b, "dep", "add", made[1], "blocks", made[0]).code == 0
    assert coop_in(a, "dep", "add", made[2], "parent-of", made[3]).code == 0
    assert coop_in(b, "dep", "add", made[3], "blocks", made[2]).code == 0
    rng = random.Random(7)
    for _ in range(3):
        for path in (a, b):
            for _ in range(6):
                random_step(path, rng, made)
        for path in (a, b, a):
            coop_in(path, "sync")
        for path in (a, b):
            check_all(path)
    cycles = [
        dependencies.links(read_ledger(Context(path=str(a))), item).cycles
        for item in read_ledger(Context(path=str(a))).items()
    ]
    assert any(cycles), "the test meant to make a cycle"


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(seed=st.integers(0, 2**32 - 1), steps=st.integers(5, 30))
def test_the_keys_stay_equal_under_any_sequence_of_writes(seed: int, steps: int) -> None:
    with random_ledger(seed, steps) as (path, _):
        check_all(path)


def test_a_split_child_is_a_child_in_show_from_the_index(ledger: Path) -> None:
    """A child naming its parent (`parent_id`) shows in the parent's children and the
    parent in the child's incoming links, as the whole graph has them."""
    from tests.rawledger import put

    made = [coop_in(ledger, "add", "item", f"w{k}", "--json").json()["id"] for k in range(3)]
    snapshot = read_ledger(Context(path=str(ledger)))
    child = snapshot.item(ItemId(made[1]))
    assert child is not None
    raw = child.to_data()
    path = f"items/{fanout(made[1])}/{made[1]}.yaml"
    from gitcoop.store.ledger import codec

    put(ledger, path.split("/"), codec.dump({**raw, "parent_id": made[0]}))
    check_all(ledger)
    parent = read_ledger(Context(path=str(ledger))).item(ItemId(made[0]))
    assert parent is not None
    shown = dependencies.links(read_ledger(Context(path=str(ledger))), parent)
    assert [o.id for o in shown.outgoing["children"]] == [made[1]]
    assert shown.waiting_on == [made[1]]
    again = dependencies.links(read_ledger(Context(path=str(ledger))), child)
    assert [o.id for o in again.incoming["parent"]] == [made[0]]


@pytest.mark.fast_only
def test_show_after_a_write_rebuilds_only_the_fan_out_that_changed(ledger: Path) -> None:
    """`show` brings its incoming links up to date from the changed fan-out's keys,
    leaving the open index whole: the next read parses nothing."""
    from gitcoop.store.fast.read_cache import ItemCache

    made = [coop_in(ledger, "add", "todo", f"w{k}", "--json").json()["id"] for k in range(40)]
    assert coop_in(ledger, "dep", "add", made[0], "blocks", made[1]).code == 0
    assert coop_in(ledger, "show", made[1]).code == 0
    assert coop_in(ledger, "status").code == 0
    for item in made[2:6]:
        assert coop_in(ledger, "take", item).code == 0
        assert coop_in(ledger, "show", made[1]).code == 0  # the one reader after the write
        cache = ItemCache(str(ledger / ".git"))
        snapshot = read_ledger(Context(path=str(ledger)))
        snapshot.open_view(cache)
        assert cache.parsed == 0, item  # the show rebuilt the one fan-out, nothing else
