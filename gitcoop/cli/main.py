"""The `git-coop` entry point and the one boundary from errors to exit codes."""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import signal
import sys
import traceback
from typing import Any

from gitcoop.cli import compact
from gitcoop.cli.terminal import warn
from gitcoop.domain.bounds import printable
from gitcoop.errors import BadLedger, CoopError, FetchedLedgerRefused, UsageError
from gitcoop.service import process

EXIT_BUG = 70  # EX_SOFTWARE: not a user mistake; the message asks for a report
EXIT_OUTPUT_LOST = 120  # what Python itself exits with when stdout fails to flush at exit
# the reader closed the pipe (`git coop list | head -1`): what git exits with then (killed
# by SIGPIPE, 128 + 13), so a pipeline under `set -o pipefail` sees it as it sees git's
EXIT_READER_GONE = 141

# Which module registers each command. Building typer's command for every
# module costs more than running most commands, so only the invoked one is
# loaded; `-h` with no command, or an unknown word, loads them all.
COMMAND_MODULES = {
    **dict.fromkeys(
        ("init", "add", "list", "show", "log", "take", "release", "done", "close", "abandon"),
        "ledger_commands",
    ),
    **dict.fromkeys(("note", "report", "ack", "review", "roles"), "obligation_commands"),
    "owed": "owed_commands",
    **dict.fromkeys(("hooks", "hook"), "hooks_commands"),
    **dict.fromkeys(("queue", "scan", "verify", "pick", "finish", "split"), "queue_commands"),
    **dict.fromkeys(("edit", "dep", "ready", "blocked"), "work_commands"),
    "prime": "prime_commands",
    "mcp": "mcp_commands",
    "serve": "serve_commands",
    **dict.fromkeys(("remote", "sync", "pull", "push", "resolve"), "sync_commands"),
    "hide-ledger": "history_commands",
    "fsck": "fsck_commands",
    "config": "config_commands",
    "keys": "keys_commands",
    "demo": "demo",
    "status": "status_commands",
    "version": "version_commands",
    "completion": "completion_commands",
    **dict.fromkeys(("import", "export"), "import_commands"),
}
GROUPS = ("remote", "hooks", "hook", "dep", "keys")
GLOBAL_FLAGS_WITH_VALUE = ("--as", "--session", "--expect-version", "--fields")
COMPLETE = "__complete"  # what the completion scripts call for item ids (cli/completion.py)
# The cycle collector's first threshold in a `git-coop` process (Python's own is 700
# allocations). A command's start-up makes ~35,000 objects (modules, their functions,
# classes and tables) that live until the process ends: at 700, the collector ran
# about 50 times in a `take`, ~8 ms of its ~135. Cyclic garbage is still
# collected, every 50,000 allocations; a bulk read pauses the collector (store/fast/memory.py).
COMMAND_GC_THRESHOLD = 50_000


