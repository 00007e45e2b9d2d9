"""git's verdict on many commits at once: good, unknown key, none, altered; split across cores."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gitcoop.errors import EnvironmentFailed
from gitcoop.store.boundary import signatures
from gitcoop.store.repository import Oid, open_repo
from tests.conftest import git, make_repo
from tests.sshkeys import Key, make_key


def commit_tree(repo: Path, parent: str | None, message: str, key: Key | None) -> str:
    env = {**os.environ, "GIT_AUTHOR_DATE": "@1796000000 +0000"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    signing = ["-c", "gpg.format=ssh", "-c", f"user.signingKey={key.private}"] if key else []
    args = ["git", *signing, "commit-tree", *(["-S"] if key else [])]
    args += [
        *(["-p", parent] if parent else []),
        "-m",
        message,
        "4b825dc642cb6eb9a060e54bf8d69288fbee4904",
    ]
    done = subprocess.run(args, cwd=repo, env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def altered(repo: Path, commit: str) -> str:
    """The same signed commit with another message: its signature no longer holds."""
    raw = subprocess.run(
        ["git", "cat-file", "commit", commit], cwd=repo, capture_output=True, check=True
    ).stdout
    changed = raw.replace(b"\nsigned\n", b"\nchanged\n")
    done = subprocess.run(
        ["git", "hash-object", "-t", "commit", "-w", "--stdin"],
        cwd=repo,
        input=changed,
        capture_output=True,
        check=True,
    )
    return done.stdout.decode().strip()


@pytest.mark.parametrize("share", [1, 64])
def test_each_commit_gets_gits_own_verdict_and_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, share: int
) -> None:
    monkeypatch.setattr(signatures, "SMALLEST_SHARE", share)  # 1: a git process per core
    repo = make_repo(tmp_path / "repo")
    known, stranger = make_key(tmp_path / "k", "known"), make_key(tmp_path / "k", "stranger")
    good = commit_tree(repo, None, "signed", known)
    unknown = commit_tree(repo, good, "by a stranger", stranger)
    unsigned = commit_tree(repo, unknown, "unsigned", None)
    bad = altered(repo, good)
    order = [Oid(c) for c in (good, unknown, unsigned, bad)]
    found = signatures.check(open_repo(str(repo)), order, [known.text])
    assert {c: (v.status, v.fingerprint) for c, v in found.items()} == {
        good: ("G", known.fingerprint),
        unknown: ("U", stranger.fingerprint),
        unsigned: ("N", ""),
        bad: ("B", ""),  # git names no key for a signature that does not hold
    }
    assert found[Oid(bad)].meaning.startswith("a bad signature")
    assert signatures.check(open_repo(str(repo)), [], [known.text]) == {}
    assert git(repo, "cat-file", "-t", good).strip() == "commit"


def test_a_missing_checker_is_an_environment_failure_not_a_bad_signature(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    key = make_key(tmp_path / "k", "known")
    good = commit_tree(repo, None, "signed", key)
    git(repo, "config", "gpg.ssh.program", str(tmp_path / "no-such-program"))
    with pytest.raises(EnvironmentFailed, match="cannot check the ledger's signatures"):
        signatures.check(open_repo(str(repo)), [Oid(good)], [key.text])
