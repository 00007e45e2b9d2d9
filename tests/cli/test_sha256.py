"""A SHA-256 repository is refused in one line, by every command, and the hooks
journal what a commit asked instead of dropping it (issue 39, point 5)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.conftest import coop_in, coop_process, git, make_repo
from tests.service.hook_helpers import GIT, bare_env, commit, with_gitcoop_on_path

MESSAGE = (
    "this repository uses the SHA-256 object format, which gitcoop does not support yet: "
    "libgit2, which gitcoop reads and writes git objects with, opens SHA-1 repositories "
    "only — use gitcoop in a SHA-1 repository (docs/architecture.md, SHA-256 repositories)"
)
# commands that read the repository, writers and readers, of every module
EVERY_COMMAND = [
    ["init"],
    ["status"],
    ["list"],
    ["add", "todo", "x"],
    ["show", "td-0000"],
    ["log"],
    ["take", "td-0000"],
    ["done", "td-0000"],
    ["owed"],
    ["queue"],
    ["pick"],
    ["ready"],
    ["fsck"],
    ["sync"],
    ["hooks", "install"],
    ["hooks", "status"],
    ["hook", "replay"],
    ["roles"],
    ["prime"],
    ["keys", "list"],
    ["config", "max_same_shape"],
    ["hide-ledger"],
    ["remote", "setup", "origin"],
]


@pytest.fixture
def sha256(tmp_path: Path) -> Path:
    path = tmp_path / "sha256"
    path.mkdir()
    git(path, "init", "-q", "--object-format=sha256", "-b", "main")
    git(path, "config", "user.email", "alice@example.com")
    git(path, "config", "user.name", "alice")
    git(path, "commit", "-q", "--allow-empty", "-m", "start")
    return path


@pytest.mark.parametrize("args", EVERY_COMMAND, ids=[" ".join(a) for a in EVERY_COMMAND])
def test_every_command_refuses_in_one_line(sha256: Path, args: list[str]) -> None:
    refused = coop_in(sha256, *args)
    assert refused.code == 4, refused.err
    assert refused.err == f"gitcoop: {MESSAGE}\n"
    assert refused.out == ""


def test_the_refusal_keeps_the_json_error_shape(sha256: Path) -> None:
    refused = coop_in(sha256, "list", "--json")
    assert refused.code == 4
    assert refused.json() == {
        "error": {
            "code": "unsupported_repository",
            "exit": 4,
            "message": MESSAGE,
            "object_format": "sha256",
        }
    }


def test_a_linked_worktree_and_a_subfolder_of_one_are_refused_too(sha256: Path) -> None:
    linked = sha256.parent / "linked"
    git(sha256, "worktree", "add", "-q", str(linked))
    (linked / "sub").mkdir()
    assert coop_in(linked / "sub", "list").err == f"gitcoop: {MESSAGE}\n"


def test_a_sha1_repository_is_unaffected(tmp_path: Path) -> None:
    plain = make_repo(tmp_path / "plain")
    assert coop_in(plain, "list").code == 4  # no ledger yet: not the SHA-256 refusal
    assert "SHA-256" not in coop_in(plain, "list").err


@pytest.fixture
def hooked_sha256(sha256: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The hooks of a SHA-1 repository, installed, then used in the SHA-256 one (as a
    global core.hooksPath would): `hooks install` itself refuses there."""
    with_gitcoop_on_path(monkeypatch)
    donor = make_repo(tmp_path / "donor")
    assert coop_in(donor, "hooks", "install").code == 0
    git(sha256, "config", "core.hooksPath", str(donor / ".git" / "hooks"))
    return sha256


def journal_of(path: Path) -> list[dict[str, object]]:
    lines = (path / ".git" / "coop-journal").read_text().splitlines()
    return [json.loads(line) for line in lines]


