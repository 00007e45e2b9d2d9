"""Ids, prefixes, shortest unique labels, and role changes."""

from __future__ import annotations

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gitcoop.domain import ids
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Roles
from gitcoop.domain.roles import apply_roles
from gitcoop.domain.rulebook import fold_ledger
from gitcoop.errors import Refused
from tests.domain.builders import ALICE, BOB, event


def test_minted_ids_have_kind_prefix_and_twelve_crockford_chars() -> None:
    bits = random.Random(7).getrandbits
    for kind, prefix in (("todo", "td"), ("request", "rq"), ("item", "it")):
        minted = ids.mint_item_id(kind, bits)
        assert ids.ITEM_ID_RE.match(minted)
        assert minted.startswith(prefix + "-")
        assert not set(ids.random_part(minted)) & set("ilou")
    assert ids.EVENT_ID_RE.match(ids.mint_event_id(bits))


def test_ids_do_not_collide_in_a_large_sample() -> None:
    bits = random.Random(1).getrandbits
    minted = {ids.mint_item_id("todo", bits) for _ in range(20000)}
    assert len(minted) == 20000


def test_prefix_matching_with_or_without_kind() -> None:
    item = ItemId("td-7k2m9x4q1c8v")
    assert ids.matches(item, "7k2m")
    assert ids.matches(item, "td-7k2")
    assert ids.matches(item, "TD-7K2M")
    assert not ids.matches(item, "rq-7k2m")
    assert not ids.matches(item, "7k3")


def test_shortest_unique_is_at_least_four_and_grows_past_shared_prefix() -> None:
    a = ItemId("td-7k2m9x4q1c8v")
    assert ids.shortest_unique(a, [a]) == "td-7k2m"
    b = ItemId("rq-7k2m9x000000")
    assert ids.shortest_unique(a, [a, b]) == "td-7k2m9x4"


def test_roles_change_by_owners_only_and_never_drop_the_last_owner() -> None:
    roles = Roles(owners=(ALICE,))
    roles = apply_roles(roles, event("roles", actor=ALICE, action="add", role="chief", who=BOB))
    assert roles.chiefs == (BOB,)
    with pytest.raises(Refused, match="only owners"):
        apply_roles(roles, event("roles", actor=BOB, action="add", role="owner", who=BOB))
    with pytest.raises(Refused, match="at least one owner"):
        apply_roles(roles, event("roles", actor=ALICE, action="remove", role="owner", who=ALICE))


def test_fold_roles_replays_in_clock_order() -> None:
    first = event("roles", actor=ALICE, clock=1, action="add", role="owner", who=ALICE)
    second = event("roles", actor=BOB, clock=2, action="add", role="chief", who=BOB)
    state, refused = fold_ledger([second, first])
    assert state.roles.owners == (ALICE,)
    assert [e.id for e, _ in refused] == [second.id]


@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=30))
def test_shortest_labels_match_a_pairwise_reference(seeds: list[int]) -> None:
    made = []
    for seed in seeds:  # few seeds, many repeats: ids that share long prefixes
        rng = random.Random(seed % 7)
        base = ids.mint_item_id("todo", rng.getrandbits)
        tail = ids.mint_item_id(random.Random(seed).choice(["todo", "request"]), rng.getrandbits)
        made.append(f"{tail[:3]}{base[3 : 3 + seed % 12]}{tail[3 + seed % 12 :]}")
    made = sorted(set(made))
    fast = ids.shortest_labels(made)
    for item_id in made:
        mine = ids.random_part(item_id)
        shared = 0
        for other in made:
            if other != item_id:
                theirs = ids.random_part(other)
                n = next(
                    (k for k, (a, b) in enumerate(zip(mine, theirs, strict=True)) if a != b),
                    len(mine),
                )
                shared = max(shared, n)
        assert fast[item_id] == f"{item_id[:3]}{mine[: max(4, shared + 1)]}"


@given(st.lists(st.integers(min_value=0, max_value=40), min_size=1, max_size=30), st.data())
def test_one_ids_label_and_the_matches_of_a_prefix_are_those_of_the_whole_fanout(
    seeds: list[int], data: st.DataObject
) -> None:
    """A write labels one item, and a command resolves one prefix, in a fan-out of ~1,000
    ids at a million items: each is what the whole fan-out's labels and matches say."""
    made = sorted({_sharing(seed) for seed in seeds})
    labels = ids.shortest_labels(made)
    for item_id in made:
        assert ids.shortest_unique(ItemId(item_id), made) == labels[item_id]
        others = [i for i in made if i != item_id]
        assert ids.shortest_unique(ItemId(item_id), others) == labels[item_id]
    chosen = data.draw(st.sampled_from(made))
    for text in (
        chosen[: data.draw(st.integers(0, len(chosen)))],
        chosen[3:7],
        " TD-" + chosen[3:9],
    ):
        found = ids.matching([ItemId(i) for i in made], text)
        assert found == sorted(i for i in made if ids.matches(ItemId(i), text))


def _sharing(seed: int) -> str:
    """An id sharing a long prefix with others made from a seed of the same remainder."""
    rng = random.Random(seed % 7)
    base = ids.mint_item_id("todo", rng.getrandbits)
    tail = ids.mint_item_id(random.Random(seed).choice(["todo", "request"]), rng.getrandbits)
    return f"{tail[:3]}{base[3 : 3 + seed % 12]}{tail[3 + seed % 12 :]}"


@pytest.mark.parametrize(
    ("who", "configured", "acts"),
    [
        ("bob@example.com", None, True),
        ("agent-3@fleet.example", "alice@example.com", True),
        ("build-bot", "build-bot", True),  # what git is configured with, whatever its shape
        ("build-bot", None, False),
        ("not an email", None, False),
        ("not an email", "alice@example.com", False),
        ("bob @example.com", None, False),
        ("a@b@c", None, False),
        ("@example.com", None, False),
        ("a <b@c>", "a <b@c>", False),  # configured or not, it must name a person
    ],
)
def test_who_acts_must_look_like_someone(who: str, configured: str | None, acts: bool) -> None:
    assert (ids.acting_problem(who, configured) is None) is acts
