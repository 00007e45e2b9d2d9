"""The trailer parser alone, on odd commit messages (no git needed)."""

from __future__ import annotations

import pytest

from gitcoop.domain.trailers import (
    CoopTrailer,
    Trailer,
    coop_trailers,
    parse_trailers,
    stray_coop_lines,
    subject,
)


def refs(message: str) -> list[tuple[str, str]]:
    return [(t.verb, t.ref) for t in coop_trailers(message)]


def test_no_trailers_at_all() -> None:
    assert refs("Fix the parser\n\nIt was wrong about blank lines.\n") == []
    assert refs("") == []


def test_a_plain_trailer_in_the_last_paragraph() -> None:
    message = "Fix the parser\n\nBody.\n\nCoop-Done: td-7k2m\n"
    assert coop_trailers(message) == [CoopTrailer("Coop-Done", "done", "td-7k2m")]


def test_the_subject_paragraph_is_never_trailers() -> None:
    assert refs("Coop-Done: td-7k2m") == []
    assert refs("Subject\nCoop-Done: td-7k2m\n") == []


def test_a_trailer_inside_the_body_is_not_a_trailer() -> None:
    message = "Subject\n\nCoop-Done: td-7k2m\nand then some prose\n\nThe end.\n"
    assert refs(message) == []


def test_a_trailer_line_amid_prose_in_the_last_paragraph_is_not_a_trailer() -> None:
    assert refs("Subject\n\nSee below.\nCoop-Done: td-7k2m\n") == []


def test_crlf_line_ends() -> None:
    message = "Subject\r\n\r\nBody\r\n\r\nCoop-Close: rq-abcd\r\nCoop-Refs: td-9x8y\r\n"
    assert refs(message) == [("close", "rq-abcd"), ("note", "td-9x8y")]


def test_keys_match_without_case_and_are_given_their_canonical_spelling() -> None:
    found = coop_trailers("Subject\n\ncoop-done: td-aaaa\nCOOP-CLOSE: rq-bbbb\n")
    assert [(t.key, t.verb) for t in found] == [("Coop-Done", "done"), ("Coop-Close", "close")]


def test_blanks_before_the_colon_are_allowed_as_git_allows_them() -> None:
    assert refs("Subject\n\nCoop-Done : td-aaaa\n") == [("done", "td-aaaa")]


def test_a_key_with_blanks_inside_is_not_a_trailer() -> None:
    assert refs("Subject\n\nCoop Done: td-aaaa\n") == []


def test_unknown_keys_are_ignored_but_keep_the_block_a_trailer_block() -> None:
    message = "Subject\n\nReviewed-by: Bob <bob@example.com>\nCoop-Done: td-aaaa\nX-Y: z\n"
    assert refs(message) == [("done", "td-aaaa")]
    assert [t.key for t in parse_trailers(message)] == ["Reviewed-by", "Coop-Done", "X-Y"]


def test_unknown_ids_are_returned_as_written_for_the_ledger_to_judge() -> None:
    assert refs("Subject\n\nCoop-Done: no-such-thing\n") == [("done", "no-such-thing")]


def test_several_ids_in_one_value_and_duplicates_once() -> None:
    message = "Subject\n\nCoop-Done: td-aaaa, td-bbbb td-aaaa\nCoop-Done: TD-BBBB\n"
    assert refs(message) == [("done", "td-aaaa"), ("done", "td-bbbb")]


def test_an_empty_value_names_nothing() -> None:
    assert refs("Subject\n\nCoop-Done:\n") == []


def test_continuation_lines_join_the_value() -> None:
    message = "Subject\n\nCoop-Refs: td-aaaa,\n  td-bbbb\n"
    assert refs(message) == [("note", "td-aaaa"), ("note", "td-bbbb")]
    assert parse_trailers(message) == [Trailer("Coop-Refs", "td-aaaa, td-bbbb")]


def test_trailing_comments_and_blank_lines_are_ignored() -> None:
    message = "Subject\n\nCoop-Done: td-aaaa\n# Please enter the commit message\n#\n\n\n"
    assert refs(message) == [("done", "td-aaaa")]


def test_a_comment_inside_the_block_breaks_a_continuation() -> None:
    message = "Subject\n\nCoop-Done: td-aaaa\n# comment\n  td-bbbb\nKey: v\n"
    assert refs(message) == []


def test_another_comment_character() -> None:
    message = "Subject\n\nCoop-Done: td-aaaa\n; a comment\n"
    assert refs(message) == []
    assert [t.ref for t in coop_trailers(message, comment_char=";")] == ["td-aaaa"]


def test_a_quarter_of_trailers_with_a_git_generated_one_is_a_block() -> None:
    message = "Subject\n\nSigned-off-by: A <a@x>\nprose one\nprose two\nCoop-Done: td-aaaa\n"
    assert refs(message) == [("done", "td-aaaa")]
    not_enough = "Subject\n\nSigned-off-by: A <a@x>\none\ntwo\nthree\nfour\nfive\nsix\nseven\n"
    assert parse_trailers(not_enough) == []


def test_without_a_git_generated_trailer_one_prose_line_spoils_the_block() -> None:
    assert refs("Subject\n\nCoop-Done: td-aaaa\nprose\n") == []


def test_a_dash_divider_is_not_special_in_a_commit_message() -> None:
    assert refs("Subject\n\n---\nnotes\n\nCoop-Done: td-aaaa\n") == [("done", "td-aaaa")]


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Fix it\n\nbody\n", "Fix it"),
        ("Fix it\r\n\r\nbody\r\n", "Fix it"),
        ("\n\nFix it\nacross lines\n\nbody", "Fix it across lines"),
        ("", ""),
    ],
)
def test_subject_is_the_first_paragraph_on_one_line(message: str, expected: str) -> None:
    assert subject(message) == expected


def test_coop_lines_outside_the_trailer_block_are_found_and_those_in_it_are_not() -> None:
    message = (
        "Retry\n\ncoop-done: td-a\n\n  Coop-Refs: td-b, td-c\nwords\n# Coop-Close: td-d\n\n"
        "Coop-Close: td-e\nSigned-off-by: A <a@example.com>\n"
    )
    assert stray_coop_lines(message) == [
        ("done", "coop-done: td-a"),
        ("note", "Coop-Refs: td-b, td-c"),
    ]
    assert [t.ref for t in coop_trailers(message)] == ["td-e"]
    assert stray_coop_lines("Coop-Done: td-a\n") == [("done", "Coop-Done: td-a")]  # a subject
    assert stray_coop_lines("Fix\n\nCoop-Done: td-a\n") == []
