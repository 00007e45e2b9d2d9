"""The queue's states, its triage order, order keys, the evidence cache, top-up.

Order keys are strings compared byte-wise. A new item's key is its creation
second (base 36, fixed width) followed by its id's random part, so keys sort
by time and never collide across clones. A key between two neighbours is a
fractional midpoint (`key_between`), so moving one item never renumbers the
others.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime

from gitcoop.domain.ids import random_part
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Evidence, Item

STATES = (
    "draft",
    "verifying",
    "ready",
    "in_progress",
    "blocked",
    "stale",
    "duplicate",
    "split",
    "done",
    "closed",
)
TRIAGE = ("ready", "in_progress", "verifying", "draft", "blocked", "split")
SETTLED = ("done", "closed", "stale", "duplicate")
TOP_UP_COUNTED = ("ready", "draft", "verifying")
SHOWN_TO_VERIFIER = ("ready", "draft")  # seed 004: the other open items a verdict may name
SOURCES = ("scan", "human", "loop", "undo")
EDITABLE_STATES = ("ready", "blocked", "closed")

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"  # ascending in ASCII
TIME_WIDTH = 7  # 36**7 seconds reach past the year 4400
SEQUENCE_WIDTH = 6


def pickable(item: Item) -> bool:
    return item.kind == "item" and item.status == "ready"


def settled(item: Item) -> bool:
    return item.status in SETTLED


def sort_key(item: Item) -> tuple[str, str]:
    return (item.order_key or "", item.id)


def triage(items: Iterable[Item]) -> list[Item]:
    """Unsettled queue items grouped by TRIAGE, each group in order-key order."""
    rank = {status: n for n, status in enumerate(TRIAGE)}
    shown = [i for i in items if i.kind == "item" and i.status in rank]
    return sorted(shown, key=lambda i: (rank[i.status], *sort_key(i)))


def in_order(items: Iterable[Item]) -> list[Item]:
    return sorted((i for i in items if i.kind == "item"), key=sort_key)


def needs_top_up(items: Iterable[Item], threshold: int) -> bool:
    """Running low: fewer live items (never counting blocked) than the threshold."""
    live = sum(1 for i in items if i.kind == "item" and i.status in TOP_UP_COUNTED)
    return live < threshold


# -- order keys ----------------------------------------------------------------


def _base36(value: int, width: int) -> str:
    out = []
    for _ in range(width):
        value, digit = divmod(value, 36)
        out.append(DIGITS[digit])
    return "".join(reversed(out))


def time_key(at: datetime, item_id: str, sequence: int = 0) -> str:
    """A new item's key: creation second, then a sequence, then the id's random part.

    The sequence (the ledger's clock when it is written) keeps items added
    within one second, or in one scan batch, in the order they were filed; the
    random part breaks ties between clones.

    Trailing zeros are stripped so no key ends in the lowest digit, which keeps
    room for a key between any two keys.
    """
    seconds = int(at.astimezone(UTC).timestamp())
    prefix = _base36(max(seconds, 0), TIME_WIDTH) + _base36(sequence, SEQUENCE_WIDTH)
    key = prefix + random_part(item_id)
    return key.rstrip("0") or "1"


def key_between(low: str | None, high: str | None) -> str:
    """A key strictly between `low` and `high` (None: unbounded on that side)."""
    if low is not None and high is not None and low >= high:
        raise ValueError(f"no key between {low!r} and {high!r}: they are not in order")
    return _midpoint(low or "", high)


def _midpoint(low: str, high: str | None) -> str:
    if high is not None:
        shared = 0
        while shared < len(high) and (low[shared] if shared < len(low) else "0") == high[shared]:
            shared += 1
        if shared:
            return high[:shared] + _midpoint(low[shared:], high[shared:])
    lo = DIGITS.index(low[0]) if low else 0
    hi = DIGITS.index(high[0]) if high is not None else len(DIGITS)
    if hi - lo > 1:
        return DIGITS[(lo + hi) // 2]
    if high is not None and len(high) > 1:
        return high[0]
    return DIGITS[lo] + _midpoint(low[1:], None)


def neighbour_keys(ordered: list[Item], anchor: Item, after: bool) -> tuple[str | None, str | None]:
    """The keys just before and after the slot next to `anchor` in `ordered`."""
    position = [i.id for i in ordered].index(anchor.id)
    if after:
        following = ordered[position + 1] if position + 1 < len(ordered) else None
        return anchor.order_key, following.order_key if following else None
    preceding = ordered[position - 1] if position > 0 else None
    return (preceding.order_key if preceding else None), anchor.order_key


# -- the evidence cache ------------------------------------------------------------


@record_type
class CacheLookup:
    """hit: recorded at this HEAD; moved: at `cached_head`; miss: never or discarded."""

    state: str
    cached_head: str | None = None
    paths: tuple[str, ...] = ()


def lookup(evidence: tuple[Evidence, ...], head: str | None) -> CacheLookup:
    """Where the item's evidence was cached: no evidence at all is a miss.

    An item with nothing cited would send the agent hunting, so however it
    became ready (an edit, a split child of an item without evidence), the
    pick verifies it first.
    """
    paths = tuple(sorted({e.path for e in evidence}))
    if not evidence:
        return CacheLookup("miss", None, ())
    heads = {e.head for e in evidence}
    if None in heads or head is None:
        return CacheLookup("miss", None, paths)
    if heads == {head}:
        return CacheLookup("hit", head, paths)
    return CacheLookup("moved", sorted(h for h in heads if h)[0], paths)


def cached_at(evidence: tuple[Evidence, ...], head: str | None) -> tuple[Evidence, ...]:
    return tuple(Evidence(e.path, e.line, e.quote, head) for e in evidence)


def invalidated(evidence: tuple[Evidence, ...]) -> tuple[Evidence, ...]:
    """Every discard drops the cache: the evidence stays, its HEAD is forgotten."""
    return cached_at(evidence, None)
