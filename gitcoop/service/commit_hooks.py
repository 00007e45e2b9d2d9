"""What the git hooks do: `git coop hook post-commit | post-rewrite | prepare-commit-msg`.

A hook never fails or slows the git command. It waits a short moment for the
ledger's lock; what it cannot record then (lock busy, no ledger yet, a rule
refuses) goes to the journal (store/journal.py) with the reason, and one line
goes to stderr. `replay` (service/replay.py) records it later.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from gitcoop.domain import trailers
from gitcoop.domain.lifecycle import HELD
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant, parse_instant
from gitcoop.errors import CoopError
from gitcoop.service.context import Context
from gitcoop.service.writer import Answer, Intent, Policy, write
from gitcoop.store import journal, search, worktree
from gitcoop.store.repository import Repo
from gitcoop.store.snapshot import Snapshot

HOOK_LOCK_TIMEOUT = 0.3  # seconds a hook waits for the ledger lock before journaling
KEY_OF_VERB = {"done": "Coop-Done", "close": "Coop-Close", "note": "Coop-Refs"}
NO_SUGGESTION_SOURCES = ("message", "merge", "squash", "commit")

Entry = dict[str, Any]


@dataclass(frozen=True)
class Outcome:
    """What became of one thing a hook asked for."""

    status: str  # recorded | unchanged | refused | waiting
    text: str


# -- the hooks ------------------------------------------------------------------


def post_commit(ctx: Context) -> list[str]:
    """Record the new HEAD commit's Coop trailers; lines to show on stderr."""
    repo = ctx.repo()
    commit = worktree.read_commit(repo)
    found = trailers.coop_trailers(commit.message, worktree.comment_char(repo) or "#")
    if not found:
        return []
    summary = trailers.subject(commit.message)
    requests = [_request_data(t.verb, t.ref, commit.sha, summary) for t in found]
    entry = _entry(ctx, "trailers", commit.committer_email, commit=commit.sha, requests=requests)
    return _record_or_journal(ctx, repo, entry)


def post_rewrite(ctx: Context, kind: str, lines: list[str]) -> list[str]:
    """Move recorded commit shas from rewritten commits to their new ones."""
    pairs = [line.split()[:2] for line in lines if len(line.split()) >= 2]
    if not pairs:
        return []
    repo = ctx.repo()
    moved = dict(pairs)
    journal.update(repo.common_dir, lambda e: _moved_entry(e, moved))
    actor = worktree.read_commit(repo, pairs[-1][1]).committer_email
    entry = _entry(ctx, "rewrite", actor, how=kind, pairs=pairs)
    return _record_or_journal(ctx, repo, entry)


def prepare_commit_msg(ctx: Context, message_file: str, source: str | None) -> str | None:
    """Suggest `# Coop-Done: <id>` when the actor holds exactly one item; the id, or None."""
    if source in NO_SUGGESTION_SOURCES:
        return None
    repo = ctx.repo()
    comment = worktree.comment_char(repo)
    snapshot = Snapshot(repo, repo.tip())
    if comment is None or snapshot.commit is None:
        return None
    item = _only_held_item(snapshot, ctx.who(repo), ctx.session)
    if item is None:
        return None
    label = snapshot.label(item.id)
    with open(message_file, encoding="utf-8") as handle:
        text = handle.read()
    if item.id in text or label in text:
        return None
    key = "Coop-Done" if item.kind == "todo" else "Coop-Close"
    suggestion = (
        f"\n{comment} gitcoop: you hold {label} ({item.title}); uncomment the next line\n"
        f"{comment} to record it with this commit.\n{comment} {key}: {label}\n{comment}\n"
    )
    with open(message_file, "w", encoding="utf-8") as handle:
        handle.write(_insert_before_comments(text, suggestion, comment))
    return label


# -- recording --------------------------------------------------------------------


def record(ctx: Context, entry: Entry, lock_timeout: float) -> list[Outcome]:
    """Apply one journal-shaped entry; CoopError when it cannot be written now."""
    acting = replace(
        ctx, actor=entry["actor"], session=entry.get("session"), now=parse_instant(entry["at"])
    )
    if entry["kind"] == "rewrite":
        intents = _rewrite_intents(acting, entry["pairs"])
    else:
        intents = [
            Intent(r["ref"], r["verb"], r["args"], once=r["verb"] == "note")
            for r in entry["requests"]
        ]
    if not intents:
        return []
    # a hook never waits on the network (coop.claims): the next command or sync pushes it
    written = write(acting, intents, Policy.EACH, lock_timeout=lock_timeout, shared=False)
    return [_outcome(a) for a in written.answers]


