"""gitcoop's hooks beside husky v9, a committed hooks folder, lefthook and pre-commit.

Each setup is made as its tool makes it: husky's `.husky/_` byte for byte as
husky 9.1.7's `index.js` writes it (its `h` dispatcher and one stub per hook),
a lefthook stub from lefthook's hook template, and the pre-commit framework
itself, installed from PyPI. Real commits run through them.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.cli.hooks_commands import this_runner
from gitcoop.service import hook_setups, hooks
from tests.conftest import coop, git
from tests.service.hook_helpers import add, commit, head, item, with_gitcoop_on_path

# husky 9.1.7: the file `husky` its index.js copies to .husky/_/h, and the stub it
# writes for each hook (`#!/usr/bin/env sh\n. "$(dirname "$0")/h"`, mode 755)
HUSKY_H = """#!/usr/bin/env sh
[ "$HUSKY" = "2" ] && set -x
n=$(basename "$0")
s=$(dirname "$(dirname "$0")")/$n

[ ! -f "$s" ] && exit 0

if [ -f "$HOME/.huskyrc" ]; then
\techo "husky - '~/.huskyrc' is DEPRECATED, please move your code to ~/.config/husky/init.sh"
fi
i="${XDG_CONFIG_HOME:-$HOME/.config}/husky/init.sh"
[ -f "$i" ] && . "$i"

[ "${HUSKY-}" = "0" ] && exit 0

export PATH="node_modules/.bin:$PATH"
sh -e "$s" "$@"
c=$?

