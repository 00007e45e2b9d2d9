"""Identities that cannot pass for someone else: one script a part, and a look-alike skeleton."""

from __future__ import annotations

import pytest

from gitcoop.domain import likeness
from gitcoop.domain.ids import acting_problem, normal, written_identity_problem

ALICE = "alice@x.com"


@pytest.mark.parametrize(
    "who",
    [
        "\u0430lice@x.com",  # Cyrillic а
        "alice@x.\u0441om",  # Cyrillic с in the domain
        "\u03bfscar@x.com",  # Greek omicron
        "ali\U0001d41ce@x.com",  # mathematical bold c
    ],
)
def test_a_part_mixing_scripts_is_refused(who: str) -> None:
    problem = written_identity_problem(who)
    assert problem is not None and "mixes scripts" in problem


@pytest.mark.parametrize(
    "who",
    [
        ALICE,
        "\u0430\u043b\u0438\u0441\u0430@\u043f\u0440\u0438\u043c\u0435\u0440.\u0440\u0444",
        "\u5c71\u7530\u305f\u308d\u3046@x.jp",  # Han and Hiragana: Japanese
        "\ud64d\uae38\ub3d9\u6f22@x.kr",  # Hangul and Han: Korean
        "jos\u00e9.m\u00fcller@x.de",
        "ivan@\u043f\u0440\u0438\u043c\u0435\u0440.com",  # one script a part
        "o'brien+work@x-y.com",
    ],
)
def test_one_script_a_part_is_fine(who: str) -> None:
    assert written_identity_problem(who) is None


@pytest.mark.parametrize("char", ["\u200b", "\ufeff", "\U000e0061", "\u2060", "\xad"])
def test_an_invisible_character_is_refused_in_an_identity(char: str) -> None:
    problem = acting_problem(f"alice{char}@x.com", None)
    assert problem is not None and "invisible" in problem


@pytest.mark.parametrize(
    "other",
    [
        "\u0430lice@x.com",  # Cyrillic а
        "ALICE@X.COM",
        "a1ice@x.com",  # digit one for l
        "alice@x.corn",  # rn for m
        "\uff41lice@x.com",  # fullwidth a
        "alice@x.c\u043em",  # Cyrillic о
        "al\u0131ce@x.com",  # dotless i
    ],
)
def test_look_alikes_share_a_skeleton(other: str) -> None:
    assert likeness.skeleton(other) == likeness.skeleton(ALICE)
    assert likeness.confusable_with(other, [ALICE, "bob@x.com"]) == ALICE


@pytest.mark.parametrize("other", ["alicia@x.com", "alice@y.com", "bob@x.com", ALICE])
def test_different_people_and_the_same_one_are_not_look_alikes(other: str) -> None:
    assert likeness.confusable_with(other, [ALICE, "bob@x.com"]) in (None,)


def test_the_nfc_form_is_the_one_compared() -> None:
    decomposed = "jose\u0301@x.com"
    assert normal(decomposed) == "jos\u00e9@x.com"
