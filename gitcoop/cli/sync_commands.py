"""remote setup, sync, push, pull, and resolve: sharing the ledger and settling conflicts."""

from __future__ import annotations

from typing import Annotated, Any

import typer

from gitcoop.cli import render
from gitcoop.cli.helptext import CoopGroup
from gitcoop.cli.options import AsOpt, ExpectOpt, JsonOpt, make_context
from gitcoop.cli.terminal import printable, say, warn
from gitcoop.errors import LostOnMerge, UsageError
from gitcoop.service import sync
from gitcoop.service.sync import SyncReport

RemoteArg = Annotated[
    str | None,
    typer.Argument(
        metavar="[REMOTE]",
        help="A configured git remote (default: the one git config coop.claims names, else "
        "origin).",
        show_default=False,
    ),
]

ClaimsOpt = Annotated[
    bool | None,
    typer.Option(
        "--claims/--no-claims",
        help="Have REMOTE decide every take, takeover and pick (git config coop.claims), "
        "so clones on several machines never both get one item; or stop.",
        show_default=False,
    ),
]


def claims_line(remote: str, deciding: str | None) -> str:
    if deciding == remote:
        return (
            f"{remote} now decides claims: take and pick exit 0 only once {remote} has them, "
            "and every write is pushed to it"
        )
    if deciding is None:
        return "claims are decided in each clone again (coop.claims is unset)"
    return f"claims are decided by {deciding}, not {remote} (coop.claims)"


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
        "lost": [
            {"item": n.item, "short_id": n.label, "event": n.event, "message": n.text}
            for n in report.lost
        ],
        "unsigned": report.unsigned,
        "rewritten": report.rewritten,
    }


def stop_if_lost(report: SyncReport, as_json: bool) -> None:
    """Exit 8 when the merge refused one of the acting person's own events (after the
    report; under --json the report travels inside the error: its `lost` list says which)."""
    if not report.lost:
        return
    items = sorted({n.label or n.item for n in report.lost})
    count = f"{len(report.lost)} of your own events" if len(report.lost) > 1 else "your own event"
    raise LostOnMerge(
        f"{count} lost on merge ({', '.join(items)}) — stop working on what you no longer "
        "hold; git coop list --mine shows it until you acknowledge it: "
        f"git coop ack {items[0] if len(items) == 1 else 'ID'}",
        details=report_json(report) if as_json else None,
    )


def print_report(report: SyncReport, as_json: bool, verb: str) -> None:
    if as_json:
        if not report.lost:  # else the report is the error's (stop_if_lost)
            render.emit_json(report_json(report))
        return
    parts = [DONE.get(report.merged, report.merged)] if verb != "push" else []
    if report.pushed:
        parts.append("pushed")
    tip = (report.tip or "")[:10]
    say(f"{verb} {report.remote}: {', '.join(parts) or 'nothing to do'} (ledger at {tip})")
    for notice in report.notices:
        say(f"conflict: {printable(notice.text)}")
    if report.rewritten:
        warn(
            f"{printable(report.rewritten)} — this clone's history was put back first "
            f"and pushed to {report.remote}"
        )
    if report.unsigned:
        warn(unsigned_line(report.remote, len(report.unsigned)))


def unsigned_line(remote: str, count: int) -> str:
    events = "1 event" if count == 1 else f"{count} events"
    return (
        f"refused {events} from {remote} where they joined: their commits were not signed by "
        "their authors' registered keys (require_signed); they show as conflicts an owner "
        "settles (git coop resolve ID EVENT --apply|--dismiss --reason R; fsck --full lists "
        "them)"
    )


AcceptRewriteOpt = Annotated[
    bool,
    typer.Option(
        "--accept-rewrite",
        help="Take the remote's history as it now is, though it no longer holds what this "
        "clone took in last first (a deliberate rewrite); your events join after it.",
    ),
]