[ $c != 0 ] && echo "husky - $n script failed (code $c)"
[ $c = 127 ] && echo "husky - command not found in PATH=$PATH"
exit $c
"""
HUSKY_STUB = '#!/usr/bin/env sh\n. "$(dirname "$0")/h"'
HUSKY_HOOKS = [
    "pre-commit",
    "pre-merge-commit",
    "prepare-commit-msg",
    "commit-msg",
    "post-commit",
    "applypatch-msg",
    "pre-applypatch",
    "post-applypatch",
    "pre-rebase",
    "post-rewrite",
    "post-checkout",
    "post-merge",
    "pre-push",
    "pre-auto-gc",
]
HUSKY_SH = (
    'echo "husky - DEPRECATED\n\nPlease remove the following two lines from $0:\n\n'
    '#!/usr/bin/env sh\n. \\"\\$(dirname -- \\"\\$0\\")/_/husky.sh\\"\n\n'
    'They WILL FAIL in v10.0.0\n"'
)


def husky_install(repo: Path) -> None:
    """What `npx husky` (husky 9's index.js) does, without npm."""
    git(repo, "config", "core.hooksPath", ".husky/_")
    folder = repo / ".husky" / "_"
    (folder / "husky.sh").unlink(missing_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / ".gitignore").write_text("*")
    (folder / "h").write_text(HUSKY_H)
    for name in HUSKY_HOOKS:
        stub = folder / name
        stub.write_text(HUSKY_STUB)
        stub.chmod(0o755)
    (folder / "husky.sh").write_text(HUSKY_SH)


def husky_bytes(repo: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((repo / ".husky/_").iterdir())}


def line(name: str) -> str:
    return hook_setups.call_line(name)


@pytest.fixture
def husky(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A repository whose team committed .husky/post-commit, then ran husky."""
    with_gitcoop_on_path(monkeypatch)
    marker = ledger.parent / "husky-ran"
    (ledger / ".husky").mkdir()
    (ledger / ".husky/post-commit").write_text(f"echo user-post-commit >> {marker}\n")
    git(ledger, "add", ".husky/post-commit")
    git(ledger, "commit", "-qm", "husky hooks")
    husky_install(ledger)
    return ledger


def test_husky_v9_stubs_are_never_touched_and_the_line_is_named(husky: Path) -> None:
    stubs = husky_bytes(husky)
    before = coop("hooks", "status", "--json").json()["hooks"]
    post_commit = next(h for h in before if h["name"] == "post-commit")
    assert post_commit["state"] == "missing"  # the truth: husky runs, gitcoop does not
    assert post_commit["path"] == str(husky / ".husky/post-commit")
    assert line("post-commit") in post_commit["advice"]

    result = coop("hooks", "install", "--json")
    assert result.code == 0, result.err
    changes = {c["name"]: c for c in result.json()}
    assert {c["action"] for c in changes.values()} == {"advised"}
    assert "it is tracked" in changes["post-commit"]["advice"]
    assert husky_bytes(husky) == stubs  # nothing renamed, nothing written in .husky/_
    assert git(husky, "status", "--porcelain") == ""  # no tracked file rewritten
    assert (husky / ".git/coop-hooks/post-commit").exists()  # the shim the line calls

    with_append = coop("hooks", "install", "--append", "--json").json()
    actions = {c["name"]: c["action"] for c in with_append}
    assert actions["post-commit"] == "advised"  # tracked: still never rewritten
    assert actions["post-rewrite"] == actions["prepare-commit-msg"] == "chained"
    assert (husky / ".husky/post-rewrite").read_text() == f"#!/bin/sh\n{line('post-rewrite')}\n"
    assert git(husky, "diff", "--stat") == ""

    undone = {c["name"]: c["action"] for c in coop("hooks", "uninstall", "--json").json()}
    assert undone["post-rewrite"] == "unchained"
    assert not (husky / ".husky/post-rewrite").exists()  # gitcoop made it; nothing else in it
    assert husky_bytes(husky) == stubs
    assert git(husky, "status", "--porcelain") == ""


def test_with_the_line_husky_runs_the_users_hook_and_gitcoop(husky: Path) -> None:
    assert coop("hooks", "install").code == 0
    user_hook = husky / ".husky/post-commit"
    user_hook.write_text(user_hook.read_text() + line("post-commit") + "\n")  # as advised
    todo = add("todo", "through husky")
    commit(husky, f"Husky work\n\nCoop-Done: {todo}\n")
    assert (husky.parent / "husky-ran").read_text() == "user-post-commit\n"
    assert item(todo)["commit_sha"] == head(husky)
    states = {h["name"]: h for h in coop("hooks", "status", "--json").json()["hooks"]}
    assert (states["post-commit"]["state"], states["post-commit"]["via"]) == ("current", "line")

    husky_install(husky)  # `npm install` runs husky again: .husky/_ is made anew
    states = {h["name"]: h for h in coop("hooks", "status", "--json").json()["hooks"]}
    assert states["post-commit"]["state"] == "current"
    again = coop("hooks", "install", "--json")
    assert again.code == 0  # never refuses over husky's own stubs
    assert {c["name"]: c["action"] for c in again.json()}["post-commit"] == "unchanged"


def test_the_line_does_nothing_where_gitcoop_is_not_installed(husky: Path) -> None:
    user_hook = husky / ".husky/post-commit"
    user_hook.write_text(user_hook.read_text() + line("post-commit") + "\n")
    done = commit(husky, "A teammate without gitcoop\n")  # check=True: the commit works
    assert "husky - post-commit script failed" not in done.stdout + done.stderr
    assert (husky.parent / "husky-ran").read_text() == "user-post-commit\n"


def test_a_committed_hooks_folder_is_never_rewritten(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with_gitcoop_on_path(monkeypatch)
    team = ledger / ".githooks"
    team.mkdir()
    (team / "post-commit").write_text("#!/bin/sh\necho team\n")
    (team / "post-commit").chmod(0o755)
    git(ledger, "add", ".githooks")
    git(ledger, "commit", "-qm", "team hooks")
    git(ledger, "config", "core.hooksPath", ".githooks")
    result = coop("hooks", "install", "--append", "--json")
    changes = {c["name"]: c for c in result.json()}
    assert changes["post-commit"]["action"] == "advised"
    assert (team / "post-commit").read_text() == "#!/bin/sh\necho team\n"
    assert "/" + os.path.basename(sys.executable) not in (team / "post-rewrite").read_text()
    assert changes["post-rewrite"]["action"] == "chained"  # untracked, new: asked for
    shown = coop("hooks", "status")
    assert "post-commit         missing" in shown.out
    assert "commits here are not recorded" in shown.out


LEFTHOOK_STUB = """#!/bin/sh

if [ "$LEFTHOOK" = "0" ]; then
  exit 0
fi

call_lefthook()
{
  if lefthook -h >/dev/null 2>&1
  then
    eval lefthook $@
  else
    echo "Can't find lefthook in PATH"
  fi
}

call_lefthook "run post-commit $@"
"""


def test_a_lefthook_stub_is_left_to_lefthook_and_its_config_is_named(ledger: Path) -> None:
    stub = ledger / ".git/hooks/post-commit"
    stub.write_text(LEFTHOOK_STUB)
    stub.chmod(0o755)
    result = coop("hooks", "install", "--json")
    change = {c["name"]: c for c in result.json()}["post-commit"]
    assert change["action"] == "advised"
    assert "lefthook-local.yml" in change["advice"]
    assert stub.read_text() == LEFTHOOK_STUB
    assert not (ledger / ".git/hooks/post-commit.legacy").exists()
    state = {h["name"]: h for h in coop("hooks", "status", "--json").json()["hooks"]}
    assert (state["post-commit"]["state"], state["post-commit"]["via"]) == ("foreign", "lefthook")
    run = '"$(git rev-parse --git-common-dir)/coop-hooks/post-commit" {0}'
    (ledger / "lefthook-local.yml").write_text(
        f"post-commit:\n  commands:\n    gitcoop:\n      run: '{run}'\n"
    )
    state = {h["name"]: h for h in coop("hooks", "status", "--json").json()["hooks"]}
    assert (state["post-commit"]["state"], state["post-commit"]["via"]) == ("current", "lefthook")


PRE_COMMIT_CONFIG = """default_install_hook_types: [pre-commit, post-commit]
repos:
  - repo: local
    hooks:
      - id: gitcoop-post-commit
        name: gitcoop records Coop trailers
        entry: git-coop hook post-commit
        language: system
        stages: [post-commit]
        always_run: true
        pass_filenames: false
        verbose: true
"""


def test_under_the_pre_commit_framework_status_tells_the_truth_and_commits_record_once(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with_gitcoop_on_path(monkeypatch)
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-cache"))
    (ledger / ".pre-commit-config.yaml").write_text(PRE_COMMIT_CONFIG)
    git(ledger, "add", ".pre-commit-config.yaml")
    git(ledger, "commit", "-qm", "pre-commit config")
    framework = [sys.executable, "-m", "pre_commit", "install"]
    subprocess.run(framework, cwd=ledger, check=True, capture_output=True)
    theirs = (ledger / ".git/hooks/post-commit").read_bytes()

    state = {h["name"]: h for h in coop("hooks", "status", "--json").json()["hooks"]}
    assert (state["post-commit"]["state"], state["post-commit"]["via"]) == (
        "current",
        "pre-commit",
    )
    assert "not recorded" not in coop("hooks", "status").out

    result = coop("hooks", "install", "--json")
    changes = {c["name"]: c["action"] for c in result.json()}
    assert changes["post-commit"] == "unchanged"
    assert changes["post-rewrite"] == "installed"  # pre-commit installed none there
    assert (ledger / ".git/hooks/post-commit").read_bytes() == theirs

    todo = add("todo", "through pre-commit")
    before = git(ledger, "rev-list", "--count", "refs/coop/ledger")
    commit(ledger, f"Framework work\n\nCoop-Done: {todo}\n")
    assert item(todo)["commit_sha"] == head(ledger)
    after = git(ledger, "rev-list", "--count", "refs/coop/ledger")
    assert int(after) == int(before) + 1  # recorded once


def test_a_committed_line_records_in_every_worktree(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with_gitcoop_on_path(monkeypatch)
    team = ledger / ".githooks"
    team.mkdir()
    (team / "post-commit").write_text(f"#!/bin/sh\necho team\n{line('post-commit')}\n")
    (team / "post-commit").chmod(0o755)
    git(ledger, "add", ".githooks")
    git(ledger, "commit", "-qm", "team hooks, calling gitcoop")
    git(ledger, "config", "core.hooksPath", ".githooks")
    assert coop("hooks", "install").code == 0
    linked = tmp_path / "linked"
    git(ledger, "worktree", "add", "-q", str(linked), "-b", "side")
    todo = add("todo", "from the linked worktree")
    done = commit(linked, f"Linked\n\nCoop-Done: {todo}\n")
    assert "team" in done.stderr  # git runs hooks with stdout on stderr
    assert item(todo)["commit_sha"] == head(linked)
    monkeypatch.chdir(linked)
    state = {h["name"]: h for h in coop("hooks", "status", "--json").json()["hooks"]}
    assert (state["post-commit"]["state"], state["post-commit"]["via"]) == ("current", "line")


def test_an_earlier_install_into_a_committed_folder_is_undone(ledger: Path) -> None:
    team = ledger / ".githooks"
    team.mkdir()
    (team / "post-commit").write_text("#!/bin/sh\necho team\n")
    (team / "post-commit").chmod(0o755)
    git(ledger, "add", ".githooks")
    git(ledger, "commit", "-qm", "team hooks")
    git(ledger, "config", "core.hooksPath", ".githooks")
    # what an earlier gitcoop did there: renamed the team's file, wrote its own
    (team / "post-commit").rename(team / "post-commit.legacy")
    (team / "post-commit").write_bytes(hooks.rendered("post-commit", this_runner()))
    (team / "post-rewrite").write_bytes(hooks.rendered("post-rewrite", this_runner()))
    assert coop("hooks", "install").code == 0
    assert git(ledger, "status", "--porcelain", "--untracked-files=all") == ""
    assert (team / "post-commit").read_text() == "#!/bin/sh\necho team\n"


def test_a_husky_hook_ending_in_exit_gets_no_line_and_status_says_so(husky: Path) -> None:
    mine = "echo rewritten\nexit 0\n"
    (husky / ".husky/post-rewrite").write_text(mine)
    result = coop("hooks", "install", "--append", "--json").json()
    change = {c["name"]: c for c in result}["post-rewrite"]
    assert change["action"] == "advised" and "before" in change["advice"]
    assert (husky / ".husky/post-rewrite").read_text() == mine
    (husky / ".husky/post-rewrite").write_text(f"{mine}{line('post-rewrite')}\n")
    states = {h["name"]: h for h in coop("hooks", "status", "--json").json()["hooks"]}
    assert states["post-rewrite"]["state"] != "current"
    assert "exit" in states["post-rewrite"]["advice"]
