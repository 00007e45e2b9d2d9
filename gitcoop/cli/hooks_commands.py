"""`git coop hooks install|uninstall|status|backfill`, and `git coop hook ...`.

`git coop hook post-commit|post-applypatch|post-merge|post-rewrite|prepare-commit-msg`
is what the shims in hooks/ call (hidden from help). It always exits 0: a hook
must never fail the git command; what it could not record is journaled. `git coop hook
replay` and `git coop hook dismiss` are the journal's commands.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.helptext import CoopGroup
from gitcoop.cli.options import AsOpt, JsonOpt, SessionOpt, make_context
from gitcoop.cli.terminal import printable, say, warn
from gitcoop.cli.wording import plain
from gitcoop.errors import CoopError, Refused
from gitcoop.service import hooks

if TYPE_CHECKING:
    from gitcoop.service.backfill import Backfilled, Unrecorded
    from gitcoop.service.context import Context
    from gitcoop.service.recording import Outcome

EXTRA = {"allow_extra_args": True, "ignore_unknown_options": True}
INSTALL_HINT = (
    "gitcoop: the git hooks that record Coop-Done/Coop-Close trailers are not installed "
    "in this clone — run: git coop hooks install"
)


def register(app: typer.Typer) -> None:
    hooks_app = typer.Typer(
        cls=CoopGroup,
        suggest_commands=False,
        help="The git hooks that record Coop-Done/Coop-Close/Coop-Refs trailers: install, "
        "uninstall, status, backfill.",
        no_args_is_help=True,
    )
    hook_app = typer.Typer(
        cls=CoopGroup,
        suggest_commands=False,
        help="What the hooks could not record: replay it, confirm a teammate's, or dismiss it.",
        no_args_is_help=True,
    )
    app.add_typer(hooks_app, name="hooks")
    app.add_typer(hook_app, name="hook")
    hooks_app.command()(install)
    hooks_app.command()(uninstall)
    hooks_app.command()(status)
    hooks_app.command()(backfill)
    hook_app.command("post-commit", context_settings=EXTRA, hidden=True)(post_commit)
    hook_app.command("post-applypatch", context_settings=EXTRA, hidden=True)(post_applypatch)
    hook_app.command("post-merge", context_settings=EXTRA, hidden=True)(post_merge)
    hook_app.command("post-rewrite", context_settings=EXTRA, hidden=True)(post_rewrite)
    hook_app.command("prepare-commit-msg", context_settings=EXTRA, hidden=True)(prepare_commit_msg)
    hook_app.command("replay")(replay_)
    hook_app.command("confirm")(confirm)
    hook_app.command("dismiss")(dismiss)


def this_runner() -> hooks.Runner:
    """The gitcoop running now: what installed hooks should start (absolute paths).

    The script is the one this process was started as (`git coop` runs it by
    its full path), else the one beside the interpreter, else git-coop on PATH.
    """
    python = os.path.abspath(sys.executable) if sys.executable else ""
    candidates = [
        sys.argv[0] if sys.argv else "",
        os.path.join(os.path.dirname(python), "git-coop"),
    ]
    found = [c for c in candidates if os.path.basename(c) == "git-coop" and os.path.isfile(c)]
    entry = found[0] if found else shutil.which("git-coop") or ""
    entry = os.path.abspath(entry) if entry else ""
    if not python or any(c in python + entry for c in "\n\r"):
        return hooks.Runner()
    return hooks.Runner(python, entry)


def install_or_hint(ctx: Context, install: bool) -> tuple[list[dict[str, Any]], list[str]]:
    """After `init`: install the hooks (`--hooks`), or say how; their changes and lines."""
    if install:
        try:
            changes = hooks.install(ctx, this_runner())
        except Refused as refusal:  # the ledger is made; the hooks wait for the user's word
            return [], [f"gitcoop: hooks not installed: {refusal.message}"]
        return [asdict(c) for c in changes], [_change_line(c) for c in changes]
    if hooks.installed(ctx):
        return [], []
    with contextlib.suppress(CoopError):  # said here: the first take does not say it again
        hooks.hint_once(ctx)
    return [], [f"{INSTALL_HINT} (or git coop init --hooks)"]


def hint_on_take(ctx: Context) -> None:
    """The first take in a clone without the hooks says how to install them; later ones don't."""
    try:
        if hooks.hint_once(ctx):
            warn(
                f"{INSTALL_HINT} (said once; git coop hooks backfill finds commits made "
                "without them)"
            )
    except CoopError:
        pass  # a hint must never fail the take it follows


