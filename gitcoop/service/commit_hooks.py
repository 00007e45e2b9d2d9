"""What the git hooks do: `git coop hook post-commit | post-applypatch | post-merge |
post-rewrite | prepare-commit-msg`.

A hook never fails or slows the git command. It acts as whoever commits,
by the rules every command uses (`COOP_ACTOR`, then `user.email`), and
records the commit's committer alongside. It waits a short moment for the
ledger's lock; what it cannot record then (lock busy, no ledger yet, a rule
refuses, an identity that names no one) goes to the journal
(store/ledger/journal.py) with the reason, and one line goes to stderr. What is
recorded and how is `service/recording.py`; `service/replay.py` retries
what waits.
"""

from __future__ import annotations

import shlex
from datetime import UTC, datetime
from typing import Any

from gitcoop.domain import trailers
from gitcoop.domain.bounds import printable
from gitcoop.domain.lifecycle import CLOSED, HELD
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import CoopError, NoLedger, UnsupportedRepository
from gitcoop.service import unseen
from gitcoop.service.context import Context
from gitcoop.service.recording import SHORT_ID, Entry, Outcome, attempt, describe, verb_for
from gitcoop.store.fast import blob_search
from gitcoop.store.git import worktree
from gitcoop.store.git.worktree import CommitInfo
from gitcoop.store.ledger import journal
from gitcoop.store.ledger.journal import Incoming
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Oid, Repo

MERGED_AT_MOST = 200  # commits a merge brought that post-merge reads; beyond, backfill
HOOK_LOCK_TIMEOUT = 0.3  # seconds a hook waits for the ledger lock before journaling
NO_SUGGESTION_SOURCES = ("message", "merge", "squash", "commit")


# -- the hooks ------------------------------------------------------------------


def post_commit(ctx: Context) -> list[str]:
    """Record the new HEAD commit's Coop trailers; lines to show on stderr."""
    try:
        repo = ctx.repo()
    except UnsupportedRepository as refused:  # SHA-256: read with git, journaled
        if worktree.read_commit_by_git("HEAD^2") is not None:
            return _journal_merged_unopened(ctx, refused, "HEAD^1")
        commit = worktree.read_commit_by_git()
        comment = worktree.comment_char_by_git() or "#"
        actor = ctx.actor or worktree.config_by_git("user.email")
        entry = None if commit is None else trailers_entry(ctx, commit, actor, comment)
        return _journal_unopened(refused, entry)
    made = worktree.read_commit(repo)
    rebasing = worktree.rebasing(repo)
    if not rebasing and worktree.revision(repo, "HEAD^2") is not None:
        # a merge finished by `git commit` (a conflict, --no-commit): git runs no
        # post-merge, so what it merged in is read here
        lines = _record_merged(ctx, repo, "HEAD^1")
    else:
        entry = commit_entry(ctx, repo, made, acting(ctx, repo))
        lines = []
        if entry is not None:
            if rebasing:
                entry["rewriting"] = True  # the commit it replaces stops being the record
            lines = _record_or_journal(ctx, repo, entry)
    unseen.note_branch(repo, made.first_parent)  # the next command need not look again
    return lines + stray_lines(made, worktree.comment_char(repo) or "#")


def stray_lines(commit: CommitInfo, comment: str) -> list[str]:
    """A line for each Coop trailer written outside the message's trailer block."""
    said = []
    for verb, line in trailers.stray_coop_lines(commit.message, comment):
        refs = trailers.refs_in(line.partition(":")[2])
        record = ""
        if verb in ("done", "close") and len(refs) == 1:  # the ref is text someone wrote
            command = f"git coop {verb_for(refs[0], verb)} {shlex.quote(refs[0])}"
            record = f", or record it: {command} --commit {commit.sha[:12]}"
        said.append(
            printable(
                f"gitcoop: {line} is not in the message's trailer block (its last paragraph), "
                f"so nothing was recorded from it — move it there with git commit --amend{record}"
            )
        )
    return said


