"""Shadows rows that carry their texts in the open index; gains a text `list` of 60,000 open
items that reads 12 MB of rows, not 160 MB, and a `list --json` that reads no data
(docs/performance.md, "Texts kept apart"); held equal by tests/store/fast/test_cache.py and
test_reference.py (rows and texts against the item files), its misses by test_cache_texts.py.

The texts of the open index's rows, kept apart from the rows.

A row's texts are its canonical data, marshalled (what `show`, `owed` and the queue
build an item from), and its `--json` text (what `list --json` joins): ~2 KB of a row's
~2.2 KB. Most reads need neither for most rows: a text listing prints from the
summaries, `--json` needs no data. So beside each group's `<x>.open`
the cache keeps `<x>.data` and `<x>.json`, each holding, for every fan-out, the tree id
it was made from and each item's text by id, and a row is given a `FanTexts` that reads
its group's file the first time one of its rows is asked for that part.

A read is right because a row's texts are looked up under its own tree id: one not
found there (damage, a writer racing between the reads, a reader of an older tree) is
parsed from its file again (`parse`), once for both parts. Misses are kept rare: the
texts files are written before their `<x>.open`, which is dropped when they could not
be; and a miss of a tree the open file still names drops it, so that the next read
rebuilds the group.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from gitcoop.domain.itemdata import PlainData
from gitcoop.store.fast.cache_rows import DATA, JSON, Held, made_texts

if TYPE_CHECKING:
    from gitcoop.store.fast.cache_files import ShardFiles
    from gitcoop.store.fast.cache_rows import Row

SUFFIXES = {DATA: "data", JSON: "json"}
Parse = Callable[[str, str], PlainData]
Made = dict[str, Held]  # item id -> its texts, as a rebuild made them


class TextFiles:
    """The texts files of one cache, read at most once each, and the texts a rebuild
    in this process has just made."""

    def __init__(self, files: ShardFiles, parse: Parse) -> None:
        self.files = files
        self.parse = parse
        self.loaded: dict[tuple[str, int], dict[str, Any]] = {}  # (group, part) -> its file
        self.rebuilt: dict[str, tuple[str, Made]] = {}  # fan-out -> (tree id, texts)
        self.dropped: set[str] = set()  # groups whose open file a miss has looked at

    def fan(self, fan: str, tree_id: str) -> FanTexts:
        return FanTexts(self, fan, tree_id)

    def group(self, group: str, part: int) -> dict[str, Any]:
        """A group's texts file of one part: {fan-out: (tree id, {item id: text})}."""
        found = self.loaded.get((group, part))
        if found is None:
            value = self.files.read(f"{group}.{SUFFIXES[part]}")
            found = self.loaded[group, part] = value if isinstance(value, dict) else {}
        return found

    def kept(self, fan: str, tree_id: str, part: int) -> dict[str, Any] | None:
        """The texts of one part of a fan-out's tree, as this process rebuilt them or its
        group's file holds them; None when neither has them."""
        rebuilt = self.rebuilt.get(fan)
        if rebuilt is not None and rebuilt[0] == tree_id:
            return {item_id: texts[part] for item_id, texts in rebuilt[1].items()}
        entry = self.group(fan[:1], part).get(fan)
        if isinstance(entry, tuple) and len(entry) == 2 and entry[0] == tree_id:
            return entry[1] if isinstance(entry[1], dict) else None
        return None

    def make(self, row: Row) -> Held:
        """A row's texts from its item file, for a row whose kept texts were not found."""
        return made_texts(self.parse(row.item_id, row.blob_id), row.label)

    def lost(self, fan: str, tree_id: str) -> None:
        """The texts of a fan-out's open rows were not kept: its open file is dropped, so
        the next read rebuilds the group, when it still names this tree (else the reader
        is the stale one, and the files on disk agree). Its open file is read once."""
        if fan[:1] in self.dropped:
            return
        self.dropped.add(fan[:1])
        opened = self.files.read(f"{fan[:1]}.open")
        entry = opened.get(fan) if isinstance(opened, dict) else None
        if isinstance(entry, tuple) and entry and entry[0] == tree_id:
            self.files.drop(f"{fan[:1]}.open")

    def write(self, group: str, entries: dict[int, dict[str, Any]]) -> bool:
        """Both texts files of a group; whether both were written."""
        written = [self.files.write(f"{group}.{SUFFIXES[p]}", e) for p, e in entries.items()]
        for part, entry in entries.items():
            self.loaded[group, part] = entry
        return all(written)


class FanTexts:
    """The texts of one fan-out's rows, as stored for its tree: each part read when a
    row first asks for it."""

    __slots__ = ("fan", "held", "parsed", "source", "tree_id")

    def __init__(self, source: TextFiles, fan: str, tree_id: str) -> None:
        self.source = source
        self.fan = fan
        self.tree_id = tree_id
        self.held: list[dict[str, Any] | None] = [None, None]
        self.parsed: dict[str, Held] = {}  # rows parsed again: both parts at once

    def text(self, row: Row, part: int) -> Any:
        held = self.held[part]
        if held is None:
            held = self.source.kept(self.fan, self.tree_id, part)
            if held is None:
                self.source.lost(self.fan, self.tree_id)
                held = {}
            self.held[part] = held
        text = held.get(row.item_id)
        if text is None:  # not kept for this tree: made from the item file
            parsed = self.parsed.get(row.item_id)
            if parsed is None:
                parsed = self.parsed[row.item_id] = self.source.make(row)
            # kept in `held` (the group file's own entry, maybe): the same tree's text
            text = held[row.item_id] = parsed[part]
        return text
