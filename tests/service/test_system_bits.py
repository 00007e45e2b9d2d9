"""`context.system_bits`: what `secrets.randbits` gives, from os.urandom."""

from __future__ import annotations

import pytest

from gitcoop.domain import ids
from gitcoop.service.context import system_bits


@pytest.mark.parametrize("count", [1, 5, 8, 9, 60, 64, 65])
def test_system_bits_fit_the_count_and_reach_its_top_bit(count: int) -> None:
    drawn = [system_bits(count) for _ in range(400)]
    assert all(0 <= value < 2**count for value in drawn)
    assert any(value >= 2 ** (count - 1) for value in drawn)  # odds of failing: 2**-400
    assert len(set(drawn)) > 1


def test_ids_minted_from_system_bits_are_valid_and_differ() -> None:
    made = {ids.mint_item_id("todo", system_bits) for _ in range(200)}
    assert len(made) == 200 and all(ids.ITEM_ID_RE.match(i) for i in made)