def invoked_command(argv: list[str]) -> str | None:
    """The command word in argv, if any: the first argument that is not an option."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
        elif arg in GLOBAL_FLAGS_WITH_VALUE:
            skip = True
        elif not arg.startswith("-"):
            return arg
    return None


def global_options_last(argv: list[str]) -> list[str]:
    """`git coop --json --as X list` means `git coop list --json --as X`."""
    word = invoked_command(argv)
    if word is None or argv[0] == word:
        return argv
    at = argv.index(word)
    return [word, *argv[at + 1 :], *argv[:at]]


def build_app(argv: list[str] | None = None) -> object:
    import importlib

    import typer

    from gitcoop.cli.helptext import CoopGroup, add_callback

    app = typer.Typer(
        name="git coop",
        cls=CoopGroup,
        add_completion=False,  # `git coop completion SHELL` instead: nothing on every run
        no_args_is_help=True,
        pretty_exceptions_enable=False,
        rich_markup_mode=None,
        suggest_commands=False,  # click suggests already; typer would say it a second time
        context_settings={"help_option_names": ["-h", "--help"]},
    )

    add_callback(app)
    # (the callback keeps typer a group of commands even when one module has one)
    word = invoked_command(argv) if argv is not None else None
    wanted = COMMAND_MODULES.get(word or "")
    for name in list(dict.fromkeys(COMMAND_MODULES.values())) if wanted is None else [wanted]:
        importlib.import_module(f"gitcoop.cli.{name}").register(app)
    if wanted is not None:
        only_command(app, word, argv or [])
    return app


def only_command(app: Any, word: str | None, argv: list[str] | None = None) -> None:
    """Drop the module's other commands: typer inspects each one it is given.

    In a group (`git coop hook post-commit`), only the subcommand named is
    kept too: a hook runs on every commit, and pays for every command built.
    """
    from typer.main import get_command_name

    def name(info: Any) -> str:
        return str(info.name or get_command_name(info.callback.__name__))

    app.registered_commands = [info for info in app.registered_commands if name(info) == word]
    app.registered_groups = [info for info in app.registered_groups if info.name == word]
    words = argv or []
    sub = words[words.index(word) + 1] if word in words[:-1] else None
    for group in app.registered_groups:
        inner = group.typer_instance
        if any(name(info) == sub for info in inner.registered_commands):
            inner.registered_commands = [i for i in inner.registered_commands if name(i) == sub]


def main(argv: list[str] | None = None) -> int:
    """Run one command; return (and, as a script, exit with) its exit code."""
    from gitcoop.cli import terminal
    from gitcoop.domain import progress

    terminal.escape_unencodable()  # before anything is printed, errors included
    args = [_utf8(arg) for arg in (sys.argv[1:] if argv is None else argv)]
    undecodable = next((n for n, arg in enumerate(args, 1) if _surrogate(arg)), None)
    if undecodable is not None:  # bytes that are not UTF-8: nothing can store or show them
        message = (
            f"argument {undecodable} ({args[undecodable - 1]}) is not valid UTF-8 text — "
            "give it as UTF-8"
        )
        return _tell(args, UsageError(message).to_data())
    if args[:1] == [COMPLETE]:  # a completion script asking for item ids: no typer at all
        from gitcoop.cli.completion import complete

        return complete(args[1:])
    with compact.asking():
        try:
            args, colour = colour_options(args)
            args = global_options_last(args)
        except UsageError as error:
            return _tell(args, error.to_data())
        terminal.configure(colour)
        meter = terminal.meter()
        with progress.shown_by(meter):
            try:
                return _run(args)
            finally:
                meter.clear()  # a line of work that did not finish is not left on the screen


def _run(args: list[str]) -> int:
    word = invoked_command(args)
    if word is None and "--version" in _options(args):
        from gitcoop.cli.version_commands import print_version

        print_version(as_json="--json" in _options(args))
        return 0
    if word is not None and word not in COMMAND_MODULES:
        return _unknown_command(word, args)
    if word is None and not {"-h", "--help"} & set(_options(args)):
        from gitcoop.cli.helptext import OVERVIEW

        sys.stdout.write(OVERVIEW)
        return 0
    app = build_app(args)
    try:
        from gitcoop.cli.journal_replay import replay_journal
        from gitcoop.cli.unseen_notice import notice_unseen

        replay_journal(args)  # what hooks could not record: docs/hooks.md
        notice_unseen(args)  # what reached a branch with no hook running: docs/hooks.md
        command = _click_command(app, args)
        answered = command.main(args=args, prog_name="git coop", standalone_mode=False)
        if answered == INTERRUPTED:  # typer's answer to a Ctrl-C: Exit(130), returned
            return _interrupted()
    except CoopError as error:
        return _refused(error, args)
    except KeyboardInterrupt:
        return _interrupted()
    except BrokenPipeError:
        return EXIT_READER_GONE
    except SystemExit as stop:
        if _reader_went_away():
            return EXIT_READER_GONE
        return stop.code if isinstance(stop.code, int) else 1
    except Exception as error:  # the boundary: a bug, never a user mistake
        return _unexpected(error, args)
    return 0


INTERRUPTED = 130


def _reader_went_away() -> bool:
    """Whether click stopped the command because its reader closed the pipe (`git coop
    list | head -1`): it then exits 1, which here says a rule refused, with stdout
    swapped for a wrapper that drops what is left."""
    import click

    wrapper = getattr(click.core, "_PacifyFlushWrapper", None)
    return wrapper is not None and isinstance(sys.stdout, wrapper)


def _interrupted() -> int:
    """Ctrl-C: the shell's exit code for SIGINT. (A command that gives back what it holds
    when interrupted, `verify`, raises `errors.Interrupted` instead, saying what it did.)"""
    warn("gitcoop: interrupted")
    return INTERRUPTED


def _click_command(app: Any, args: list[str]) -> Any:
    """typer's click command for `app`; argument help restored when help may be shown."""
    command = compact.command(app)
    options = _options(args)
    if not args or "-h" in options or "--help" in options or args[-1] in GROUPS:
        from gitcoop.cli.helptext import restore_argument_help

        restore_argument_help(command)
    return command


