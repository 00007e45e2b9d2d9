"""Crafted pushes are judged alike three ways: a folder at a time in one process, a folder
at a time in two (`windows.SPLIT_FROM`, `test_split_check.py`), and by reference, a
whole commit at a time (`COOP_REFERENCE=1`): the same exit, the same message, the same
tip. Each push is one a check that reads listings and lookups by another road than the
reference's could misjudge: entries of items/ and events/ that change mode but not id,
names placed where the layout puts another kind, a side commit's listing, a count of
events spread over folders, verdicts naming items of other folders."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gitcoop.store.boundary import history as history_mod
from gitcoop.store.boundary import windows
from gitcoop.store.ledger import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    add_event,
    commit,
    new_event,
    push,
    team,
    tip,
    with_config,
    write_tree,
)
from tests.hostile.test_folder_windows import A, B, C, _three_items_being_verified, _verdict
from tests.hostile.test_split_check import shared
from tests.rawledger import open_raw, rewrite


def _note(content: dict[str, bytes], item_id: str, text: str) -> dict[str, bytes]:
    return add_event(content, new_event(content, item_id, "note", text=text))


def _raw_commit(
    path: Path,
    content: dict[str, bytes],
    parts: list[str],
    change: Callable[[list[Any]], list[Any]],
    parents: list[str],
) -> str:
    raw = open_raw(path)
    tree = raw.get(write_tree(path, content)).id
    return commit(path, str(rewrite(raw, tree, parts, change)), parents)


def _mode(name: str, mode: bytes) -> Callable[[list[Any]], list[Any]]:
    def change(entries: list[Any]) -> list[Any]:
        return [(mode if n == name.encode() else m, n, o) for m, n, o in entries]

    return change


def dup_chain(crew: Any, before: dict[str, bytes]) -> str:
    honest = add_event(before, _verdict(before, C, 0, "stale"))
    b_dup = _verdict(honest, B, 1, "duplicate", C)
    honest = add_event(honest, b_dup)
    a_dup = _verdict(honest, A, 2, "duplicate", B)
    honest = add_event(honest, a_dup)
    blind = add_event(add_event(before, b_dup), a_dup)
    path = f"items/{A[3:5]}/{A}.yaml"
    made = commit(
        crew.mallory, write_tree(crew.mallory, {**honest, path: blind[path]}), [tip(crew.mallory)]
    )
    return made


def dup_chain_honest(crew: Any, before: dict[str, bytes]) -> str:
    honest = add_event(before, _verdict(before, C, 0, "stale"))
    honest = add_event(honest, _verdict(honest, B, 1, "duplicate", C))
    honest = add_event(honest, _verdict(honest, A, 2, "duplicate", B))
    return commit(crew.mallory, write_tree(crew.mallory, honest), [tip(crew.mallory)])


def items_fan_gitlink(crew: Any, before: dict[str, bytes]) -> str:
    content = _note(_note(before, A, "a"), B, "b")
    return _raw_commit(
        crew.mallory, content, ["items"], _mode(A[3:5], b"160000"), [tip(crew.mallory)]
    )


def item_file_exec(crew: Any, before: dict[str, bytes]) -> str:
    content = _note(_note(before, A, "a"), B, "b")
    return _raw_commit(
        crew.mallory, content, ["items", A[3:5]], _mode(f"{A}.yaml", b"100755"), [tip(crew.mallory)]
    )


def item_folder_named_like_fanout(crew: Any, before: dict[str, bytes]) -> str:
    content = _note(_note(before, A, "a"), B, "b")

    def change(entries: list[Any]) -> list[Any]:
        [(m, _n, o)] = [e for e in entries if e[1] == A.encode()]
        return sorted([*entries, (m, A[3:5].encode(), o)], key=lambda e: e[1] + b"/")

    return _raw_commit(crew.mallory, content, ["events", A[3:5]], change, [tip(crew.mallory)])


def side_events_fan_gitlink(crew: Any, before: dict[str, bytes]) -> str:
    start = tip(crew.mallory)
    note = new_event(before, B, "note", text="aside")
    side = _raw_commit(
        crew.mallory, add_event(before, note), ["events"], _mode(B[3:5], b"160000"), [start]
    )
    data = codec.load(before["coop.yaml"], "coop.yaml")
    data["clock"] = note["clock"]
    merged = write_tree(crew.mallory, with_config(before, data))
    return commit(crew.mallory, merged, [start, side])


def too_many_then_forged(crew: Any, before: dict[str, bytes]) -> str:
    content = _note(_note(_note(before, A, "a"), B, "b"), C, "c")
    path = f"items/{B[3:5]}/{B}.yaml"
    data = codec.load(content[path], path)
    return commit(
        crew.mallory,
        write_tree(crew.mallory, {**content, path: codec.dump({**data, "title": "Forged"})}),
        [tip(crew.mallory)],
    )


CASES = [
    dup_chain,
    dup_chain_honest,
    items_fan_gitlink,
    item_file_exec,
    item_folder_named_like_fanout,
    side_events_fan_gitlink,
    too_many_then_forged,
]


@pytest.mark.parametrize("make", CASES, ids=[c.__name__ for c in CASES])
def test_three_modes_agree(clones: Clones, tmp_path: Path, make: Any, monkeypatch: Any) -> None:
    crew = team(clones, tmp_path)
    before = _three_items_being_verified(crew)
    if make is too_many_then_forged:
        for mod in (windows, history_mod):
            monkeypatch.setattr(mod, "MAX_EVENTS", 2)
        monkeypatch.setattr(
            windows, "_TOO_MANY", "adds over 2 events — one commit adds at most that many"
        )
    made = make(crew, before)
    push(crew.mallory, made)
    found = {}
    for mode in ("reference", "alone", "split"):
        where = tmp_path / mode
        shutil.copytree(crew.victim, where, symlinks=True)
        git(where, "fetch", "-q", "origin")
        env = {"COOP_REFERENCE": "1"} if mode == "reference" else None
        with shared(mode == "split") as calls:
            done = coop_in(where, "sync", env=env)
        found[mode] = (
            done.code,
            done.err.replace(str(where), "<clone>").strip(),
            tip(where) == made,
            len(calls),
        )
    assert found["alone"][:3] == found["split"][:3]
    assert found["alone"][:3] == found["reference"][:3]


def test_a_bad_items_entry_held_aside_then_first(clones: Clones, tmp_path: Path) -> None:
    """S, a second parent, has a bad entry in items/ (not read: it is off the chain). A
    later tip whose first parent is S makes S a state, checked as one (held aside): the
    bad entry is found, all three ways."""
    crew = team(clones, tmp_path)
    before = _three_items_being_verified(crew)
    start = tip(crew.mallory)
    note = new_event(before, B, "note", text="aside")
    side_content = add_event(before, note)

    def bad(entries: list[Any]) -> list[Any]:
        return sorted(
            [*entries, (b"100644", b"zz-bad", open_raw(crew.mallory).create_blob(b"x"))],
            key=lambda e: e[1] + (b"/" if e[0] == b"40000" else b""),
        )

    side = _raw_commit(crew.mallory, side_content, ["items"], bad, [start])
    data = codec.load(before["coop.yaml"], "coop.yaml")
    data["clock"] = note["clock"]
    merged = commit(
        crew.mallory, write_tree(crew.mallory, with_config(before, data)), [start, side]
    )
    push(crew.mallory, merged)
    assert coop_in(crew.victim, "sync").code == 0
    assert tip(crew.victim) == merged
    # now a tip whose first parent is S, adding a note of its own
    later = _note(side_content, A, "on top of the side")
    raw = open_raw(crew.mallory)
    tree = raw.get(write_tree(crew.mallory, later)).id
    top = commit(crew.mallory, str(rewrite(raw, tree, ["items"], bad)), [side])
    push(crew.mallory, top)
    for mode in ("reference", "alone", "split"):
        where = tmp_path / mode
        shutil.copytree(crew.victim, where, symlinks=True)
        env = {"COOP_REFERENCE": "1"} if mode == "reference" else None
        with shared(mode == "split"):
            done = coop_in(where, "sync", "--accept-rewrite", env=env)
        assert done.code != 0 and tip(where) != top
