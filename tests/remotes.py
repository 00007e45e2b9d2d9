"""Real servers for a ledger's remote: file://, `git daemon` (git://) and sshd (ssh://).

Each serves one bare repository, `remote.git`, started and stopped by the test.
A server is ready when its own log says so: the line is read through a pipe,
never waited for by polling. The rest of its log is drained by a thread so the
server never blocks on a full pipe.

`cut_pushes` makes the server itself fail a push, as a remote that goes away
mid-push does: receive-pack is killed before it updates the ref (nothing
lands) or right after (it landed, and the client never hears so).
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import threading
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo
from tests.conftest import Clones, git, unavailable

KINDS = ("file", "daemon", "ssh")
EXEC_PATH = subprocess.run(["git", "--exec-path"], capture_output=True, text=True).stdout.strip()


@dataclass
class Served(Clones):
    """A bare remote behind a real server; `env` is what a client needs to reach it."""

    kind: str = "file"
    bare: Path = Path()
    env: dict[str, str] = field(default_factory=dict)

    def away(self) -> None:
        """The remote is gone: every fetch and push fails until `back`."""
        self.bare.rename(self.bare.with_name("remote.away"))

    def back(self) -> None:
        self.bare.with_name("remote.away").rename(self.bare)

    def tip(self) -> str:
        return git(
            self.bare, "rev-parse", "--verify", "-q", "refs/coop/ledger", check=False
        ).strip()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def await_line(server: subprocess.Popen[str], marker: str) -> str | None:
    """Read the server's log until `marker`, then drain the rest in the background.

    None when it is ready; else the log of a server that exited first.
    """
    assert server.stderr is not None
    seen = []
    for line in server.stderr:
        seen.append(line)
        if marker in line:
            threading.Thread(target=server.stderr.read, daemon=True).start()
            return None
    return "".join(seen).strip() or f"exit {server.wait()}"


def stop(server: subprocess.Popen[str]) -> None:
    server.terminate()
    try:
        server.wait(timeout=10)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait(timeout=10)


@contextmanager
def serve(kind: str, root: Path) -> Iterator[Served]:
    """A bare `root/served/remote.git` served as `kind`; skips when the server is missing."""
    base = root / "served"
    base.mkdir()
    git(base, "init", "-q", "--bare", "remote.git")
    bare = base / "remote.git"
    if kind == "file":
        yield Served(root, bare.as_uri(), "file", bare)
    elif kind == "daemon":
        with _daemon(root, base, bare) as served:
            yield served
    else:
        with _sshd(root, bare) as served:
            yield served


@contextmanager
def _daemon(root: Path, base: Path, bare: Path) -> Iterator[Served]:
    if not (Path(EXEC_PATH) / "git-daemon").exists():
        unavailable(f"this git has no git-daemon in {EXEC_PATH} (Debian: apt-get install git)")
    port = free_port()
    daemon = subprocess.Popen(
        [
            "git", "daemon", "--verbose", "--reuseaddr", "--export-all",
            "--enable=receive-pack", "--informative-errors", "--listen=127.0.0.1",
            f"--port={port}", f"--base-path={base}", str(base),
        ],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        failed = await_line(daemon, "Ready to rumble")
        assert failed is None, f"git daemon did not start: {failed}"
        yield Served(root, f"git://127.0.0.1:{port}/remote.git", "daemon", bare)
    finally:
        stop(daemon)


def sshd_path() -> str | None:
    return shutil.which("sshd") or next(
        (p for p in ("/usr/sbin/sshd", "/usr/local/sbin/sshd") if os.access(p, os.X_OK)), None
    )


@contextmanager
def _sshd(root: Path, bare: Path) -> Iterator[Served]:
    """sshd on 127.0.0.1 with a throwaway host key; the client's key is the only one let in."""
    sshd = sshd_path()
    if sshd is None or shutil.which("ssh") is None:
        unavailable("sshd or ssh is not installed (Debian: apt-get install openssh-server)")
    if os.geteuid() == 0:
        os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation
    keys = root / "ssh"
    keys.mkdir()
    for name in ("host", "client"):
        subprocess.run(
            ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(keys / name)], check=True
        )
    shutil.copy(keys / "client.pub", keys / "authorized_keys")
    port = free_port()
    user = getpass.getuser()
    (keys / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {keys / 'host'}\n"
        f"AuthorizedKeysFile {keys / 'authorized_keys'}\nPidFile {keys / 'sshd.pid'}\n"
        "StrictModes no\nUsePAM no\nPasswordAuthentication no\n"
        "KbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        f"PermitRootLogin prohibit-password\nAllowUsers {user}\n"
    )
    server = subprocess.Popen(
        [sshd, "-D", "-e", "-f", str(keys / "sshd_config")],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    # one connection carries every git command of a test (ControlMaster): an ssh
    # handshake per fetch or push would make these the slowest tests of the suite
    command = (
        f"ssh -F /dev/null -i {keys / 'client'} -o IdentitiesOnly=yes -o BatchMode=yes "
        f"-o StrictHostKeyChecking=no -o UserKnownHostsFile={keys / 'known_hosts'} "
        f"-o LogLevel=ERROR -o ControlMaster=auto -o ControlPath={keys / 'control'} "
        "-o ControlPersist=30"
    )
    try:
        failed = await_line(server, "Server listening on 127.0.0.1")
        if failed is not None:  # e.g. not root and this sshd insists on its privsep setup
            unavailable(f"sshd could not start here: {failed}")
        url = f"ssh://{user}@127.0.0.1:{port}{bare}"
        yield Served(root, url, "ssh", bare, {"GIT_SSH_COMMAND": command})
    finally:
        subprocess.run(
            [*command.split(), "-O", "exit", "-p", str(port), f"{user}@127.0.0.1"],
            capture_output=True,
            check=False,
        )
        stop(server)


CUT = """#!/bin/sh
# a remote that goes away mid-push: one push in {stage} the ref update is cut off
[ -e "{marker}" ] || exit 0
rm -f "{marker}"
{extra}
kill -9 $PPID
exit 1
"""


def cut_pushes(served: Served, landed: bool, then_away: bool = False) -> None:
    """The next push to the remote is cut off: after the ref moved (`landed`) or before.

    With `then_away` the remote is also gone afterwards, until `served.back()`.
    """
    marker = served.root / "cut-next-push"
    marker.touch()
    extra = f'mv "{served.bare}" "{served.bare.with_name("remote.away")}"' if then_away else ""
    hooks = served.bare / "hooks"
    if landed:  # the ref is updated and its lock released: only the report is lost
        name, stage = "reference-transaction", "after"
        script = CUT.format(stage=stage, marker=marker, extra=extra)
        script = script.replace("[ -e", '[ "$1" = committed ] || exit 0\n[ -e', 1)
    else:  # the pack arrived; no ref is locked yet
        name, stage = "pre-receive", "before"
        script = CUT.format(stage=stage, marker=marker, extra=extra)
    for other in ("reference-transaction", "pre-receive"):
        (hooks / other).unlink(missing_ok=True)
    (hooks / name).write_text(script)
    (hooks / name).chmod(0o755)


def picks_on(path: Path, settled: bool = True) -> Counter[tuple[str, str]]:
    """(actor, item) of every pick event in the ledger at `path`.

    `settled`: also assert the fold refused nothing (no item has a conflict).
    """
    repo = open_repo(str(path))
    snapshot = Snapshot(repo, repo.tip())
    found: Counter[tuple[str, str]] = Counter()
    for item_id in snapshot.item_ids():
        item = snapshot.item(item_id)
        assert item is not None and not (settled and item.conflicts), item
        found.update((e.actor, e.item) for e in snapshot.events(item_id) if e.verb == "pick")
    return found
