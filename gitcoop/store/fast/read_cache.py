"""Shadows parsing, from the commit, every item file a read needs; gains reads that cost what
they show: `list --json` at a million items, 1,000 in view, in ~272 ms of CPU where parsing
takes ~79 us a file (docs/performance.md, "The read cache", "Reads that cost what they
show"); held equal by tests/store/fast/test_reference.py.

A read cache of parsed item files that cannot go stale, and the open index in it.

What is cached is keyed by git object ids, which name content: an entry is
either exactly right or not used. A lookup always starts from the ref's
current tree, so a plain `git fetch` or any other writer moving the ref is
seen at once. For each fan-out directory (`items/<xx>`) the cache holds the
tree id it was built from, in these kinds of file (one of each per first
character of the fan-out: 32 groups, not 1,024 files):

- `<x>.open`, **the open index**: a `Row` (without its texts) for every item a plain reading
  verb may show (unsettled, or carrying a conflict, a takeover notice or a
  pending obligation: `in_view`), a tally of the other, settled, items by
  (kind, status, tags), and those settled items' links (the dependency graph
  needs every link). `list`, `ready`, `blocked`, `prime` and the queue view
  read only these files, so they cost what the open work costs, however long
  the history (`status`, `owed` and `show` read less: the keys, below).
- `<x>.data` and `<x>.json`: the open rows' texts, their data and `--json`
  text, by fan-out and id, read only when a row's are asked for
  (store/fast/cache_texts.py): a text `list` reads none of them.
- `<x>.settled`: (id, blob id, kind, status, tags, links, parent) of each
  settled item, read only when a fan-out changed, so that a settled file
  whose blob id is unchanged is never read again.
- `<x>.shard`: the rows of the settled items, read only for `--all`, a
  `--status` naming a settled state, and other whole-ledger reads.
- `<x>.keys`: the open index without its rows (store/fast/open_keys.py): tallies, the
  holder and due indexes and every item's links, for `status` and `owed`;
  written with `<x>.open`, and made from it when missing.
- `<x>.in`: the links into the group's items from every fan-out, for `show`,
  with the tree id of each fan-out they came from; brought up to date from the
  keys of the fan-outs whose tree changed.

When a fan-out tree id differs from the one stored, rows and entries whose
(name, blob id) is unchanged are reused and only the other files are parsed.
A `Row` holds the blob id, the item's shortest unique label, the `Summary`
(the fields the reading verbs filter, sort and print on), and where its texts
are: its validated canonical data (marshalled) and its `--json` text as an
element of a listing, read only when asked for (`<x>.data`, `<x>.json`).

A large rebuild (a new clone, a deleted cache) is split between two
processes (`split.halves`): a child builds half of the groups and writes their
files, the parent builds the other half and reads the child's files (anything
the child did not write, the parent builds itself). Files are written
atomically and heal themselves (`cache_files.py`). A row takes about 2 KB, nine tenths of it
its texts (the indented JSON text the larger part).
"""

from __future__ import annotations

import marshal
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from gitcoop.domain import progress
from gitcoop.domain.ids import fanout, shortest_labels
from gitcoop.domain.itemdata import PlainData
from gitcoop.store.fast import memory, reference, split
from gitcoop.store.fast.cache_files import MAX_FILE_BYTES, ShardFiles, Unkept, cache_dir
from gitcoop.store.fast.cache_rows import (
    DATA,
    JSON,
    Held,
    Node,
    OpenView,
    Row,
    Summary,
    Tally,
    in_view,
    make_row,
    rows_of,
    summarise,
)
from gitcoop.store.fast.cache_texts import FanTexts, Made, TextFiles
from gitcoop.store.fast.open_keys import Incoming, Keys, derive, incoming_of, pack, unpack