def post_applypatch(ctx: Context) -> list[str]:
    """`git am` made HEAD, and git runs no post-commit for it: record it the same way."""
    return post_commit(ctx)  # during `rebase --apply` too: HEAD is detached, nothing noted


def post_merge(ctx: Context, squash: str = "0") -> list[str]:
    """Record what `git merge` (or `git pull`) brought onto the branch; git runs no post-commit.

    Every commit of ORIG_HEAD..HEAD with Coop trailers, oldest first: the merge
    commit (its -m message), and the commits merged in, which name their author
    as backfill's do. Those the hooks recorded already write nothing again (an
    identical close, a note once per sha). A squash merge commits nothing yet:
    its commit is a `git commit`, and post-commit records it.
    """
    if squash == "1":
        return []
    try:
        repo = ctx.repo()
    except UnsupportedRepository as refused:  # SHA-256: read with git, journaled
        return _journal_merged_unopened(ctx, refused, "ORIG_HEAD")
    lines = _record_merged(ctx, repo, "ORIG_HEAD")
    unseen.note_branch(repo, worktree.revision(repo, "ORIG_HEAD"))
    return lines


def _record_merged(ctx: Context, repo: Repo, since: str) -> list[str]:
    """Record every commit of `since`..HEAD with Coop trailers, oldest first: HEAD
    as whoever commits made it, the commits merged in naming their author."""
    actor = acting(ctx, repo)
    merged, more = worktree.merged_commits(repo, MERGED_AT_MOST, since)
    lines: list[str] = []
    newest = merged[-1].sha if merged else None
    made = newest if newest is not None and _a_merge(repo, newest) else None
    for commit in merged:  # the merge commit is the one merging's; the rest came in
        older = commit.sha != newest
        entry = commit_entry(ctx, repo, commit, actor, older, merged=commit.sha != made)
        if entry is not None and entry.get("authored_by") and recorded_already(repo, entry):
            continue  # its own clone recorded it: nothing to confirm
        if entry is not None:
            lines += _record_or_journal(ctx, repo, entry)
    if more:
        lines.append(_more_than(since))
    return lines


def _a_merge(repo: Repo, sha: str) -> bool:
    """Whether the commit is a merge (made by whoever merged, not brought in by it)."""
    return len(repo.commit_parents(Oid(sha))) > 1


def _more_than(since: str) -> str:
    return (
        f"gitcoop: the merge brought more than {MERGED_AT_MOST} commits; the older ones "
        f"were not read — run: git coop hooks backfill --since {since}"
    )


def post_rewrite(ctx: Context, kind: str, lines: list[str]) -> list[str]:
    """Move recorded commit shas from rewritten commits to their new ones."""
    pairs = [line.split()[:2] for line in lines if len(line.split()) >= 2]
    if not pairs:
        return []
    moved = dict(pairs)
    try:
        repo = ctx.repo()
    except UnsupportedRepository as refused:  # SHA-256: journaled as it is
        actor = ctx.actor or worktree.config_by_git("user.email")
        entry = _entry(ctx, "rewrite", actor, how=kind, pairs=pairs)
        return _journal_unopened(refused, entry, moved)
    journal.update(repo.common_dir, lambda e: _moved_entry(e, moved))
    entry = _entry(ctx, "rewrite", acting(ctx, repo), how=kind, pairs=pairs)
    return _record_or_journal(ctx, repo, entry)


def acting(ctx: Context, repo: Repo) -> str | None:
    """Who the hook acts as, unchecked: the writer checks it (journaled when it names no one)."""
    return ctx.actor or repo.config_value("user.email")


# -- entries --------------------------------------------------------------------------


def commit_entry(
    ctx: Context,
    repo: Repo,
    commit: CommitInfo,
    actor: str | None,
    backfill: bool = False,
    merged: bool = False,
) -> Entry | None:
    """What a commit's Coop trailers ask, as a journal entry; None when it has none."""
    comment = worktree.comment_char(repo) or "#"
    return trailers_entry(ctx, commit, actor, comment, backfill, merged)


