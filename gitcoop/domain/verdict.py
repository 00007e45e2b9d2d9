"""Reading a verifier's verdict out of whatever it printed.

A verifier is another agent; its output is a transcript, not an API. The
parser scans from the end and takes the last JSON object that fully
validates. Objects inside an echo of the prompt are never considered (the
prompt may hold example or hostile verdicts), and anything untrustworthy
becomes `unclear`, which sends the item back to draft.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from gitcoop.domain import bounds
from gitcoop.domain.records import Evidence

VERDICTS = ("confirmed", "amended", "stale", "duplicate", "blocked", "too-big", "unclear")
CITING = ("confirmed", "amended")
MAX_SCAN = 256 * 1024  # only the tail of a huge transcript is searched

_decoder = json.JSONDecoder()


@dataclass(frozen=True)
class Verdict:
    verdict: str
    evidence: tuple[Evidence, ...] = ()
    amended_title: str | None = None
    duplicate_of: str | None = None
    reason: str | None = None

    def to_args(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "evidence": [e.to_data() for e in self.evidence],
            "amended_title": self.amended_title,
            "duplicate_of": self.duplicate_of,
            "reason": self.reason,
        }


def unclear(reason: str) -> Verdict:
    return Verdict("unclear", reason=reason)


def parse(output: str, item_id: str, queue_ids: Collection[str], prompt: str = "") -> Verdict:
    """The last fully valid verdict after any echo of `prompt`, else `unclear`."""
    if prompt and prompt.strip():
        echoed = output.rfind(prompt.strip())
        if echoed >= 0:
            output = output[echoed + len(prompt.strip()) :]
    output = output[-MAX_SCAN:]
    position = len(output)
    while True:
        position = output.rfind("{", 0, position)
        if position < 0:
            return unclear("no valid verdict object in the verifier's output")
        try:
            value, _ = _decoder.raw_decode(output, position)
        except ValueError:
            continue
        verdict = validate(value, item_id, queue_ids)
        if verdict is not None:
            return verdict


def validate(value: Any, item_id: str, queue_ids: Collection[str]) -> Verdict | None:
    """The verdict `value` states, or None when any part of it does not hold."""
    if not isinstance(value, Mapping):
        return None
    word = value.get("verdict")
    if word not in VERDICTS:
        return None
    evidence = _evidence(value.get("evidence", []))
    reason = _text(value.get("reason"))
    if evidence is None or ("reason" in value and value["reason"] is not None and reason is None):
        return None
    if word in CITING and not evidence:
        return None
    amended = _text(_field(value, "amended_title"))
    if word == "amended" and amended is None:
        return None
    duplicate = _text(_field(value, "duplicate_of"))
    if word == "duplicate" and (
        duplicate is None or duplicate == item_id or duplicate not in queue_ids
    ):
        return None
    if word == "blocked" and reason is None:
        return None
    return Verdict(
        verdict=word,
        evidence=evidence if word in CITING else (),
        amended_title=amended if word == "amended" else None,
        duplicate_of=duplicate if word == "duplicate" else None,
        reason=reason,
    )


def _field(value: Mapping[str, Any], name: str) -> Any:
    """snake_case as the ledger writes it; the camelCase spelling is accepted too."""
    head, *rest = name.split("_")
    camel = head + "".join(part.title() for part in rest)
    return value.get(name, value.get(camel))


def _text(value: Any) -> str | None:
    """One line of text: a title or a reason is never more, whoever wrote it."""
    if isinstance(value, str) and value.strip() and not bounds.line_problem(value.strip(), ""):
        return value.strip()
    return None


def _evidence(value: Any) -> tuple[Evidence, ...] | None:
    if not isinstance(value, list):
        return None
    cited = []
    for entry in value:
        if not isinstance(entry, Mapping) or _text(entry.get("path")) is None:
            return None
        line = entry.get("line")
        if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
            return None
        quote = entry.get("quote")
        if quote is not None and bounds.text_problem(quote, "quote"):
            return None
        cited.append(Evidence(entry["path"].strip(), line, quote))
    return tuple(cited)
