"""The shape function and batch trimming of the scan import."""

from __future__ import annotations

import pytest

from gitcoop.domain.shape import normalise, shape, trim


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("[ui] Fix error toast in src/app.tsx:123", "fix error"),
        ("Add test for the login form", "add test"),
        ("Wire onError handler to the upload modal", "wire onerror"),
        ("Render empty state for the list", "render state"),
        ("Surface validation errors on the signup form", "surface error"),
        ("Validate route params", "validate route"),
        ("Remove dead endpoint /v2/users", "remove endpoint"),
        ("Handle 404 on the settings route", "handle route"),
        ("Show 'Saved' label after save", "show label"),
        ("Replace any type with a guard", "replace type"),
        ("Cover useAuth hook with specs", "cover spec"),
        ("Format dates", "format other"),
        ("Refactor everything", "other other"),
        ("Fixes the adding of tests", "add test"),
        ("Moving toasts around", "move toast"),
    ],
)
def test_shape_of_titles(title: str, expected: str) -> None:
    assert shape(title) == expected


def test_normalise_strips_tag_quotes_locations_and_numbers() -> None:
    text = normalise('[api] Fix "crash" in test_utils.py:88 after 3 retries')
    assert text == "fix crash in <loc> after <n> retries"


def test_a_file_name_does_not_make_a_target() -> None:
    assert shape("Fix crash in test_main.py:12") == "fix other"


def test_trim_keeps_the_first_of_each_shape_up_to_the_cap() -> None:
    titles = [f"Fix error {n}" for n in range(4)] + ["Add test", "Show label"]
    result = trim(titles, titles, max_same_shape=2)
    assert result.kept == ["Fix error 0", "Fix error 1", "Add test", "Show label"]
    assert [(t, s) for t, s in result.trimmed] == [
        ("Fix error 2", "fix error"),
        ("Fix error 3", "fix error"),
    ]
    assert not result.lopsided


def test_trim_warns_when_five_items_span_fewer_than_three_shapes() -> None:
    titles = ["Fix error a", "Fix error b", "Fix error c", "Add test a", "Add test b"]
    assert trim(titles, titles, max_same_shape=3).lopsided
    varied = [*titles[:4], "Show label"]
    assert not trim(varied, varied, max_same_shape=3).lopsided
