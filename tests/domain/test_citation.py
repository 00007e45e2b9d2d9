"""Evidence paths normalised, and lines and quotes checked against a file's text."""

from __future__ import annotations

import pytest

from gitcoop.domain.citation import normalise_path, problem
from gitcoop.domain.records import Evidence

TOP = ("/home/me/repo/", "/private/home/me/repo")
TEXT = "import os\n\ndef toast():\n    show('saved')\n" + "pass\n" * 10


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        ("src/a.py", "src/a.py"),
        ("./src/a.py", "src/a.py"),
        ("src//lib/../a.py", "src/a.py"),
        ("/home/me/repo/src/a.py", "src/a.py"),
        ("/private/home/me/repo/src/a.py", "src/a.py"),
        ("/home/me/repository/a.py", None),
        ("/etc/passwd", None),
        ("../outside.py", None),
        ("src/../../x.py", None),
        (".", None),
        ("  ", None),
    ],
)
def test_paths_are_made_relative_to_the_top_of_the_work_tree(
    given: str, expected: str | None
) -> None:
    assert normalise_path(given, TOP) == expected


def test_a_missing_file_a_line_past_the_end_and_a_quote_far_away_are_named() -> None:
    assert problem(Evidence("a.py", 3, "def toast():"), TEXT) is None
    assert problem(Evidence("a.py", 8, "def   toast():"), TEXT) is None  # near, spaced
    assert problem(Evidence("a.py", None, "show('saved')"), TEXT) is None  # anywhere
    assert problem(Evidence("a.py", 14), TEXT) is None
    assert "a.py is not a file" in str(problem(Evidence("a.py", 3), None))
    assert "line 15 is past the end of a.py (14 lines)" in str(problem(Evidence("a.py", 15), TEXT))
    assert "line 0" in str(problem(Evidence("a.py", 0), TEXT))
    far = problem(Evidence("a.py", 14, "def toast():"), TEXT)
    assert far is not None and "within 5 lines of line 14" in far
    assert problem(Evidence("a.py", 3, "nowhere"), TEXT) is not None
    assert problem(Evidence("big.bin", 10**6, "x"), "", readable=False) is None
