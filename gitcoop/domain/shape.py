"""The shape of a finding, and trimming a scan batch so no shape floods the queue.

A shape is a normalised verb and target class: "fix error", "add test",
"other other". Both lists are searched in their own order (the first listed
word found in the title wins), matching whole words with common inflections,
so "Fix the add button" is an `add` finding and "onError" is `onerror`, not
`error`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Generic, TypeVar

from gitcoop.domain.patterns import pattern
from gitcoop.domain.record_type import record_type

VERBS = (
    "add",
    "remove",
    "fix",
    "move",
    "wire",
    "render",
    "surface",
    "validate",
    "cover",
    "show",
    "handle",
    "replace",
    "format",
)
TARGETS = (
    "test",
    "spec",
    "onerror",
    "error",
    "toast",
    "state",
    "endpoint",
    "route",
    "label",
    "type",
    "guard",
    "hook",
    "form",
    "modal",
    "list",
)
OTHER = "other"
FEW_SHAPES = 3  # a batch of WARN_BATCH or more spanning fewer shapes than this is lopsided
WARN_BATCH = 5

_TAG = pattern(r"^\s*\[[^\]]*\]\s*")
_QUOTES = pattern(r"[\"'`‘’“”]")
_FILE_LINE = pattern(r"[\w./\\-]+\.\w+:\d+")
_NUMBER = pattern(r"\b\d+\b")


def normalise(title: str) -> str:
    """Strip a leading [tag], lowercase, drop quotes, blank out file:line and numbers."""
    text = _TAG.sub("", title, count=1).lower()
    text = _QUOTES.sub("", text)
    text = _FILE_LINE.sub(" <loc> ", text)
    text = _NUMBER.sub(" <n> ", text)
    return " ".join(text.split())


def _verb_forms(verb: str) -> str:
    stem = verb[:-1] if verb.endswith("e") else verb
    return rf"\b(?:{verb}|{verb}s|{verb}es|{verb}d|{verb}ed|{stem}ing|{verb}ing)\b"


_VERB_RE = {v: pattern(_verb_forms(v)) for v in VERBS}
_TARGET_RE = {t: pattern(rf"\b{t}(?:s|es)?\b") for t in TARGETS}


def shape(title: str) -> str:
    text = normalise(title)
    verb = next((v for v in VERBS if _VERB_RE[v].search(text)), OTHER)
    target = next((t for t in TARGETS if _TARGET_RE[t].search(text)), OTHER)
    return f"{verb} {target}"


T = TypeVar("T")


@record_type
class Trimmed(Generic[T]):
    kept: list[T]
    trimmed: list[tuple[T, str]]  # each dropped finding with its shape
    lopsided: bool  # WARN_BATCH or more findings offered span fewer than FEW_SHAPES shapes


def trim(findings: Sequence[T], titles: Sequence[str], max_same_shape: int) -> Trimmed[T]:
    """Keep findings in order until their shape has appeared `max_same_shape` times."""
    seen: dict[str, int] = {}
    kept: list[T] = []
    trimmed: list[tuple[T, str]] = []
    for finding, title in zip(findings, titles, strict=True):
        form = shape(title)
        if seen.get(form, 0) >= max_same_shape:
            trimmed.append((finding, form))
            continue
        seen[form] = seen.get(form, 0) + 1
        kept.append(finding)
    return Trimmed(kept, trimmed, repeating(titles))


def repeating(titles: Sequence[str]) -> bool:
    """Whether a batch repeats itself: WARN_BATCH or more findings, fewer than FEW_SHAPES shapes.

    It counts every finding offered, not only the ones kept: ten findings of
    one shape are trimmed to `max_same_shape`, and are still a scan repeating
    one kind of finding.
    """
    return len(titles) >= WARN_BATCH and len({shape(t) for t in titles}) < FEW_SHAPES
