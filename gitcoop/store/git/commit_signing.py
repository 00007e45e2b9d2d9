"""Signing a ledger commit the way git signs one with an SSH key (`gpg.format ssh`).

Loaded only when a write signs (`git config coop.sign true`, or git's own
`commit.gpgSign` with `gpg.format ssh`, or a ledger whose owners require
signed commits): nothing here is imported or run otherwise.

The key is git's `user.signingKey`: a path to a private key, or to a public
key whose private half the ssh-agent holds, or the key itself (`key::ssh-…`
or `ssh-…`), which only the agent can sign with (git passes `-U` then).
The program is git's `gpg.ssh.program` (ssh-keygen by default), run as git
runs it: `-Y sign -n git -f KEY`, the commit on its standard input, the
armoured signature on its standard output. The commit and its signature are
then written as one object (`gpgsig` header), so `git verify-commit` reads it
as any signed commit.
"""

from __future__ import annotations

import os
import subprocess
import tempfile

from gitcoop.domain.keys import signature_key
from gitcoop.domain.record_type import record_type
from gitcoop.errors import EnvironmentFailed, UsageError
from gitcoop.store.git.repo import Repo

KEY_SETTING = "user.signingKey"
PROGRAM_SETTING = "gpg.ssh.program"
DEFAULT_PROGRAM = "ssh-keygen"
LITERAL_PREFIX = "key::"
SIGN_TIMEOUT = 120.0  # seconds: long enough to type a passphrase, short of hanging a hook


@record_type
class Signed:
    """An armoured SSH signature and the public key inside it (`TYPE BASE64`)."""

    signature: str
    key: str


@record_type
class Signer:
    """Signs with one configured key through one program."""

    key: str  # a path, or the public key itself
    literal: bool
    program: str

    def sign(self, payload: bytes) -> Signed:
        """The signature of `payload`; UsageError (the user's setup) or EnvironmentFailed."""
        with tempfile.TemporaryDirectory(prefix="coop-sign-") as folder:
            args = [self.program, "-Y", "sign", "-n", "git", "-f", self._key_file(folder)]
            if self.literal:
                args.append("-U")  # a bare public key: the agent holds its private half
            try:
                done = subprocess.run(
                    args, input=payload, capture_output=True, timeout=SIGN_TIMEOUT, check=False
                )
            except FileNotFoundError:
                raise EnvironmentFailed(
                    f"cannot sign: {self.program} is not installed (git config "
                    f"{PROGRAM_SETTING} names another) — nothing was written"
                ) from None
            except subprocess.TimeoutExpired:
                raise UsageError(
                    f"cannot sign: {self.program} did not finish in {SIGN_TIMEOUT:.0f}s "
                    "(a passphrase prompt?) — load the key into ssh-agent; nothing was written"
                ) from None
        text = done.stdout.decode("ascii", "replace")
        key = signature_key(text) if done.returncode == 0 else None
        if key is None:
            raise UsageError(
                f"cannot sign with {KEY_SETTING} {self._shown()}: {_first_line(done.stderr)} — "
                "check the key (or ssh-add it); nothing was written"
            )
        return Signed(text.strip(), key)

    def _key_file(self, folder: str) -> str:
        if not self.literal:
            return os.path.expanduser(self.key)
        path = os.path.join(folder, "key.pub")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(self.key + "\n")
        return path

    def _shown(self) -> str:
        return self.key[:50] + ("…" if len(self.key) > 50 else "")


def signer(repo: Repo) -> Signer:
    """The signer local git config names; UsageError saying what to set when it names none."""
    configured = (repo.config_value(KEY_SETTING) or "").strip()
    if not configured:
        raise UsageError(
            f"signing needs a key: git config {KEY_SETTING} ~/.ssh/id_ed25519.pub "
            "(a key file, or the public key of one ssh-agent holds) — nothing was written"
        )
    program = (repo.config_value(PROGRAM_SETTING) or "").strip() or DEFAULT_PROGRAM
    if configured.startswith(LITERAL_PREFIX):
        return Signer(configured[len(LITERAL_PREFIX) :].strip(), True, program)
    if configured.startswith("ssh-") or configured.startswith("ecdsa-"):
        return Signer(configured, True, program)
    if not os.path.exists(os.path.expanduser(configured)):
        raise UsageError(
            f"{KEY_SETTING} is {configured!r}, but there is no such file — point it at your "
            "key (git config user.signingKey ~/.ssh/id_ed25519.pub); nothing was written"
        )
    return Signer(configured, False, program)


def _first_line(data: bytes) -> str:
    lines = [line for line in data.decode("utf-8", "replace").splitlines() if line.strip()]
    useful = [line for line in lines if not line.startswith("Signing data")]
    return (useful or lines or ["it failed"])[0].strip()[:200]
