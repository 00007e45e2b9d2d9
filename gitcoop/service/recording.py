"""Recording what a commit's trailers ask: the hooks, the journal's replay and backfill.

An *entry* (the journal's shape) is what one commit asked: `trailers` (each
request a verb, an item ref and the arguments, with the commit, actor,
session and time) or `rewrite` (old/new sha pairs). `attempt` records it
through the one write path (`service/writer.py`, `Policy.EACH`: a refused
trailer does not stop the others) and says what of it must stay in the
journal: nothing, the refused requests, or the whole entry (the ledger could
not be written now, or the entry can never be written as it is).

A second commit carrying a trailer for an item already closed by another
commit is recorded as a *related* commit (a note), so the first commit stays
the record — unless that first commit is here and on no local branch any
more, or a rebase is rewriting it: then the new commit becomes the record, as
after an amend. A first commit this clone does not have stays the record.
"""

from __future__ import annotations

import shlex
from dataclasses import replace
from typing import Any

from gitcoop.domain.lifecycle import CLOSED
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import parse_instant
from gitcoop.errors import Ambiguous, CoopError, NotFound, UsageError
from gitcoop.service.context import Context
from gitcoop.service.writer import Answer, Intent, Policy, write
from gitcoop.store.fast import blob_search
from gitcoop.store.git import worktree
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo

KEY_OF_VERB = {"done": "Coop-Done", "close": "Coop-Close", "note": "Coop-Refs"}
SHORT_ID = 8  # the characters of a journal entry's id shown and typed
KINDS = ("trailers", "rewrite")

Entry = dict[str, Any]


@record_type
class Outcome:
    """What became of one thing a commit asked for."""

    status: str  # recorded | unchanged | refused | unconfirmed | waiting | broken
    text: str
    command: str | None = None  # the command that records it by hand (refused, broken)


def attempt(ctx: Context, entry: Entry, lock_timeout: float) -> tuple[list[Outcome], Entry | None]:
    """Record one entry; its outcomes, and what of it stays in the journal (None: nothing)."""
    problem = malformed(entry)
    if problem is not None:
        return [Outcome("broken", problem)], {**entry, "state": "broken", "reason": problem}
    if entry.get("authored_by") and not entry.get("confirmed"):
        why = unconfirmed_text(entry)
        return [Outcome("unconfirmed", why)], {**entry, "state": "unconfirmed", "reason": why}
    try:
        outcomes = record(ctx, entry, lock_timeout)
    except UsageError as error:  # the entry itself is wrong (an identity that names no one)
        return _broken(entry, error.message)
    except CoopError as error:  # lock busy, no ledger yet, a lost swap, a full disk
        return [Outcome("waiting", error.message)], {
            **entry,
            "state": "waiting",
            "reason": error.message,
        }
    except Exception as error:  # a bug must neither lose the trailer nor fail the command
        return _broken(entry, f"recording it failed ({type(error).__name__}: {error})")
    refused = [o for o in outcomes if o.status == "refused"]
    if not refused:
        return outcomes, None
    kept = {**entry, "state": "refused", "reason": refused[0].text}
    kept["refusals"] = [{"text": o.text, "command": o.command} for o in refused]
    if entry["kind"] == "trailers":  # the rest is recorded: only the refused requests stay
        kept["requests"] = [
            request
            for request, o in zip(entry["requests"], outcomes, strict=True)
            if o.status == "refused"
        ]
    return outcomes, kept


def unconfirmed_text(entry: Entry) -> str:
    """Why a teammate's trailer waits: what it asks is theirs to say, or yours to confirm."""
    author = str(entry["authored_by"])
    if author.casefold() == str(entry.get("actor") or "").casefold():  # a merge brought it
        return (
            f"{describe(entry)} came in by a merge, and its author line ({author}) is not "
            "proof that you wrote it"
        )
    return f"{describe(entry)} was authored by {author}, not by you"


def describe(entry: Entry) -> str:
    if entry.get("kind") == "rewrite":
        return f"the rewrite of {len(entry.get('pairs') or [])} commit(s)"
    if entry.get("kind") != "trailers":
        return "a journal entry"
    named = ", ".join(
        f"{KEY_OF_VERB.get(str(r.get('verb')), r.get('verb'))} {r.get('ref')}"
        for r in entry.get("requests") or []
        if isinstance(r, dict)
    )
    return f"{named} of {str(entry.get('commit', ''))[:7]}"


