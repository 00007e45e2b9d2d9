"""init, add, list, show, log, and the transitions of todos and requests.

Service and render modules are imported inside the commands, so a command
loads only what it runs (reads never load the writer's lock or YAML dumper).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

import click
import typer

from gitcoop.cli.compact import more_line
from gitcoop.cli.options import (
    KINDS,
    AsOpt,
    ExpectOpt,
    ForceOpt,
    JsonOpt,
    KindOpt,
    LimitOpt,
    OfflineOpt,
    SessionOpt,
    WideOpt,
    make_context,
)
from gitcoop.cli.terminal import Styled, printable, say, warn
from gitcoop.domain.lifecycle import SORTS, STATUSES
from gitcoop.errors import CoopError, UsageError

if TYPE_CHECKING:
    from gitcoop.domain.records import Evidence
    from gitcoop.service.context import Context
    from gitcoop.service.queries import ListFilter, Rows
    from gitcoop.service.writer import Shown

IdArg = Annotated[str, typer.Argument(metavar="ID", help="An item id or any unique prefix.")]
SummaryOpt = Annotated[
    str | None, typer.Option("--summary", help="What was done (the result summary).")
]
CommitOpt = Annotated[
    str | None,
    typer.Option("--commit", help="The commit that did it: a sha or a revision this clone has."),
]
CommitElsewhereOpt = Annotated[
    bool,
    typer.Option(
        "--commit-elsewhere",
        help="Record --commit as given when this clone does not have that commit "
        "(another clone's, or not fetched yet).",
    ),
]
EvidenceOpt = Annotated[
    list[str] | None,
    typer.Option("--evidence", metavar="PATH:LINE[:QUOTE]", help="Where the code shows it."),
]
SourceOpt = Annotated[
    str | None,
    typer.Option(
        "--source",
        metavar="SOURCE",
        click_type=click.Choice(("scan", "human", "loop", "undo")),
        help="Queue items: scan, human (default), loop or undo.",
        show_default=False,
    ),
]
ReasonOpt = Annotated[str | None, typer.Option("--reason", metavar="TEXT", help="Why.")]
NeededReasonOpt = Annotated[str, typer.Option("--reason", metavar="TEXT", help="Why.")]
TagsOpt = Annotated[
    list[str] | None,
    typer.Option("--tag", metavar="TAG", help="A tag; repeat for several (--tag a --tag b)."),
]
PriorityOpt = Annotated[
    int | None,
    typer.Option(
        "-p", "--priority", metavar="0-4", min=0, max=4, help="0 is the highest, 4 the lowest."
    ),
]
BodyOpt = Annotated[str | None, typer.Option("--body", help="A longer description.")]
BodyFileOpt = Annotated[
    str | None,
    typer.Option("--body-file", metavar="FILE", help="Read the body from FILE (- for stdin)."),
]


DUE_HELP = (
    "The item's own deadline (not an obligation's review due time): a date (2026-12-24, "
    "due at the end of that day, UTC), a time (2026-12-24T17:00, UTC unless it names an "
    "offset) or a duration from now (36h, 3d, 2w)."
)
DueOpt = Annotated[str | None, typer.Option("--due", metavar="DATE|DURATION", help=DUE_HELP)]


def due_instant(text: str, now: datetime, option: str = "--due", clears: bool = False) -> str:
    """`--due` as the instant an event records, or a one-line usage error (which says
    that `none` clears it where it does: `edit`)."""
    from gitcoop.domain import fields

    try:
        return fields.due_at(text, now)
    except ValueError as bad:
        none = f"; {fields.NO_DUE} clears it" if clears else ""
        raise UsageError(
            f"{option} {text!r}: {bad} — use a date (2026-12-24), a time "
            f"(2026-12-24T17:00) or a duration from now (36h, 3d, 2w){none}"
        ) from None


def checked_shape(
    title: str | None, tags: list[str] | None, priority: int | None, body: str | None
) -> None:
    """A usage error, before anything is written, for a value out of its bounds."""
    from gitcoop.domain import fields

    problems = [
        fields.title_problem(title) if title is not None else None,
        *(fields.tag_problem(tag) for tag in tags or ()),
        fields.priority_problem(priority) if priority is not None else None,
        fields.body_problem(body) if body is not None else None,
    ]
    for problem in problems:
        if problem:
            raise UsageError(problem)


def print_written(shown: Shown, as_json: bool, verb: str) -> None:
    """One line for what the write did (`amended` for an amendment), then what the
    rules had to say about it (domain/remarks), each on its own line."""
    notes = list(shown.notes)
    if as_json or notes:
        from gitcoop.cli import render

        notes = [printable(note) for note in notes]
    if as_json:
        render.emit_json(render.item_json(shown))
        return
    if not shown.wrote:
        why = notes.pop(0) if notes else "it already records that"
        say(f"{shown.label} unchanged — {why}")
    else:
        past = "amended" if shown.verb == "edit" and verb != "edited" else verb
        say(f"{past} {shown.label}: {shown.item.title} [{shown.item.status}]")
    for note in notes:
        say(f"  {note}")


def commit_checked(commit: str | None, elsewhere: bool) -> bool:
    """--commit-elsewhere, which only goes with --commit."""
    if elsewhere and commit is None:
        raise UsageError("--commit-elsewhere goes with --commit SHA")
    return elsewhere


def tell_as_given(ctx: Context, commit: str | None, elsewhere: bool) -> None:
    """Say plainly, after the write, that a commit this clone lacks was recorded as given."""
    from gitcoop.service.context import commit_here

    if elsewhere and commit is not None and not commit_here(ctx, commit):
        warn(f"gitcoop: commit {commit[:12]} is not in this repository — recorded as given")


def lost_line(conflicts: list[dict[str, Any]], label: str, actor: str | None) -> str:
    """Under an item in `list --mine`: which of the actor's events lost, and what to do."""

    verbs = [c["verb"] for c in conflicts if c["actor"] == actor and not c.get("acknowledged")]
    return printable(
        f"    your {', '.join(verbs)} lost on merge: you no longer hold this — "
        f"git coop ack {label} once you have stopped"
    )


