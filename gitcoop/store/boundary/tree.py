"""The listings of a fetched tree, checked where they are read (H7).

`changed` names the items whose file or event folder differs between two
commits, opening only the fan-out folders whose entries differ (in mode or in
id: a folder made a gitlink of its own id is a change), and checks every
name and mode it meets against the layout, and every tree it opens against
the order and form git writes (`Repo.check_written`): a tree out of order
reads one way entry by entry and another by path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gitcoop.domain.bounds import printable
from gitcoop.domain.ids import ItemId, fanout
from gitcoop.errors import BadLedger
from gitcoop.store.ledger.layout import (
    EVENTS,
    FANOUT_RE,
    ITEMS,
    MODE_TREE,
    event_dir,
    is_event_folder,
    is_fanout,
    is_item_file,
)
from gitcoop.store.ledger.snapshot import Snapshot

Entries = dict[str, Any]  # file name -> blob id, inside one item's event folder


def entries(snapshot: Snapshot | None, item_id: ItemId) -> Entries:
    tree = snapshot.subtree(event_dir(item_id)) if snapshot else None
    return {e.name: e.id for e in tree} if tree is not None else {}


def changed(
    old: Snapshot | None,
    new: Snapshot | None,
    where: str,
    fans: Callable[[str], bool] | None = None,
) -> set[ItemId]:
    """Item ids under items/ or events/ whose entry differs (in the fan-out folders `fans`
    takes, when given); `new`'s names are checked."""
    found: set[ItemId] = set()
    for top in (ITEMS, EVENTS):
        was, tree = old.subtree(top) if old else None, new.subtree(top) if new else None
        if was is not None and tree is not None and was.id == tree.id:
            continue  # one tree: nothing differs, and it was read as `old`'s already
        before = _listing(old, _entry(was), top, checked=False)
        after = _fanouts(new, _entry(tree), f"{where}{top}", before)
        for fan in sorted(before.keys() | after.keys()):
            if (fans is not None and not fans(fan)) or before.get(fan) == after.get(fan):
                continue
            here = f"{where}{top}/{fan}"
            found |= _folder(old, before.get(fan), new, after.get(fan), here, top)
    return found


def tops_written(old: Snapshot | None, new: Snapshot, where: str) -> None:
    """`changed`'s checks of the listings of items/ and events/ themselves, for a check
    that then reads one fan-out folder at a time (`changed_in`)."""
    for top in (ITEMS, EVENTS):
        was, tree = old.subtree(top) if old else None, new.subtree(top)
        if was is not None and tree is not None and was.id == tree.id:
            continue
        before = _listing(old, _entry(was), top, checked=False)
        _fanouts(new, _entry(tree), f"{where}{top}", before)


def changed_in(
    old: Snapshot | None,
    new: Snapshot,
    where: str,
    fan: str,
    listed: dict[str, dict[str, tuple[int, str]]] | None = None,
) -> set[ItemId]:
    """`changed(old, new, where, fan.__eq__)` once `tops_written` has checked the levels
    above: only the folder `fan` is opened. With `listed`, the listing of `new`'s folder
    it read, checked as git writes it (`Repo.written`), is put there under its top
    (items/, events/; none where the folder is the first parent's, not read): a lookup in
    it finds what a lookup by path finds."""
    found: set[ItemId] = set()
    for top in (ITEMS, EVENTS):
        path = f"{top}/{fan}"
        was, tree = old.subtree(path) if old else None, new.subtree(path)
        if was is not None and tree is not None and was.id == tree.id:
            continue
        found |= _folder(old, _entry(was), new, _entry(tree), f"{where}{path}", top)
        if listed is not None:  # read by `_folder` just now
            listed[top] = _listing(new, _entry(tree), f"{where}{path}")
    return found


def _folder(
    old: Snapshot | None,
    was: tuple[int, str] | None,
    new: Snapshot | None,
    now: tuple[int, str] | None,
    path: str,
    top: str,
) -> set[ItemId]:
    """The ids whose entry differs between a fan-out folder of the first parent (`was`) and
    of the commit (`now`), each a folder's (mode, id) or None. Only an entry that is not
    the parent's, name, id and mode, has its name and mode checked: the parent's were
    where its state was judged (H3), and a folder holds ~1,000 entries at a million
    items, of which a commit changes one or two."""
    before = dict(_listing(old, was, path, checked=False))
    found = set()
    for name, entry in _listing(new, now, path).items():
        kept = before.pop(name, None)
        if kept != entry:
            _check_entry(name, entry[0], path, top)
            if kept is None or kept[1] != entry[1]:  # its mode alone changed: checked above
                found.add(name)
    found.update(before)  # what the commit removed
    return {ItemId(name[:-5] if top == ITEMS else name) for name in found}


def _entry(tree: Any) -> tuple[int, str] | None:
    """A folder's (mode, id), as a listing names it, from its tree (or None)."""
    return (MODE_TREE, str(tree.id)) if tree is not None else None


def _listing(
    snapshot: Snapshot | None, folder: tuple[int, str] | None, path: str, checked: bool = True
) -> dict[str, tuple[int, str]]:
    """name -> (mode, object id) of a folder's entries (`folder`: its (mode, id), or None),
    refused unless they are as git writes them, so that a listing and a lookup by path
    find the same entries (`Repo.written`); but for the first parent's side (not
    `checked`), judged where it joined or, by fsck, reported there, and not again under
    each commit after it. Shared with later reads: not to be changed."""
    if snapshot is None or folder is None or folder[0] != MODE_TREE:
        return {}  # a fan-out that is not a folder: the name check refuses it
    oid = folder[1]
    return snapshot.repo.written(oid, path) if checked else snapshot.repo.listed(oid, path)


def _fanouts(
    snapshot: Snapshot | None,
    folder: tuple[int, str] | None,
    path: str,
    before: dict[str, tuple[int, str]],
) -> dict[str, tuple[int, str]]:
    """`_listing`, each entry checked to be a fan-out folder (items/ and events/ hold
    fan-out folders only: a gitlink of a folder's id is not one), but for those that are
    the first parent's (`before`), name, id and mode, checked where it was judged."""
    found = _listing(snapshot, folder, path)
    for name, (mode, _) in found.items() - before.items():
        if not is_fanout(name, mode):
            raise _not_allowed(path, name)
    return found


def _check_entry(name: str, mode: int, path: str, top: str | None) -> None:
    fan = path.rsplit("/", 1)[-1]
    good = is_item_file(name, mode) if top == ITEMS else is_event_folder(name, mode)
    if not good or not FANOUT_RE.match(fan) or fanout(name) != fan:
        raise _not_allowed(path, name)


def _not_allowed(path: str, name: str) -> BadLedger:
    """A refusal naming a fetched entry: the name escaped (a newline in it would forge a line
    of this tool's own output), by the one escaping function."""
    return BadLedger(
        f"{printable(path)}/{printable(name)}: not an allowed name or mode for the ledger layout"
    )
