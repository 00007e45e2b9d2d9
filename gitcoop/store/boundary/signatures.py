"""Checking the signatures of many ledger commits at once, with git itself.

The ledger's keys are written to a temporary allowed-signers file, one line
`* TYPE BASE64` per key (any principal: which person a key belongs to is
decided by the ledger's own registry, at the commit's parent, not by the
file), and `git log --no-walk --stdin --format=%H %G? %GK` reads the
commits given on its standard input, one git per share of them
(`store/fast/split.py` shares them among the cores). git checks each signature as
`git verify-commit` does (through `gpg.ssh.program`, ssh-keygen by default)
and prints, per commit, its verdict and the signing key's fingerprint.

git starts ssh-keygen for each signature; a Python process per commit would
add interpreter start-up on top, and no maintained library checks SSH
signatures in-process (docs/architecture.md, docs/performance.md).
Loaded only when a ledger's owners require signed commits.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterable, Sequence

from gitcoop.domain.record_type import record_type
from gitcoop.errors import BadLedger, EnvironmentFailed
from gitcoop.store.fast import split
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger.repo import Repo

GOOD = "G"  # a valid signature by a key in the allowed-signers file
UNKNOWN_KEY = "U"  # a valid signature by a key the file does not hold
SMALLEST_SHARE = 64  # commits per git process, at least: below that start-up dominates
MEANING = {
    "G": "a good signature",
    "U": "a good signature by a key the ledger does not register",
    "B": "a bad signature (the commit or the signature was altered)",
    "N": "no signature",
    "E": "a signature that cannot be checked",
    "X": "an expired signature",
    "Y": "a signature by an expired key",
    "R": "a signature by a revoked key",
}


@record_type
class Checked:
    """git's verdict on one commit: %G? and the signing key's fingerprint (%GK)."""

    status: str
    fingerprint: str

    @property
    def meaning(self) -> str:
        return MEANING.get(self.status, f"signature status {self.status!r}")


def check(repo: Repo, commits: Sequence[Oid], keys: Iterable[str]) -> dict[Oid, Checked]:
    """The verdict on each commit's signature against `keys` (`TYPE BASE64` lines)."""
    if not commits:
        return {}
    with tempfile.TemporaryDirectory(prefix="coop-verify-") as folder:
        allowed = os.path.join(folder, "allowed_signers")
        with open(allowed, "w", encoding="ascii") as handle:
            handle.writelines(f"* {key}\n" for key in sorted(set(keys)))
        found = split.shares(commits, lambda share: _run(repo, allowed, share), SMALLEST_SHARE)
        merged = {oid: checked for part in found for oid, checked in part.items()}
    missing = [oid for oid in commits if oid not in merged]
    if missing:
        raise BadLedger(f"commit {missing[0][:12]}: git could not read its signature")
    return merged


def _run(repo: Repo, allowed: str, commits: list[Oid]) -> dict[Oid, Checked]:
    args = [
        "git",
        f"--git-dir={repo.git_dir}",
        "-c",
        f"gpg.ssh.allowedSignersFile={allowed}",
        "-c",
        "log.showSignature=false",
        "log",
        "--no-walk=unsorted",
        "--stdin",
        "--format=%H %G? %GK",
    ]
    try:
        done = subprocess.run(
            args,
            input="".join(f"{oid}\n" for oid in commits).encode(),
            capture_output=True,
            env={**os.environ, "LC_ALL": "C"},  # git's own words, to tell its failures apart
            check=False,
        )
    except OSError as exc:
        raise EnvironmentFailed(f"cannot run git to check signatures: {exc}") from None
    if b"cannot run" in done.stderr:  # the checker is missing: every verdict would be "bad"
        problem = done.stderr.decode("utf-8", "replace").strip().splitlines()[0]
        raise EnvironmentFailed(
            f"cannot check the ledger's signatures ({problem}) — install ssh-keygen, or fix "
            "git config gpg.ssh.program; nothing was taken in"
        )
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()[:1]
        raise BadLedger(f"git could not check the ledger's signatures ({''.join(said)})")
    found: dict[Oid, Checked] = {}
    for line in done.stdout.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) >= 2 and len(parts[0]) in (40, 64):
            found[Oid(parts[0])] = Checked(parts[1], parts[2] if len(parts) > 2 else "")
    return found
