"""How an export is written: JSON, JSON lines, CSV or Markdown, from the same data.

CSV cells that a spreadsheet would run as a formula (=, +, -, @ first) are
written with a leading `'`: an item's title is a stranger's text, and
opening an export must not run it. For the same reason Markdown escapes
what would be markup in ledger text, and holds event arguments in code spans.
Every format shows the characters that draw nothing escaped, as every output
does (docs/hardening.md, H8): JSON as `\\u` escapes, which read back as the same
text, CSV and Markdown as `printable` shows them.
"""

from __future__ import annotations

import csv
import io
import json
import re
from typing import Any

from gitcoop.domain.bounds import json_escaped, json_text, printable
from gitcoop.domain.records import PlainData
from gitcoop.service.exporting import Exported, item_data

FORMATS = ("json", "jsonl", "csv", "markdown")
ITEM_COLUMNS = (
    *("id", "short_id", "kind", "title", "status", "priority", "due", "tags", "aliases"),
    *("created_at", "created_by", "taken_by", "taken_at", "closed_by", "closed_at"),
    *("result_summary", "commit_sha", "version", "body"),
)
EVENT_COLUMNS = ("item", "item_title", "id", "clock", "at", "actor", "session", "verb", "args")
_EVENT_KEYS = ("id", "item", "clock", "at", "actor", "session", "verb")
_FORMULA = ("=", "+", "-", "@", "\t", "\r")


def rendered(exported: list[Exported], form: str, with_events: bool) -> str:
    if form == "json":
        return json_text([item_data(e, with_events) for e in exported]) + "\n"
    if form == "jsonl":
        return "".join(_line(item_data(e, with_events)) + "\n" for e in exported)
    if form == "csv":
        return _csv(exported, with_events)
    return _markdown(exported, with_events)


def _line(value: Any) -> str:
    """JSON on one line (JSON lines, a CSV cell), keys sorted and spelt like every --json."""
    return json_escaped(
        json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    )


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        value = " ".join(str(v) for v in value)
    text = printable(str(value), lines=True)
    return "'" + text if text.startswith(_FORMULA) else text


def _csv(exported: list[Exported], with_events: bool) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    if not with_events:
        writer.writerow(ITEM_COLUMNS)
        for e in exported:
            data = item_data(e, False)
            writer.writerow([_cell(data.get(column)) for column in ITEM_COLUMNS])
        return out.getvalue()
    writer.writerow(EVENT_COLUMNS)
    for e in exported:
        for event in e.events:
            data = event.to_data()
            args = {k: v for k, v in data.items() if k not in _EVENT_KEYS}
            row = [
                data["item"],
                e.item.title,
                *(data[k] for k in _EVENT_KEYS[:1] + _EVENT_KEYS[2:]),
            ]
            writer.writerow([_cell(v) for v in row] + [_cell(_line(args))])
    return out.getvalue()


def _markdown(exported: list[Exported], with_events: bool) -> str:
    parts = ["# Ledger export\n"]
    for e in exported:
        data = item_data(e, False)
        parts.append(f"\n## {_text(data['short_id'])}: {_text(data['title'])}\n\n")
        parts += [f"- {key}: {_text(_cell(data.get(key)))}\n" for key in _SHOWN if data.get(key)]
        if e.item.body:
            parts.append("\n" + _quoted(e.item.body) + "\n")
        if with_events and e.events:
            parts.append("\n### Events\n\n")
            parts += [_event_line(event.to_data()) for event in e.events]
    return "".join(parts)


_SHOWN = (
    *("id", "kind", "status", "priority", "due", "tags", "aliases", "created_at"),
    *("created_by", "taken_by", "closed_by", "closed_at", "result_summary", "commit_sha"),
)


def _event_line(data: PlainData) -> str:
    args = {k: v for k, v in data.items() if k not in _EVENT_KEYS}
    shown = f" {_code(_line(args))}" if args else ""
    return f"- {_text(data['at'])} {_text(data['actor'])} {_code(data['verb'])}{shown}\n"


def _inline(text: str) -> str:
    """One line of Markdown: line breaks become spaces."""
    return printable(" ".join(str(text).split()))


_MARKUP = frozenset("\\`*_[]<>#!|~&")  # what starts or ends Markdown's inline structure


def _text(text: str) -> str:
    """Ledger text as one line of Markdown that reads as the text itself: every character
    that could open a link, an emphasis, an HTML tag or entity, a code span or close a
    heading is escaped (CommonMark's backslash escapes), so a title cannot forge
    structure. Nothing else is at the start of a line, where more would matter."""
    return "".join("\\" + c if c in _MARKUP else c for c in _inline(text))


def _code(text: str) -> str:
    """A code span of one line: fenced by one backtick more than the longest run inside."""
    text = _inline(text)
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _quoted(text: str) -> str:
    """A body as a block quote, so its headings cannot break the export's structure, each
    `<` escaped, so a stranger's `<script>` or `<img onerror=…>` is shown as text, not
    made an element by a renderer that passes HTML through (a code sample shows `\\<`)."""
    lines = printable(text, lines=True).replace("<", "\\<").splitlines()
    return "\n".join("> " + line if line else ">" for line in lines)