def _refused(error: CoopError, args: list[str]) -> int:
    from gitcoop.cli.wording import plain

    hint = ""
    local = isinstance(error, BadLedger) and not isinstance(error, FetchedLedgerRefused)
    if local and invoked_command(args) != "fsck":
        hint = " (git coop fsck lists every breach)"
    message = plain(error.message)
    return _tell(args, {**error.to_data(), "message": message}, f"gitcoop: {message}{hint}")


def _unexpected(error: Exception, args: list[str]) -> int:
    import click

    help_shown = getattr(click.exceptions, "NoArgsIsHelpError", ())  # click 8.2+: help, exit 2
    if isinstance(error, click.UsageError) and not isinstance(error, help_shown):
        return _usage(error, args)
    if hasattr(error, "exit_code") and hasattr(error, "show"):  # click's other errors
        error.show()
        return int(error.exit_code)
    refused = _environment(error)
    if refused is not None:  # the machine said no where no layer below expected it
        return _tell(args, refused.to_data())
    if os.environ.get("COOP_DEBUG"):
        traceback.print_exc()
    message = (
        f"unexpected error ({type(error).__name__}: {error}) — this is a bug; "
        "rerun with COOP_DEBUG=1 for the traceback and report it"
    )
    return _tell(args, {"code": "bug", "exit": EXIT_BUG, "message": message})


def _usage(error: Any, args: list[str]) -> int:
    """A usage mistake: one line, what is wrong and what to do (exit 2)."""
    from gitcoop.cli.helptext import usage_line

    return _usage_said(usage_line(error), args)


def _unknown_command(word: str, args: list[str]) -> int:
    """An unknown command word, told without building every command to say so."""
    from gitcoop.cli.helptext import one_line, suggestion

    message = f"No such command {word!r}.{suggestion(word, list(COMMAND_MODULES))}"
    return _usage_said(one_line(message, "git coop"), args)


def _usage_said(message: str, args: list[str]) -> int:
    return _tell(args, UsageError(message).to_data())


def colour_options(args: list[str]) -> tuple[list[str], str]:
    """`--color[=]WHEN`, a bare `--color` and `--no-color`, wherever they stand (before
    `--`), taken out; as git takes them, a bare `--color` means always."""
    modes = ("auto", "always", "never")
    mode, kept, at = "auto", list[str](), 0
    while at < len(args):
        arg = args[at]
        at += 1
        if arg == "--":
            return [*kept, *args[at - 1 :]], mode
        if arg == "--no-color":
            mode = "never"
        elif arg == "--color":
            mode = "always"
            if at < len(args) and args[at] in modes:
                mode, at = args[at], at + 1
        elif arg.startswith("--color="):
            mode = arg.partition("=")[2]
            if mode not in modes:
                raise UsageError(f"--color={mode}: use --color=auto, always or never")
        else:
            kept.append(arg)
    return kept, mode


