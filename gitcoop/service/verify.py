"""Verification: an external verifier judges each draft against the code.

The verifier is a command from local git config only (`git config
coop.verifier`, or `git -c coop.verifier=... coop verify`) run through `sh -c`
in the working tree, the prompt on its stdin, with a time cap
(`coop.verifierTimeout`, default 5 minutes). A ledger arrives from every clone
that shares it, so a verifier it names (coop.yaml `settings.verifier`) is only
suggested, never run. Its exit code is recorded and never decisive: only the
verdict parsed out of its output counts, and everything untrustworthy is
`unclear`.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
from dataclasses import dataclass
from datetime import timedelta

from gitcoop.domain import queue
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import parse_duration
from gitcoop.domain.verdict import Verdict, parse, unclear
from gitcoop.errors import ChangedUnderWrite, Refused, UsageError
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.writer import SYSTEM, Intent, write
from gitcoop.store import history
from gitcoop.store.repository import Repo
from gitcoop.store.snapshot import Snapshot

DEFAULT_TIMEOUT = timedelta(minutes=5)
OUTPUT_CAP = 4 * 1024 * 1024


@dataclass(frozen=True)
class Verifier:
    command: str
    timeout: timedelta
    cwd: str


@dataclass(frozen=True)
class Run:
    output: str
    exit_code: int | None  # None when it was stopped at the time cap
    timed_out: bool


@dataclass(frozen=True)
class Judged:
    """One item's verification: the verdict and whether it reached the ledger."""

    item: ItemId
    label: str
    title: str
    verdict: Verdict
    run: Run | None
    written: bool
    status: str  # the item's state afterwards (or as left, when not written)


def configured(repo: Repo, snapshot: Snapshot) -> Verifier:
    """The verifier local git config names; the ledger's suggestion is only ever printed."""
    command = repo.config_value("coop.verifier")
    if command is None or not command.strip():
        suggested = snapshot.config.settings.get("verifier")
        if isinstance(suggested, str) and suggested.strip():
            raise Refused(
                f"no verifier is configured; this ledger suggests {suggested.strip()!r}; "
                f"to use it: git config coop.verifier {shlex.quote(suggested.strip())}"
            )
        raise Refused(
            "no verifier is configured — set one with: git config coop.verifier 'COMMAND' "
            "(it reads the prompt on stdin and prints a JSON verdict)"
        )
    cap = repo.config_value("coop.verifierTimeout")
    timeout = DEFAULT_TIMEOUT
    if cap is not None:
        try:
            timeout = parse_duration(str(cap))
        except ValueError:
            raise UsageError(f"verifier timeout {cap!r} is not a duration (e.g. 90s, 5m)") from None
    return Verifier(command.strip(), timeout, repo.workdir() or repo.git_dir)


def run_verifier(verifier: Verifier, prompt: str) -> Run:
    """Run the command with the prompt on stdin; past the cap its process group is killed."""
    try:
        process = subprocess.Popen(
            ["sh", "-c", verifier.command],
            cwd=verifier.cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return Run(f"could not start the verifier: {exc}", None, False)
    try:
        out, _ = process.communicate(prompt.encode("utf-8"), verifier.timeout.total_seconds())
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        return Run(_text(out), None, True)
    return Run(_text(out), process.returncode, False)


def _text(raw: bytes | None) -> str:
    return (raw or b"")[-OUTPUT_CAP:].decode("utf-8", errors="replace")


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
Tag: {item.tag or "(none)"}
Evidence:
{evidence or "- (none)"}

Other open items in the queue:
{rest}

Answer with one JSON object, the last thing you print, with these fields:
  verdict        one of: confirmed, amended, stale, duplicate, blocked, too-big, unclear
  evidence       list of objects with path, line, quote: what you checked in the code
                 (required for confirmed and amended)
  amended_title  the corrected title (amended only)
  duplicate_of   the id of the other open item it repeats (duplicate only)
  reason         one sentence (required for blocked)
"""


def verify_item(ctx: Context, item_id: ItemId, verifier: Verifier | None = None) -> Judged:
    """Mark one item verifying, run the verifier, and write its verdict back."""
    repo = ctx.repo()
    head = history.current_head(repo)
    started = write(ctx, [Intent(item_id, "verify")], actor=SYSTEM)
    item = started.items[item_id]
    label = started.labels[item_id]
    snapshot = started.snapshot
    verifier = verifier or configured(repo, snapshot)
    items = [i for i in snapshot.items() if i.kind == "item"]
    others = [i for i in queue.in_order(items) if i.status in queue.OPEN and i.id != item_id]
    prompt = prompt_for(item, others)
    run = run_verifier(verifier, prompt)
    if run.timed_out:
        verdict = unclear(f"the verifier ran past its {verifier.timeout} time cap")
    else:
        verdict = parse(run.output, item_id, {i.id for i in items}, prompt)
    args = {**verdict.to_args(), "head": head, "exit_code": run.exit_code}
    args["timed_out"] = run.timed_out
    verdict_of = Intent(item_id, "verdict", args, expect=item.version)
    try:
        after = write(ctx, [verdict_of], actor=SYSTEM).items[item_id]
    except (ChangedUnderWrite, Refused):
        current = read_ledger(ctx).item(item_id)
        status = current.status if current else item.status
        return Judged(item_id, label, item.title, verdict, run, False, status)
    return Judged(item_id, label, after.title, verdict, run, True, after.status)


def verify(ctx: Context, limit: int | None = None) -> list[Judged]:
    """Each draft or stranded `verifying` item, in queue order, at most `limit` of them."""
    if limit is not None and limit < 1:
        raise UsageError("--max must be at least 1")
    snapshot = read_ledger(ctx)
    verifier = configured(ctx.repo(), snapshot)
    waiting = [i.id for i in queue.in_order(snapshot.items()) if i.status in ("draft", "verifying")]
    judged: list[Judged] = []
    for item_id in waiting[:limit]:
        try:
            judged.append(verify_item(ctx, item_id, verifier))
        except (Refused, ChangedUnderWrite):
            continue  # someone moved it first; the next pass will see it
    return judged
