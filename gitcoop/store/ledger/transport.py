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

import atexit
import contextlib
import glob
import os
import secrets
import selectors
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from gitcoop.domain import progress
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
NOT_IN_A_REF = frozenset(" ~^:?*[\\\x7f") | {chr(c) for c in range(32)}  # git check-ref-format
MISSING_REF = "couldn't find remote ref"
SCRATCH = "refs/coop/fetching/"  # each fetch's own ref: SCRATCH + PID-RANDOM
HOST_TEXT_KEPT = 64 * 1024  # bytes of git's stderr kept, first and last halves (a host's
# lines come through it)
LINGER = 1.0  # seconds a pipe is read once git has left (what it started may hold one)
OUTPUT_KEPT = 64 * 1024 * 1024  # bytes of git's stdout kept from a talk with a remote
NEARLY_FULL = 16 * 1024 * 1024  # bytes free under which this clone's disk is taken as full


class TransportFailed(RemoteUnreachable):
    """git could not reach the remote, or the connection broke (a push's outcome unknown).
    `passing`: the remote was there and reset the connection (a host at its limit)."""

    passing = False


class ConnectionReset(TransportFailed):
    passing = True


class TimedOut(TransportFailed):
    """The remote did not finish within coop.remoteTimeout: it is not asked again by the
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


def is_remote_name(name: str) -> bool:
    """A name that is no option nor URL (no `-` first, no `:`), and makes valid refs as a
    part of one (refs/coop/taken/NAME): git's rules for a ref's name (check-ref-format),
    so every name git takes for a remote and a ref can carry is taken here too."""
    return (
        bool(name)
        and not name.startswith("-")
        and not name.endswith((".", "/"))
        and name != "@"
        and "@{" not in name
        and ".." not in name
        and not NOT_IN_A_REF.intersection(name)
        and all(
            part and not part.startswith(".") and not part.endswith(".lock")
            for part in name.split("/")
        )
    )


def check_remote(repo: Repo, remote: str) -> None:
    """A configured remote name, never an option or a raw URL."""
    if not is_remote_name(remote):
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
    if _git_true(repo.config_value(f"remote.{remote}.mirror")):
        raise UsageError(
            f"remote {remote!r} is a mirror (remote.{remote}.mirror), whose pushes take no "
            "refspec — share the ledger through another remote: git remote add NAME URL"
        )
    overwrites = _lands_on(repo.config_values(f"remote.{remote}.fetch"))
    if overwrites is not None:
        raise UsageError(
            f"remote {remote!r} fetches {overwrites!r}, so a plain git fetch {remote} would "
            f"overwrite {REF} with its copy and lose what this clone wrote — share the ledger "
            "through another remote (git remote add NAME URL), or narrow that refspec"
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
            with repo.shared_modes():
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
    said = environment.said(_first(stderr), doing, wrote_nothing)
    if said is None:
        return None
    objects = os.path.join(repo.common_dir, "objects")
    try:
        room = os.statvfs(objects)
        if room.f_bavail * room.f_frsize < NEARLY_FULL:
            return said
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

    What git says is read as bytes (`_Heard`), kept within bounds (a host writes through
    git's stderr, as much as it likes) and decoded whatever its bytes are."""
    if remote is not None and not is_remote_name(remote):
        raise UsageError(f"{remote!r} is not a remote name — give one from: git remote")
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"} if quiet else None  # ssh setup stays theirs
    limit = remote_timeout(repo) if remote is not None else None
    slow = _low_speed(repo, limit) if limit is not None else []
    command = ["git", "--git-dir", repo.git_dir, *slow, *args]
    try:
        running = subprocess.Popen(
            command,
            cwd=repo.workdir() or repo.git_dir,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            stdin=subprocess.DEVNULL if quiet else None,
        )
    except OSError as exc:
        raise TransportFailed(f"cannot run git: {exc}") from None
    RUNNING.add(running)
    heard = _Heard(running, OUTPUT_KEPT if remote else None)
    try:
        if meanwhile is not None:
            meanwhile()
        heard.until_done(None if limit is None else time.monotonic() + limit)
    except BaseException as stopped:
        _stop_one(running)  # a timeout, an interrupt, `meanwhile` failing: git stops too,
        running.wait()  # and what it started (ssh, a remote helper)
        if not isinstance(stopped, subprocess.TimeoutExpired):
            raise
        assert remote is not None and limit is not None
        pushing = args[0] == "push"
        unknown = "; whether it took the push is not known" if pushing else ""
        raise TimedOut(
            f"{remote} did not finish within {limit:g}s{unknown} — for a slow remote, or "
            f"a large ledger's first fetch, allow longer: git config {REMOTE_TIMEOUT_KEY} 10m",
            pushing,
        ) from None
    finally:
        heard.close()
        RUNNING.discard(running)
    return subprocess.CompletedProcess(command, running.returncode, heard.out(), heard.err())


RUNNING: set[subprocess.Popen[bytes]] = set()  # the gits this process runs, in any thread


@atexit.register
def _stop_running() -> None:
    """A process leaving (SIGTERM, an MCP server ending with a call still out) stops the
    gits it started and what they started, which would otherwise run on unbounded."""
    for running in list(RUNNING):
        _stop_one(running)


def _stop_one(running: subprocess.Popen[bytes]) -> None:
    """Stop a git and what it started, while it is ours: a git not yet reaped keeps its
    pid (a zombie at worst), so no other process is ever signalled in its place."""
    if running.poll() is None:
        _stop(running.pid)
        with contextlib.suppress(OSError):
            running.kill()