def _hinted(ctx: Context) -> bool:
    """Whether the hooks install hint was given in this clone already (its marker file)."""
    from gitcoop.service.process import hooks_hinted

    try:
        return hooks_hinted(ctx.repo().common_dir)
    except CoopError:
        return False


def init(
    actor: AsOpt = None,
    with_hooks: Annotated[
        bool,
        typer.Option("--hooks", help="Also install the git hooks (git coop hooks install)."),
    ] = False,
    new: Annotated[
        bool,
        typer.Option(
            "--new",
            help="Start a ledger here even though a remote has one, or cannot be asked "
            "(otherwise refused: two ledgers started apart never merge).",
        ),
    ] = False,
    as_json: JsonOpt = False,
) -> None:
    """Create the ledger on refs/coop/ledger (idempotent); you become an owner.

    Also keeps ledger commits out of git log views (undo: git coop hide-ledger --undo).
    In a clone, a remote's ledger is shared instead (git coop remote setup origin &&
    git coop sync): init refuses when a remote has one, unless --new.
    """
    from gitcoop.cli import render
    from gitcoop.cli.history_commands import hide_after_setup
    from gitcoop.cli.hooks_commands import install_or_hint
    from gitcoop.service import ledger

    ctx = make_context(actor)
    if not new:
        ledger.refuse_if_shared(ctx)
    created, config = ledger.init(ctx)
    hooked, hook_lines = install_or_hint(ctx, with_hooks)
    views, view_lines = hide_after_setup(ctx)
    if as_json:
        extra = {"hooks": hooked, "history_view": views}
        render.emit_json({"created": created, **config.to_data(), **extra})
    elif created:
        say(f"initialised refs/coop/ledger; owners: {', '.join(config.roles.owners)}")
    else:
        say("refs/coop/ledger already exists; nothing changed")
    for line in hook_lines + view_lines:  # notices on stderr; --json keeps stdout JSON
        if line.startswith("gitcoop:"):
            warn(line)
        elif not as_json:
            say(line)


KindArg = Annotated[
    str,
    typer.Argument(metavar="KIND", click_type=click.Choice(KINDS), help="todo|request|item."),
]
TitleArg = Annotated[str, typer.Argument(metavar="TITLE", help="A one-line title.")]
DiscoveredFromOpt = Annotated[
    str | None,
    typer.Option("--discovered-from", metavar="ID", help="Found while doing ID: links them."),
]
FollowsOpt = Annotated[
    str | None,
    typer.Option(
        "--follows",
        metavar="ID",
        help="Carries on settled work ID, which stays the record: links them.",
    ),
]


