"""`list --grep`, `--since` and `--sort`: searching and ordering the cached rows.

The rows of the read cache say what each item is; the activity index
(store/fast/activity.py) says when it last changed and what its title, body and
notes say. The index keeps each item's title, body and
notes case-folded, so a search compares strings and costs about what a
listing does (docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime

from gitcoop.domain import fields
from gitcoop.domain.timefmt import format_instant, parse_duration, parse_instant
from gitcoop.errors import UsageError
from gitcoop.service.context import Context, read_ledger
from gitcoop.store.fast import activity
from gitcoop.store.fast.activity import Activity, Entry
from gitcoop.store.fast.cache_rows import Row
from gitcoop.store.fast.read_cache import ItemCache
from gitcoop.store.ledger.snapshot import Snapshot

_UPDATED, _TEXT = Activity._fields.index("updated"), Activity._fields.index("text")
FAR = "9999-12-31T23:59:59Z"


def since_instant(text: str, now: datetime) -> str:
    """`--since 2d` (a duration back from now) or `--since 2026-11-01` (a date or instant).
    A number needs its unit: `20261101` is a day, not seconds."""
    if not text.strip().isdigit():
        try:
            return format_instant(now - parse_duration(text))
        except ValueError as bad:
            if fields.duration_shaped(text):  # digits and a unit: what is wrong with it
                raise UsageError(f"--since {text!r}: {bad}") from None
    try:
        return format_instant(parse_instant(text))
    except (ValueError, OverflowError):
        if text.strip().isdigit():
            raise UsageError(
                f"--since {text!r}: a duration needs its unit — use e.g. 90m, 2d or a date"
            ) from None
        raise UsageError(
            f"--since {text!r} is neither a duration nor a date: use e.g. 2d, 12h, "
            "2026-11-01 or 2026-11-01T09:00:00Z"
        ) from None


def narrowing(
    snapshot: Snapshot, grep: str | None, since: str | None, rows: list[Row]
) -> Callable[[Row], bool] | None:
    """A test on a cached row for `--grep` and `--since` (None when neither is given)."""
    if grep is None and since is None:
        return None
    found = activity.activity(snapshot, _cache(snapshot), rows)
    nothing = ("", "", "", "")
    needle = grep.casefold() if grep is not None else None
    if needle is not None and since is not None:
        return lambda row: _matches(found.get(row.item_id, nothing), needle, since)
    if needle is not None:
        return lambda row: needle in found.get(row.item_id, nothing)[_TEXT]
    assert since is not None
    return lambda row: found.get(row.item_id, nothing)[_UPDATED] >= since


def _matches(seen: Entry, needle: str, since: str) -> bool:
    return seen[_UPDATED] >= since and needle in seen[_TEXT]


def ordered(snapshot: Snapshot, rows: list[Row], sort: str) -> list[Row]:
    """Rows by creation (oldest first: the listing's own order), last change (newest
    first), priority (0 first), an obligation's review due time (`due`) or the item's
    own due date (`deadline`): soonest first, nothing due last."""
    if sort == "created":
        return rows
    if sort == "updated":
        found = activity.activity(snapshot, _cache(snapshot), rows)
        key = {
            row.item_id: found[row.item_id][_UPDATED] if row.item_id in found else ""
            for row in rows
        }
        return sorted(rows, key=lambda row: (key[row.item_id], row.item_id), reverse=True)
    if sort == "priority":
        return sorted(rows, key=lambda row: row.summary.priority)  # stable: then oldest
    if sort == "deadline":
        return sorted(rows, key=lambda row: row.summary.due or FAR)
    return sorted(rows, key=_due)


def _due(row: Row) -> str:
    brief = row.summary
    return brief.obligation_due or FAR if brief.obligation_status == "pending" else FAR


def _cache(snapshot: Snapshot) -> ItemCache:
    return snapshot.cache or ItemCache(snapshot.repo.common_dir)


def completions(ctx: Context, word: str, titles: bool = True) -> list[tuple[str, str]]:
    """(label, title) of the items whose id `word` begins, for shell completion.

    Two characters of an id name one fan-out directory: only its items are read.
    With fewer, the cached rows are used, and only unsettled items are offered.
    A label is given as the word is (with its kind prefix, or without).
    """
    from gitcoop.domain import ids
    from gitcoop.domain.lifecycle import TERMINAL

    snapshot = read_ledger(ctx)
    kind, rest = ids.normalise_prefix(word)
    found: list[tuple[str, str]] = []
    if len(rest) >= 2:
        neighbours = snapshot.item_ids(rest[:2])
        for item_id in sorted(i for i in neighbours if ids.matches(i, word)):
            item = snapshot.item(item_id) if titles else None
            title = item.title if item is not None else ""
            found.append((ids.shortest_unique(item_id, neighbours), title))
    else:
        for row in snapshot.open_view(_cache(snapshot)).rows:  # settled items are not offered
            brief = row.summary
            if brief.status not in TERMINAL and ids.matches(ids.ItemId(row.item_id), word):
                found.append((row.label, str(row.data()["title"]) if titles else ""))
        found.sort()
    if kind is None:
        found = [(label.partition("-")[2], title) for label, title in found]
    return found
