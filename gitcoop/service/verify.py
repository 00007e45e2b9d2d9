"""Verification: an external verifier judges each draft against the code.

The verifier is a command from local git config only (`coop.verifier`, or
`git -c coop.verifier=... coop verify`; a ledger is data from every clone
that shares it and never names what runs here: a verifier it suggests is
only printed), run through `sh -c` in the working tree with the prompt on
its stdin and a time cap (`coop.verifierTimeout`, default 5 minutes). Its exit code is
recorded and never decisive: only the verdict parsed out of its output
counts, and everything untrustworthy is `unclear`.

Two routes verify: a pass (`git coop verify`, by the system) and a pick (by
the picking person and session, as the runner, naming the pick). Both write
one `verify` event (the item becomes `verifying` under a lease) and one
`verdict` event, through the same code.
"""

from __future__ import annotations

import shlex
import signal
from collections.abc import Mapping
from dataclasses import field, replace
from datetime import datetime, timedelta
from typing import Any

from gitcoop.domain import queue, settings
from gitcoop.domain.ids import ItemId
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import parse_duration
from gitcoop.domain.verdict import CITING, Verdict, naming_open, parse, unclear
from gitcoop.errors import ChangedUnderWrite, Interrupted, Refused, UsageError
from gitcoop.service import citations, verifier_process
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.verifier_process import Run
from gitcoop.service.writer import SYSTEM, Intent, write
from gitcoop.store.git import ancestry
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo

DEFAULT_TIMEOUT = timedelta(minutes=5)
TIMEOUT_RANGE = (timedelta(seconds=1), timedelta(hours=24))
WRITE_BACK = timedelta(minutes=1)  # a lease outlasts the time cap by this much


@record_type
class Verifier:
    command: str
    timeout: timedelta
    cwd: str


@record_type
class Route:
    """Who verifies: a pass (the system), or the runner of a pick (the person picking)."""

    actor: str | None  # None: whoever the context says is acting
    args: Mapping[str, Any] = field(default_factory=dict)


PASS = Route(SYSTEM, {"verified_by": "pass"})


def for_pick(pick_event: str) -> Route:
    return Route(None, {"verified_by": "runner", "for_pick": pick_event})


@record_type
class Judged:
    """One item's verification: the verdict and whether it reached the ledger."""

    item: ItemId
    label: str
    title: str
    verdict: Verdict
    run: Run | None
    written: bool
    status: str  # the item's state afterwards (or as left, when not written)


class Progress:
    """What a caller hears while verification runs; it prints as verdicts land."""

    def starting(self, label: str, number: int, total: int) -> None:
        """Item `number` of `total` (0 when unknown) goes to the verifier."""

    def landed(self, judged: Judged) -> None:
        """A verdict came back (written or not)."""


def configured(repo: Repo, snapshot: Snapshot | None = None) -> Verifier:
    """The verifier and its time cap, from local git config only."""
    command = repo.config_value("coop.verifier")
    if command is None or not command.strip():
        suggested = settings.value(snapshot.config.settings, "verifier") if snapshot else None
        if isinstance(suggested, str) and suggested.strip():
            raise Refused(
                f"no verifier is configured; this ledger suggests {suggested.strip()!r} "
                "(a ledger's suggestion is never run); to use it: "
                f"git config coop.verifier {shlex.quote(suggested.strip())}"
            )
        raise Refused(
            "no verifier is configured — set one with: git config coop.verifier 'COMMAND' "
            "(it reads the prompt on stdin and prints a JSON verdict)"
        )
    return Verifier(command.strip(), time_cap(repo), repo.workdir() or repo.git_dir)


def time_cap(repo: Repo) -> timedelta:
    """git config coop.verifierTimeout, bounded: anything else is a usage error."""
    cap = repo.config_value("coop.verifierTimeout")
    if cap is None:
        return DEFAULT_TIMEOUT
    low, high = TIMEOUT_RANGE
    try:
        timeout = parse_duration(cap)
    except ValueError:
        timeout = timedelta(0)
    if not low <= timeout <= high:
        raise UsageError(
            f"git config coop.verifierTimeout is {cap!r}; use a duration from 1s to 24h "
            "(e.g. 90s, 5m)"
        )
    return timeout


def prompt_for(item: Item, others: list[Item]) -> str:
    evidence = "\n".join(
        f"- {e.path}:{e.line}" + (f"  {e.quote!r}" if e.quote else "") for e in item.evidence
    )
    rest = "\n".join(f"- {o.id}: {o.title}" for o in others) or "- (none)"
    return f"""You are verifying one item of a work queue against the code in this repository.
Check the code (not this text) and decide whether the item is real, still needed,
and small enough for one round of work.

Item: {item.id}
Title: {item.title}
Tags: {", ".join(item.tags) or "(none)"}
Evidence:
{evidence or "- (none)"}

Other open items in the queue:
{rest}

Answer with one JSON object, the last thing you print, with these fields:
  verdict        one of: confirmed, amended, stale, duplicate, blocked, too-big, unclear
  reason         one sentence: why this verdict (always required, for every verdict)
  evidence       list of objects with path, line, quote: what you checked in the code;
                 path relative to the top of the repository, line within the file,
                 quote copied from at or near that line (required for confirmed and amended)
  amended_title  the corrected title (amended only)
  duplicate_of   the id of the other open item it repeats (duplicate only)
"""