def setup(
    remote: Annotated[str, typer.Argument(metavar="REMOTE", help="A configured git remote.")],
    claims: ClaimsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Make plain `git fetch REMOTE` bring the ledger to refs/coop/remotes/REMOTE/ledger.

    Also keeps ledger commits out of git log views (undo: git coop
    hide-ledger --undo). --claims makes REMOTE the one place where take,
    takeover and pick are decided (git config coop.claims REMOTE), for
    clones on several machines.
    """
    from gitcoop.cli.history_commands import hide_after_setup

    ctx = make_context()
    added, refspec = sync.setup_remote(ctx, remote)
    deciding = None if claims is None else sync.set_claims(ctx, remote, claims)
    views, view_lines = hide_after_setup(ctx)
    if as_json:
        data: dict[str, Any] = {
            "remote": remote,
            "refspec": refspec,
            "added": added,
            "history_view": views,
        }
        if claims is not None:
            data["claims"] = deciding
        render.emit_json(data)
        return
    if refspec is None:
        say(
            f"{remote} is a partial clone's remote: a plain git fetch would bring the ledger "
            "without its blobs, so none is set up for it; git coop sync brings it whole"
        )
    elif added:
        say(f"git fetch {remote} now brings the ledger ({refspec}); share it: git coop sync")
    else:
        say(f"{remote} already fetches the ledger ({refspec})")
    if claims is not None:
        say(claims_line(remote, deciding))
    for line in view_lines:
        warn(line)


def sync_(
    remote: RemoteArg = None,
    accept_rewrite: AcceptRewriteOpt = False,
    put_back: Annotated[
        bool,
        typer.Option(
            "--put-back",
            help="Put this clone's history back first even where the remote holds it "
            "aside, behind a merge of someone else's (exit 10 says when).",
        ),
    ] = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fetch the remote's ledger, merge it, push the result (retrying if it moved).

    The remote's history is the order: this clone's unpublished events join
    after what the remote holds. Exits 8 when that refused one of your own
    events (a take that lost to an earlier one): stop working on that item;
    list --mine shows it until git coop ack ID. Exits 10 when the remote's
    history was rewritten and this clone cannot put it back (the message
    says what happened and what to run); a remote that lost history this
    clone holds gets it back, with a warning.
    """
    if accept_rewrite and put_back:
        raise UsageError("--accept-rewrite and --put-back pull opposite ways — give one")
    report = sync.sync(make_context(actor), remote, accept_rewrite, put_back)
    print_report(report, as_json, "sync")
    stop_if_lost(report, as_json)


def pull(
    remote: RemoteArg = None,
    accept_rewrite: AcceptRewriteOpt = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Fetch the remote's ledger and merge it into this clone's; push nothing.

    Exits 8, like sync, when the merge refused one of your own events, and 10
    when the remote's history was rewritten (git coop sync puts it back).
    """
    report = sync.pull(make_context(actor), remote, accept_rewrite)
    print_report(report, as_json, "pull")
    stop_if_lost(report, as_json)


def push(remote: RemoteArg = None, actor: AsOpt = None, as_json: JsonOpt = False) -> None:
    """Push this clone's ledger; refused if the remote has events this clone lacks."""
    print_report(sync.push(make_context(actor), remote), as_json, "push")


def resolve(
    item: Annotated[str, typer.Argument(metavar="ID", help="The item with the conflict.")],
    event: Annotated[str, typer.Argument(metavar="EVENT", help="The refused event's id.")],
    reason: Annotated[
        str, typer.Option("--reason", metavar="TEXT", help="Why it is settled this way.")
    ],
    apply: Annotated[bool, typer.Option("--apply", help="Re-apply it with force.")] = False,
    dismiss: Annotated[bool, typer.Option("--dismiss", help="Let it stay refused.")] = False,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Settle a merge conflict (owners): re-apply the refused event, or dismiss it."""
    if apply == dismiss:
        raise UsageError("resolve needs exactly one of --apply or --dismiss")
    if not reason.strip():
        raise UsageError("resolve needs --reason: say why the conflict is settled this way")
    ctx = make_context(actor, None, expect)
    decision = "apply" if apply else "dismiss"
    from gitcoop.service import resolution  # a sync never loads the writer's verbs

    shown = resolution.resolve(ctx, item, event, decision, reason.strip())
    if as_json:
        render.emit_json(render.item_json(shown))
    else:
        title = printable(shown.item.title)
        say(f"resolved {shown.label} ({decision}): {title} [{shown.item.status}]")


def register(app: typer.Typer) -> None:
    remote_app = typer.Typer(
        cls=CoopGroup,
        suggest_commands=False,
        help="Connect git remotes to the ledger.",
        no_args_is_help=True,
    )
    app.add_typer(remote_app, name="remote")
    remote_app.command("setup")(setup)
    app.command("sync")(sync_)
    app.command()(pull)
    app.command()(push)
    app.command()(resolve)