def trailers_entry(
    ctx: Context,
    commit: CommitInfo,
    actor: str | None,
    comment: str,
    backfill: bool = False,
    merged: bool = False,
) -> Entry | None:
    """`commit_entry`, with git's comment prefix given. `merged`: a merge brought the
    commit in, so its committer is whoever made it, not who merges; `backfill` (without
    `merged`): someone asked for it to be recorded, naming its author."""
    found = trailers.coop_trailers(commit.message, comment)
    if not found:
        return None
    summary = trailers.subject(commit.message)
    foreign = (merged or not backfill) and not own_commit(commit, actor, merged)
    requests = [_request(t.verb, t.ref, commit, summary, backfill, foreign) for t in found]
    entry = _entry(ctx, "trailers", actor, commit=commit.sha, requests=requests)
    if foreign:  # recorded only once someone confirms it (service/recording.py)
        entry["authored_by"] = commit.author_email
    return entry


def own_commit(commit: CommitInfo, actor: str | None, merged: bool = False) -> bool:
    """Whether whoever commits wrote the commit: its author commits it, or acts.

    A cherry-pick, a rebase or `git am` of a teammate's work keeps the teammate
    as author and makes you the committer; your own amend or rebase keeps you
    as both, and an agent committing with COOP_ACTOR is its git identity's. A
    commit a merge brought in was made elsewhere, by whoever made it, and its
    author line is whatever they wrote: a peer who pushes a commit "by" you
    would close work in your name. It is never yours by that line; what it asks
    waits for you to confirm it, unless the ledger records it already
    (`recorded_already`: the clone that made it recorded it).
    """
    if merged:
        return False
    author = commit.author_email.casefold()
    return author in (commit.committer_email.casefold(), (actor or "").casefold())


def recorded_already(repo: Repo, entry: Entry) -> bool:
    """Whether the ledger holds what every request of a trailers entry asks: each close
    by its commit, each note naming it (so confirming it would write nothing)."""
    tip = repo.tip()
    if tip is None:
        return False
    snapshot = Snapshot(repo, tip)
    sha = entry.get("commit")
    try:
        for request in entry.get("requests") or []:
            item_id = snapshot.resolve(str(request.get("ref")))
            item = snapshot.item(item_id)
            if item is None:
                return False
            if request.get("verb") == "note":
                events = snapshot.events(item_id)
                if not any(e.verb == "note" and e.args.get("commit") == sha for e in events):
                    return False
            # a later close of a closed item is kept as one of its related commits
            elif item.status not in CLOSED or sha not in (item.commit_sha, *item.related_commits):
                return False
    except CoopError:  # an id naming nothing, or a file that cannot be read: it waits
        return False
    return True


def _request(
    verb: str, ref: str, commit: CommitInfo, summary: str, backfill: bool, foreign: bool
) -> dict[str, Any]:
    args: dict[str, Any] = {"commit": commit.sha, "committer": commit.committer_email}
    if verb == "note":
        args["text"] = f"commit {commit.sha[:12]}: {summary}"
    else:
        args["summary"] = summary
    if backfill or foreign:  # recorded by someone else: say whose commit it was
        args["author"] = commit.author_email
    if backfill:  # and, recorded later, when it was made
        args["committed_at"] = format_instant(commit.committed_at)
    return {"verb": verb, "ref": ref, "args": args}


def _entry(ctx: Context, kind: str, actor: str | None, **fields: Any) -> Entry:
    return {
        "kind": kind,
        "actor": actor,
        "session": ctx.session,
        "at": format_instant(ctx.now),
        **fields,
    }