def _record_or_journal(ctx: Context, repo: Repo, entry: Entry) -> list[str]:
    try:
        outcomes = record(ctx, entry, HOOK_LOCK_TIMEOUT)
    except CoopError as error:
        journal.append(repo.common_dir, {**entry, "reason": error.message})
        what = _describe(entry)
        return [
            f"gitcoop: could not record {what} now ({error.message}) — kept in "
            f"{journal.journal_path(repo.common_dir)}; the next git coop command records it"
        ]
    lines = [f"gitcoop: {o.text}" for o in outcomes if o.status == "recorded"]
    refused = [o.text for o in outcomes if o.status == "refused"]
    if refused:
        kept = dict(entry, reason="refused")
        if entry["kind"] == "trailers":
            kept["requests"] = [
                dict(request, reason=o.text)
                for request, o in zip(entry["requests"], outcomes, strict=True)
                if o.status == "refused"
            ]
        journal.append(repo.common_dir, kept)
        lines.append(
            f"gitcoop: not recorded: {'; '.join(refused)} — noted in the journal; "
            "git coop hook replay reports it again"
        )
    return lines


def _outcome(answer: Answer) -> Outcome:
    intent = answer.intent
    args = intent.args
    sha = str(args.get("commit", ""))[:7]
    if answer.refusal is not None:
        key = KEY_OF_VERB.get(intent.verb, intent.verb)
        return Outcome("refused", f"{key} {intent.target} of {sha}: {answer.refusal}")
    assert answer.shown is not None
    label = answer.shown.label
    if not answer.shown.wrote:
        return Outcome("unchanged", f"{label} already records {sha}")
    if answer.shown.item.commit_sha == args.get("commit") and intent.verb != "note":
        return Outcome("recorded", f"{label} {answer.shown.item.status} with {sha}")
    return Outcome("recorded", f"{label} noted {sha}")


def _rewrite_intents(ctx: Context, pairs: list[list[str]]) -> list[Intent]:
    repo = ctx.repo()
    snapshot = Snapshot(repo, repo.tip())
    if snapshot.commit is None:
        return []
    intents: list[Intent] = []
    for old, new in pairs:
        for item in search.items_containing(snapshot, old):
            if item.commit_sha == old and item.status in ("done", "closed"):
                verb = "done" if item.status == "done" else "close"
                intents.append(Intent(item.id, verb, {"commit": new}))
    return intents


# -- journal entries ------------------------------------------------------------------


def _entry(ctx: Context, kind: str, actor: str, **fields: Any) -> Entry:
    return {
        "kind": kind,
        "actor": actor,
        "session": ctx.session,
        "at": format_instant(ctx.now),
        **fields,
    }


def _request_data(verb: str, ref: str, sha: str, summary: str) -> dict[str, Any]:
    if verb == "note":
        args = {"text": f"commit {sha[:12]}: {summary}", "commit": sha}
    else:
        args = {"summary": summary, "commit": sha}
    return {"verb": verb, "ref": ref, "args": args}


def _moved_entry(entry: Entry, moved: dict[str, str]) -> Entry:
    """A pending entry about a rewritten commit now names the new commit."""
    if entry.get("kind") == "rewrite":
        pairs = [[old, moved.get(new, new)] for old, new in entry.get("pairs", [])]
        return {**entry, "pairs": pairs}
    old = entry.get("commit")
    if old not in moved:
        return entry
    new = moved[old]
    requests = [
        {**r, "args": {k: (new if v == old else v) for k, v in r["args"].items()}}
        for r in entry.get("requests", [])
    ]
    return {**entry, "commit": new, "requests": requests}


def _describe(entry: Entry) -> str:
    if entry["kind"] == "rewrite":
        return f"the rewrite of {len(entry['pairs'])} commit(s)"
    return (
        ", ".join(f"{KEY_OF_VERB.get(r['verb'], r['verb'])} {r['ref']}" for r in entry["requests"])
        + f" of {str(entry.get('commit', ''))[:7]}"
    )


# -- the message suggestion ---------------------------------------------------------------


def _only_held_item(snapshot: Snapshot, actor: str, session: str | None) -> Item | None:
    held = [
        item
        for item in search.items_containing(snapshot, actor)
        if item.status in HELD
        and item.taken_by == actor
        and (session is None or item.session == session)
    ]
    return held[0] if len(held) == 1 else None


def _insert_before_comments(text: str, suggestion: str, comment: str) -> str:
    lines = text.splitlines(keepends=True)
    for index, line in enumerate(lines):
        if line.startswith(comment):
            return "".join(lines[:index]) + suggestion + "".join(lines[index:])
    return text + ("" if text.endswith("\n") or not text else "\n") + suggestion
