"""Real SSH keys for tests, made by ssh-keygen in the test's own folder; git's checks of them."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import git


@dataclass(frozen=True)
class Key:
    private: Path
    public: Path

    @property
    def text(self) -> str:
        """`TYPE BASE64`, as the ledger records it."""
        return " ".join(self.public.read_text().split()[:2])

    @property
    def fingerprint(self) -> str:
        done = subprocess.run(
            ["ssh-keygen", "-l", "-f", str(self.public)], capture_output=True, text=True, check=True
        )
        return done.stdout.split()[1]


def make_key(folder: Path, name: str) -> Key:
    folder.mkdir(parents=True, exist_ok=True)
    private = folder / name
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(private)],
        check=True,
        capture_output=True,
    )
    return Key(private, folder / f"{name}.pub")


def sign_with(repo: Path, key: Key) -> None:
    """The clone signs its ledger commits with `key`, as its owner would set it up."""
    git(repo, "config", "user.signingKey", str(key.private))
    git(repo, "config", "coop.sign", "true")


def verified(repo: Path, allowed: Path, commit: str) -> bool:
    """Whether `git verify-commit`, with `allowed` as its allowed-signers file, accepts it."""
    done = subprocess.run(
        ["git", "-c", f"gpg.ssh.allowedSignersFile={allowed}", "verify-commit", commit],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    return done.returncode == 0


def ledger_commits(repo: Path, ref: str = "refs/coop/ledger") -> list[str]:
    return git(repo, "rev-list", "--reverse", ref).split()