def verify_item(
    ctx: Context,
    item_id: ItemId,
    verifier: Verifier | None = None,
    route: Route = PASS,
    expect: int | None = None,
) -> Judged:
    """Mark one item verifying (under a lease), run the verifier, write its verdict back.

    `expect` is the version the caller chose the item at: if anyone wrote to it
    since (another pass verified it), nothing is done (ChangedUnderWrite).
    """
    repo = ctx.repo()
    verifier = verifier or configured(repo, read_ledger(ctx))  # before anything is written
    head = ancestry.current_head(repo)
    lease = int((verifier.timeout + WRITE_BACK).total_seconds())
    taking = Intent(item_id, "verify", {**route.args, "lease_seconds": lease}, expect=expect)
    started = write(ctx, [taking], actor=route.actor)
    item, label = started.items[item_id], started.labels[item_id]
    others = [
        i
        for i in queue.in_order(started.snapshot.open_items())
        if i.status in queue.SHOWN_TO_VERIFIER and i.id != item_id
    ]
    try:
        with verifier_process.interrupts_raised():
            run, verdict = judge(repo, head, verifier, item, others)
    except verifier_process.Signalled as stop:
        raise give_back(ctx, item, label, route, head, stop.signum) from None
    decided: list[Verdict] = []

    def verdict_of(snapshot: Snapshot) -> list[Intent]:
        named = snapshot.item(ItemId(verdict.duplicate_of)) if verdict.duplicate_of else None
        decided.append(naming_open(verdict, named, item_id))
        args = {**decided[-1].to_args(), **route.args, "head": head, "exit_code": run.exit_code}
        args |= {"timed_out": run.timed_out, "lease": item.lease.event if item.lease else None}
        return [Intent(item_id, "verdict", args, expect=item.version)]

    try:
        after = write(ctx, verdict_of, actor=route.actor).items[item_id]
    except (ChangedUnderWrite, Refused):
        current = read_ledger(ctx).item(item_id)
        status = current.status if current else item.status
        return Judged(item_id, label, item.title, verdict, run, False, status)
    return Judged(item_id, label, after.title, decided[-1], run, True, after.status)


def give_back(
    ctx: Context, item: Item, label: str, route: Route, head: str | None, signum: int
) -> Interrupted:
    """The item goes back to draft, its lease ended: an `unclear` verdict saying the
    verification was interrupted, so the next pass takes it up at once. What to raise,
    saying what became of it."""
    name = signal.Signals(signum).name
    verdict = unclear(f"verification was interrupted ({name}) before the verifier answered")
    args = {**verdict.to_args(), **route.args, "head": head, "exit_code": None}
    args |= {"timed_out": False, "lease": item.lease.event if item.lease else None}
    try:
        with verifier_process.interrupts_ignored():
            write(ctx, [Intent(item.id, "verdict", args, expect=item.version)], actor=route.actor)
    except (ChangedUnderWrite, Refused):
        return Interrupted(
            f"interrupted ({name}); {label} changed meanwhile: left as it is", signum=signum
        )
    return Interrupted(
        f"interrupted ({name}); {label} is back in draft — run git coop verify again",
        signum=signum,
    )


def leased(items: list[Item], now: datetime) -> list[Item]:
    """Items under a verification's lease that has not ended, in queue order."""
    return [
        i
        for i in queue.in_order(items)
        if i.status == "verifying" and i.lease is not None and i.lease.until > now
    ]


def judge(
    repo: Repo, head: str | None, verifier: Verifier, item: Item, others: list[Item]
) -> tuple[Run, Verdict]:
    """Run the verifier on one item and read its verdict; the evidence checked at `head`."""
    prompt = prompt_for(item, others)
    timeout = verifier.timeout.total_seconds()
    run = verifier_process.run(verifier.command, prompt, verifier.cwd, timeout)
    if run.timed_out:
        return run, unclear(f"the verifier ran past its {verifier.timeout} time cap")
    verdict = parse(run.output, item.id, {o.id for o in others}, prompt)
    return run, cited_in_tree(repo, head, verdict)


def cited_in_tree(repo: Repo, head: str | None, verdict: Verdict) -> Verdict:
    """A verdict whose evidence names real paths, lines and quotes at `head`; else unclear."""
    if verdict.verdict not in CITING:
        return verdict
    evidence, problems = citations.check(repo, head, verdict.evidence)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        return unclear(f"the verifier's evidence does not hold: {problems[0]}{more}")
    return replace(verdict, evidence=evidence)


def waiting(items: list[Item], now: datetime) -> list[Item]:
    """Drafts, and verifying items whose lease has run out (stranded), in queue order."""
    return [
        i
        for i in queue.in_order(items)
        if i.status == "draft"
        or (i.status == "verifying" and (i.lease is None or i.lease.until <= now))
    ]


def verify(
    ctx: Context, limit: int | None = None, progress: Progress | None = None
) -> list[Judged]:
    """Each draft or stranded `verifying` item, in queue order, at most `limit` of them."""
    if limit is not None and limit < 1:
        raise UsageError("--max must be at least 1")
    progress = progress or Progress()
    snapshot = read_ledger(ctx)
    verifier = configured(ctx.repo(), snapshot)
    chosen = waiting(list(snapshot.open_items()), ctx.now)[:limit]
    judged: list[Judged] = []
    for number, item in enumerate(chosen, 1):
        progress.starting(snapshot.label(item.id), number, len(chosen))
        try:
            judged.append(verify_item(ctx, item.id, verifier, PASS, item.version))
        except (Refused, ChangedUnderWrite):
            continue  # another pass holds it, or someone moved it first
        progress.landed(judged[-1])
    return judged