__all__ = ["MAX_FILE_BYTES", "cache_dir"]
READING = "reading items into the read cache"
Entry = tuple[str, str]  # item id, blob id
Parse = Callable[[str, str], PlainData]
# the validated data of a file, or only its summary when the file is settled and needs
# nothing (`cache_rows.quiet_summary`): a plain read never shows it, so the rest is not checked
Quick = Callable[[str, str], "PlainData | Summary"]
Listing = Callable[[str], list[Entry]]
PARALLEL_FANOUTS = 128  # changed fan-outs from which a rebuild uses a second process
_LAST_KEYS: list[Any] = []  # (cache root, fan-out trees), the keys read for them


class ItemCache:
    """The cache's files under the common git dir."""

    def __init__(self, common_dir: str) -> None:
        # under COOP_REFERENCE=1 no file is read or written: every read parses what it needs
        self.files = (Unkept if reference() else ShardFiles)(cache_dir(common_dir))
        self.root = self.files.root
        self.hits = 0  # fan-out trees served unchanged (for tests and the benchmark)
        self.parsed = 0  # item blobs parsed because no file held them
        self.parallel = True  # a large rebuild may use a second process

    def read(self, name: str) -> Any:
        return self.files.read(name)

    def document(self, path: str, blob_id: str, parse: Callable[[], PlainData]) -> PlainData:
        """One parsed ledger file (e.g. coop.yaml) by blob id; `parse` runs on a miss."""
        name = "doc-" + path.replace("/", "-") + ".doc"
        old = self.files.read(name)
        if isinstance(old, tuple) and old[0] == blob_id and isinstance(old[1], dict):
            return old[1]
        data = parse()
        self.files.write(name, (blob_id, data))
        return data

    def _texts(self, parse: Parse) -> TextFiles:
        """The rows' texts files; a row whose texts are not kept is parsed, and counted."""

        def counted(item_id: str, blob_id: str) -> PlainData:
            self.parsed += 1
            return parse(item_id, blob_id)

        return TextFiles(self.files, counted)

    # -- the open index -------------------------------------------------------

    def open_view(
        self,
        fanouts: list[tuple[str, str]],
        entries: Listing,
        parse: Parse,
        quick: Quick | None = None,
    ) -> OpenView:
        """The open index of these (fan-out name, tree id)s.

        `entries(fan)` and `quick(item id, blob id)` (else `parse`) run only for
        fan-out trees the index does not hold as they are.
        """
        rows: list[Row] = []
        settled: Counter[tuple[str, str, tuple[str, ...]]] = Counter()
        nodes: list[Node] = []
        texts = self._texts(parse)
        for fan, stored in self._open_fans(fanouts, entries, quick or parse, texts):
            rows += rows_of(stored[1], texts.fan(fan, stored[0]))
            for kind, status, tags, count in stored[2]:
                settled[kind, status, tags] += count
            nodes += map(Node._make, stored[3])
        tally = [Tally(k, s, t, n) for (k, s, t), n in settled.items()]
        return OpenView(rows, tally, nodes)

    def _open_fans(
        self, fanouts: list[tuple[str, str]], entries: Listing, parse: Quick, texts: TextFiles
    ) -> list[tuple[str, Any]]:
        """(fan, stored open entry) for every fan-out, rebuilding what changed; the texts of
        the rows rebuilt are left in `texts`."""
        groups = _groups(fanouts)
        stored = {group: _dict(self.files.read(f"{group}.open")) for group in groups}
        stale = [g for g, members in groups.items() if _changed(stored[g], members)]
        self.hits += sum(len(members) for g, members in groups.items() if g not in stale)

        def build(group: str) -> None:
            stored[group] = self._open_group(
                group, groups[group], stored[group], entries, parse, texts
            )

        def reread(group: str) -> bool:
            stored[group] = _dict(self.files.read(f"{group}.open"))
            return not _changed(stored[group], groups[group])

        self._build(stale, groups, build, reread)
        return [(fan, stored[fan[:1]][fan]) for fan, _ in fanouts]

    def _open_group(
        self,
        group: str,
        members: list[tuple[str, str]],
        stored: dict[str, Any],
        entries: Listing,
        parse: Quick,
        texts: TextFiles,
    ) -> dict[str, Any]:
        known = _dict(self.files.read(f"{group}.settled"))
        kept: dict[str, Any] = {}
        for fan, tree_id in members:
            old = stored.get(fan)
            if old is not None and old[0] == tree_id:
                self.hits += 1
                kept[fan] = old
                continue
            rows, settled, made = self._rebuild_open(
                entries(fan), old, known.get(fan), parse, texts.fan(fan, old[0]) if old else None
            )
            kept[fan] = (tree_id, rows, _tally(settled), _nodes(settled))
            known[fan] = (tree_id, settled)
            texts.rebuilt[fan] = (tree_id, made)
        fans = {fan: texts.fan(fan, entry[0]) for fan, entry in kept.items()}
        parts = {part: _texts_file(texts, kept, part, fans) for part in (DATA, JSON)}
        if texts.write(group, parts):  # an open file never names a tree its texts lack
            self.files.write(f"{group}.open", kept)
        else:  # nor does an older one: the next read rebuilds the group
            self.files.drop(f"{group}.open")
        self._write_keys(group, kept, texts)
        current = {
            fan: known[fan] for fan in kept if fan in known and known[fan][0] == kept[fan][0]
        }
        self.files.write(f"{group}.settled", current)
        return kept

    def _rebuild_open(
        self, listed: list[Entry], old: Any, known: Any, parse: Quick, old_texts: FanTexts | None
    ) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]], Made]:
        """One fan-out's open rows, settled entries and the rows' texts: unchanged files
        reused, the rest parsed."""
        rows_by = {(row[0], row[1]): row for row in old[1]} if old is not None else {}
        settled_by = {(e[0], e[1]): e for e in known[1]} if known is not None else {}
        names = shortest_labels(item_id for item_id, _ in listed)
        rows: list[tuple[Any, ...]] = []
        settled: list[tuple[Any, ...]] = []
        made: Made = {}
        for item_id, blob_id in listed:
            stored = rows_by.get((item_id, blob_id))
            if stored is not None:
                row = Row._make((*stored, old_texts))
                if row.label != names[item_id]:  # a new neighbour lengthened the label
                    row = make_row(item_id, blob_id, names[item_id], row.data(), row.summary)
                rows.append(row[:4])
                made[item_id] = Held(row.packed, row.json)
                continue
            entry = settled_by.get((item_id, blob_id))
            if entry is None:
                read = parse(item_id, blob_id)
                self.parsed += 1
                summary = read if isinstance(read, Summary) else summarise(read)
                if in_view(summary):
                    assert not isinstance(read, Summary)  # a quiet summary is never in view
                    row = make_row(item_id, blob_id, names[item_id], read, summary)
                    rows.append(row[:4])
                    made[item_id] = Held(row.packed, row.json)
                    continue
                entry = _settled_entry(blob_id, summary)
            settled.append(entry)
        return rows, settled, made

    # -- the keys: tallies, the holder and due indexes, links both ways --------

    def keys(
        self,
        fanouts: list[tuple[str, str]],
        entries: Listing,
        parse: Parse,
        quick: Quick | None = None,
    ) -> list[Keys]:
        """Each fan-out's keys (store/fast/open_keys.py), in the order given: from the `<x>.keys`
        files, and from the open index for a group whose keys file is not current."""
        seen = (self.root, tuple(fanouts))
        # `status` asks, then `owed` asks again (no cache, `Unkept`: each asks anew)
        if _LAST_KEYS and _LAST_KEYS[0] == seen and not self.files.unkept:
            kept: list[Keys] = _LAST_KEYS[1]
            return kept
        groups = _groups(fanouts)
        stored = {group: _dict(self.files.read(f"{group}.keys")) for group in groups}
        stale = [g for g, members in groups.items() if _changed(stored[g], members)]
        if stale:
            wanted = [fan for fan in fanouts if fan[0][:1] in stale]
            texts = self._texts(parse)
            opened = dict(self._open_fans(wanted, entries, quick or parse, texts))
            for group in stale:  # a rebuilt open file wrote its keys: read them again
                stored[group] = _dict(self.files.read(f"{group}.keys"))
                if _changed(stored[group], groups[group]):
                    members = {fan: opened[fan] for fan, _ in groups[group]}
                    stored[group] = self._write_keys(group, members, texts)
        found = [Keys._make(stored[fan[:1]][fan]) for fan, _ in fanouts]
        _LAST_KEYS[:] = [seen, found]  # only the last: a long-lived process keeps no more
        return found

    def _write_keys(self, group: str, opened: dict[str, Any], texts: TextFiles) -> dict[str, Any]:
        old = _dict(self.files.read(f"{group}.keys"))
        kept = {}
        for fan, stored in opened.items():
            before = old.get(fan)
            if before is not None and before[0] == stored[0]:
                kept[fan] = before
            else:
                kept[fan] = derive(stored, texts.fan(fan, stored[0]))
        self.files.write(f"{group}.keys", kept)
        return kept

    def incoming(
        self,
        fan: str,
        fanouts: list[tuple[str, str]],
        entries: Listing,
        parse: Parse,
        quick: Quick | None = None,
    ) -> dict[str, list[Incoming]]:
        """The links into each item of fan-out `fan` (its children's too) from every item,
        in view or not, by the item they lead to, from its group's `<x>.in`; what changed
        since is taken out and put back from the keys of the fan-outs whose tree changed."""
        group = fan[:1]
        stored = _dict(self.files.read(f"{group}.in"))
        sources = _dict(stored.get("sources"))
        parts = _dict(stored.get("to"))
        now = dict(fanouts)
        changed = [(f, t) for f, t in fanouts if sources.get(f) != t]
        if changed or sources.keys() - now.keys():
            redo = {f for f, _ in changed} | (sources.keys() - now.keys())
            kept = [
                entry
                for part in parts
                for entry in marshal.loads(parts[part])
                if entry[5] not in redo
            ]
            groups = {source[:1] for source, _ in changed}  # the keys' files, whole
            wanted = [(f, t) for f, t in fanouts if f[:1] in groups]
            read = self.keys(wanted, entries, parse, quick)
            found = dict(zip((f for f, _ in wanted), read, strict=True))
            for source, _ in changed:
                kept += incoming_of(source, found[source], group)
            parts = pack(kept)
            self.files.write(f"{group}.in", {"sources": now, "to": parts})
        into: dict[str, list[Incoming]] = {}
        for entry in unpack(parts, fan):
            into.setdefault(entry.target, []).append(entry)
        return into

    # -- every item -----------------------------------------------------------

    def rows(
        self,
        fanouts: list[tuple[str, str]],
        entries: Listing,
        parse: Parse,
        quick: Quick | None = None,
    ) -> list[Row]:
        """Every item's row: the open index's and the settled shards', by fan-out and id."""
        texts = self._texts(parse)
        opened = dict(self._open_fans(fanouts, entries, quick or parse, texts))
        groups = _groups(fanouts)
        shards = {group: _dict(self.files.read(f"{group}.shard")) for group in groups}
        stale = [g for g, members in groups.items() if _changed(shards[g], members)]
        self.hits += sum(len(members) for g, members in groups.items() if g not in stale)

        def build(group: str) -> None:
            shards[group] = self._settled_group(
                group, groups[group], shards[group], opened, entries, parse
            )

        def reread(group: str) -> bool:
            shards[group] = _dict(self.files.read(f"{group}.shard"))
            return not _changed(shards[group], groups[group])

        self._build(stale, groups, build, reread)
        found: list[Row] = []
        for fan, _ in fanouts:
            found += rows_of(opened[fan][1], texts.fan(fan, opened[fan][0]))
            settled = shards[fan[:1]][fan][1]
            found += (Row._make((*row[:4], Held(row[4], row[5]))) for row in settled)
        found.sort(key=lambda row: (fanout(row.item_id), row.item_id))
        return found

    def _settled_group(
        self,
        group: str,
        members: list[tuple[str, str]],
        stored: dict[str, Any],
        opened: dict[str, Any],
        entries: Listing,
        parse: Parse,
    ) -> dict[str, Any]:
        kept: dict[str, Any] = {}
        for fan, tree_id in members:
            old = stored.get(fan)
            if old is not None and old[0] == tree_id:
                self.hits += 1
                kept[fan] = old
                continue
            listed = entries(fan)
            in_index = {(row[0], row[1]) for row in opened[fan][1]}
            reused = {(row[0], row[1]): row for row in old[1]} if old is not None else {}
            names = shortest_labels(item_id for item_id, _ in listed)
            rows = []
            for item_id, blob_id in listed:
                if (item_id, blob_id) in in_index:
                    continue
                row = reused.get((item_id, blob_id))
                if row is None or row[2] != names[item_id]:
                    data = marshal.loads(row[4]) if row is not None else parse(item_id, blob_id)
                    self.parsed += row is None
                    made = make_row(item_id, blob_id, names[item_id], data)
                    row = (*made[:4], made.packed, made.json)
                rows.append(row)
            kept[fan] = (tree_id, rows)
        self.files.write(f"{group}.shard", kept)
        return kept

    # -- building -------------------------------------------------------------

    def _build(
        self,
        stale: list[str],
        groups: dict[str, list[tuple[str, str]]],
        build: Callable[[str], None],
        reread: Callable[[str], bool],
    ) -> None:
        """Build the stale groups, the second half beside this process when there is a lot
        (`split.halves`): what this process did not build itself it reads from the files
        the other half wrote, and builds what it finds missing."""
        changed = sum(len(groups[g]) for g in stale)
        theirs: list[str] = []
        if self.parallel and changed >= PARALLEL_FANOUTS and len(stale) > 1:
            theirs = stale[len(stale) // 2 :]
        mine = stale[: len(stale) - len(theirs)]
        built: set[str] = set()
        shown = progress.reporter()
        pace = 2 if theirs else 1  # the other half is built as fast beside this one

        def half(which: int) -> None:
            for done, group in enumerate(theirs if which else mine):
                if not which:
                    shown.step(READING, min(done * pace, len(stale)), len(stale))
                build(group)
                built.add(group)

        with memory.bulk():  # rows that live until the command ends, and no cyclic garbage
            if theirs:
                split.halves(half)
            else:
                half(0)
            for group in theirs:
                if group not in built and not reread(group):  # the child failed or could
                    build(group)  # not write: do it here
        if stale:
            shown.step(READING, len(stale), len(stale))


def _texts_file(
    texts: TextFiles, kept: dict[str, Any], part: int, fans: dict[str, FanTexts]
) -> dict[str, Any]:
    """One part of a group's texts file: for each fan-out, its tree id and each open row's
    text (a fan-out that did not change keeps what its texts file held)."""
    entry = {}
    for fan, (tree_id, rows, _, _) in kept.items():
        held = texts.kept(fan, tree_id, part)
        if held is None or any(row[0] not in held for row in rows):  # lost: made again
            rebuilt = rows_of(rows, fans[fan])
            held = {row.item_id: row.texts.text(row, part) for row in rebuilt}
        entry[fan] = (tree_id, held)
    return entry


def _settled_entry(blob_id: str, summary: Summary) -> tuple[Any, ...]:
    return (
        summary.id,
        blob_id,
        summary.kind,
        summary.status,
        summary.tags,
        summary.links,
        summary.parent_id,
    )


def _tally(settled: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    counts = Counter((e[2], e[3], e[4]) for e in settled)
    return [(kind, status, tags, n) for (kind, status, tags), n in counts.items()]


def _nodes(settled: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    return [(e[0], e[2], e[3], e[5], e[6]) for e in settled if e[5] or e[6] is not None]


def _groups(fanouts: list[tuple[str, str]]) -> dict[str, list[tuple[str, str]]]:
    """Fan-outs by file group (their first character), in the order given."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for fan, tree_id in fanouts:
        groups.setdefault(fan[:1], []).append((fan, tree_id))
    return groups


def _changed(stored: dict[str, Any], members: list[tuple[str, str]]) -> bool:
    """Whether a group's file lacks one of these fan-out trees, or holds a fan-out no more."""
    if len(stored) != len(members):
        return True
    return any(stored.get(fan, (None,))[0] != tree_id for fan, tree_id in members)


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