def from_incoming(ctx: Context, incoming: Incoming) -> Entry | None:
    """The entry a shell shim's note stands for (None: the commit asked nothing)."""
    fields = incoming.fields
    if incoming.problem is not None:
        reason = f"a note the hook left cannot be read ({incoming.problem}): {fields!r}"
        return {"kind": "unreadable", "line": reason, "at": _noted_at(incoming)}
    base = {
        "actor": fields.get("actor") or None,
        "session": fields.get("session") or None,
        "at": _noted_at(incoming),
        "note": fields.get("note") or "gitcoop could not start",
    }
    if fields.get("hook") == "post-rewrite":
        return {
            "kind": "rewrite",
            **base,
            "how": fields.get("how") or "rebase",
            "pairs": incoming.pairs,
        }
    repo = ctx.repo()
    try:
        commit = worktree.read_commit(repo, fields.get("commit") or "")
    except NoLedger:
        line = f"the hook noted commit {fields.get('commit')!r}, which is not in this repository"
        return {"kind": "unreadable", "line": line, "at": base["at"]}
    merged = fields.get("hook") == "post-merge" and not _a_merge(repo, commit.sha)
    entry = commit_entry(ctx, repo, commit, base["actor"], merged=merged)
    if entry is None or (entry.get("authored_by") and recorded_already(repo, entry)):
        return None  # asks nothing, or its own clone recorded it
    return {**entry, **base}


def _noted_at(incoming: Incoming) -> str:
    at = incoming.fields.get("at")
    if at:
        return at
    return format_instant(datetime.fromtimestamp(int(incoming.written), UTC))


def _moved_entry(entry: Entry, moved: dict[str, str]) -> Entry:
    """A pending entry about a rewritten commit now names the new commit."""
    if entry.get("kind") == "rewrite":
        pairs = [[old, moved.get(new, new)] for old, new in entry.get("pairs", [])]
        return {**entry, "pairs": pairs}
    old = entry.get("commit")
    if entry.get("kind") != "trailers" or old not in moved:
        return entry
    new = moved[old]
    requests = [
        {**r, "args": {k: (new if v == old else v) for k, v in r["args"].items()}}
        for r in entry.get("requests", [])
    ]
    refusals = [
        {**r, "command": r["command"].replace(old, new) if r.get("command") else None}
        for r in entry.get("refusals", [])
    ]
    return {**entry, "commit": new, "requests": requests, "refusals": refusals}


# -- recording now, or journaling ---------------------------------------------------------


def _record_or_journal(ctx: Context, repo: Repo, entry: Entry) -> list[str]:
    outcomes, kept = attempt(ctx, entry, HOOK_LOCK_TIMEOUT)
    if kept is not None:
        entry = {**entry, "id": journal.append(repo.common_dir, kept)}
    return [line for outcome in outcomes for line in hook_lines(outcome, entry)]


def _journal_unopened(
    refused: UnsupportedRepository, entry: Entry | None, moved: dict[str, str] | None = None
) -> list[str]:
    """In a repository gitcoop cannot open (SHA-256): what the commit asked waits in the
    journal, found through git, until a gitcoop that can work there replays it. Nothing
    asked, nothing said: a commit without trailers loses nothing."""
    if entry is None:
        return []
    common_dir = worktree.common_dir_by_git()
    if common_dir is None:
        return [f"gitcoop: {refused.message}; {describe(entry)} could not be journaled"]
    if moved:
        journal.update(common_dir, lambda e: _moved_entry(e, moved))
    journal.append(common_dir, {**entry, "state": "waiting", "reason": refused.message})
    return [
        f"gitcoop: {refused.message}",
        f"gitcoop: {describe(entry)} kept in the journal until gitcoop can record it here",
    ]