class _Heard:
    """What a git process writes to its stdout and stderr, read in this thread as it comes.

    Of stderr (where a host's lines arrive, as many as it likes) the first and the last
    HOST_TEXT_KEPT // 2 bytes are kept, so git's own verdict at the end is never lost to
    what a host said first; of stdout, the first `out_kept` bytes (None: all). Once git
    has left, a process it started that still holds a pipe (an ssh master, a host's
    grandchild) is waited for LINGER seconds at most, never for the pipe to close."""

    def __init__(self, running: subprocess.Popen[bytes], out_kept: int | None) -> None:
        self.running = running
        self.out_kept = out_kept
        self.chunks: dict[str, list[bytes]] = {"out": [], "err": []}
        self.sizes = {"out": 0, "err": 0}
        self.tail = bytearray()  # stderr past its first half of the bound
        self.dropped = 0
        self.selector = selectors.DefaultSelector()
        for stream, key in ((running.stdout, "out"), (running.stderr, "err")):
            assert stream is not None
            os.set_blocking(stream.fileno(), False)
            self.selector.register(stream.fileno(), selectors.EVENT_READ, key)

    def until_done(self, deadline: float | None) -> None:
        """Read until git has left and its pipes closed (or lingered); TimeoutExpired past
        the deadline while git runs. Once git has left, its answer stands: the linger for
        a pipe a process it started holds never turns a finished talk into a timeout."""
        left_at: float | None = None
        while self.selector.get_map():
            now = time.monotonic()
            if left_at is None and self.running.poll() is not None:
                left_at = now
            if left_at is None and deadline is not None and now >= deadline:
                raise subprocess.TimeoutExpired(self.running.args, 0)
            if left_at is not None and now - left_at >= LINGER:
                break
            if left_at is not None:
                wait = LINGER - (now - left_at)
            else:
                wait = 0.05 if deadline is None else min(0.05, deadline - now)
            for event, _ in self.selector.select(max(wait, 0.0)):
                self._read(event.fd, event.data)
        if left_at is None:
            remaining = None if deadline is None else max(deadline - time.monotonic(), 0.0)
            self.running.wait(timeout=remaining)

    def _read(self, fd: int, key: str) -> None:
        try:
            chunk = os.read(fd, 65536)
        except BlockingIOError:
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.selector.unregister(fd)
            return
        if key == "out":
            if self.out_kept is None or self.sizes["out"] < self.out_kept:
                room = None if self.out_kept is None else self.out_kept - self.sizes["out"]
                self.chunks["out"].append(chunk[:room])
                self.sizes["out"] += len(self.chunks["out"][-1])
            return
        half = HOST_TEXT_KEPT // 2
        if self.sizes["err"] < half:
            head = chunk[: half - self.sizes["err"]]
            self.chunks["err"].append(head)
            self.sizes["err"] += len(head)
            chunk = chunk[len(head) :]
        self.tail += chunk
        if len(self.tail) > half:
            self.dropped += len(self.tail) - half
            del self.tail[: len(self.tail) - half]

    def close(self) -> None:
        self.selector.close()
        for stream in (self.running.stdout, self.running.stderr):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()

    def out(self) -> str:
        return b"".join(self.chunks["out"]).decode("utf-8", "replace")

    def err(self) -> str:
        cut = f"\n[{self.dropped} bytes left out]\n".encode() if self.dropped else b""
        return (b"".join(self.chunks["err"]) + cut + bytes(self.tail)).decode("utf-8", "replace")


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


def _git_true(value: str | None) -> bool:
    """A boolean as git reads one (`git config --bool`): yes/true/on or a number not 0;
    an unset key is false."""
    if value is None:
        return False
    word = value.strip().lower()
    if word in ("true", "yes", "on"):
        return True
    if word in ("false", "no", "off", ""):
        return False
    try:
        return int(word, 10) != 0
    except ValueError:
        return True  # git refuses it as a boolean; the safer reading: a mirror


def _lands_on(refspecs: list[str]) -> str | None:
    """The fetch refspec that writes the ledger's own ref (`+refs/*:refs/*`, a mirror's),
    unless a negative refspec (`^refs/coop/ledger`) leaves out its source."""
    negatives = [spec[1:] for spec in refspecs if spec.startswith("^")]
    for spec in refspecs:
        if spec.startswith("^"):
            continue
        source, _, destination = spec.lstrip("+").partition(":")
        matched = _glob(destination, REF)
        if matched is None:
            continue
        named = source.replace("*", matched, 1)
        if not any(_glob(negative, named) is not None for negative in negatives):
            return spec
    return None


def _glob(pattern_text: str, name: str) -> str | None:
    """What a refspec's one `*` stands for in `name` ("" with no `*`), or None: no match."""
    if "*" not in pattern_text:
        return "" if pattern_text == name else None
    before, _, after = pattern_text.partition("*")
    if len(name) < len(before) + len(after) or not name.startswith(before):
        return None
    return name[len(before) : len(name) - len(after)] if name.endswith(after) else None


def _porcelain_line(stdout: str) -> tuple[str, str] | None:
    """The flag and the summary of `push --porcelain`'s line for REF: `F\tFROM:TO\tSUMMARY`
    (the summary may hold tabs of the host's; the `To URL` line is no ref's line)."""
    for line in stdout.splitlines():
        flag, _, rest = line.partition("\t")
        refs, _, summary = rest.partition("\t")
        if len(flag) == 1 and refs.endswith(f":{REF}"):
            return flag, summary
    return None


def _porcelain_status(stdout: str) -> str | None:
    found = _porcelain_line(stdout)
    return found[0] if found else None


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
    found = _porcelain_line(stdout)
    return found[1] if found else ""


def _first(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith(("fatal:", "error:"))]
    return (fatal or lines or ["no output from git"])[0]
