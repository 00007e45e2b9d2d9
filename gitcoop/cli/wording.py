"""Plain words for what the ledger stores under its own names.

The ledger keeps its names (`legacy_binding`, a refusal's reason as the
rules wrote it when a merge replayed an event): they are data, compared
byte for byte between clones, and every gitcoop version must write the same
ones. What a person reads is worded here instead; `--json` keeps the
stored names.
"""

from __future__ import annotations

OBLIGATIONS = {
    "outcome": "outcome owed",
    "legacy_binding": "review owed (taken without a session)",
}
# phrases of the rules' own refusals (stored in `conflicts` after a merge), as a reader says them
PHRASES = {
    "terminal rows are never re-taken": "settled items are never re-taken",
}


def obligation(kind: str) -> str:
    """What an obligation of this kind is, in words."""
    return OBLIGATIONS.get(kind, kind.replace("_", " "))


def plain(text: str) -> str:
    """A refusal or reason with the rules' stored phrases in plain words."""
    for stored, said in PHRASES.items():
        if stored in text:
            text = text.replace(stored, said)
    return text


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 conflict`, `2 conflicts`: the number with its noun, agreeing."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
