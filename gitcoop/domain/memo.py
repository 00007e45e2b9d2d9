"""What is worked out once and met again: a ledger repeats its instants, names and texts.

A `Memo` is a dict that starts again once it holds `MEMO_HELD` entries: a read of a
million items keeps the window of values that repeat near each other, not every value it
met. At 100,000 entries each, the memos of a whole `fsck` held ~80 MB at a hundred
thousand items and more (docs/performance.md, "A first whole fsck at a million").
"""

from __future__ import annotations

from typing import TypeVar

K = TypeVar("K")
V = TypeVar("V")

MEMO_HELD = 20_000


class Memo(dict[K, V]):
    """A dict of remembered values, emptied when it is full."""

    __slots__ = ()

    def keep(self, key: K, value: V) -> V:
        """Remember `value` for `key` (after forgetting everything, when full); `value`."""
        if len(self) >= MEMO_HELD:
            self.clear()
        self[key] = value
        return value
