"""The journal: record now what a hook could not record then; never drop it silently.

An entry leaves the journal when it is recorded, or when someone dismisses
it with a reason (`git coop hook dismiss`, kept in `coop-journal.dismissed`).
Until then it stays, in one of three states:

- waiting: the ledger could not be written (lock busy, no ledger yet): every
  command retries it;
- refused: a rule said no; each refusal names the command that would record
  it (`git coop done td-… --commit … --force`); `git coop hook replay` retries;
- broken: it can never be recorded as it is (an identity that names no one,
  a line cut short); the report says why, and how to record it by hand; once
  every item it closes records its commit (done by hand), it leaves.

Every command says once, on one line, how many wait.
"""

from __future__ import annotations

from dataclasses import field

from gitcoop.domain.record_type import record_type
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import CoopError, UsageError
from gitcoop.service.commit_hooks import from_incoming
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.recording import (
    SHORT_ID,
    Entry,
    Outcome,
    attempt,
    describe,
    malformed,
    retried_by_every_command,
)
from gitcoop.store.ledger import journal

REPLAY_LOCK_TIMEOUT = 2.0


@record_type
class Replayed:
    entry: Entry  # as it was before this replay
    outcomes: list[Outcome]  # empty when it was not tried this time
    kept: Entry | None  # what stays in the journal; None when it left


@record_type
class Report:
    replayed: list[Replayed]
    unstarted: list[str] = field(default_factory=list)  # why hooks ran without gitcoop


def pending(ctx: Context) -> list[Entry]:
    """The entries in the journal now (after taking in what shims left)."""
    ingest(ctx)
    return journal.entries(ctx.repo().common_dir)


def ingest(ctx: Context) -> list[str]:
    """Turn the notes of hooks that could not start gitcoop into entries; their reasons."""
    taken = journal.ingest(ctx.repo().common_dir, lambda found: from_incoming(ctx, found))
    return [found.fields.get("note") or "gitcoop could not start" for found in taken]


def replay(
    ctx: Context, lock_timeout: float = REPLAY_LOCK_TIMEOUT, everything: bool = True
) -> Report:
    """Try the entries once, oldest first; `everything=False` tries only the waiting ones."""
    common_dir = ctx.repo().common_dir
    unstarted = ingest(ctx)
    replayed: list[Replayed] = []
    changes: dict[str, Entry | None] = {}
    for entry in journal.entries(common_dir):
        if _recorded_by_hand(ctx, entry):
            changes[entry["id"]] = None
            settled = Outcome("recorded", f"{describe(entry)} was recorded by hand")
            replayed.append(Replayed(entry, [settled], None))
            continue
        if not everything and not retried_by_every_command(entry):
            replayed.append(Replayed(entry, [], entry))
            continue
        outcomes, kept = attempt(ctx, entry, lock_timeout)
        changes[entry["id"]] = kept
        replayed.append(Replayed(entry, outcomes, kept))
    journal.update(common_dir, lambda e: changes.get(e["id"], e))
    return Report(replayed, unstarted)


def _recorded_by_hand(ctx: Context, entry: Entry) -> bool:
    """A broken entry whose advice was followed: every item it closes now records its commit
    (a note it asks for cannot be told apart, so an entry with one stays until dismissed)."""
    if entry.get("state") != "broken" or entry.get("kind") != "trailers":
        return False
    requests = entry.get("requests")
    commit = entry.get("commit")
    if not isinstance(requests, list) or not requests or not isinstance(commit, str):
        return False
    snapshot = read_ledger(ctx)
    for request in requests:
        if not isinstance(request, dict) or request.get("verb") not in ("done", "close"):
            return False
        try:
            item = snapshot.item(snapshot.resolve(str(request.get("ref"))))
        except CoopError:
            return False
        if item is None or commit not in (item.commit_sha, *item.related_commits):
            return False
    return True


def confirm(ctx: Context, entry_id: str, lock_timeout: float = REPLAY_LOCK_TIMEOUT) -> Replayed:
    """Record a teammate's trailers as yours, once you say so; the author stays named."""
    repo = ctx.repo()
    entry = journal.find(repo.common_dir, entry_id.strip())
    if not entry.get("authored_by") or entry.get("kind") != "trailers":
        raise UsageError(
            f"journal entry {str(entry['id'])[:SHORT_ID]} waits for no confirmation — "
            "git coop hook replay says what it needs"
        )
    confirmed = {**entry, "actor": ctx.who(repo), "session": ctx.session, "confirmed": True}
    outcomes, kept = attempt(ctx, confirmed, lock_timeout)
    journal.update(repo.common_dir, lambda e: kept if e.get("id") == entry["id"] else e)
    return Replayed(entry, outcomes, kept)


