"""Who is asking, when, and with what: everything a verb needs from outside.

Only the CLI reads the environment; it builds a Context and passes it down.
"""

from __future__ import annotations

import os
from dataclasses import field
from datetime import UTC, datetime

from gitcoop.domain.ids import EMAIL_RE, RandomBits, acting_problem, normal
from gitcoop.domain.patterns import pattern
from gitcoop.domain.record_type import record_type
from gitcoop.errors import NoLedger, UsageError
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo, open_repo
from gitcoop.store.repository import Search as Search  # for the CLI, which says how


def _now() -> datetime:
    return datetime.now(UTC).replace(microsecond=0)


def system_bits(count: int) -> int:
    """`count` random bits from the system's source (`secrets.randbits`, without loading
    the `secrets` and `random` modules into every command)."""
    size = (count + 7) // 8
    return int.from_bytes(os.urandom(size)) >> (size * 8 - count)


@record_type
class Context:
    path: str = "."
    actor: str | None = None
    session: str | None = None
    now: datetime = field(default_factory=_now)
    bits: RandomBits = system_bits
    expect_version: int | None = None
    offline: bool = False  # --offline: a claim is decided here, not by the coop.claims remote
    git_parameters: str = ""  # GIT_CONFIG_PARAMETERS: what `git -c key=value` set
    search: Search = Search()  # how git would find the repository (GIT_DIR, a ceiling)

    def repo(self) -> Repo:
        return open_repo(self.path, self.git_parameters, self.search)

    def who(self, repo: Repo) -> str:
        """The one answer to who is acting: --as, COOP_ACTOR, else git's user.email, in
        NFC; an email address, or exactly the identity git is configured with here."""
        configured: str | None = None
        if self.actor is None or not EMAIL_RE.match(self.actor.strip()):
            configured = (repo.config_value("user.email") or "").strip() or None
        actor = self.actor or configured
        if not actor or not actor.strip():
            raise UsageError("who is acting? set --as ACTOR, COOP_ACTOR, or git config user.email")
        actor, configured = normal(actor.strip()), configured and normal(configured)
        problem = acting_problem(actor, configured)
        if problem:
            raise UsageError(problem)
        return actor


SHA_RE = pattern(r"^[0-9a-f]{7,64}\Z")


def commit_named(repo: Repo, text: str, elsewhere: bool = False) -> str:
    """--commit as a full sha: a revision resolved here; with `elsewhere`
    (--commit-elsewhere), a sha this clone does not have is kept as given (a commit
    only another clone has, or one not fetched yet)."""
    if text.strip().startswith("refs/coop/"):
        raise UsageError(
            f"--commit {text!r} names gitcoop's own ledger, not work — give the commit of the work"
        )
    found = repo.commit_sha(text)
    if found is not None:
        return found
    kind = repo.kind_named(text)
    if kind is not None:  # here, but not a commit
        raise UsageError(
            f"--commit {text!r} names a {kind} here, not a commit — give a commit's sha or a "
            "revision (git log shows them)"
        )
    if not SHA_RE.match(text):
        if text.strip().startswith(("HEAD", "@")) and repo.head_sha() is None:
            raise UsageError(
                f"--commit {text!r}: HEAD has no commit yet (a new branch or repository) — "
                "commit the work first"
            )
        raise UsageError(f"--commit {text!r} names no commit here — give a sha or a revision")
    if not elsewhere:
        raise UsageError(
            f"--commit {text} is not a commit in this repository — fetch it first, "
            "or record it as given with --commit-elsewhere"
        )
    return text


def commit_here(ctx: Context, text: str) -> bool:
    """Whether --commit `text` names a commit this repository has."""
    return ctx.repo().commit_sha(text) is not None


def fsync_wanted(repo: Repo) -> bool:
    """Durable by default; `git config coop.fsync false` trades that away."""
    value = repo.config_value("coop.fsync")
    return value is None or value.lower() not in ("false", "no", "off", "0")


SIGN_KEY = "coop.sign"
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


def sign_setting(repo: Repo) -> bool | None:
    """`git config coop.sign`: True, False, or None when unset (or unreadable)."""
    value = (repo.config_value(SIGN_KEY) or "").strip().lower()
    return True if value in TRUE_WORDS else False if value in FALSE_WORDS else None


def signing_wanted(repo: Repo) -> bool:
    """Whether local git config asks for signed ledger commits: `coop.sign true`, or git's
    own `commit.gpgSign true` with `gpg.format ssh` (coop.sign, when set, decides).

    Config reads only, so a write that does not sign never loads the signing code.
    """
    own = sign_setting(repo)
    if own is not None:
        return own
    gpg_sign = (repo.config_value("commit.gpgSign") or "").strip().lower() in TRUE_WORDS
    return gpg_sign and (repo.config_value("gpg.format") or "").strip().lower() == "ssh"


CLAIMS_KEY = "coop.claims"


def claims_remote(repo: Repo) -> str | None:
    """The remote that decides claims (`git config coop.claims`), unchecked; None: off.

    Read here so a write with claims off never loads the sharing code.
    """
    value = repo.config_value(CLAIMS_KEY)
    return value.strip() if value is not None and value.strip() else None


def checked_claims_remote(repo: Repo) -> str | None:
    """The remote `git config coop.claims` names, checked to be one; None: claims are off.
    A setting naming no remote is a usage error that says the setting chose it."""
    remote = claims_remote(repo)
    if remote is None:
        return None
    from gitcoop.store.ledger import transport  # a write with claims off never loads it

    try:
        transport.check_remote(repo, remote)
    except UsageError as bad:
        raise UsageError(
            f"git config {CLAIMS_KEY} names {remote!r}: {bad.message} "
            f"(or turn claims off: git config --unset {CLAIMS_KEY})"
        ) from None
    return remote


def require_ledger(snapshot: Snapshot) -> None:
    """A ledger exists and its coop.yaml is of a format this gitcoop reads."""
    if snapshot.commit is None:
        fetched = snapshot.repo.fetched_ledgers()
        if fetched:
            raise NoLedger(
                f"no ledger here yet, but one was fetched from {fetched[0]} — "
                f"run: git coop sync {fetched[0]}"
            )
        remotes = snapshot.repo.remote_names()
        if remotes:  # a clone: its remote's ledger comes with a sync, not a plain clone
            remote = "origin" if "origin" in remotes else remotes[0]
            sync = f"git coop sync {remote}"  # named: unnamed, it is coop.claims's remote
            raise NoLedger(
                f"no ledger in this clone yet — to share {remote}'s: git coop remote setup "
                f"{remote} && {sync} (to start a new one: git coop init)"
            )
        raise NoLedger("no ledger in this repository yet — run: git coop init")
    snapshot.config  # noqa: B018 — parsing it checks the format version


def read_ledger(ctx: Context) -> Snapshot:
    """The ledger as of the ref's current tip; NoLedger when there is none."""
    repo = ctx.repo()
    from gitcoop.store.fast.read_cache import ItemCache  # reads only: a write never loads it

    snapshot = Snapshot(repo, repo.tip(), ItemCache(repo.common_dir))
    require_ledger(snapshot)
    snapshot.config  # noqa: B018 — a safe coop.yaml of a known format comes before any read
    return snapshot
