"""The machine form of `--json`: `--fields` (only these fields of each item) and
`--compact` (one line, no indentation, ASCII with `\\u` escapes).

Both are ordinary click options, added to every command that has `--json` when
the command is built (`command`), so click reads them where it reads every
other option and a value that looks like one (`--body --compact`) stays a
value. Either implies `--json`: the command prints its JSON as always, and
that text is reshaped on its way out. `--fields` names fields of the item
objects a command prints (checked before the command runs, so a misspelt field
never follows a write); errors (`{"error": ...}`) are never cut. Compact JSON
escapes every character beyond ASCII, so nothing invisible reaches a program
unmarked and the text is safe to log anywhere.

What click read (`--json`, `--fields`, `--compact`) is kept for the call
(`asked`), so the boundary in cli/main.py prints an error in the form asked.

`list` and `ready` limited by `-n` say how many more there are: the JSON stays
an array, with a line on stderr beside it (`more_line`), which the MCP server
gives as `more` in `{"items": [...], "more": N}`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from functools import update_wrapper
from typing import TYPE_CHECKING, Any

from gitcoop.domain.record_type import record_type
from gitcoop.errors import UsageError

if TYPE_CHECKING:
    import click

# Commands whose JSON is an item object or an array of them.
FIELDED: tuple[str, ...] = ("list", "show", "ready", "queue", "add", "edit", "take", "release")
FIELDED += ("done", "close", "abandon", "note", "report", "review", "ack", "resolve", "finish")
FIELDED += ("pick", "dep add", "dep remove")
FIELDS_HELP = "Only these fields of each item (e.g. id,title,status); errors are always whole."
COMPACT_HELP = "JSON on one line, ASCII only (implies --json)."
_MORE = r"^gitcoop: (\d+) more not listed"


@record_type
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


def fields_schema(word: str) -> dict[str, Any]:
    """The `fields` argument of a tool: the same names its command's `--fields` takes."""
    return {
        "type": "array",
        "items": {"type": "string", "enum": list(fields_of(word))},
        "description": FIELDS_HELP,
    }


class Asked:
    """What the command line asked of stdout, as click read it (`parsed` once it has).

    A plain class: a dataclass compiles its methods when its module is imported, which
    every command does (~0.3 ms of each start)."""

    def __init__(self) -> None:
        self.json = False
        self.fields: tuple[str, ...] = ()
        self.compact = False
        self.parsed = False

    @property
    def form(self) -> Form:
        return Form(tuple(dict.fromkeys(self.fields)), self.compact)

    @property
    def wants_json(self) -> bool:
        return self.json or not self.form.plain


_ASKED: ContextVar[Asked] = ContextVar("gitcoop.compact.asked")


@contextmanager
def asking() -> Iterator[Asked]:
    """One command's call: what its options ask of the output, from a clean slate."""
    asked = Asked()
    token = _ASKED.set(asked)
    try:
        yield asked
    finally:
        _ASKED.reset(token)


def asked() -> Asked:
    return _ASKED.get(None) or Asked()


def json_asked(args: list[str]) -> bool:
    """Whether the answer is JSON: as click read it, or, when click could not read the
    line at all (an unknown option, a missing value), whether one of the three words
    stands among the options (before `--`)."""
    current = asked()
    if current.parsed:
        return current.wants_json
    options = args[: args.index("--")] if "--" in args else args
    return any(a in ("--json", "--compact") or a.startswith("--fields") for a in options)


def command(app: Any) -> click.Command:
    """typer's click command for `app`, with `--compact` on every command that has `--json`
    and `--fields` on those that print items (hidden on the others, to say which do)."""
    import typer.main

    built = typer.main.get_command(app)
    _declare(built, "")
    return built


def _declare(built: click.Command, path: str) -> None:
    import click

    if isinstance(built, click.Group):
        for name, inner in built.commands.items():
            _declare(inner, f"{path} {name}".strip())
        return
    flag = next((p for p in built.params if p.name == "as_json"), None)
    if flag is None or built.callback is None or any(p.name == "coop_fields" for p in built.params):
        return
    flag.is_eager, flag.callback = True, _noted("json")
    compact = click.Option(
        ["--compact", "coop_compact"],
        is_flag=True,
        is_eager=True,
        expose_value=False,
        callback=_noted("compact"),
        help=COMPACT_HELP,
    )
    fields = click.Option(
        ["--fields", "coop_fields"],
        metavar="A,B",
        multiple=True,
        is_eager=True,
        expose_value=False,
        callback=_noted("fields"),
        hidden=path not in FIELDED,
        help=FIELDS_HELP,
    )
    built.params.extend([compact, fields])
    built.callback = _shaped(built.callback, path)


def _noted(name: str) -> Callable[[click.Context, click.Parameter, Any], Any]:
    """A callback that keeps what click read for this option (eager: before the others)."""

    def note(ctx: click.Context, param: click.Parameter, value: Any) -> Any:
        current = _ASKED.get(None)
        if current is not None:
            current.parsed = True
            setattr(current, name, tuple(value) if name == "fields" else bool(value))
        return value

    return note


def _shaped(run: Callable[..., Any], word: str) -> Callable[..., Any]:
    """The command's callback, printing its JSON in the form asked."""

    def shaped(**kwargs: Any) -> Any:
        current = asked()
        form = checked(current.fields, current.compact, word)
        if form.plain:
            return run(**kwargs)
        import contextlib
        import io
        import sys

        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                return run(**{**kwargs, "as_json": True})
        finally:
            sys.stdout.write(reshape(printed.getvalue(), form))

    update_wrapper(shaped, run)
    shaped.__wrapped__ = getattr(run, "__wrapped__", run)  # type: ignore[attr-defined]
    return shaped


def checked(given: tuple[str, ...], dense: bool, word: str) -> Form:
    """The form `--fields` (each value a comma-separated list) and `--compact` ask for."""
    if not given:
        return Form((), dense)
    if word not in FIELDED:
        raise UsageError(f"--fields works with: {', '.join(FIELDED)}")
    named = [[name.strip() for name in value.split(",") if name.strip()] for value in given]
    if not all(named):
        raise UsageError("--fields needs names: --fields id,title,status")
    known = fields_of(word)
    fields = tuple(dict.fromkeys(name for names in named for name in names))
    unknown = [name for name in fields if name not in known]
    if unknown:
        elsewhere = [w for w in ("show", "pick") if unknown[0] in fields_of(w)]
        only = f" (only git coop {elsewhere[0]} prints it)" if elsewhere else ""
        raise UsageError(
            f"--fields: no field {unknown[0]!r} in what {word} prints{only}; "
            f"fields: {', '.join(known)}"
        )
    return Form(fields, dense)


def fields_of(word: str) -> tuple[str, ...]:
    """The fields of what a command prints: an item's, with `show`'s notes and
    dependencies, and `pick`'s own (the id it picked, what it checked and verified)."""
    every = item_fields()
    if word == "show":
        return every
    mine = ("picked", "checks", "verified") if word == "pick" else ()
    return (*(name for name in every if name not in SHOWN_ONLY), *mine)


SHOWN_ONLY = ("notes", "dependencies")  # `show` works them out; a listing's rows lack them


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
        from gitcoop.domain.bounds import json_text

        return json_text(value)
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