def dismiss(ctx: Context, entry_id: str, reason: str) -> Entry:
    """Drop one entry, keeping it with who dropped it, when and why."""
    if not reason.strip():
        raise UsageError("dismiss needs --reason: say why this trailer is not to be recorded")
    repo = ctx.repo()
    record = {"dismissed_by": ctx.who(repo), "at": format_instant(ctx.now), "reason": reason}
    return journal.dismiss(repo.common_dir, entry_id.strip(), record)


# -- what is said about it -----------------------------------------------------------


def report_lines(report: Report, quiet: bool = False) -> list[str]:
    """One line per outcome; `quiet` leaves out what still waits and what was not tried."""
    lines: list[str] = []
    if report.unstarted:
        count = len(report.unstarted)
        lines.append(
            f"gitcoop: the hooks could not start gitcoop for {count} commit(s) "
            f"({report.unstarted[-1]}) — git coop hooks status says what to do"
        )
    for replayed in report.replayed:
        short = str(replayed.entry["id"])[:SHORT_ID]
        outcomes = replayed.outcomes or ([] if quiet else standing(replayed.entry))
        for outcome in outcomes:
            if not (quiet and outcome.status == "waiting"):
                lines.append(_line(short, outcome, replayed.entry))
    return lines


def listing(entries: list[Entry]) -> list[str]:
    """What each entry waits for, as it stands (nothing is tried)."""
    return [
        _line(str(entry["id"])[:SHORT_ID], outcome, entry)
        for entry in entries
        for outcome in standing(entry)
    ]


def standing(entry: Entry) -> list[Outcome]:
    """What an entry not tried now is waiting for, from what it keeps."""
    problem = malformed(entry)
    if problem is not None:
        return [Outcome("broken", problem)]
    state = entry.get("state")
    reason = str(entry.get("reason") or "")
    if state == "refused" and isinstance(entry.get("refusals"), list):
        return [
            Outcome("refused", str(r.get("text", reason)), r.get("command"))
            for r in entry["refusals"]
            if isinstance(r, dict)
        ]
    if state in ("refused", "unconfirmed", "broken"):
        return [Outcome(state, reason)]
    return [Outcome("waiting", reason or "not tried yet")]


def _line(short: str, outcome: Outcome, entry: Entry) -> str:
    dismiss = f"git coop hook dismiss {short} --reason WHY"
    if outcome.status == "refused":
        how = f"record it with: {outcome.command}, or drop it: " if outcome.command else "drop it: "
        return f"gitcoop: journal {short}: not recorded: {outcome.text} — {how}{dismiss}"
    if outcome.status == "unconfirmed":
        return (
            f"gitcoop: journal {short}: not recorded: {outcome.text} — record it as yours "
            f"with: git coop hook confirm {short}, or drop it: {dismiss}"
        )
    if outcome.status == "broken":
        by_hand = f"record it by hand ({outcome.command}) or " if outcome.command else ""
        return (
            f"gitcoop: journal {short}: {describe(entry)} can never be recorded as it is: "
            f"{outcome.text} — {by_hand}drop it: {dismiss}"
        )
    if outcome.status == "waiting":
        return f"gitcoop: journal {short}: {describe(entry)} still waits: {outcome.text}"
    return f"gitcoop: journal {short}: {outcome.text}"


def waiting_line(report: Report) -> str | None:
    """`2 trailers wait: git coop hook replay`, or None when nothing stays."""
    return waiting_text([r.kept for r in report.replayed if r.kept is not None])


def waiting_text(kept: list[Entry]) -> str | None:
    if not kept:
        return None
    trailers = sum(len(e.get("requests") or []) for e in kept if e.get("kind") == "trailers")
    if trailers and all(e.get("kind") == "trailers" for e in kept):
        noun = "trailer waits" if trailers == 1 else "trailers wait"
        return f"gitcoop: {trailers} {noun}: git coop hook replay"
    noun = "journal entry waits" if len(kept) == 1 else "journal entries wait"
    return f"gitcoop: {len(kept)} {noun}: git coop hook replay"