def add(
    kind: KindArg,
    title: TitleArg,
    body: BodyOpt = None,
    body_file: BodyFileOpt = None,
    tag: TagsOpt = None,
    priority: PriorityOpt = None,
    due: DueOpt = None,
    discovered_from: DiscoveredFromOpt = None,
    follows: FollowsOpt = None,
    evidence: EvidenceOpt = None,
    source: SourceOpt = None,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """File a new todo, request or queue item; prints its id.

    --due sets the item's own deadline, which `list`, `show`, `status` and `ready`
    show; it is separate from the review due time of what a take owes."""
    from gitcoop.cli import body as bodies
    from gitcoop.cli import render
    from gitcoop.service import ledger, queue

    text = bodies.from_options(body, body_file)
    checked_shape(title, tag, priority, text)
    tags = tuple(dict.fromkeys(tag or ()))
    ctx = make_context(actor)
    due_at = due_instant(due, ctx.now) if due is not None else None
    fields: dict[str, Any] = {"body": text or None, "priority": priority, "due": due_at}
    fields |= {"discovered_from": discovered_from, "follows": follows}
    if kind == "item":
        cited = _cited(ctx, evidence)
        shown = queue.add_item(ctx, title.strip(), tags, cited, source or "human", **fields)
    elif evidence or source:
        raise UsageError("--evidence and --source are for queue items: git coop add item ...")
    else:
        shown = ledger.add(ctx, kind, title.strip(), tags=list(tags), **fields)
    if as_json:
        render.emit_json(render.item_json(shown))
    else:
        say(shown.label)


def _cited(ctx: Context, evidence: list[str] | None) -> tuple[Evidence, ...]:
    """`add item --evidence`: each citation read, and checked against the code (a warning
    for each one it does not show)."""
    from gitcoop.service import queue

    cited = tuple(queue.parse_evidence(spec) for spec in evidence or [])
    cited, warnings = queue.check_evidence(ctx, cited)
    for warning in warnings:
        warn(f"warning: --evidence {printable(warning)}")
    return cited


AllWorkOpt = Annotated[bool, typer.Option("--all", help="Include settled work.")]
StatusOpt = Annotated[
    str | None,
    typer.Option(
        "--status",
        metavar="STATUS",
        click_type=click.Choice(STATUSES),
        help=f"Only this status (settled ones too): {', '.join(STATUSES)}.",
        show_default=False,
    ),
]
HolderOpt = Annotated[
    str | None,
    typer.Option(
        "--holder",
        metavar="WHO",
        help="Only work held now by someone whose identity starts with WHO (bob).",
    ),
]
OnlyTagOpt = Annotated[str | None, typer.Option("--tag", metavar="TAG", help="Only this tag.")]
GrepOpt = Annotated[
    str | None,
    typer.Option(
        "--grep",
        metavar="TEXT",
        help="Only items whose title, body or notes contain TEXT (any case): work in "
        "view, and settled work too with --all or a settled --status.",
    ),
]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="WHEN",
        help="Only items changed since WHEN: a duration back from now (2d, 12h) or "
        "a date (2026-11-01).",
    ),
]
OwedOnlyOpt = Annotated[bool, typer.Option("--owed", help="Only items whose obligation is due.")]
DueBeforeOpt = Annotated[
    str | None,
    typer.Option(
        "--due-before",
        metavar="DATE|DURATION",
        help="Only items whose own deadline (set by --due; not an obligation's "
        "review due time) is at or before DATE (2026-12-24: by the end of that "
        "day) or within DURATION from now (3d).",
    ),
]
OverdueOpt = Annotated[
    bool,
    typer.Option("--overdue", help="Only unsettled items whose own deadline (--due) has passed."),
]
StaleOpt = Annotated[bool, typer.Option("--stale", help="Only takes older than 2h.")]
MineOpt = Annotated[
    bool,
    typer.Option(
        "--mine",
        help="Only what you hold, takeovers of your work and your events lost on a merge.",
    ),
]
SortOpt = Annotated[
    str,
    typer.Option(
        "--sort",
        metavar="KEY",
        click_type=click.Choice(SORTS),
        help="created (oldest first), updated (latest change first), priority "
        "(0 first), due (an obligation's review due time, soonest first) or "
        "deadline (the item's own due date, set by --due; soonest first).",
    ),
]


