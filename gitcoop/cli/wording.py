"""Plain words for what the ledger stores under its own names.

The ledger keeps its names (`legacy_binding`, a refusal's reason as the
rules wrote it when a merge replayed an event): they are data, compared
byte for byte between clones, and every gitcoop version must write the same
ones. What a person reads is worded here instead; `--json` keeps the
stored names.
"""

from __future__ import annotations

WORD, HEAD, TAIL = 100, 48, 12  # an echoed word longer than WORD keeps its two ends
WHOLE = 2000  # and no message is longer than this

# phrases of the rules' own refusals (stored in `conflicts` after a merge), as a reader says them
PHRASES = {
    "terminal rows are never re-taken": "settled items are never re-taken",
    "only they can done it; --force to done it anyway": (
        "only they can finish it; --force to finish it anyway"
    ),
}


def obligation(kind: str) -> str:
    """What an obligation of this kind is, in words (the domain's, as prime says it too)."""
    from gitcoop.domain.obligations import worded

    return worded(kind)


def plain(text: str) -> str:
    """A refusal or reason with the rules' stored phrases in plain words."""
    for stored, said in PHRASES.items():
        if stored in text:
            text = text.replace(stored, said)
    return text


def lost(reason: str) -> str:
    """Why an event lost on a merge, without the advice its refusal gave the one who ran
    it then ("--force to take it over"): for a loser it is no longer advice to follow."""
    for advice in (" — --force", "; --force"):
        reason = reason.split(advice)[0]
    return plain(reason)


def bounded(message: str) -> str:
    """A message as an error says it: a run of more than WORD characters without a space
    (an id, a value echoed back) cut to its two ends around an ellipsis, and the whole to
    at most WHOLE characters, so a 100 KB argument never comes back as a 100 KB error."""
    import re

    def cut(found: re.Match[str]) -> str:
        word = found.group()
        return f"{word[:HEAD]}…{word[-TAIL:]}"

    message = re.sub(rf"\S{{{WORD + 1},}}", cut, message)
    return message if len(message) <= WHOLE else message[: WHOLE - 1] + "…"


def count(number: int, noun: str, plural: str | None = None) -> str:
    """`1 conflict`, `2 conflicts`: the number with its noun, agreeing."""
    return f"{number} {noun if number == 1 else plural or noun + 's'}"
