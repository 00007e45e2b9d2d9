"""Moving the ledger between clones: the git CLI, so every git host and setup works.

Only network transport goes through `git` (ssh config, credential helpers,
insteadOf, proxies all apply); everything else is pygit2 in the repository
module. Fetch checks every received object (`transfer.fsckObjects`). A push
never overwrites what it has not merged: `push` is a plain fast-forward, and
`push_leased` (claims, docs/sync.md) names the remote tip it merged
(`--force-with-lease`), so the remote takes the push only if its ledger is
still exactly that commit, and only a descendant of that commit is offered.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import signal
import subprocess
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import IO

from gitcoop.domain import progress
from gitcoop.domain.patterns import pattern
from gitcoop.domain.record_type import record_type
from gitcoop.domain.timefmt import parse_duration
from gitcoop.errors import (
    CoopError,
    FetchedLedgerRefused,
    RemoteRefused,
    RemoteUnreachable,
    UsageError,
)
from gitcoop.store.git import environment
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger.layout import REF, remote_ref
from gitcoop.store.ledger.repo import Repo

REMOTE_TIMEOUT_KEY = "coop.remoteTimeout"
DEFAULT_REMOTE_TIMEOUT = 60.0  # seconds a fetch or a push may take before it is given up
LONGEST_REMOTE_TIMEOUT = 86_400.0  # a day; the wait itself takes no more than ~24 days
REMOTE_NAME_RE = pattern(r"^[A-Za-z0-9_][A-Za-z0-9._/-]*\Z")
MISSING_REF = "couldn't find remote ref"
SCRATCH = "refs/coop/fetching/"  # each fetch's own ref: SCRATCH + PID-RANDOM
HOST_TEXT_KEPT = 64 * 1024  # bytes of git's stderr kept (a host's lines come through it)
OUTPUT_KEPT = 64 * 1024 * 1024  # bytes of git's stdout kept from a talk with a remote
NEARLY_FULL = 16 * 1024 * 1024  # bytes free under which this clone's disk is taken as full


class TransportFailed(RemoteUnreachable):
    """git could not reach the remote, or the connection broke (a push's outcome unknown).
    `passing`: the remote was there and reset the connection (a host at its limit)."""

    passing = False


class ConnectionReset(TransportFailed):
    passing = True


class TimedOut(TransportFailed):
    """The remote did not answer within coop.remoteTimeout: it is not asked again by the
    same command, but for the one fetch that learns whether a push it cut off landed.
    `pushing`: a push was cut off, so whether the remote took it is not known."""

    def __init__(self, message: str, pushing: bool) -> None:
        super().__init__(message)
        self.pushing = pushing


PASSING = ("connection reset", "early eof", "unexpected disconnect")


def _failed(doing: str, stderr: str) -> TransportFailed:
    """What git said failed, in its most telling line; a reset connection is passing."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    reset = [line for line in lines if any(said in line.lower() for said in PASSING)]
    if reset:
        return ConnectionReset(f"{doing} failed: {reset[0]}")
    return TransportFailed(f"{doing} failed: {_first(stderr)}")


@record_type
class Pushed:
    accepted: bool  # the remote moved to our tip (or already had it)
    detail: str  # git's own words when it refused


def fetch_refspec(remote: str) -> str:
    """What `remote setup` adds to remote.REMOTE.fetch for a plain `git fetch`: a pattern,
    because git fails a fetch whose exact source ref the remote lacks (no ledger yet)."""
    return f"+{REF}*:{remote_ref(remote)}*"


def exact_refspec(remote: str) -> str:
    """The exact form earlier setups added (`remote setup` replaces it)."""
    return f"+{REF}:{remote_ref(remote)}"


def check_remote(repo: Repo, remote: str) -> None:
    """A configured remote name, never an option or a raw URL."""
    if not REMOTE_NAME_RE.match(remote) or ".." in remote or remote.endswith((".", "/", ".lock")):
        raise UsageError(f"{remote!r} is not a remote name — give one from: git remote")
    if repo.config_value(f"remote.{remote}.url") is None:
        raise UsageError(f"no remote named {remote!r} — add it first: git remote add {remote} URL")
    nested = [
        other
        for other in repo.remote_names()
        if other != remote and (other.startswith(remote + "/") or remote.startswith(other + "/"))
    ]
    if nested:
        raise UsageError(
            f"remotes {remote!r} and {nested[0]!r} nest, and gitcoop keeps refs named after "
            f"each (refs/coop/taken/REMOTE), which would collide — rename one: "
            f"git remote rename {nested[0]} NEW-NAME"
        )
    if repo.config_value(f"remote.{remote}.mirror") not in (None, "false", "no", "off", "0"):
        raise UsageError(
            f"remote {remote!r} is a mirror (remote.{remote}.mirror), whose pushes take no "
            "refspec and whose fetches overwrite every ref — share the ledger through "
            "another remote: git remote add NAME URL"
        )


def remote_ledger(repo: Repo, remote: str) -> Oid | None:
    """The tip of the remote's ledger, asked without fetching; None when it has none.

    Never prompts (a credential prompt would hang `init`) and gives up after
    coop.remoteTimeout; TransportFailed when the remote cannot be asked.
    """
    with progress.reporter().waiting(f"asking {remote} for its ledger"):
        done = _git(repo, "ls-remote", "--refs", remote, REF, quiet=True, remote=remote)
    if done.returncode != 0:
        raise TransportFailed(f"could not ask {remote}: {_first(done.stderr)}")
    for line in done.stdout.splitlines():
        sha, _, name = line.partition("\t")
        if name == REF:
            return Oid(sha)
    return None


def fetch(repo: Repo, remote: str, meanwhile: Callable[[], None] | None = None) -> Oid | None:
    """The remote's ledger tip, fetched, and noted in refs/coop/remotes/REMOTE/ledger; None
    if it has none. `meanwhile` runs while git fetches (what the caller needs next).

    Each fetch brings the tip into a ref of its own, so fetches of one clone's processes
    never wait for, or fail on, each other's lock on the tracking ref, which is only
    noted afterwards (a lost race there is left alone: the next fetch notes it)."""
    _sweep(repo)
    scratch = f"{SCRATCH}{os.getpid()}-{secrets.token_hex(4)}"
    try:
        theirs = _fetch_into(repo, remote, scratch, meanwhile)
        if theirs is not None and _lacks_objects(repo, remote, theirs):
            theirs = _fetch_into(repo, remote, scratch, None, "--refetch")
        if theirs is not None:
            repo.note_ref(remote_ref(remote), theirs, f"fetched from {remote}")
    finally:
        repo.delete_ref(scratch)
    return theirs


def is_partial(repo: Repo, remote: str) -> bool:
    """Whether this is a partial clone of `remote` (git's promisor remote)."""
    promisor = repo.config_value(f"remote.{remote}.promisor") or ""
    return promisor.strip().lower() in ("true", "yes", "on", "1")


def _sweep(repo: Repo) -> None:
    """Remove the scratch refs of fetches whose process is gone (killed mid-fetch): a fetch
    writes its ref loose, so only that folder is read, not every ref of the repository."""
    try:
        names = os.listdir(os.path.join(repo.common_dir, *SCRATCH.split("/")))
    except OSError:
        return
    for name in names:
        pid = name.split("-", 1)[0]
        if pid.isdigit() and not environment.process_runs(int(pid)):
            repo.delete_ref(SCRATCH + name)


def _lacks_objects(repo: Repo, remote: str, theirs: Oid) -> bool:
    """In a partial clone, whether an earlier filtered fetch (a plain `git fetch` through
    the refspec `remote setup` adds) left out objects of the ledger that this fetch, having
    negotiated their commits as held, did not bring (libgit2 fetches none lazily)."""
    if not is_partial(repo, remote):
        return False
    ours = repo.tip()
    held = ["--not", ours] if ours else []
    listed = _git(repo, "rev-list", "--objects", "--missing=print", theirs, *held)
    missing = any(line.startswith("?") for line in listed.stdout.splitlines())
    return listed.returncode != 0 or missing


def _fetch_into(
    repo: Repo,
    remote: str,
    scratch: str,
    meanwhile: Callable[[], None] | None,
    *how: str,
) -> Oid | None:
    # maintenance.auto=false: git would otherwise start `git maintenance run --auto`
    # after every fetch, and with claims through a remote every claim fetches; the
    # repository's maintenance stays with the user's own git commands. --refmap= : git
    # would also update the tracking ref `remote setup` configured, taking its lock.
    # --no-filter: a partial clone's filter would leave the ledger's blobs behind
    with progress.reporter().waiting(f"fetching the ledger from {remote}"):
        done = _git(
            repo,
            "-c", "transfer.fsckObjects=true", "-c", "maintenance.auto=false",
            "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--refmap=",
            "--no-filter", *how, remote, f"+{REF}:{scratch}",
            meanwhile=meanwhile, remote=remote,
        )  # fmt: skip
    if done.returncode != 0:
        if MISSING_REF in done.stderr:
            return None
        refusal = _fsck_refusal(done.stderr)
        if refusal is not None:  # git's own check of what arrived: a hostile or broken ledger
            raise FetchedLedgerRefused(
                f"remote {remote}: git refused an object the fetch brought ({refusal}) — "
                "the local ledger is unchanged"
            )
        doing = f"fetching the ledger from {remote}"
        raise _said_here(repo, done.stderr, doing) or _failed(doing, done.stderr)
    theirs = repo.tip(scratch)
    if theirs is not None and (kind := repo.kind_of(theirs)) != "commit":  # H7
        raise FetchedLedgerRefused(
            f"remote {remote}: its {REF} names a {kind}, not a commit — a ledger is a history "
            "of commits; the local ledger is unchanged"
        )
    return theirs


def push(repo: Repo, remote: str, tip: Oid) -> Pushed:
    """Offer `tip` as the remote's ledger; the remote takes it only as a fast-forward."""
    with progress.reporter().waiting(f"pushing the ledger to {remote}"):
        done = _git(repo, "push", "--porcelain", remote, f"{tip}:{REF}", remote=remote)
    return _pushed(repo, done, remote)


def _pushed(repo: Repo, done: subprocess.CompletedProcess[str], remote: str) -> Pushed:
    """Accepted, rejected by a race (retrying may help), RemoteRefused (the host's own
    rule: retrying won't), or TransportFailed (the outcome may be unknown)."""
    status = _porcelain_status(done.stdout)
    if done.returncode == 0 and status in (" ", "*", "=", "+"):
        return Pushed(True, "")
    if status == "!":
        reason = _porcelain_reason(done.stdout)
        if reason.startswith("[remote rejected]") and not _moved(reason, done.stderr):
            said = _host_said(done.stderr)
            words = f": {' / '.join(said[:5])}" if said else ""
            raise RemoteRefused(
                f"{remote} refused the push of {REF} {reason.removeprefix('[remote rejected] ')}"
                f"{words} — its host's own rule, so nothing was retried; ask who runs "
                f"{remote} to let {REF} be pushed"
            )
        # a race: not a fast-forward, a stale lease, or the ref moved under the host's lock
        return Pushed(False, reason or _first(done.stderr))
    doing = f"pushing the ledger to {remote}"
    raise _said_here(repo, done.stderr, doing, wrote_nothing=False) or _failed(doing, done.stderr)


def _said_here(repo: Repo, stderr: str, doing: str, wrote_nothing: bool = True) -> CoopError | None:
    """The machine's refusal git's words tell of (exit 9), when this machine bears them out.

    git's stderr carries the host's words as well as its own (an ssh remote's, raw), so
    "No space left on device" there may be the host's disk, or a host's lie: it is this
    clone's only if writing into its object store fails now, or its disk is nearly full.
    """
    if environment.said(_first(stderr), doing, wrote_nothing) is None:
        return None
    objects = os.path.join(repo.common_dir, "objects")
    try:
        room = os.statvfs(objects)
        if room.f_bavail * room.f_frsize < NEARLY_FULL:
            return environment.said(_first(stderr), doing, wrote_nothing)
        handle, path = tempfile.mkstemp(dir=objects, prefix="tmp_coop_probe_")
        try:
            os.write(handle, bytes(4096))
        finally:
            os.close(handle)
            os.unlink(path)
    except OSError as refused:
        return environment.failure(refused, doing, wrote_nothing)
    return None


def push_leased(repo: Repo, remote: str, tip: Oid, merged: Oid | None) -> Pushed:
    """Offer `tip` only if the remote's ledger is still `merged` (None: it has none yet).

    The lease is checked by the remote under its own lock on the ref, so two clones
    leasing the same tip cannot both land: the remote is the compare-and-swap.
    """
    if merged is not None and not repo.is_ancestor(merged, tip):
        return Pushed(False, f"{tip[:10]} does not contain the leased {merged[:10]}")
    lease = f"--force-with-lease={REF}:{merged or ''}"
    with progress.reporter().waiting(f"pushing the ledger to {remote}"):
        done = _git(repo, "push", "--porcelain", lease, remote, f"{tip}:{REF}", remote=remote)
    return _pushed(repo, done, remote)


def _git(
    repo: Repo,
    *args: str,
    quiet: bool = False,
    meanwhile: Callable[[], None] | None = None,
    remote: str | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run git where git itself would run (the worktree's top, so a remote's relative URL
    means what it means to git); `quiet`: never prompt for anything; `meanwhile` runs once
    git has started, before its output is read; `remote`: a talk with that remote, given
    up on after coop.remoteTimeout (TimedOut, exit 7).

    What git says is read as bytes, kept up to a bound (a host writes through git's
    stderr, as much as it likes) and decoded whatever its bytes are."""
    if remote is not None and not REMOTE_NAME_RE.match(remote):
        raise UsageError(f"{remote!r} is not a remote name — give one from: git remote")
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"} if quiet else None  # ssh setup stays theirs
    limit = remote_timeout(repo) if remote is not None else None
    slow = _low_speed(repo, limit) if limit is not None else []
    command = ["git", "--git-dir", repo.git_dir, *slow, *args]
    kept: dict[str, list[bytes]] = {}
    try:
        with subprocess.Popen(
            command,
            cwd=repo.workdir() or repo.git_dir,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            stdin=subprocess.DEVNULL if quiet else None,
        ) as running:
            readers = [
                _reader(running.stdout, OUTPUT_KEPT if remote else None, kept, "out"),
                _reader(running.stderr, HOST_TEXT_KEPT, kept, "err"),
            ]
            try:
                if meanwhile is not None:
                    meanwhile()
                running.wait(timeout=limit)
            except BaseException:
                _stop(running.pid)  # a timeout, an interrupt, `meanwhile` failing: git stops
                running.kill()  # too, and what it started (ssh, a remote helper)
                raise
            finally:
                for reader in readers:
                    reader.join(timeout=5)  # a grandchild holding the pipe is not waited on
    except subprocess.TimeoutExpired:
        assert remote is not None and limit is not None
        pushing = args[0] == "push"
        unknown = "; whether it took the push is not known" if pushing else ""
        raise TimedOut(
            f"{remote} did not answer within {limit:g}s (git config {REMOTE_TIMEOUT_KEY}){unknown}",
            pushing,
        ) from None
    except OSError as exc:
        raise TransportFailed(f"cannot run git: {exc}") from None
    out, err = (b"".join(kept.get(key, [])).decode("utf-8", "replace") for key in ("out", "err"))
    return subprocess.CompletedProcess(command, running.returncode, out, err)


def _reader(
    stream: IO[bytes] | None, keep: int | None, kept: dict[str, list[bytes]], key: str
) -> threading.Thread:
    """A thread reading `stream` to its end into kept[key], keeping its first `keep` bytes
    (None: all). What it read is there at once: a process git started that holds the pipe
    after git left (an ssh master) costs the wait for it, never what git said."""
    chunks: list[bytes] = kept.setdefault(key, [])

    def read() -> None:
        if stream is None:
            return
        size = 0
        with contextlib.suppress(OSError, ValueError):
            while chunk := stream.read1(65536):  # type: ignore[attr-defined]
                if keep is None or size < keep:
                    chunks.append(chunk if keep is None else chunk[: keep - size])
                    size += len(chunks[-1])

    thread = threading.Thread(target=read, daemon=True)
    thread.start()
    return thread


def _stop(pid: int) -> None:
    """Kill what `pid` started, deepest first (Linux's /proc lists each task's children):
    an ssh that hangs outlives a killed git otherwise. git itself is the caller's, but
    each process is stopped before its children are read, so none starts another one
    (an ssh forked just after the listing) that would outlive it."""
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGSTOP)
    for task in glob.glob(f"/proc/{pid}/task/*/children"):
        with contextlib.suppress(OSError, ValueError):
            for child in map(int, Path(task).read_text().split()):
                _stop(child)
                with contextlib.suppress(OSError):
                    os.kill(child, signal.SIGKILL)


def remote_timeout(repo: Repo) -> float:
    """Seconds a talk with a remote may take: `git config coop.remoteTimeout` (seconds, or
    a duration such as 30s or 2m), else DEFAULT_REMOTE_TIMEOUT."""
    text = repo.config_value(REMOTE_TIMEOUT_KEY)
    if text is None:
        return DEFAULT_REMOTE_TIMEOUT
    try:
        seconds = parse_duration(text.strip()).total_seconds()
    except ValueError:
        seconds = 0
    if not 0 < seconds <= LONGEST_REMOTE_TIMEOUT:
        raise UsageError(
            f"git config {REMOTE_TIMEOUT_KEY} is {text!r}: give seconds or a duration such as "
            f"30s or 2m, at most 1d (unset it for the default, {DEFAULT_REMOTE_TIMEOUT:g}s)"
        )
    return seconds


def _low_speed(repo: Repo, limit: float) -> list[str]:
    """git's own give-up for a stalled http transfer, unless the user set one: under a
    byte a second for the whole limit."""
    if repo.config_value("http.lowSpeedLimit") is not None:
        return []
    return ["-c", "http.lowSpeedLimit=1", "-c", f"http.lowSpeedTime={max(1, int(limit))}"]


def _fsck_refusal(stderr: str) -> str | None:
    """What git's check of the received objects (transfer.fsckObjects) refused, if that is
    why the fetch failed: its first `error: object ...` line."""
    if "fsck error" not in stderr:
        return None
    found = [line.strip() for line in stderr.splitlines() if line.startswith("error: object ")]
    return found[0].removeprefix("error: ") if found else "fsck error"


def _porcelain_status(stdout: str) -> str | None:
    for line in stdout.splitlines():
        if line.endswith(REF) or f":{REF}\t" in line:
            return line[:1]
    return None


def _host_said(stderr: str) -> list[str]:
    """The host's own lines (`remote: …`), as a plain `git push` shows them."""
    said = (line.removeprefix("remote:").strip() for line in stderr.splitlines()
            if line.startswith("remote:"))  # fmt: skip
    return [line for line in said if line]


def _moved(reason: str, stderr: str) -> bool:
    """Whether a `[remote rejected]` push lost a race: the ref moved under the host's own
    lock (it says so in its reason, or in its lines beside "failed to update ref")."""
    if any(said in reason for said in ("cannot lock", "failed to lock", "incorrect old value")):
        return True
    return "failed to update ref" in reason and "cannot lock ref" in stderr


def _porcelain_reason(stdout: str) -> str:
    for line in stdout.splitlines():
        if f":{REF}\t" in line:
            return line.split("\t")[-1]
    return ""


def _first(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["no output from git"])[0]
