"""Events held where no item file is: broken, unless the first is an `add` kept out."""

from __future__ import annotations

from gitcoop.domain import rulebook
from tests.domain.builders import event


def test_events_of_no_item_are_broken_unless_a_kept_out_add_comes_first() -> None:
    add = event("add", title="x", kind="todo")
    note = event("note", text="after")
    assert not rulebook.of_no_item([], set())
    assert rulebook.of_no_item([note], set())
    assert rulebook.of_no_item([add, note], set())  # an add not kept out makes an item
    assert not rulebook.of_no_item([note, add], {add.id})  # in order: the add first
    assert not rulebook.of_no_item([add], {add.id})


def test_a_kept_out_note_first_does_not_make_a_folder_of_no_item_honest() -> None:
    """mallory's unsigned note (kept out) first, then her signed one, in the folder of an
    item that never was: only a kept-out add makes no item."""
    first, second = event("note", text="x"), event("note", text="y")
    assert rulebook.of_no_item([first, second], {first.id})
