"""Whether an identity could pass for someone else's: scripts mixed in a part, look-alikes.

Two rules, both for an id written now (who acts, who is added to the roles or
given a key), never for what a ledger already records:

- `mixed_scripts`: each part of an id (between `@` and `.`) is written in one
  script, as Unicode's "highly restrictive" level (UTS #39, 5.2) has it: one
  script, or Latin with Han and Hiragana/Katakana, Han and Bopomofo, or Han
  and Hangul. `аlice` with a Cyrillic `а` mixes two and is refused. A
  letter's script is read from its Unicode name (`unicodedata` has no script
  property): a name holding a known script's word, else the name's first word.
- `skeleton`: what an id looks like, in the spirit of UTS #39's confusable
  skeleton: NFKC (fullwidth and mathematical letters, ligatures), case
  folded, hidden characters dropped, and each character of a short table of
  look-alikes (Cyrillic and Greek letters drawn like Latin ones, `1` and
  `l`, `0` and `o`, `rn` and `m`) replaced by the one it imitates. Two ids
  with one skeleton can be told apart by no one reading them; `roles add`
  and `keys add` refuse such a one without `--force`.

The table is written here rather than taken from a package: the libraries
that carry Unicode's whole confusables file load about a megabyte of data for
a check two rare commands make, and the look-alikes that matter for e-mail
addresses are the few below; a pair it misses is still caught by the script
rule when it mixes scripts in one part.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable

from gitcoop.domain.bounds import hidden

# a look-alike -> the (Latin, lower-case) text it imitates: UTS #39's confusables for
# the letters e-mail addresses are made of
LOOK_ALIKES = {
    # Cyrillic
    "а": "a", "в": "b", "е": "e", "һ": "h", "і": "i", "ј": "j",
    "к": "k", "ӏ": "l", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "ԁ": "d",
    "т": "t", "у": "y", "х": "x", "ѕ": "s", "ԛ": "q", "ԝ": "w", "ɡ": "g", "ь": "b",
    # Greek
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o",
    "ρ": "p", "τ": "t", "υ": "u", "χ": "x", "γ": "y", "ω": "w", "ζ": "z",
    # Latin and common look-alikes
    "ı": "i", "ȷ": "j", "ℓ": "l", "1": "l", "|": "l", "0": "o", "5": "s",
    "‐": "-", "‑": "-", "‒": "-", "–": "-", "—": "-", "−": "-", "﹘": "-",
    "․": ".", "‧": ".", "。": ".", "＠": "@",
}  # fmt: skip
SEQUENCES = (("rn", "m"), ("vv", "w"), ("cl", "d"))  # letters drawn together like another

SCRIPTS = frozenset(
    (
        *("LATIN", "CYRILLIC", "GREEK", "ARMENIAN", "HEBREW", "ARABIC", "SYRIAC", "THAANA"),
        *("DEVANAGARI", "BENGALI", "GURMUKHI", "GUJARATI", "ORIYA", "TAMIL", "TELUGU"),
        *("KANNADA", "MALAYALAM", "SINHALA", "THAI", "LAO", "TIBETAN", "MYANMAR", "GEORGIAN"),
        *("HANGUL", "ETHIOPIC", "CHEROKEE", "KHMER", "MONGOLIAN", "HIRAGANA", "KATAKANA"),
        *("BOPOMOFO", "CJK", "YI", "COPTIC", "RUNIC", "OGHAM", "TIFINAGH", "GLAGOLITIC"),
    )
)
# mixes Unicode's highly restrictive level allows (CJK: Han)
ALLOWED_MIXES = (
    frozenset(("LATIN", "CJK", "HIRAGANA", "KATAKANA")),
    frozenset(("LATIN", "CJK", "BOPOMOFO")),
    frozenset(("LATIN", "CJK", "HANGUL")),
)


def script(char: str) -> str | None:
    """The script of a letter (None for anything else: digits, marks, punctuation)."""
    if not unicodedata.category(char).startswith("L"):
        return None
    words = unicodedata.name(char, "").split()
    found = next((word for word in words if word in SCRIPTS), None)
    return found or (words[0] if words else None)


def mixed_scripts(who: str) -> str | None:
    """The first part of `who` (between `@` and `.`) whose letters mix scripts, or None."""
    if who.isascii():
        return None
    for part in who.replace("@", ".").split("."):
        scripts = {s for s in map(script, part) if s is not None}
        if len(scripts) > 1 and not any(scripts <= allowed for allowed in ALLOWED_MIXES):
            return part
    return None


def skeleton(who: str) -> str:
    """What `who` looks like: two ids with the same skeleton cannot be told apart by eye."""
    text = hidden().sub("", unicodedata.normalize("NFKC", who)).casefold()
    text = "".join(LOOK_ALIKES.get(char, char) for char in unicodedata.normalize("NFD", text))
    for drawn, like in SEQUENCES:
        text = text.replace(drawn, like)
    return unicodedata.normalize("NFC", text)


def confusable_with(who: str, known: Iterable[str]) -> str | None:
    """An id among `known`, other than `who` itself, that looks the same as `who`."""
    mine = skeleton(who)
    others = sorted(set(known) - {who})
    return next((other for other in others if skeleton(other) == mine), None)