def _journal_merged_unopened(ctx: Context, refused: UnsupportedRepository, since: str) -> list[str]:
    """`_record_merged` where gitcoop cannot open the repository: each commit of
    `since`..HEAD with trailers is journaled, by the same rules, read through git."""
    comment = worktree.comment_char_by_git() or "#"
    actor = ctx.actor or worktree.config_by_git("user.email")
    merged, more = worktree.merged_commits_by_git(MERGED_AT_MOST, since)
    lines: list[str] = []
    newest = merged[-1].sha if merged else None
    made = newest if worktree.git_says("rev-parse", "-q", "--verify", "HEAD^2") else None
    for commit in merged:  # the merge commit is the one merging's; the rest came in
        older = commit.sha != newest
        entry = trailers_entry(ctx, commit, actor, comment, older, merged=commit.sha != made)
        lines += [line for line in _journal_unopened(refused, entry) if line not in lines]
    if more:
        lines.append(_more_than(since))
    return lines


def hook_lines(outcome: Outcome, entry: Entry) -> list[str]:
    """What the hook says on stderr about one outcome."""
    if outcome.status in ("recorded",):
        return [f"gitcoop: {outcome.text}"]
    if outcome.status == "waiting":
        return [
            f"gitcoop: could not record {describe(entry)} now ({outcome.text}) — kept in the "
            "journal; the next git coop command records it"
        ]
    if outcome.status == "broken":
        return [
            f"gitcoop: cannot record {describe(entry)}: {outcome.text} — kept in the journal; "
            "git coop hook replay says how to record or dismiss it"
        ]
    if outcome.status == "unconfirmed":
        short = str(entry.get("id", ""))[:SHORT_ID]
        return [
            f"gitcoop: not recorded: {outcome.text} — record it as yours with: git coop hook "
            f"confirm {short}, or drop it: git coop hook dismiss {short} --reason WHY"
        ]
    if outcome.status == "refused":
        how = f"record it with: {outcome.command}" if outcome.command else "check the id"
        return [
            f"gitcoop: not recorded: {outcome.text} — {how} (kept in the journal until then: "
            "git coop hook replay)"
        ]
    return []


# -- the message suggestion ---------------------------------------------------------------


@record_type
class Suggestion:
    """The one item the actor holds, offered as a commented trailer in the editor."""

    label: str
    key: str  # Coop-Done | Coop-Close
    title: str  # ledger text, written by anyone: escape it before it is shown
    comment: str  # git's comment prefix


def suggestion(ctx: Context, text: str, source: str | None) -> Suggestion | None:
    """The suggestion for a message being edited, or None (not an editor message, none held)."""
    if source in NO_SUGGESTION_SOURCES:
        return None
    try:
        repo = ctx.repo()
    except UnsupportedRepository:  # post-commit says so, when a commit asks anything
        return None
    comment = worktree.comment_char(repo)
    snapshot = Snapshot(repo, repo.tip())
    if comment is None or snapshot.commit is None:
        return None
    item = _only_held_item(snapshot, ctx.who(repo), ctx.session)
    if item is None:
        return None
    label = snapshot.label(item.id)
    if item.id in text or label in text:
        return None
    key = "Coop-Done" if item.kind == "todo" else "Coop-Close"
    return Suggestion(label, key, item.title, comment)


def with_suggestion(text: str, offered: Suggestion, title_shown: str) -> str:
    """The message with the suggestion inserted before git's comments.

    `title_shown` is the title as the one escaping function shows it. Every
    inserted line is a comment, so nothing pasted can become a trailer: when
    a line would not be one, the message is left as it was.
    """
    c = offered.comment
    lines = [
        f"{c} gitcoop: you hold {offered.label} ({title_shown}); uncomment the next line",
        f"{c} to record it with this commit.",
        f"{c} {offered.key}: {offered.label}",
        c,
    ]
    inserted = "\n".join(lines) + "\n"
    if any(not line.startswith(c) or "\r" in line for line in inserted.split("\n")[:-1]):
        return text
    return _insert_before_comments(text, "\n" + inserted, c)


def _only_held_item(snapshot: Snapshot, actor: str, session: str | None) -> Item | None:
    held = [
        item
        for item in blob_search.items_containing(snapshot, actor)
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
