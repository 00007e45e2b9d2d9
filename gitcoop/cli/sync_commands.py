"""remote setup, sync, push, pull, and resolve: sharing the ledger and settling conflicts."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.options import AsOpt, ExpectOpt, JsonOpt, SessionOpt, make_context
from gitcoop.cli.terminal import printable, say
from gitcoop.errors import UsageError
from gitcoop.service import resolution, sync
from gitcoop.service.sync import SyncReport

RemoteArg = Annotated[
    str, typer.Argument(metavar="[REMOTE]", help="A configured git remote (default: origin).")
]

DONE = {
    "new": "fetched the ledger",
    "up-to-date": "already up to date",
    "ahead": "this clone is ahead",
    "fast-forward": "fast-forwarded",
    "merged": "merged",
    "none": "the remote has no ledger yet",
}


def report_json(report: SyncReport) -> dict[str, Any]:
    return {
        "remote": report.remote,
        "merge": report.merged,
        "pushed": report.pushed,
        "attempts": report.attempts,
        "tip": report.tip,
        "conflicts": [
            {"item": n.item, "event": n.event, "mine": n.mine, "message": n.text}
            for n in report.notices
        ],
    }


def print_report(report: SyncReport, as_json: bool, verb: str) -> None:
    if as_json:
        render.emit_json(report_json(report))
        return
    parts = [DONE.get(report.merged, report.merged)] if verb != "push" else []
    if report.pushed:
        parts.append("pushed")
    tip = (report.tip or "")[:10]
    say(f"{verb} {report.remote}: {', '.join(parts) or 'nothing to do'} (ledger at {tip})")
    for notice in report.notices:
        say(f"conflict: {printable(notice.text)}")


def register(app: typer.Typer) -> None:
    remote_app = typer.Typer(help="Connect git remotes to the ledger.", no_args_is_help=True)
    app.add_typer(remote_app, name="remote")

    @remote_app.command("setup")
    def setup(
        remote: Annotated[str, typer.Argument(metavar="REMOTE", help="A configured git remote.")],
        as_json: JsonOpt = False,
    ) -> None:
        """Make plain `git fetch REMOTE` bring the ledger to refs/coop/remotes/REMOTE/ledger."""
        added, refspec = sync.setup_remote(make_context(), remote)
        if as_json:
            render.emit_json({"remote": remote, "refspec": refspec, "added": added})
        elif added:
            say(f"git fetch {remote} now brings the ledger ({refspec}); share it: git coop sync")
        else:
            say(f"{remote} already fetches the ledger ({refspec})")

    @app.command("sync")
    def sync_(remote: RemoteArg = "origin", actor: AsOpt = None, as_json: JsonOpt = False) -> None:
        """Fetch the remote's ledger, merge it, push the result (retrying if it moved)."""
        print_report(sync.sync(make_context(actor), remote), as_json, "sync")

    @app.command()
    def pull(remote: RemoteArg = "origin", actor: AsOpt = None, as_json: JsonOpt = False) -> None:
        """Fetch the remote's ledger and merge it into this clone's; push nothing."""
        print_report(sync.pull(make_context(actor), remote), as_json, "pull")

    @app.command()
    def push(remote: RemoteArg = "origin", actor: AsOpt = None, as_json: JsonOpt = False) -> None:
        """Push this clone's ledger; refused if the remote has events this clone lacks."""
        print_report(sync.push(make_context(actor), remote), as_json, "push")

    @app.command()
    def resolve(
        item: Annotated[str, typer.Argument(metavar="ID", help="The item with the conflict.")],
        event: Annotated[str, typer.Argument(metavar="EVENT", help="The refused event's id.")],
        apply: Annotated[bool, typer.Option("--apply", help="Re-apply it with force.")] = False,
        dismiss: Annotated[bool, typer.Option("--dismiss", help="Let it stay refused.")] = False,
        reason: Annotated[str | None, typer.Option("--reason", help="Why (required).")] = None,
        actor: AsOpt = None,
        session: SessionOpt = None,
        expect: ExpectOpt = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Settle a merge conflict (owners): re-apply the refused event, or dismiss it."""
        if apply == dismiss:
            raise UsageError("resolve needs exactly one of --apply or --dismiss")
        if not reason or not reason.strip():
            raise UsageError("resolve needs --reason: say why the conflict is settled this way")
        ctx = make_context(actor, session, expect)
        decision = "apply" if apply else "dismiss"
        shown = resolution.resolve(ctx, item, event, decision, reason.strip())
        if as_json:
            render.emit_json(render.item_json(shown))
        else:
            title = printable(shown.item.title)
            say(f"resolved {shown.label} ({decision}): {title} [{shown.item.status}]")