def install(
    everywhere: Annotated[
        bool,
        typer.Option(
            "--global",
            help="Install into a core.hooksPath outside this repository (every repository "
            "using it then runs gitcoop).",
        ),
    ] = False,
    append: Annotated[
        bool,
        typer.Option(
            "--append",
            help="Add gitcoop's line to husky's .husky/NAME or a committed hooks folder's "
            "files (never to a tracked file).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Add gitcoop's hooks; a hook already there keeps running and calls gitcoop.

    The hooks name this gitcoop's interpreter and git-coop script, so they
    work where PATH lacks gitcoop (GUIs, IDEs); install again after moving it.
    Under husky, a committed hooks folder, the pre-commit framework or lefthook,
    it says which line or setting runs gitcoop there (docs/hooks.md).
    """
    runner = this_runner()
    changes = hooks.install(make_context(), runner, everywhere=everywhere, append=append)
    _print_changes(changes, as_json)
    if not runner.starts():
        warn(
            "gitcoop: warning: cannot tell which git-coop script runs this gitcoop, so the "
            "hooks will use git-coop from PATH"
        )


def uninstall(as_json: JsonOpt = False) -> None:
    """Remove gitcoop's hooks and put back any hook they had chained."""
    _print_changes(hooks.uninstall(make_context()), as_json)


def status(as_json: JsonOpt = False) -> None:
    """Which hooks are installed, what they run, and what waits in the journal."""
    from gitcoop.service import replay

    ctx = make_context()
    states = hooks.status(ctx)
    waiting = replay.pending(ctx)
    if as_json:
        render.emit_json({"hooks": [asdict(s) for s in states], "journal_entries": len(waiting)})
        return
    where = hooks.setup(ctx)
    say(f"hooks dir: {where.folder}{SETUP_WORDS.get(where.kind, '')}")
    for state in states:
        say(f"{state.name:<19} {state.state}{_via(state)}")
    for line in _status_advice(states):
        say(line)
    summary = replay.waiting_text(waiting)
    if summary:
        say(summary.removeprefix("gitcoop: "))
    for line in replay.listing(waiting):
        say(printable(line.removeprefix("gitcoop: ")))


SETUP_WORDS = {
    "husky": " (husky: gitcoop's line goes in .husky/NAME)",
    "committed": " (a folder of the worktree: gitcoop's line goes in its files)",
    "outside": " (outside this repository)",
}


def _via(state: hooks.HookState) -> str:
    if state.legacy:
        return (
            f" (an earlier gitcoop moved a hook to {state.name}{hooks.LEGACY_SUFFIX}: "
            "git coop hooks install puts it back)"
        )
    if state.via == "line" and state.state != "missing":
        return f" (called from {printable(state.path)})"
    if state.via in ("pre-commit", "lefthook"):
        return f" (through {state.via})"
    return ""


def _status_advice(states: list[hooks.HookState]) -> list[str]:
    ours = [s for s in states if s.state in ("current", "outdated", "stale")]
    said = [printable(s.advice) for s in states if s.advice and s.state != "current"]
    lines = list(dict.fromkeys(said))  # one folder's advice, said once
    stale = next((s for s in ours if s.state == "stale"), None)
    if stale is not None:
        lines.append(
            f"the gitcoop these hooks run is gone ({printable(stale.python or '')}): "
            "commits are only noted for the next git coop command — run git coop hooks install "
            "with the gitcoop you use now"
        )
    elif any(s.state == "outdated" for s in ours):
        lines.append("some hooks are from another gitcoop version — run: git coop hooks install")
    elif ours and ours[0].python:
        lines.append(f"runs: {printable(ours[0].python)} {printable(ours[0].entry or '')}")
    elif ours:
        lines.append("runs: git-coop from PATH (no interpreter recorded)")
    post_commit = next(s for s in states if s.name == "post-commit")
    if post_commit not in ours:
        todo = "see above" if post_commit.advice else "run: git coop hooks install"
        lines.append(f"commits here are not recorded — {todo}")
    return lines


def backfill(
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="REV", help="Only commits not reachable from REV."),
    ] = None,
    apply: Annotated[
        bool, typer.Option("--apply", help="Record them (as you, naming each commit).")
    ] = False,
    actor: AsOpt = None,
    session: SessionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Find commits on local branches whose Coop trailers the ledger never recorded.

    Looks from a day before the ledger began (machines' clocks differ), or
    at REV.. with --since. Shows them; with --apply, records each, with
    you as the actor and the commit, its author, committer and time in
    the event.
    """
    from gitcoop.service import backfill as service

    ctx = make_context(actor, session)
    found = service.find(ctx, since)
    if not apply:
        _print_found(found, as_json, since)
        return
    _print_backfilled(service.apply(ctx, found), as_json, since)


def nothing_to_backfill(since: str | None) -> str:
    """What a backfill that found nothing looked at."""
    if since is not None:
        return printable(
            f"every Coop trailer on local branches since {since} is recorded; nothing to backfill"
        )
    return (
        "every Coop trailer on local branches since a day before the ledger began is recorded; "
        "nothing to backfill (older commits: git coop hooks backfill --since REV)"
    )


def _found_json(found: Unrecorded) -> dict[str, Any]:
    commit = found.commit
    return {
        "commit": commit.sha,
        "subject": found.subject,
        "author": commit.author_email,
        "committer": commit.committer_email,
        "committed_at": commit.committed_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "trailers": [{"key": t.key, "ref": t.ref} for t in found.trailers],
    }


def _found_line(found: Unrecorded) -> str:
    asked = ", ".join(f"{t.key} {t.ref}" for t in found.trailers)
    when = found.commit.committed_at.strftime("%Y-%m-%d")
    return printable(
        f"{found.commit.sha[:10]}  {when}  {found.commit.author_email}  {found.subject}  [{asked}]"
    )


def _print_found(found: list[Unrecorded], as_json: bool, since: str | None) -> None:
    if as_json:
        render.emit_json([_found_json(f) for f in found])
        return
    if not found:
        say(nothing_to_backfill(since))
        return
    say(f"{len(found)} commit(s) carry Coop trailers the ledger never recorded:")
    for one in found:
        say(f"  {_found_line(one)}")
    say("record them (as you, naming each commit): git coop hooks backfill --apply")


def _print_backfilled(done: list[Backfilled], as_json: bool, since: str | None) -> None:
    if as_json:
        render.emit_json(
            [
                {**_found_json(d.found), "outcomes": [_outcome_json(o) for o in d.outcomes]}
                for d in done
            ]
        )
        return
    if not done:
        say(nothing_to_backfill(since))
    for one in done:
        say(_found_line(one.found))
        for outcome in one.outcomes:
            text = f"  {outcome.status}: {outcome.text}"
            if outcome.command:
                text += f" — record it with: {outcome.command}"
            say(printable(text))


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    return {"status": outcome.status, "text": outcome.text, "command": outcome.command}


def post_commit(session: SessionOpt = None) -> None:
    """Record the new commit's Coop trailers."""
    from gitcoop.service import commit_hooks

    _run_hook(lambda: commit_hooks.post_commit(make_context(session=session)))


def post_applypatch(session: SessionOpt = None) -> None:
    """Record the Coop trailers of the commit `git am` made."""
    from gitcoop.service import commit_hooks

    _run_hook(lambda: commit_hooks.post_applypatch(make_context(session=session)))


def post_merge(
    squash: Annotated[str, typer.Argument(help="1 for a squash merge")] = "0",
    session: SessionOpt = None,
) -> None:
    """Record the Coop trailers of what a merge brought onto the branch."""
    from gitcoop.service import commit_hooks

    _run_hook(lambda: commit_hooks.post_merge(make_context(session=session), squash))


def post_rewrite(
    kind: Annotated[str, typer.Argument(help="amend or rebase")] = "rebase",
    session: SessionOpt = None,
) -> None:
    """Move recorded commit shas to the rewritten commits (old new pairs on stdin)."""
    from gitcoop.service import commit_hooks

    lines = sys.stdin.read().splitlines()
    _run_hook(lambda: commit_hooks.post_rewrite(make_context(session=session), kind, lines))


def prepare_commit_msg(
    message_file: Annotated[str, typer.Argument(metavar="FILE")],
    source: Annotated[str | None, typer.Argument(metavar="[SOURCE]")] = None,
    actor: AsOpt = None,
    session: SessionOpt = None,
) -> None:
    """Suggest a commented Coop-Done line when you hold exactly one item."""
    # the pre-commit framework passes the source in its environment instead
    source = source or os.environ.get("PRE_COMMIT_COMMIT_MSG_SOURCE") or None
    ctx = make_context(actor, session)
    _run_hook(lambda: _suggest(ctx, message_file, source))


def _suggest(ctx: Context, message_file: str, source: str | None) -> list[str]:
    """Insert the suggestion; the title is ledger text, shown through the one escaping function."""
    from gitcoop.service import commit_hooks

    with open(message_file, encoding="utf-8", errors="surrogateescape") as handle:
        text = handle.read()
    offered = commit_hooks.suggestion(ctx, text, source)
    if offered is None:
        return []
    changed = commit_hooks.with_suggestion(text, offered, printable(offered.title))
    if changed != text:
        with open(message_file, "w", encoding="utf-8", errors="surrogateescape") as handle:
            handle.write(changed)
    return []


def replay_(actor: AsOpt = None, as_json: JsonOpt = False) -> None:
    """Retry everything the hooks journaled; list what still waits, and why."""
    from gitcoop.errors import Refused
    from gitcoop.service import replay

    report = replay.replay(make_context(actor))
    listed = [
        {"entry": r.entry["id"], "kept": r.kept is not None, **_outcome_json(o)}
        for r in report.replayed
        for o in r.outcomes
    ]
    kept = sum(r.kept is not None for r in report.replayed)
    waits = (
        f"{kept} journal {'entry still waits' if kept == 1 else 'entries still wait'}: "
        "record each as its line says, or drop it: git coop hook dismiss ENTRY --reason WHY"
    )
    if as_json:
        if kept:  # the listing travels inside the error, as `owed --check`'s does
            raise Refused(waits, details={"entries": listed})
        render.emit_json(listed)
        return
    lines = replay.report_lines(report)
    say("\n".join(printable(plain(line)) for line in lines) or "the journal is empty")
    if kept:
        raise Refused(waits)


def confirm(
    entry: Annotated[str, typer.Argument(metavar="ENTRY", help="The entry's id (a prefix).")],
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Record a teammate's trailers (a cherry-pick, a rebase) as yours, naming the author."""
    from gitcoop.service import replay

    done = replay.confirm(make_context(actor), entry)
    if as_json:
        kept = done.kept is not None
        render.emit_json(
            [{"entry": done.entry["id"], "kept": kept, **_outcome_json(o)} for o in done.outcomes]
        )
        return
    lines = replay.report_lines(replay.Report([done]))
    say("\n".join(printable(plain(line)) for line in lines))


def dismiss(
    entry: Annotated[str, typer.Argument(metavar="ENTRY", help="The entry's id (a prefix).")],
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why it is not to be recorded.")
    ],
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Drop one journal entry for good, with a reason (kept in coop-journal.dismissed)."""
    from gitcoop.service import replay

    dropped = replay.dismiss(make_context(actor), entry, reason)
    if as_json:
        render.emit_json(dropped)
    else:
        say(printable(f"dismissed journal entry {dropped['id'][:8]}"))


def _run_hook(body: Callable[[], list[str]]) -> None:
    try:
        lines = body()
    except CoopError as error:
        lines = [f"gitcoop: hook skipped: {error.message}"]
    except Exception as error:  # a hook must never fail the git command
        lines = [f"gitcoop: hook failed unexpectedly ({type(error).__name__}: {error})"]
    for line in lines:
        warn(printable(line))


WORDS = {
    "installed": "installed",
    "chained": "gitcoop's line added; the hook there keeps running first",
    "updated": "updated to this gitcoop",
    "unchanged": "already installed and current",
    "removed": "removed",
    "restored": f"removed; NAME{hooks.LEGACY_SUFFIX} put back",
    "absent": "not installed",
    "foreign": "not gitcoop's hook; left alone",
    "advised": "left as it is",
    "unchained": "gitcoop's line removed",
}


def _change_line(change: hooks.HookChange) -> str:
    line = f"{change.path}: {WORDS[change.action].replace('NAME', change.name)}"
    return printable(f"{line} — {change.advice}" if change.advice else line)


def _print_changes(changes: list[hooks.HookChange], as_json: bool) -> None:
    if as_json:
        render.emit_json([asdict(c) for c in changes])
        return
    for change in changes:
        say(_change_line(change))
