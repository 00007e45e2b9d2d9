"""Reading a verifier's verdict out of whatever it printed.

A verifier is another agent; its output is a transcript, not an API. The
parser scans from the end and takes the last JSON object that fully
validates. Objects inside an echo of the prompt are never considered (the
prompt may hold example or hostile verdicts), every verdict must give its
reason, and anything untrustworthy becomes `unclear`, which sends the item
back to draft. The text a verdict carries into the ledger is bounded: one
line for a reason, a title or a path.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from gitcoop.domain import bounds
from gitcoop.domain.ids import ITEM_ID_RE, ItemId, kind_of
from gitcoop.domain.queue import SETTLED
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Evidence, Item, replace

VERDICTS = ("confirmed", "amended", "stale", "duplicate", "blocked", "too-big", "unclear")
CITING = ("confirmed", "amended")
MAX_SCAN = 256 * 1024  # only the tail of a huge transcript is searched
TEXT_MAX = 500  # a reason, a title or a path from a verdict: one line of at most this
EVIDENCE_MAX = 20  # entries one verdict may cite
QUOTE_MAX = 2000


@record_type
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


def parse(output: str, item_id: str, open_ids: Collection[str], prompt: str = "") -> Verdict:
    """The last fully valid verdict in `output` that is not part of the prompt, else `unclear`.

    Every verbatim echo of `prompt` is cut out first, wherever it stands (a
    verifier may print its verdict and then the prompt), and an object whose
    text occurs in the prompt is never taken: the prompt holds the item's
    title, which anyone may have written. `open_ids` are the items a
    duplicate may name: open, and not duplicates themselves.
    """
    import json  # only a verifier's output is parsed; a transition loads no json

    decoder = json.JSONDecoder()
    text = _without_echoes(output, prompt)[-MAX_SCAN:]
    needle = prompt.strip()
    rejected: str | None = None
    position = len(text)
    while True:
        position = text.rfind("{", 0, position)
        if position < 0:
            why = f"the last verdict it printed {rejected}" if rejected else "no verdict object"
            return unclear(f"no valid verdict in the verifier's output: {why}")
        try:
            value, end = decoder.raw_decode(text, position)
        except ValueError:
            continue
        if needle and text[position:end] in needle:
            continue  # part of the prompt, echoed in pieces
        verdict = validate(value, item_id, open_ids)
        if isinstance(verdict, Verdict):
            return verdict
        if rejected is None and isinstance(value, Mapping) and "verdict" in value:
            rejected = verdict


def naming_open(verdict: Verdict, target: Item | None, item_id: str) -> Verdict:
    """A duplicate stands only while the item it names is open, checked as it is written.

    The rule is `duplicate_problem`, which the fold applies too (`as_applied`):
    so two items verified at the same time can never settle as duplicates of
    each other (the second verdict to be written finds the first item settled).
    """
    if verdict.verdict != "duplicate":
        return verdict
    problem = duplicate_problem(verdict.duplicate_of, target, item_id)
    return verdict if problem is None else unclear(problem)


def duplicate_problem(named: str | None, target: Item | None, item_id: str) -> str | None:
    """Why `item_id` cannot be a duplicate of `named`, which stands as `target` at the
    verdict's place in the order of events; None when it can.

    A duplicate names another open queue item: not itself, not a settled item,
    not one that is itself a duplicate. This one rule decides when a verdict is
    written and when events are replayed, so a pair (or a cycle) of duplicates
    called in two clones offline never settles: the later verdict in the order
    finds the item it names already a duplicate.
    """
    if not named:
        return "it was called a duplicate without naming the item it repeats"
    if named == item_id:
        return "it was called a duplicate of itself, not of another open item"
    if target is None or target.kind != "item":
        state = "not in the queue"
    elif target.status == "duplicate" and target.duplicate_of == item_id:
        state = "itself a duplicate of this one"
    elif target.status == "duplicate":
        state = f"itself a duplicate of {target.duplicate_of}"
    elif target.status in SETTLED:
        state = target.status
    else:
        return None
    return f"it was called a duplicate of {named}, which is {state}, not an open item"


def names(args: Mapping[str, Any]) -> ItemId | None:
    """The queue item a duplicate verdict's arguments name, which the fold reads beside
    the item judged; None for any other verdict, or a name that is no queue item's id."""
    named = args.get("duplicate_of") if args.get("verdict") == "duplicate" else None
    if not isinstance(named, str) or not ITEM_ID_RE.match(named):
        return None
    return ItemId(named) if kind_of(ItemId(named)) == "item" else None


def as_applied(event: Event, target: Item | None) -> Event:
    """A `verdict` event as the fold applies it: a duplicate whose named item is not
    another open item (`target`: that item as it stands at this event) is unclear,
    with the reason saying why. Every other verdict is applied as written."""
    if event.arg("verdict") != "duplicate":
        return event
    named = event.arg("duplicate_of")
    problem = duplicate_problem(named if isinstance(named, str) else None, target, event.item)
    if problem is None:
        return event
    args = {**event.args, "verdict": "unclear", "duplicate_of": None, "reason": problem}
    return replace(event, args=args)


def _without_echoes(output: str, prompt: str) -> str:
    needle = prompt.strip()
    if not needle:
        return output
    return "\n".join(output.split(needle))


def validate(value: Any, item_id: str, open_ids: Collection[str]) -> Verdict | str:
    """The verdict `value` states, or what is wrong with it (a reason is always required)."""
    if not isinstance(value, Mapping):
        return "is not an object"
    word = value.get("verdict")
    if word not in VERDICTS:
        return f"has an unknown verdict word {str(word)[:40]!r}"
    evidence = _evidence(value.get("evidence", []))
    if evidence is None:
        return f"({word}) has malformed evidence"
    reason = _text(value.get("reason"))
    if reason is None:
        return f"({word}) gives no reason"
    if word in CITING and not evidence:
        return f"({word}) cites no evidence"
    amended = _text(_field(value, "amended_title"))
    if word == "amended" and amended is None:
        return "(amended) gives no amended_title"
    duplicate = _text(_field(value, "duplicate_of"))
    if word == "duplicate":
        if duplicate is None:
            return "(duplicate) names no duplicate_of"
        if duplicate == item_id or duplicate not in open_ids:
            return f"(duplicate) names {duplicate[:40]!r}, which is not another open item"
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
    """One line of text: whitespace runs squeezed, control and hidden characters dropped, capped."""
    if not isinstance(value, str):
        return None
    line = " ".join(bounds.shown_escaped().sub(" ", value).split())[:TEXT_MAX]
    return line or None


def _evidence(value: Any) -> tuple[Evidence, ...] | None:
    if not isinstance(value, list) or len(value) > EVIDENCE_MAX:
        return None
    cited = []
    for entry in value:
        if not isinstance(entry, Mapping) or _text(entry.get("path")) is None:
            return None
        line = entry.get("line")
        if line is not None and (not isinstance(line, int) or isinstance(line, bool) or line < 1):
            return None
        quote = entry.get("quote")
        if quote is not None and (bounds.text_problem(quote, "quote") or len(quote) > QUOTE_MAX):
            return None
        cited.append(Evidence(_text(entry["path"]) or "", line, quote))
    return tuple(cited)