def list_(
    include_all: AllWorkOpt = False,
    kind: KindOpt = None,
    status: StatusOpt = None,
    holder: HolderOpt = None,
    tag: OnlyTagOpt = None,
    grep: GrepOpt = None,
    since: SinceOpt = None,
    owed: OwedOnlyOpt = False,
    due_before: DueBeforeOpt = None,
    overdue: OverdueOpt = False,
    stale: StaleOpt = False,
    mine: MineOpt = False,
    sort: SortOpt = "created",
    limit: LimitOpt = None,
    wide: WideOpt = False,
    actor: AsOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Open and taken work; settled work is counted on one line.

    Filters combine (each narrows the list); the list is served from the read cache.
    """
    from gitcoop.service import queries

    if limit is not None and limit < 0:
        raise UsageError("-n must be 0 or more")
    ctx = make_context(actor)
    where = queries.ListFilter(kind, status, holder, tag, owed, stale, mine)
    where = _list_filter(ctx, where, grep, since, due_before, overdue)
    found = queries.list_rows(ctx, include_all, where, sort, limit)
    if as_json:
        _emit_rows_json(found)
    else:
        _print_listing(ctx, found, where, wide)


def _list_filter(
    ctx: Context,
    where: ListFilter,
    grep: str | None,
    since: str | None,
    due_before: str | None,
    overdue: bool,
) -> ListFilter:
    """`list`'s filters with their times read on the clock, and `--mine`'s lost events."""
    since_at = None
    if since is not None:
        from gitcoop.service.search import since_instant

        since_at = since_instant(since, ctx.now)
    where = replace(where, grep=grep or None, since=since_at, overdue=overdue)
    if due_before is not None:
        where = replace(where, due_before=due_instant(due_before, ctx.now, "--due-before"))
    if where.mine:
        from gitcoop.service import lost

        where = lost.mine(ctx, where)
    return where


def _emit_rows_json(found: Rows) -> None:
    """A listing's --json, from the text the cache keeps for each item; how many more
    a limit left out goes to stderr, so stdout stays an array (`list`, `ready`)."""
    from gitcoop.cli import render

    render.emit_listing([row.json for row in found.listed])
    if found.more:
        warn(more_line(found.more))


def _print_listing(ctx: Context, found: Rows, where: ListFilter, wide: bool) -> None:
    """`list` as text: the table, what is lost under each of the viewer's items, then
    how many more, settled or unsearched items were left out."""
    from gitcoop.cli import render
    from gitcoop.service.queries import ListFilter

    if not found.listed and not found.settled:
        if where != ListFilter():
            say("nothing matches these filters")
        else:
            say("the ledger is empty — add work with: git coop add todo TITLE")
    # from the cached summaries: no item is built for a line
    lines: list[str] = list(render.summary_lines(found.listed, ctx.now, wide, found.viewer))
    if where.lost:  # what is lost under each of the viewer's items, after its line
        laid, lines = lines, []
        for line, row in zip(laid, found.listed, strict=True):
            lines.append(line)
            if row.item_id in where.lost:
                lines.append(lost_line(row.data()["conflicts"], row.label, found.viewer))
    if lines:
        say(Styled("\n".join(lines)))
    if found.more:
        say(more_line(found.more).removeprefix("gitcoop: "))
    if found.settled:
        counts = ", ".join(f"{n} {s}" for s, n in sorted(found.settled.items()))
        say(f"settled: {counts} — git coop list --all shows them")
    if found.unsearched:
        say("settled work was not searched — git coop list --all --grep … searches it too")


def show(item: IdArg, as_json: JsonOpt = False) -> None:
    """Everything the ledger holds about one item.

    Its fields, body, tags and priority, what it owes, its links both ways (and any
    cycle they form), and its notes."""
    from gitcoop.cli import render
    from gitcoop.service import queries

    ctx = make_context()
    found = queries.detail(ctx, item)
    if as_json:
        data = render.item_json(found.shown)
        data["notes"] = [note.to_data() for note in found.notes]
        data["dependencies"] = found.links.to_data()
        render.emit_json(data)
    else:
        say(render.item_details(found.shown, ctx.now, found.notes, found.links))


def log(
    item: Annotated[
        str | None, typer.Argument(metavar="[ID]", help="One item (default: every item).")
    ] = None,
    as_json: JsonOpt = False,
) -> None:
    """The event log, oldest first: of one item, or of the whole ledger."""
    from gitcoop.cli import render
    from gitcoop.service import queries

    entries = queries.log(make_context(), item)
    if as_json:
        render.emit_json([render.event_json(e) for e in entries])
    else:
        for entry in entries:
            say(render.log_line(entry))


def _transition(
    verb: str,
    past: str,
    item: str,
    args: dict[str, Any],
    actor: str | None,
    session: str | None,
    expect: int | None,
    as_json: bool,
    offline: bool = False,
    commit_elsewhere: bool = False,
) -> None:
    from gitcoop.service import ledger

    ctx = make_context(actor, session, expect, offline)
    given = {k: v for k, v in args.items() if v}
    shown = ledger.act(ctx, item, verb, given, commit_checked(args.get("commit"), commit_elsewhere))
    print_written(shown, as_json, past)
    tell_as_given(ctx, args.get("commit"), commit_elsewhere)
    if verb == "take" and not _hinted(ctx):  # said once: later takes load nothing for it
        from gitcoop.cli.hooks_commands import hint_on_take

        hint_on_take(ctx)


def take(
    item: IdArg,
    force: ForceOpt = False,
    actor: AsOpt = None,
    session: SessionOpt = None,
    expect: ExpectOpt = None,
    offline: OfflineOpt = False,
    as_json: JsonOpt = False,
) -> None:
    """Claim an open item. Refuses, naming the holder, if someone else has it.

    With claims through a remote (git coop remote setup REMOTE --claims), the
    remote decides: exit 0 only once the claim is there; exit 7 when it
    cannot be reached.
    """
    args = {"force": force}
    _transition("take", "took", item, args, actor, session, expect, as_json, offline)


def release(
    item: IdArg,
    reason: NeededReasonOpt,
    force: ForceOpt = False,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Give a taken item back, saying why.

    Releasing someone else's take needs the owner or chief role and --force."""
    if not reason.strip():
        raise UsageError("release needs a --reason: say why the work goes back")
    args = {"reason": reason, "force": force}
    _transition("release", "released", item, args, actor, None, expect, as_json)


def done(
    item: IdArg,
    summary: SummaryOpt = None,
    commit: CommitOpt = None,
    commit_elsewhere: CommitElsewhereOpt = False,
    force: ForceOpt = False,
    actor: AsOpt = None,
    session: SessionOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Finish a todo (an open one in one call). A second done only amends."""
    args = {"summary": summary, "commit": commit, "force": force}
    elsewhere = commit_elsewhere
    _transition("done", "done", item, args, actor, session, expect, as_json, False, elsewhere)


def close(
    item: IdArg,
    summary: SummaryOpt = None,
    commit: CommitOpt = None,
    commit_elsewhere: CommitElsewhereOpt = False,
    reason: ReasonOpt = None,
    force: ForceOpt = False,
    actor: AsOpt = None,
    session: SessionOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Close a request or queue item. The first close is the record."""
    args = {"summary": summary, "commit": commit, "reason": reason, "force": force}
    elsewhere = commit_elsewhere
    _transition("close", "closed", item, args, actor, session, expect, as_json, False, elsewhere)


def abandon(
    item: IdArg,
    reason: NeededReasonOpt,
    force: ForceOpt = False,
    actor: AsOpt = None,
    expect: ExpectOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Give up on a todo for good (needs --reason)."""
    if not reason.strip():
        raise UsageError("abandon needs a --reason: say why the work is dropped")
    args = {"reason": reason, "force": force}
    _transition("abandon", "abandoned", item, args, actor, None, expect, as_json)


def register(app: typer.Typer) -> None:
    app.command()(init)
    app.command()(add)
    app.command("list")(list_)
    app.command()(show)
    app.command()(log)
    app.command()(take)
    app.command()(release)
    app.command()(done)
    app.command()(close)
    app.command()(abandon)