def _broken(entry: Entry, reason: str) -> tuple[list[Outcome], Entry]:
    """Kept for `git coop hook replay`, with why and the commands that record it by hand."""
    commands = [command_for(r["verb"], r["ref"], r["args"], "") for r in _requests(entry)]
    outcome = Outcome("broken", reason, "; ".join(c for c in commands if c) or None)
    return [outcome], {**entry, "state": "broken", "reason": reason}


def record(ctx: Context, entry: Entry, lock_timeout: float) -> list[Outcome]:
    """Write one entry as its own actor, session and time; CoopError when it cannot be now."""
    acting = replace(
        ctx,
        actor=entry.get("actor") or ctx.actor,
        session=entry.get("session"),
        now=parse_instant(entry["at"]),
    )
    repo = acting.repo()
    moving = bool(entry.get("rewriting"))
    unknown: set[str] = set()  # refs that name no item (or several): no command records them

    def intents(snapshot: Snapshot) -> list[Intent]:
        unknown.clear()
        if entry["kind"] == "rewrite":
            return _rewrite_intents(snapshot, entry["pairs"])
        return [_intent(snapshot, request, moving, unknown) for request in entry["requests"]]

    if entry["kind"] == "rewrite" and not _rewrite_needed(repo, entry["pairs"]):
        return []  # the usual amend or rebase: nothing recorded names the old commits
    # never the network (coop.claims): a hook must not wait on a remote; the next
    # command or sync pushes what was recorded here (hooks, journal replay, backfill)
    written = write(acting, intents, Policy.EACH, lock_timeout=lock_timeout, shared=False)
    return [_outcome(answer, answer.intent.target in unknown) for answer in written.answers]


def retried_by_every_command(entry: Entry) -> bool:
    """New and waiting entries; refused or broken ones wait for `git coop hook replay`."""
    return entry.get("state") in (None, "waiting") and entry.get("kind") in KINDS


def malformed(entry: Entry) -> str | None:
    """Why an entry can never be recorded as it is, or None."""
    if entry.get("kind") == "unreadable":
        return f"this journal line cannot be read (a write cut short?): {entry.get('line', '')!r}"
    if entry.get("kind") not in KINDS or not isinstance(entry.get("at"), str):
        return f"this journal entry is not one gitcoop wrote: {entry!r}"
    try:
        parse_instant(entry["at"])
    except ValueError:
        return f"this journal entry's time {entry['at']!r} is not an ISO 8601 instant"
    for key in ("actor", "session"):
        if not isinstance(entry.get(key), str | None):
            return f"this journal entry's {key} {entry[key]!r} is not text"
    if entry["kind"] == "rewrite":
        pairs = entry.get("pairs")
        good = isinstance(pairs, list) and all(
            isinstance(p, list) and len(p) == 2 and all(isinstance(s, str) for s in p)
            for p in pairs
        )
        return None if good else "this journal entry's rewritten commits cannot be read"
    requests = entry.get("requests")
    if not isinstance(requests, list) or not all(_well_formed(r) for r in requests):
        return "this journal entry's trailers cannot be read"
    return None


def _well_formed(request: Any) -> bool:
    return (
        isinstance(request, dict)
        and request.get("verb") in KEY_OF_VERB
        and isinstance(request.get("ref"), str)
        and isinstance(request.get("args"), dict)
    )


def _requests(entry: Entry) -> list[dict[str, Any]]:
    return list(entry.get("requests") or []) if entry.get("kind") == "trailers" else []


# -- from requests to intents ------------------------------------------------------


