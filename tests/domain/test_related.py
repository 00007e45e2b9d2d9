"""Related commits: a later commit naming a closed item joins it, and the record stays."""

from __future__ import annotations

from dataclasses import replace

from gitcoop.domain.records import Item
from tests.domain.builders import BOB, CAROL, added, event, run


def test_a_related_commit_is_added_once_and_the_record_stays() -> None:
    done = run(added(), event("done", actor=BOB, commit="a" * 40, summary="Fix it"))
    copy = "b" * 40
    note = event("note", actor=CAROL, text="commit bbbb: Fix it", commit=copy, related="a" * 40)
    related = run(done, note)
    assert (related.commit_sha, related.closed_by) == ("a" * 40, BOB)
    assert related.related_commits == (copy,)
    assert run(related, note).related_commits == (copy,)  # the same copy, named once
    plain = event("note", actor=CAROL, text="evidence", commit="c" * 40)
    assert run(related, plain).related_commits == (copy,)  # a plain note relates nothing


def test_related_commits_stay_out_of_item_files_that_have_none() -> None:
    assert "related_commits" not in added().to_data()
    item = replace(added(), related_commits=("b" * 40,))
    assert item.to_data()["related_commits"] == ["b" * 40]
    assert Item.from_data(item.to_data()) == item