def _options(args: list[str]) -> list[str]:
    return args[: args.index("--")] if "--" in args else args


def wants_json(args: list[str]) -> bool:
    """Whether the answer is JSON (`--json`, `--compact` or `--fields`, as click read them)."""
    return compact.json_asked(args)


def _tell(args: list[str], error: dict[str, Any], said: str | None = None) -> int:
    """The one place a failure is said: `{"error": ...}` on stdout when the answer is JSON,
    and its sentence (`said`, else `gitcoop: MESSAGE`) on stderr. A failure is said on one
    line, every character of it shown (`printable`: a line break a fetched text brought in
    is escaped, and cannot start a line of its own); input echoed back is cut short
    (`wording.bounded`). Returns the exit code."""
    from gitcoop.cli.wording import bounded

    error = {**error, "message": bounded(printable(str(error["message"])))}
    if wants_json(args):
        _emit_error(error)
    warn(bounded(printable(said) if said is not None else f"gitcoop: {error['message']}"))
    return int(error["exit"])


def _emit_error(error: dict[str, object]) -> None:
    """`{"error": {"code", "exit", "message", ...}}` on stdout, for programs reading --json
    (on one line when --compact asked for it)."""
    from gitcoop.cli import render

    with contextlib.suppress(OSError):
        if compact.asked().compact:
            sys.stdout.write(compact.dumps({"error": error}) + "\n")
        else:
            render.emit_json({"error": error})


def _environment(error: Exception) -> CoopError | None:
    """A full disk, a read-only repository, a permission: exit 9, not a bug."""
    if not isinstance(error, OSError):
        return None
    return process.environment_failure(error, "the command")


def _utf8(arg: str) -> str:
    """An argument Python decoded with a locale that is not UTF-8 (a C locale without
    UTF-8 mode reads each byte beyond ASCII as a lone surrogate), read again as UTF-8."""
    if not _surrogate(arg):
        return arg
    try:
        return os.fsencode(arg).decode("utf-8")
    except (UnicodeError, ValueError):
        return arg  # not UTF-8 either: refused as such


def _surrogate(arg: str) -> bool:
    """Python reads bytes that are not UTF-8 in argv as lone surrogates."""
    return any("\ud800" <= char <= "\udfff" for char in arg)


def _stopped(number: int, _frame: object) -> None:
    """SIGTERM: leave as the shell reports it (143), through the `finally` blocks and exit
    functions, so no git or ssh is left running. (A SIGTERM its parent had ignored stays
    ignored; SIGHUP is left as it is, so `nohup` keeps working.)"""
    raise SystemExit(128 + number)


def run() -> None:
    """The `git-coop` script: run one command, then leave without Python's teardown.

    The teardown frees every module and object one at a time (~30-40 ms with
    pygit2, click and ruamel loaded, a fifth of a `take`) and does nothing a
    finished command needs: every write is committed, or renamed into place,
    before `main` returns. The exit functions libraries registered still run,
    and the standard streams are flushed.

    The process is one command's, so its cycle collector runs less often
    (`COMMAND_GC_THRESHOLD`), and what it read is held until it leaves instead of
    being freed as the command returns (`memory.keep`).
    """
    if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:  # stopped as by Ctrl-C: what it
        signal.signal(signal.SIGTERM, _stopped)  # started stops too (store/ledger/transport.py)
    by_reference = process.reference()  # Python's collector and teardown, as they are
    if not by_reference:
        gc.set_threshold(COMMAND_GC_THRESHOLD, *gc.get_threshold()[1:])
    process.keep_until_exit()
    code = main()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (`git coop list | head`)
        code = code or EXIT_READER_GONE
    except OSError as error:  # disk full, I/O error: the output is lost, so say so
        with contextlib.suppress(OSError):
            warn(f"gitcoop: could not write the output ({error.strerror})")
        code = code or EXIT_OUTPUT_LOST
    with contextlib.suppress(OSError):
        sys.stderr.flush()
    if by_reference:
        sys.exit(code)
    os._exit(code)