def _intent(snapshot: Snapshot, request: dict[str, Any], moving: bool, unknown: set[str]) -> Intent:
    verb, ref, args = request["verb"], request["ref"], dict(request["args"])
    item = _item(snapshot, ref)
    if item is None:
        unknown.add(ref)
    if verb == "note":
        return Intent(ref, verb, args, once=True)
    recorded = _recorded_elsewhere(item, args.get("commit"))
    if recorded is None or moving or not _still_the_record(snapshot.repo, recorded):
        return Intent(ref, verb, args)
    sha = str(args["commit"])
    text = f"commit {sha[:12]}: {args.get('summary') or ''}".rstrip(": ")
    related = {"text": text, "commit": sha, "related": recorded}
    related.update({k: v for k, v in args.items() if k not in ("summary", "commit")})
    return Intent(ref, "note", related, once=True)


def _item(snapshot: Snapshot, ref: str) -> Item | None:
    if snapshot.commit is None:
        return None
    try:
        return snapshot.item(snapshot.resolve(ref))
    except (NotFound, Ambiguous):
        return None  # the writer answers it, with the same words


def _recorded_elsewhere(item: Item | None, commit: object) -> str | None:
    """The commit an already closed item records, when it is not `commit`."""
    if item is None or item.status not in CLOSED or not item.commit_sha:
        return None
    if not isinstance(commit, str) or item.commit_sha == commit:
        return None
    return item.commit_sha


def _still_the_record(repo: Repo, recorded: str) -> bool:
    """Whether the commit an item records still stands, as this clone can tell.

    One on no local branch was replaced here (a deleted branch, an amend). One
    this clone never had (another clone's unpushed branch) cannot have been
    replaced here: it stands, and only its own clone moves it (post-rewrite).
    """
    return not repo.has_commit(recorded) or worktree.on_a_branch(repo, recorded)


def _rewrite_needed(repo: Repo, pairs: list[list[str]]) -> bool:
    """A first look without the lock, so a rewrite that moves nothing never waits for it."""
    tip = repo.tip()
    return tip is not None and bool(_rewrite_intents(Snapshot(repo, tip), pairs))


def _rewrite_intents(snapshot: Snapshot, pairs: list[list[str]]) -> list[Intent]:
    intents: list[Intent] = []
    for old, new in pairs:
        for item in blob_search.items_containing(snapshot, old):
            if item.commit_sha == old and item.status in CLOSED:
                verb = "done" if item.status == "done" else "close"
                intents.append(Intent(item.id, verb, {"commit": new}))
    return intents


# -- what became of each ------------------------------------------------------------


def _outcome(answer: Answer, unknown: bool) -> Outcome:
    intent = answer.intent
    args = intent.args
    sha = str(args.get("commit", ""))[:7]
    if answer.refusal is not None:
        key = KEY_OF_VERB.get(intent.verb, intent.verb)
        command = None if unknown else command_for(intent.verb, intent.target, args, answer.refusal)
        return Outcome("refused", f"{key} {intent.target} of {sha}: {answer.refusal}", command)
    assert answer.shown is not None
    label = answer.shown.label
    if not answer.shown.wrote:
        return Outcome("unchanged", f"{label} already records {sha}")
    if args.get("related"):
        kept = str(args["related"])[:7]
        return Outcome("recorded", f"{label} keeps {kept} as its record; {sha} is related")
    if answer.shown.item.commit_sha == args.get("commit") and intent.verb != "note":
        return Outcome("recorded", f"{label} {answer.shown.item.status} with {sha}")
    return Outcome("recorded", f"{label} noted {sha}")


def command_for(verb: str, ref: str, args: Any, refusal: str) -> str:
    """The command that records a request by hand.

    The rules name `--force` in every refusal it would get past (another's
    take, another's close, an abandoned todo).
    """
    if verb == "note":
        return f"git coop note {shlex.quote(ref)} {shlex.quote(str(args.get('text', '')))}"
    words = ["git", "coop", verb_for(ref, verb), shlex.quote(ref)]
    if args.get("commit"):
        words += ["--commit", shlex.quote(str(args["commit"]))]
    if args.get("summary"):
        words += ["--summary", shlex.quote(str(args["summary"]))]
    if "--force" in refusal:
        words.append("--force")
    return " ".join(words)


def verb_for(ref: str, verb: str) -> str:
    """A todo is finished with done, anything else with close, whichever key was typed."""
    if ref.startswith("td-"):
        return "done"
    return "close" if ref.startswith(("rq-", "it-")) else verb
