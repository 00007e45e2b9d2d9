"""The machine form of `--json`: `--fields` (only these fields of each item) and
`--compact` (one line, no indentation, ASCII with `\\u` escapes).

Both are read off the command line by `cli/main.py` before the command runs,
for every command alike: the command prints its JSON as always, and that text
is reshaped on its way out. `--fields` names fields of the item objects a
command prints (checked before anything runs, so a misspelt field never
follows a write); errors (`{"error": ...}`) are never cut. Compact JSON
escapes every character beyond ASCII, so nothing invisible reaches a program
unmarked and the text is safe to log anywhere.

`list` and `ready` limited by `-n` say how many more there are: a line on
stderr beside the JSON (`more_line`), which the MCP server gives as `more`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gitcoop.errors import UsageError

# Commands whose JSON is an item object or an array of them.
FIELDED: tuple[str, ...] = ("list", "show", "ready", "queue", "add", "edit", "take", "release")
FIELDED += ("done", "close", "abandon", "note", "report", "review", "ack", "resolve", "finish")
FIELDS_HELP = "Only these fields of each item (e.g. id,title,status); errors are always whole."
_MORE = r"^gitcoop: (\d+) more not listed"


@dataclass(frozen=True)
class Form:
    fields: tuple[str, ...] = ()
    compact: bool = False

    @property
    def plain(self) -> bool:
        return not self.fields and not self.compact


def item_fields() -> tuple[str, ...]:
    """Every field an item object may carry in --json (`show` adds notes and dependencies)."""
    from dataclasses import fields

    from gitcoop.domain.records import Item

    return (*(f.name for f in fields(Item)), "short_id", "notes", "dependencies")


def fields_schema() -> dict[str, Any]:
    """The `fields` argument of a tool: the same names `--fields` takes."""
    return {
        "type": "array",
        "items": {"type": "string", "enum": list(item_fields())},
        "description": FIELDS_HELP,
    }


def output_options(args: list[str], word: str | None) -> tuple[list[str], Form]:
    """`--fields A,B` (repeatable) and `--compact` taken out of args (before `--`); either
    one implies `--json`."""
    kept: list[str] = []
    named: list[str] = []
    dense = False
    at = 0
    while at < len(args):
        arg = args[at]
        at += 1
        if arg == "--":
            kept.extend(args[at - 1 :])
            break
        if arg == "--compact":
            dense = True
        elif arg == "--fields" or arg.startswith("--fields="):
            if arg == "--fields":
                if at == len(args):
                    raise UsageError("--fields needs names: --fields id,title,status")
                arg, at = args[at], at + 1
            named.extend(name.strip() for name in arg.removeprefix("--fields=").split(","))
        else:
            kept.append(arg)
    form = Form(tuple(dict.fromkeys(name for name in named if name)), dense)
    if form.plain:
        return args, form
    if named:
        _check_fields(form.fields, named, word)
    before = kept.index("--") if "--" in kept else len(kept)
    if "--json" not in kept[:before]:
        kept.insert(before, "--json")
    return kept, form


def _check_fields(fields: tuple[str, ...], named: list[str], word: str | None) -> None:
    if word not in FIELDED:
        raise UsageError(f"--fields works with: {', '.join(FIELDED)}")
    if not fields:
        raise UsageError("--fields needs names: --fields id,title,status")
    known = item_fields()
    unknown = [name for name in fields if name not in known]
    if unknown:
        raise UsageError(f"--fields: no field {unknown[0]!r}; fields: {', '.join(known)}")


def reshape(text: str, form: Form) -> str:
    """The command's JSON text in this form (what is not JSON is left as it is)."""
    import json  # only here: a take writes YAML and prints no JSON

    if not text.strip():
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if form.fields and not (isinstance(value, dict) and "error" in value):
        value = _only(value, form.fields)
    return dumps(value, form.compact) + "\n"


def dumps(value: Any, dense: bool = True) -> str:
    import json

    if not dense:
        from gitcoop.domain import jsontext

        return jsontext.dumps(value)
    return json.dumps(value, separators=(",", ":"), sort_keys=True, ensure_ascii=True)


def _only(value: Any, fields: tuple[str, ...]) -> Any:
    if isinstance(value, list):
        return [_only(entry, fields) for entry in value]
    if isinstance(value, dict):
        return {key: value[key] for key in fields if key in value}
    return value


def more_line(more: int) -> str:
    """What `list`/`ready` say on stderr when -n left items out."""
    return f"gitcoop: {more} more not listed — raise -n to list them"


def more_in(stderr: str) -> int | None:
    import re

    found = re.search(_MORE, stderr, re.MULTILINE)
    return int(found.group(1)) if found else None
