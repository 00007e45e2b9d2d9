"""Ids minted offline: a kind prefix and lowercase Crockford base32."""

from __future__ import annotations

import bisect
import functools
from collections.abc import Callable, Iterable
from typing import Any, NewType

from gitcoop.domain import bounds
from gitcoop.domain.bounds import has_unsafe
from gitcoop.domain.patterns import pattern

ItemId = NewType("ItemId", str)
EventId = NewType("EventId", str)

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
RANDOM_LENGTH = 12
MIN_SHORT = 4

KIND_PREFIX = {"todo": "td", "request": "rq", "item": "it", "ledger": "cf"}
PREFIX_KIND = {v: k for k, v in KIND_PREFIX.items()}
EVENT_PREFIX = "ev"

ITEM_ID_RE = pattern(r"^(td|rq|it|cf)-[0-9a-hjkmnp-tv-z]{12}\Z")
# format 1 minted event ids at random (12 characters); from format 2 an event's id is
# the hash of its content (26 characters, 130 bits): one id names one event
EVENT_ID_RE = pattern(r"^ev-(?:[0-9a-hjkmnp-tv-z]{12}|[0-9a-hjkmnp-tv-z]{26})\Z")
CONTENT_ID_LENGTH = 26

# Who acts: written into commit signatures and one-line messages, so no control
# characters (bounds.unsafe()), no angle brackets (git's signature delimiters),
# and a sane length.
IDENTITY_MAX = 200


@functools.lru_cache(maxsize=4096)  # a fetched ledger's events are by a few people
def identity_problem(who: str) -> str | None:
    """Why `who` cannot name a person in the ledger, or None when it can."""
    sane = 1 <= len(who) <= IDENTITY_MAX and "<" not in who and ">" not in who
    if sane and who == who.strip() and not has_unsafe(who):
        return None
    return (
        f"{who!r} cannot name a person: use one line of at most 200 characters "
        "without < or >, such as an email address"
    )


def normal(who: str) -> str:
    """`who` in NFC, the one form an id is written and compared in."""
    if who.isascii():
        return who
    import unicodedata  # only ids beyond ASCII need it

    return unicodedata.normalize("NFC", who)


def written_identity_problem(who: str) -> str | None:
    """Why `who` cannot be written as a person's id now (who acts; who is added to the
    roles or given a key), or None when it can: it names a person (`identity_problem`),
    holds nothing invisible, and mixes no scripts within a part (`likeness`). It is
    compared in NFC (`normal`), which the caller gives.

    What the shared ledger already records is judged by `identity_problem` alone, the
    rule it was written under, so no older event becomes unreadable."""
    problem = identity_problem(who)
    if problem is not None or who.isascii():
        return problem
    hiding = bounds.hidden_problem(who, "an identity")
    if hiding is not None:
        return f"{who.encode('ascii', 'backslashreplace').decode()}: {hiding}"
    from gitcoop.domain.likeness import mixed_scripts  # only ids beyond ASCII are read so

    mixed = mixed_scripts(who)
    if mixed is not None:
        return (
            f"{who!r} mixes scripts in {mixed!r} (as a Cyrillic а among Latin letters), "
            "so it could pass for someone else — write each part in one script"
        )
    return None


# An email address as people type one: no space, one @ with something on each side.
EMAIL_RE = pattern(r"^[^\s@]+@[^\s@]+\Z")


def acting_problem(who: str, configured: str | None) -> str | None:
    """Why `who` cannot act, or None when it can: it must be writable as a person's id
    (`written_identity_problem`) and look like someone, an email address or exactly the
    identity git is configured with (`configured`, user.email), whatever its shape.

    Only who acts now is held to this; what the shared ledger already records is
    judged by `identity_problem` alone, the rule it was written under."""
    problem = written_identity_problem(who)
    if problem is not None or EMAIL_RE.match(who) or who == configured:
        return problem
    return (
        f"{who!r} does not look like anyone — act as an email address "
        "(--as, COOP_ACTOR) or as git config user.email here"
    )


def session_problem(session: str) -> str | None:
    """Why `session` cannot name a session, or None when it can."""
    if not session.strip():
        return "a session needs a name: --session S (or leave it out), not blank space"
    return bounds.line_problem(session, "the session (--session, COOP_SESSION)")


# A source of random bits: takes a bit count, returns that many random bits.
RandomBits = Callable[[int], int]


def _random_part(bits: RandomBits) -> str:
    value = bits(5 * RANDOM_LENGTH)
    chars = []
    for _ in range(RANDOM_LENGTH):
        chars.append(ALPHABET[value & 31])
        value >>= 5
    return "".join(chars)


