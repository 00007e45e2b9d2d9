"""The MCP tools, read off the click commands the CLI builds: one definition per verb.

Each tool is the `git coop` command of the same name. Its input schema is
derived from that command's parameters, so what the CLI accepts and what the
tool advertises cannot drift: a `click.Choice` is an `enum`, a
`click.IntRange` a `minimum`/`maximum`, a repeatable option an array, an
option's help its description; a positional argument is named by its metavar
(`ID` is `id`). The arguments a tool is given are checked against that schema
here (unknown names, wrong types, values out of range: the usage error of the
CLI, exit 2) and then become the command line the command parses itself.

What the server decides and a tool cannot change: who acts (`--as`), the
output (`--json`, compact), and what makes sense only at a terminal (`--wide`,
`--editor`). A tool whose command has no `--session` still takes `session`,
recorded through COOP_SESSION as a shell would.

A file the command reads (an option whose metavar is FILE: `body_file`,
`from`) must be inside the repository's worktree, symlinks resolved, and is
given to the command as that resolved path; `-` (stdin) is refused, the
server's stdin being the protocol. A tool shares what it reads with everyone
who reads the ledger, so it may not reach the rest of the server's machine.

This module does not import the MCP SDK (tests and `-h` can read it).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import click

from gitcoop.cli import compact
from gitcoop.errors import UsageError

READS: tuple[str, ...] = ("list", "show", "log", "ready", "blocked", "queue", "owed", "status")
READS += ("prime",)
WRITES: tuple[str, ...] = (
    "add",
    "edit",
    "take",
    "release",
    "done",
    "close",
    "abandon",
    "note",
    "report",
)
WRITES += ("review", "ack", "resolve", "dep", "pick", "finish", "verify", "scan", "sync")
TOOL_NAMES = READS + WRITES
# Parameters no tool has (`fields` is the server's own, with its names as an enum).
SERVER_ONLY = ("actor", "as_json", "coop_compact", "coop_fields", "wide", "editor", "help")
SESSION_HELP = (
    "The session doing the work (default: the server's COOP_SESSION); recorded on "
    "the event and on what a take owes."
)
ACTION_HELP = "What to do with the link."
_JSON_TYPES = {"string": str, "integer": int, "boolean": bool, "array": list}


@dataclass(frozen=True)
class Param:
    """One tool argument and the words it becomes on the command line."""

    name: str
    schema: dict[str, Any]
    option: str | None  # `--tag`; None for a positional argument
    required: bool = False
    env: str | None = None  # given through the environment instead (`session`)
    file: bool = False  # a path the command reads: confined to the worktree


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    params: tuple[Param, ...]
    actions: tuple[str, ...] = ()  # a group's subcommands (`dep add|remove`)

    @property
    def reads_files(self) -> bool:
        return any(p.file for p in self.params)

    def input_schema(self) -> dict[str, Any]:
        properties = {p.name: p.schema for p in self.params}
        required = [p.name for p in self.params if p.required]
        schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "additionalProperties": False,
        }
        if required:
            schema["required"] = required
        return schema

    def command_line(
        self, arguments: Mapping[str, Any], room: Room | None = None
    ) -> tuple[list[str], dict[str, str]]:
        """`(argv, environment)` for these arguments, or UsageError naming what is wrong
        (a file argument outside the worktree of `room` among them)."""
        given = dict(arguments)
        unknown = sorted(set(given) - {p.name for p in self.params})
        if unknown:
            names = ", ".join(p.name for p in self.params) or "none"
            raise UsageError(f"{self.name}: no argument {unknown[0]!r}; it takes: {names}")
        words: list[str] = [self.name]
        options: list[str] = []
        positional: list[str] = []
        env: dict[str, str] = {}
        for param in self.params:
            if param.name not in given or given[param.name] is None:
                if param.required:
                    raise UsageError(f"{self.name}: {param.name!r} is required")
                continue
            value = _checked(self.name, param, given[param.name])
            if param.file:
                value = _inside(f"{self.name}: {param.name!r}", value, room)
            if param.name == "action":
                words.append(value)
            elif param.env is not None:
                env[param.env] = value
            elif param.option is None:
                positional.append(str(value))
            else:
                options.extend(_option_words(param.option, value))
        tail = ["--", *positional] if positional else []
        return [*words, *options, *tail], env


def tools(group: click.Group) -> dict[str, Tool]:
    """Every tool, from the group of commands the CLI builds (all of them loaded)."""
    from gitcoop.cli.helptext import restore_argument_help

    ctx = click.Context(group)
    found: dict[str, Tool] = {}
    for name in TOOL_NAMES:
        command = group.get_command(ctx, name)
        if command is None:  # pragma: no cover - every tool's command is registered
            raise LookupError(f"no command {name!r} for its tool")
        restore_argument_help(command)
        found[name] = tool(name, command)
    return found


def tool(name: str, command: click.Command) -> Tool:
    actions: tuple[str, ...] = ()
    if isinstance(command, click.Group):  # its subcommands share their parameters
        actions = tuple(command.commands)
        first = command.commands[actions[0]]
        inner = tuple(_params(first))
        action = {"type": "string", "enum": list(actions), "description": ACTION_HELP}
        params = (Param("action", action, None, required=True), *inner)
        description = _help(command) + " " + _help(first)
    else:
        params = tuple(_params(command))
        description = _help(command)
    if name not in READS and not any(p.name == "session" for p in params):
        session = {"type": "string", "description": SESSION_HELP}
        params = (*params, Param("session", session, None, env="COOP_SESSION"))
    if name in compact.FIELDED or any(f"{name} {action}" in compact.FIELDED for action in actions):
        params = (*params, Param("fields", compact.fields_schema(name), "--fields"))
    return Tool(name, description, params, actions)


def _params(command: click.Command) -> Iterable[Param]:
    for param in command.params:
        if param.name is None or param.name in SERVER_ONLY or getattr(param, "hidden", False):
            continue
        schema = _schema(param)
        if isinstance(param, click.Argument):
            yield Param(_argument_name(param), schema, None, required=param.required)
        else:
            option = max(param.opts, key=len)
            name = option.lstrip("-").replace("-", "_")
            yield Param(name, schema, option, param.required, file=param.metavar == "FILE")


def _schema(param: click.Parameter) -> dict[str, Any]:
    kind = param.type
    schema: dict[str, Any]
    if isinstance(param, click.Option) and param.is_flag:
        schema = {"type": "boolean"}
    elif isinstance(kind, click.Choice):
        schema = {"type": "string", "enum": [str(choice) for choice in kind.choices]}
    elif isinstance(kind, click.types.IntParamType):
        schema = {"type": "integer"}
        if isinstance(kind, click.IntRange):
            if kind.min is not None:
                schema["minimum"] = int(kind.min) + (1 if kind.min_open else 0)
            if kind.max is not None:
                schema["maximum"] = int(kind.max) - (1 if kind.max_open else 0)
    else:
        schema = {"type": "string"}
    if param.multiple or param.nargs == -1:
        schema = {"type": "array", "items": schema}
    description = getattr(param, "help", None)
    if description:
        schema["description"] = " ".join(str(description).split())
    default = param.default
    if default is not None and not callable(default) and default != () and default is not False:
        schema["default"] = default
    return schema


def _argument_name(param: click.Argument) -> str:
    """`ID` is `id`, `[REMOTE]` is `remote`; a one-letter metavar (`A`) keeps the name."""
    shown = re.sub(r"[^A-Za-z_]", "", param.metavar or "").lower()
    return shown if len(shown) > 1 else str(param.name)


def _help(command: click.Command) -> str:
    return " ".join((command.help or "").split())


def _checked(tool: str, param: Param, value: Any) -> Any:
    problem = _problem(param.schema, value)
    if problem:
        raise UsageError(f"{tool}: {param.name!r} {problem}")
    return value


def _problem(schema: Mapping[str, Any], value: Any) -> str | None:
    expected = schema["type"]
    if not isinstance(value, _JSON_TYPES[expected]) or (
        expected == "integer" and isinstance(value, bool)
    ):
        return f"must be {'an' if expected[0] in 'ai' else 'a'} {expected}, not {value!r}"
    if isinstance(value, list):
        for entry in value:
            problem = _problem(schema["items"], entry)
            if problem:
                return f"entries {problem.removeprefix('must be ')}"
        return None
    if isinstance(value, str) and "\0" in value:  # no argument, path or variable holds one
        return "must not hold a NUL character"
    if "enum" in schema and value not in schema["enum"]:
        return f"must be one of {', '.join(schema['enum'])}, not {value!r}"
    if "minimum" in schema and value < schema["minimum"]:
        return f"must be at least {schema['minimum']}, not {value}"
    if "maximum" in schema and value > schema["maximum"]:
        return f"must be at most {schema['maximum']}, not {value}"
    return None


class Room(NamedTuple):
    """Where a tool's file arguments may be read: the worktree, but its git folders."""

    worktree: str | None
    git_dirs: tuple[str, ...] = ()  # the repository's own, and the common one


