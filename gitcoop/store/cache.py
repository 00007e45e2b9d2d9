"""A read cache of parsed item files that cannot go stale.

What is cached is keyed by git object ids, which name content: an entry is
either exactly right or not used. One shard per fan-out directory
(`items/<xx>`) holds the tree id it was built from and, for each item file in
it, the blob id, the item's shortest unique label and its validated plain
data (the canonical `Item.to_data()` form). A lookup always starts from the
ref's current tree, so a plain `git fetch` or any other writer moving the ref
is seen at once:

- the fan-out tree id equals the shard's: the shard is used as it is;
- it differs: entries whose (name, blob id) is unchanged are reused, the
  others are parsed, and the shard is replaced.

Shards live in the common git dir (all worktrees share them) as marshal data
behind a magic and a CRC. marshal was chosen by measurement: loading 10,000
item summaries takes ~15 ms (pickle is similar, JSON ~5x slower, sqlite adds
a per-row cost and a lock protocol), and unlike pickle it cannot run code
when loading a tampered file. A shard is written to a temporary file and
renamed over the old one, so readers see the old or the new shard, never a
mix; two processes racing just both write a correct shard. An unreadable,
corrupt or foreign shard counts as missing and is rebuilt. The cache is
bounded: at most one shard per fan-out name (32 x 32), each holding only the
entries of one tree, and a shard over MAX_SHARD_BYTES is not written.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import zlib
from collections.abc import Callable
from typing import Any

from gitcoop.domain.ids import shortest_labels

CACHE_DIR = "coop-cache"
FORMAT = "items-v1"
MAGIC = b"COOPCACHE1\n"
MAX_SHARD_BYTES = 64 * 1024 * 1024

Data = dict[str, Any]
Row = tuple[str, str, str, Data]  # item id, blob id, label, canonical item data
Entry = tuple[str, str]  # item id, blob id


def cache_dir(common_dir: str) -> str:
    return os.path.join(common_dir, CACHE_DIR, FORMAT)


class ItemCache:
    """Shards of parsed item files under the common git dir."""

    def __init__(self, common_dir: str) -> None:
        self.root = cache_dir(common_dir)
        self.hits = 0  # fan-out trees served unchanged (for tests and the benchmark)
        self.parsed = 0  # item blobs parsed because no shard held them

    def shard_path(self, fan: str) -> str:
        """`<xx>.shard` for a fan-out tree, `<name>.doc` for a single parsed file."""
        suffix = ".doc" if fan.startswith("doc-") else ".shard"
        return os.path.join(self.root, f"{fan}{suffix}")

    def fanout(
        self,
        fan: str,
        tree_id: str,
        entries: Callable[[], list[Entry]],
        parse: Callable[[str, str], Data],
    ) -> list[Row]:
        """The rows of one fan-out tree; `entries` and `parse` run only on a miss."""
        old = self.read(fan)
        if old is not None and old[0] == tree_id:
            self.hits += 1
            return old[1]
        known = {(row[0], row[1]): row[3] for row in old[1]} if old is not None else {}
        listed = entries()
        datas = []
        for item_id, blob_id in listed:
            data = known.get((item_id, blob_id))
            if data is None:
                data = parse(item_id, blob_id)
                self.parsed += 1
            datas.append(data)
        names = shortest_labels(item_id for item_id, _ in listed)
        rows = [
            (item_id, blob_id, names[item_id], data)
            for (item_id, blob_id), data in zip(listed, datas, strict=True)
        ]
        self.write(fan, tree_id, rows)
        return rows

    def row(self, fan: str, tree_id: str, item_id: str) -> Row | None:
        """One item's cached row, if the shard was built from exactly this tree."""
        old = self.read(fan)
        if old is None or old[0] != tree_id:
            return None
        for row in old[1]:
            if row[0] == item_id:
                return row
        return None

    def document(self, path: str, blob_id: str, parse: Callable[[], Data]) -> Data:
        """One parsed ledger file (e.g. coop.yaml) by blob id; `parse` runs on a miss."""
        name = "doc-" + path.replace("/", "-")
        old = self.read(name)
        if old is not None and old[0] == blob_id and len(old[1]) == 1:
            return old[1][0][3]
        data = parse()
        self.write(name, blob_id, [(path, blob_id, path, data)])
        return data

    # -- files ----------------------------------------------------------------

    def read(self, fan: str) -> tuple[str, list[Row]] | None:
        try:
            with open(self.shard_path(fan), "rb") as handle:
                raw = handle.read()
        except OSError:
            return None
        return _decode(raw, fan)

    def write(self, fan: str, tree_id: str, rows: list[Row]) -> None:
        """Replace one shard atomically; failing to write only costs a rebuild later."""
        payload = marshal.dumps((FORMAT, fan, tree_id, rows))
        if len(payload) > MAX_SHARD_BYTES:
            return
        body = MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload
        path = self.shard_path(fan)
        temp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        try:
            os.makedirs(self.root, exist_ok=True)
            with open(temp, "wb") as handle:
                handle.write(body)
            os.replace(temp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)


def _decode(raw: bytes, fan: str) -> tuple[str, list[Row]] | None:
    """A shard's (tree id, rows), or None for anything damaged or foreign."""
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
    if not (isinstance(value, tuple) and len(value) == 4 and value[:2] == (FORMAT, fan)):
        return None
    tree_id, rows = value[2], value[3]
    if not isinstance(tree_id, str) or not isinstance(rows, list):
        return None
    return tree_id, rows
