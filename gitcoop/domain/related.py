"""Related commits: later commits that carry an item's trailer, kept beside its record.

The first close is the record (DESIGN.md §1). A second commit naming an
item already closed by another commit (a cherry-pick's copy, a follow-up
fix) is recorded as a note whose `related` argument names the recorded
commit; the note's `commit` joins the item's `related_commits`, once, and
the record stays as it was. Which of the two a commit becomes is decided
where the commits are known (service/recording.py).
"""

from __future__ import annotations

from gitcoop.domain.records import Event, Item, replace


def with_related(item: Item, event: Event) -> Item:
    """The item after a note: one naming a `related` commit adds its `commit`."""
    commit = event.arg("commit")
    if not isinstance(event.arg("related"), str) or not isinstance(commit, str):
        return item
    if commit == item.commit_sha or commit in item.related_commits:
        return item
    return replace(item, related_commits=(*item.related_commits, commit))
