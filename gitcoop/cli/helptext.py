"""What `-h` shows: commands in sections with whole-sentence summaries, and usage errors.

click shortens a command's summary to fit one line ("Everything the ledger
holds about one..."); here the summary is the first paragraph of its
docstring, whole, and every docstring opens with one short sentence. Some
click versions drop an argument's help text on the way from typer; it is put
back from the command's own signature when help is shown. A usage error is
one line naming `git coop ... -h`: git itself takes `git coop --help` for a
man page. `git coop` alone prints the overview of the common verbs.
"""

from __future__ import annotations

import difflib
from typing import Annotated, Any

import click
import typer
from typer.core import TyperArgument, TyperGroup

SECTIONS = {
    "Start": ("status", "init", "demo", "serve", "version", "completion"),
    "Work": ("add", "list", "show", "log", "take", "release", "done", "close", "abandon"),
    "Shaping work": ("edit", "dep", "ready", "blocked"),
    "What a take owes": ("owed", "note", "report", "review", "ack", "roles"),
    "The agent work queue": ("queue", "scan", "verify", "pick", "finish", "split", "config"),
    "Agents": ("prime", "mcp"),
    "Sharing": ("remote", "sync", "pull", "push", "resolve"),
    "Commits and checks": ("hooks", "hook", "keys", "hide-ledger", "fsck"),
}
# What `git coop` alone prints: the verbs most days need, not every command.
OVERVIEW = """\
usage: git coop COMMAND [ARGS]...

A work ledger kept in this git repository, on refs/coop/ledger.

  status   where this repository's work stands, and what to do next
  init     create the ledger
  add      record a todo, a request or a queue item
  list     the items, filtered and sorted
  show     everything the ledger holds about one item
  ready    the work nobody holds that waits on nothing
  take     claim an item; the take owes an outcome
  done     finish a todo (close finishes a request)
  owed     the outcomes that are due
  queue    the agent work queue, by state
  sync     exchange the ledger with a remote

'git coop -h' lists every command; 'git coop COMMAND -h' explains one.
"""


def summary(command: click.Command) -> str:
    """The first paragraph of the command's help, whole, on one line."""
    if command.short_help:
        return " ".join(command.short_help.split())
    first = (command.help or "").strip().split("\n\n")[0]
    return " ".join(first.split())


class CoopGroup(TyperGroup):
    """A group whose command list shows whole summaries, in sections at the top level."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        shown = {
            name: command
            for name in self.list_commands(ctx)
            if (command := self.get_command(ctx, name)) is not None and not command.hidden
        }
        if not shown:
            return
        sections = [
            (title, [name for name in names if name in shown]) for title, names in SECTIONS.items()
        ]
        placed = {name for _, names in sections for name in names}
        sections.append(("Commands", [name for name in shown if name not in placed]))
        if ctx.parent is not None:  # a group's own commands: one list
            sections = [("Commands", list(shown))]
        longest = max(len(name) for name in shown)  # one column for every section
        for title, names in sections:
            if names:
                with formatter.section(title):
                    rows = [(name.ljust(longest), summary(shown[name])) for name in names]
                    formatter.write_dl(rows)


def restore_argument_help(command: click.Command) -> None:
    """Put back the help of arguments whose text was lost (click 8.5 with typer 0.24),
    and list them once: typer's "Arguments" section, not click 8.5's own second one."""
    if isinstance(command, click.Group):
        for inner in command.commands.values():
            restore_argument_help(inner)
        return
    command.format_arguments = _listed_by_typer  # type: ignore[method-assign]
    lost = [p for p in command.params if isinstance(p, TyperArgument) and not p.help]
    wrapped = getattr(command.callback, "__wrapped__", None)
    if not lost or wrapped is None:
        return
    from typer.utils import get_params_from_function

    declared = get_params_from_function(wrapped)
    for param in lost:
        info: Any = declared[param.name].default if param.name in declared else None
        param.help = getattr(info, "help", None)


def _listed_by_typer(ctx: click.Context, formatter: click.HelpFormatter) -> None:
    """click 8.5's "Positional arguments" section: typer lists the arguments already."""


def usage_line(error: click.UsageError) -> str:
    """A usage error as one line, `<what is wrong> — <what to do>`, like a rule error."""
    ctx = error.ctx
    message = error.format_message()
    if ctx is not None and message.startswith("No such command") and "Did you mean" not in message:
        commands = getattr(ctx.command, "commands", {})
        word = message.split("'")[1] if message.count("'") >= 2 else ""
        message += suggestion(word, list(commands))
    return one_line(message, ctx.command_path if ctx is not None else "git coop")


def one_line(message: str, path: str) -> str:
    """click's sentence, and its guess if it has one, then where the command is explained."""
    wrong, _, guess = " ".join(message.split()).partition("Did you mean")
    wrong = wrong.strip().rstrip("(").strip().rstrip(".")  # click: "… 'x'. (Did you mean …)"
    guess = guess.strip().rstrip(")")
    if wrong[1:2].islower():
        wrong = wrong[0].lower() + wrong[1:]
    todo = f"see '{path} -h'"
    if guess:
        todo = f"Did you mean {guess} ({todo})"
    return f"{wrong} — {todo}"


def suggestion(word: str, names: list[str]) -> str:
    close = difflib.get_close_matches(word, names)
    return f" Did you mean {close[0]!r}?" if close else ""


def add_callback(app: typer.Typer) -> None:
    """The group's own options, shown by `git coop -h` (cli/main.py reads `--color` first,
    and moves the others after the command word, where the command has them)."""

    @app.callback()
    def ledger(
        version: Annotated[
            bool, typer.Option("--version", help="Print gitcoop's version and exit.")
        ] = False,
        color: Annotated[
            str,
            typer.Option(
                "--color",
                metavar="WHEN",
                help="Colour: auto (on a terminal, unless NO_COLOR is set), always or never.",
            ),
        ] = "auto",
        no_color: Annotated[
            bool, typer.Option("--no-color", help="Same as --color=never.")
        ] = False,
        fields: Annotated[
            str | None,
            typer.Option(
                "--fields",
                metavar="A,B",
                help="With --json: only these fields of each item printed (id,title,status).",
            ),
        ] = None,
        compact: Annotated[
            bool,
            typer.Option("--compact", help="JSON on one line, ASCII only (implies --json)."),
        ] = False,
    ) -> None:
        """A work ledger kept in this git repository, on refs/coop/ledger.

        In a repository, start with `git coop status`; `git coop COMMAND -h` explains a command.
        """
