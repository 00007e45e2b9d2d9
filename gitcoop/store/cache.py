"""A read cache of parsed item files that cannot go stale.

What is cached is keyed by git object ids, which name content: an entry is
either exactly right or not used. For each fan-out directory (`items/<xx>`)
a shard holds the tree id it was built from and, for each item file in it,
a `Row`: the blob id, the item's shortest unique label, the few fields
`list` filters and sorts on, its validated plain data (the canonical
`Item.to_data()` form, marshalled and loaded only when asked for) and its
`--json` text as an element of a listing. A lookup always starts from the
ref's current tree, so a plain `git fetch` or any other writer moving the ref
is seen at once:

- the fan-out tree id equals the one stored: its rows are used as they are;
- it differs: rows whose (name, blob id) is unchanged are reused, the others
  are parsed, and the shard is replaced.

One shard file holds the fan-outs that share a first character (32 files,
not 1,024): creating a file cost 0.1-0.9 ms on the machines measured, which
was a fifth of a cold `list` at 10,000 items, and a warm `list` opens 32
files instead of 1,024. After a write, the one shard holding the changed
fan-out is rewritten: ~1/32 of the cache (~6 MB at 100,000 items).

Shards live in the common git dir (all worktrees share them) as marshal data
behind a magic and a CRC. marshal was chosen by measurement: loading 10,000
item summaries takes ~15 ms (pickle is similar, JSON ~5x slower, sqlite adds
a per-row cost and a lock protocol), and unlike pickle it cannot run code
when loading a tampered file. Keeping each row's data as marshalled bytes and
its summary as a flat tuple makes loading a shard cost about what reading it
does: at 100,000 items, 0.2 s instead of 1.5 s for nested dicts.

A shard is written to a temporary file and renamed over the old one, so
readers see the old or the new shard, never a mix; two processes racing just
both write a correct shard. An unreadable, corrupt or foreign shard counts as
missing and is rebuilt. The cache is bounded: at most 32 shards, each holding
only the fan-outs the ledger has, each as one tree, and a shard over
MAX_SHARD_BYTES is not written; the shards of an earlier format are removed
when the current format's directory is first made. A row takes about 2 KB
(half of it the indented JSON text), so a 100,000-item ledger's cache is
about 200 MB.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import shutil
import zlib
from collections.abc import Callable
from typing import Any, NamedTuple

from gitcoop.domain import progress
from gitcoop.domain.ids import shortest_labels

CACHE_DIR = "coop-cache"
FORMAT = "items-v5"
MAGIC = b"COOPCACHE5\n"
MAX_SHARD_BYTES = 256 * 1024 * 1024
READING = "reading items into the read cache"

Data = dict[str, Any]
Entry = tuple[str, str]  # item id, blob id


class Summary(NamedTuple):
    """The fields `list` and `owed` filter and sort on, without the whole item."""

    id: str
    kind: str
    status: str
    created_at: str  # instants as their fixed-width text, so they compare as strings
    taken_by: str | None
    taken_at: str | None
    tags: tuple[str, ...]
    obligation_status: str | None
    obligation_due: str | None
    conflicted: bool
    notified: tuple[str, ...]  # previous holders with a takeover they have not acknowledged
    priority: int
    order_key: str | None
    links: tuple[tuple[str, str], ...]  # (type, other item): what `ready` and `blocked` need
    parent_id: str | None


class Row(NamedTuple):
    """One cached item file (stored as a plain tuple)."""

    item_id: str
    blob_id: str
    label: str
    brief: tuple[Any, ...]  # a Summary's fields
    packed: bytes  # marshalled canonical data
    json: str  # `{**data, "short_id": label}` as a listing's element

    @property
    def summary(self) -> Summary:
        return Summary._make(self.brief)

    def data(self) -> Data:
        data: Data = marshal.loads(self.packed)
        return data


def summarise(data: Data) -> Summary:
    ob = data.get("obligation") or {}
    return Summary(
        data["id"],
        data["kind"],
        data["status"],
        data["created_at"],
        data.get("taken_by"),
        data.get("taken_at"),
        tuple(data.get("tags") or ()),
        ob.get("status"),
        ob.get("due"),
        bool(data.get("conflicts")),
        tuple(t["holder"] for t in data.get("takeovers") or ()),
        data.get("priority", 2),
        data.get("order_key"),
        tuple((link["type"], link["item"]) for link in data.get("links") or ()),
        data.get("parent_id"),
    )


def make_row(item_id: str, blob_id: str, label: str, data: Data) -> Row:
    from gitcoop.domain import jsontext  # only when rows are built; writers never load json

    listed = jsontext.element({**data, "short_id": label})
    return Row(item_id, blob_id, label, tuple(summarise(data)), marshal.dumps(data), listed)


def cache_dir(common_dir: str) -> str:
    return os.path.join(common_dir, CACHE_DIR, FORMAT)


class ItemCache:
    """Shards of parsed item files under the common git dir."""

    def __init__(self, common_dir: str) -> None:
        self.root = cache_dir(common_dir)
        self.hits = 0  # fan-out trees served unchanged (for tests and the benchmark)
        self.parsed = 0  # item blobs parsed because no shard held them

    def shard_path(self, name: str) -> str:
        """`<x>.shard` for the fan-outs starting with x, `doc-<path>.doc` for one file."""
        suffix = ".doc" if name.startswith("doc-") else ".shard"
        return os.path.join(self.root, f"{name}{suffix}")

    def rows(
        self,
        fanouts: list[tuple[str, str]],
        entries: Callable[[str], list[Entry]],
        parse: Callable[[str, str], Data],
    ) -> list[Row]:
        """The rows of these (fan-out name, tree id)s, in their order.

        `entries(fan)` and `parse(item id, blob id)` run only for fan-out trees
        no shard holds as they are; a shard is rewritten only if one of its
        fan-outs changed, and then keeps only the fan-outs given.
        """
        found: list[Row] = []
        shown, at, rebuilt = progress.reporter(), 0, False  # how far, in fan-out directories
        for group, members in _groups(fanouts):
            stored = self.read(group)
            shard: dict[str, Any] = stored if isinstance(stored, dict) else {}
            kept: dict[str, tuple[str, list[Any]]] = {}
            changed = False
            for fan, tree_id in members:
                at += 1
                old = shard.get(fan)
                if old is not None and old[0] == tree_id:
                    self.hits += 1
                    kept[fan] = old
                    found += map(Row._make, old[1])
                    continue
                shown.step(READING, at - 1, len(fanouts))
                rows = self._rebuild(entries(fan), old[1] if old is not None else [], parse)
                rebuilt = True
                kept[fan] = (tree_id, [tuple(row) for row in rows])  # marshal takes plain tuples
                found += rows
                changed = True
            if changed or kept.keys() != shard.keys():  # a fan-out rebuilt, or one gone
                self.write(group, kept)
        if rebuilt:
            shown.step(READING, len(fanouts), len(fanouts))
        return found

    def _rebuild(
        self, listed: list[Entry], old: list[Any], parse: Callable[[str, str], Data]
    ) -> list[Row]:
        """One fan-out's rows: unchanged files reused, the others parsed."""
        known = {(row[0], row[1]): Row._make(row) for row in old}
        names = shortest_labels(item_id for item_id, _ in listed)
        rows = []
        for item_id, blob_id in listed:
            row = known.get((item_id, blob_id))
            if row is None:
                row = make_row(item_id, blob_id, names[item_id], parse(item_id, blob_id))
                self.parsed += 1
            elif row.label != names[item_id]:  # a new neighbour lengthened the label
                row = make_row(item_id, blob_id, names[item_id], row.data())
            rows.append(row)
        return rows

    def document(self, path: str, blob_id: str, parse: Callable[[], Data]) -> Data:
        """One parsed ledger file (e.g. coop.yaml) by blob id; `parse` runs on a miss."""
        name = "doc-" + path.replace("/", "-")
        old = self.read(name)
        if isinstance(old, tuple) and old[0] == blob_id and isinstance(old[1], dict):
            return old[1]
        data = parse()
        self.write(name, (blob_id, data))
        return data

    # -- files ----------------------------------------------------------------

    def read(self, name: str) -> Any:
        """A shard's value ({fan: (tree id, row tuples)}, or a file's (blob id, data)),
        or None when it is missing or damaged."""
        try:
            with open(self.shard_path(name), "rb") as handle:
                raw = handle.read()
        except OSError:
            return None
        return _decode(raw, name)

    def write(self, name: str, value: Any) -> None:
        """Replace one shard atomically; failing to write only costs a rebuild later."""
        payload = marshal.dumps((FORMAT, name, value))
        if len(payload) > MAX_SHARD_BYTES:
            return
        body = MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload
        path = self.shard_path(name)
        temp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        try:
            if not os.path.isdir(self.root):
                os.makedirs(self.root, exist_ok=True)
                _drop_other_formats(os.path.dirname(self.root))
            with open(temp, "wb") as handle:
                handle.write(body)
            os.replace(temp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _drop_other_formats(parent: str) -> None:
    """Remove the shards of earlier cache formats, which nothing reads any more
    (a later format's, kept by a newer gitcoop sharing this repository, stay)."""
    current = _format_number(FORMAT)
    for name in os.listdir(parent):
        number = _format_number(name)
        if number is not None and current is not None and number < current:
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)


def _format_number(name: str) -> int | None:
    prefix, _, number = name.partition("-v")
    return int(number) if prefix == "items" and number.isdigit() else None


def _groups(fanouts: list[tuple[str, str]]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Fan-outs by shard (their first character), in the order given."""
    groups: dict[str, list[tuple[str, str]]] = {}
    for fan, tree_id in fanouts:
        groups.setdefault(fan[:1], []).append((fan, tree_id))
    return list(groups.items())


def _decode(raw: bytes, name: str) -> Any:
    """A shard's value, or None for anything damaged or foreign."""
    head = len(MAGIC) + 4
    if len(raw) < head or not raw.startswith(MAGIC):
        return None
    payload = raw[head:]
    if zlib.crc32(payload).to_bytes(4, "big") != raw[len(MAGIC) : head]:
        return None
    try:
        value = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if not (isinstance(value, tuple) and len(value) == 3 and value[:2] == (FORMAT, name)):
        return None
    return value[2]