def _inside(what: str, path: str, room: Room | None) -> str:
    """`path` resolved (symlinks followed), when it is a regular file of the worktree's
    own: not in the repository's git folder, nor in any folder named `.git` (the config may
    hold a remote's credentials), and not a fifo or a device, whose read would hold the
    server."""
    rule = f"{what} must name a file inside the repository's worktree"
    if path == "-":
        raise UsageError(f"{rule}, not '-' (over MCP stdin is the protocol)")
    if room is None or room.worktree is None:
        raise UsageError(f"{rule}, and this repository has none")
    top = os.path.realpath(room.worktree)
    found = os.path.realpath(path)
    if os.path.commonpath([top, found]) != top:
        raise UsageError(f"{rule} ({top}); {path!r} is outside it")
    hidden = [os.path.realpath(folder) for folder in room.git_dirs]
    named = ".git" in [part.casefold() for part in os.path.relpath(found, top).split(os.sep)]
    if named or any(os.path.commonpath([folder, found]) == folder for folder in hidden):
        raise UsageError(f"{rule}, not in its git folder; {path!r} is in it")
    if not os.path.isfile(found):
        raise UsageError(f"{rule}; {path!r} is not a regular file")
    return found


def _option_words(option: str, value: Any) -> list[str]:
    if value is True:
        return [option]
    if value is False:
        return []
    if isinstance(value, list):
        return [f"{option}={entry}" for entry in value]
    return [f"{option}={value}"]  # one word: a value that starts with "-" stays a value