def test_a_hook_journals_the_trailers_and_the_commit_stands(hooked_sha256: Path) -> None:
    path = hooked_sha256
    done = commit(path, "Fix it\n\nCoop-Done: td-7k2m9x4q1c8v\nCoop-Refs: rq-1\n", env=bare_env())
    assert done.returncode == 0  # never fails the user's commit
    sha = git(path, "rev-parse", "HEAD").strip()
    assert len(sha) == 64
    assert f"gitcoop: {MESSAGE}" in done.stderr
    assert "kept in the journal" in done.stderr and "Coop-Done td-7k2m9x4q1c8v" in done.stderr
    [entry] = journal_of(path)
    assert (entry["kind"], entry["commit"], entry["actor"]) == (
        "trailers",
        sha,
        "alice@example.com",
    )
    assert entry["state"] == "waiting" and "SHA-256" in str(entry["reason"])
    asked = [(r["verb"], r["ref"], r["args"]["commit"]) for r in entry["requests"]]  # type: ignore[attr-defined]
    assert asked == [("done", "td-7k2m9x4q1c8v", sha), ("note", "rq-1", sha)]


def test_a_commit_without_trailers_journals_nothing(hooked_sha256: Path) -> None:
    done = commit(hooked_sha256, "Plain work\n", env=bare_env())
    assert done.returncode == 0 and done.stderr == ""
    assert not (hooked_sha256 / ".git" / "coop-journal").exists()


def test_a_rewrite_is_journaled_too(hooked_sha256: Path) -> None:
    path = hooked_sha256
    commit(path, "Work\n\nCoop-Done: td-7k2m9x4q1c8v\n", env=bare_env())
    old = git(path, "rev-parse", "HEAD").strip()
    amended = subprocess.run(
        [GIT, "commit", "-q", "--amend", "-m", "Work, amended\n\nCoop-Done: td-7k2m9x4q1c8v"],
        cwd=path,
        capture_output=True,
        text=True,
        env=bare_env(),
    )
    assert amended.returncode == 0, amended.stderr
    new = git(path, "rev-parse", "HEAD").strip()
    entries = journal_of(path)
    assert [e["kind"] for e in entries] == ["trailers", "trailers", "rewrite"]
    assert entries[0]["commit"] == new  # the waiting entry follows the rewrite, as it does
    assert entries[2]["pairs"] == [[old, new]]


def test_hooks_status_says_it_is_the_object_format(hooked_sha256: Path) -> None:
    shown = coop_process(hooked_sha256, "hooks", "status")
    assert shown.code == 4 and shown.err == f"gitcoop: {MESSAGE}\n"


@pytest.mark.parametrize("how", ["merge", "merge ended by commit"])
def test_a_merge_journals_what_it_brought_and_the_merge_commit(
    hooked_sha256: Path, how: str
) -> None:
    path = hooked_sha256
    commit(path, "Start\n", env=bare_env())
    git(path, "checkout", "-q", "-b", "side")
    (path / "side.txt").write_text("side\n")
    git(path, "add", "side.txt")
    git(path, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "Side\n\nCoop-Done: td-1")
    side = git(path, "rev-parse", "HEAD").strip()
    git(path, "checkout", "-q", "main")
    message = "Merge side\n\nCoop-Close: rq-2"
    if how == "merge":
        merged = subprocess.run(
            [GIT, "merge", "-q", "--no-ff", "-m", message, "side"],
            cwd=path,
            capture_output=True,
            text=True,
            env=bare_env(),
        )
    else:
        git(path, "-c", "core.hooksPath=/dev/null", "merge", "-q", "--no-commit", "--no-ff", "side")
        merged = subprocess.run(
            [GIT, "commit", "-q", "-m", message],
            cwd=path,
            capture_output=True,
            text=True,
            env=bare_env(),
        )
    assert merged.returncode == 0, merged.stderr
    assert "hook skipped" not in merged.stderr and "kept in the journal" in merged.stderr
    merge = git(path, "rev-parse", "HEAD").strip()
    entries = journal_of(path)
    assert [(e["commit"], e["state"]) for e in entries] == [(side, "waiting"), (merge, "waiting")]
    assert entries[0]["requests"][0]["args"]["author"] == "alice@example.com"  # type: ignore[index]