def mint_item_id(kind: str, bits: RandomBits) -> ItemId:
    return ItemId(f"{KIND_PREFIX[kind]}-{_random_part(bits)}")


def mint_event_id(bits: RandomBits) -> EventId:
    return EventId(f"{EVENT_PREFIX}-{_random_part(bits)}")


def content_event_id(content: bytes) -> EventId:
    """The id of an event whose canonical content (every field but the id) is `content`:
    130 bits of its SHA-256, as git names an object by its content, spelt from the lowest
    five bits up, ten bits (two characters) at a time."""
    pairs, sha256 = _spelling()
    value = int.from_bytes(sha256(content).digest()[:17], "big") >> 6
    spelt = "".join([pairs[value >> shift & 1023] for shift in _SHIFTS])
    return EventId(f"{EVENT_PREFIX}-{spelt}")


_SHIFTS = range(0, 5 * CONTENT_ID_LENGTH, 10)


@functools.cache
def _spelling() -> tuple[tuple[str, ...], Callable[[bytes], Any]]:
    """Each ten bits' two characters, and the hash (only writers and the boundary hash:
    neither is made at start-up)."""
    import hashlib

    pairs = tuple(ALPHABET[n & 31] + ALPHABET[n >> 5] for n in range(1024))
    return pairs, hashlib.sha256


def is_content_id(event_id: str) -> bool:
    return len(event_id) == len(EVENT_PREFIX) + 1 + CONTENT_ID_LENGTH


def random_part(item_id: str) -> str:
    """The part after the kind prefix: what fan-out and prefixes work on."""
    return item_id.split("-", 1)[1] if "-" in item_id else item_id


def fanout(item_id: str) -> str:
    return random_part(item_id)[:2]


def kind_of(item_id: ItemId) -> str:
    return PREFIX_KIND[item_id.split("-", 1)[0]]


def normalise_prefix(text: str) -> tuple[str | None, str]:
    """Split a user's id or prefix into (kind prefix or None, random part prefix)."""
    text = text.strip().lower()
    if "-" in text:
        kind, _, rest = text.partition("-")
        return kind, rest
    if text in PREFIX_KIND:
        return text, ""
    return None, text


def matches(item_id: ItemId, text: str) -> bool:
    """Whether `text`, an id or a prefix as a person types it, names `item_id`."""
    return bool(matching([item_id], text))


def matching(item_ids: Iterable[ItemId], text: str) -> list[ItemId]:
    """The ids `text` names, sorted: those of its kind (if it says one) whose random part
    starts with the rest. `text` is split once, not once an id (resolving a prefix reads
    a fan-out of ~1,000 ids at a million items)."""
    kind, rest = normalise_prefix(text)
    if kind is not None:  # its kind, then the rest: one prefix of the whole id
        whole = f"{kind}-{rest}"
        return sorted(i for i in item_ids if i.startswith(whole))
    # the random part starts after the first "-" (`random_part`), or at 0 without one
    return sorted(i for i in item_ids if i.startswith(rest, i.find("-") + 1))


def shortest_labels(item_ids: Iterable[str]) -> dict[str, str]:
    """Every id's shortest unique label (at least MIN_SHORT chars), in O(n log n).

    Same result as `shortest_unique` against every other id: the longest prefix
    an id shares with any other is shared with a neighbour in sort order.
    """
    ordered = sorted(item_ids, key=random_part)
    parts = [random_part(i) for i in ordered]
    result: dict[str, str] = {}
    for index, item_id in enumerate(ordered):
        shared = 0
        for other in (index - 1, index + 1):
            if 0 <= other < len(parts):
                shared = max(shared, _common_length(parts[index], parts[other]))
        result[item_id] = _label(item_id, parts[index], shared)
    return result


def _label(item_id: str, part: str, shared: int) -> str:
    """An id's label: its random part up to one past the most it shares with another id."""
    return f"{item_id.split('-', 1)[0]}-{part[: max(MIN_SHORT, shared + 1)]}"


def _common_length(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def shortest_unique(item_id: ItemId, others: Iterable[str]) -> str:
    """The shortest prefix (at least MIN_SHORT random chars) no other id shares: its label in
    `shortest_labels` of them all, from the longest prefix it shares with any other (a
    write labels one item of a fan-out of ~1,000 ids at a million items)."""
    mine = random_part(item_id)
    # of sorted strings, the longest prefix shared with `mine` is shared with one beside
    # the place `mine` sorts at
    parts = sorted([other[other.find("-") + 1 :] for other in others if other != item_id])
    at = bisect.bisect_left(parts, mine)
    shared = max(
        (_common_length(mine, parts[i]) for i in (at - 1, at) if 0 <= i < len(parts)), default=0
    )
    return _label(item_id, mine, shared)
