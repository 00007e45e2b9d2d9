"""hooks install / uninstall / status on real repositories (no commits run here)."""

from __future__ import annotations

import filecmp
import os
import stat
from pathlib import Path

import pytest

from gitcoop.cli.hooks_commands import this_runner
from gitcoop.service import hook_setups, hooks
from tests.conftest import coop, git, make_repo

TOP = Path(__file__).resolve().parents[2]
NAMES = hooks.HOOK_NAMES


def call(name: str) -> bytes:
    return hook_setups.call_line(name).encode()


def installed(name: str) -> bytes:
    """The shim as `hooks install` writes it from this process: its paths filled in."""
    return hooks.rendered(name, this_runner())


def states() -> dict[str, dict[str, object]]:
    result = coop("hooks", "status", "--json")
    assert result.code == 0, result.err
    return {s["name"]: s for s in result.json()["hooks"]}


def test_the_packaged_scripts_are_the_top_level_hooks_folder() -> None:
    shipped = TOP / "gitcoop" / "hookscripts"
    assert sorted(os.listdir(TOP / "hooks")) == sorted(NAMES)
    for name in NAMES:
        assert filecmp.cmp(TOP / "hooks" / name, shipped / name, shallow=False), name
        assert hooks.shipped(name) == (TOP / "hooks" / name).read_bytes()
        assert os.access(TOP / "hooks" / name, os.X_OK)


def test_install_writes_executable_marked_scripts(repo: Path) -> None:
    result = coop("hooks", "install", "--json")
    assert result.code == 0, result.err
    assert [c["action"] for c in result.json()] == ["installed"] * len(NAMES)
    for name in NAMES:
        path = repo / ".git" / "hooks" / name
        assert path.read_bytes() == installed(name)
        assert path.stat().st_mode & stat.S_IXUSR
    assert {n: s["state"] for n, s in states().items()} == dict.fromkeys(NAMES, "current")


def test_install_twice_is_a_no_op(repo: Path) -> None:
    coop("hooks", "install")
    before = {n: (repo / ".git/hooks" / n).stat().st_mtime_ns for n in NAMES}
    again = coop("hooks", "install", "--json")
    assert [c["action"] for c in again.json()] == ["unchanged"] * len(NAMES)
    assert {n: (repo / ".git/hooks" / n).stat().st_mtime_ns for n in NAMES} == before
    assert not list((repo / ".git/hooks").glob("*.legacy"))


def test_a_foreign_hook_keeps_its_name_calls_gitcoop_and_uninstall_restores_it(
    repo: Path,
) -> None:
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(b"#!/bin/sh\necho mine\n")
    foreign.chmod(0o750)
    result = coop("hooks", "install", "--json")
    actions = {c["name"]: c["action"] for c in result.json()}
    assert actions["post-commit"] == "chained"
    assert foreign.read_bytes() == b"#!/bin/sh\necho mine\n" + call("post-commit") + b"\n"
    assert stat.S_IMODE(foreign.stat().st_mode) == 0o750
    assert not (repo / ".git/hooks/post-commit.legacy").exists()  # never renamed
    private = repo / ".git/coop-hooks/post-commit"
    assert private.read_bytes() == installed("post-commit")
    assert states()["post-commit"]["state"] == "current"
    assert states()["post-commit"]["via"] == "line"

    again = coop("hooks", "install", "--json")  # still a no-op with the line in place
    assert {c["action"] for c in again.json()} == {"unchanged"}
    assert foreign.read_bytes().count(b"coop-hooks/post-commit") == 1

    undone = coop("hooks", "uninstall", "--json")
    assert {c["name"]: c["action"] for c in undone.json()} == {
        "post-commit": "unchained",
        **{n: "removed" for n in NAMES if n != "post-commit"},
    }
    assert foreign.read_bytes() == b"#!/bin/sh\necho mine\n"
    assert stat.S_IMODE(foreign.stat().st_mode) == 0o750
    assert not (repo / ".git/coop-hooks").exists()
    assert not (repo / ".git/hooks/post-rewrite").exists()


def test_an_earlier_gitcoops_legacy_rename_is_put_back_under_its_own_name(repo: Path) -> None:
    hooks_dir = repo / ".git/hooks"
    (hooks_dir / "post-commit.legacy").write_bytes(b"#!/bin/sh\necho mine\n")
    (hooks_dir / "post-commit.legacy").chmod(0o755)
    (hooks_dir / "post-commit").write_bytes(b"#!/bin/sh\n# gitcoop-hook post-commit, older\n")
    assert states()["post-commit"]["legacy"] is True
    result = coop("hooks", "install", "--json")
    assert {c["name"]: c["action"] for c in result.json()}["post-commit"] == "chained"
    assert not (hooks_dir / "post-commit.legacy").exists()
    content = (hooks_dir / "post-commit").read_bytes()
    assert content == b"#!/bin/sh\necho mine\n" + call("post-commit") + b"\n"


def test_a_symlinked_or_non_shell_hook_is_left_alone_with_the_line_to_add(repo: Path) -> None:
    dispatcher = repo.parent / "dispatch"
    dispatcher.write_text('#!/bin/sh\ncase "$(basename "$0")" in post-commit) echo hi;; esac\n')
    dispatcher.chmod(0o755)
    (repo / ".git/hooks/post-commit").symlink_to(dispatcher)
    python_hook = repo / ".git/hooks/post-rewrite"
    python_hook.write_text("#!/usr/bin/env python3\nprint('merged')\n")
    python_hook.chmod(0o755)
    result = coop("hooks", "install", "--json")
    changes = {c["name"]: c for c in result.json()}
    assert changes["post-commit"]["action"] == "advised"
    assert changes["post-rewrite"]["action"] == "advised"
    assert call("post-commit").decode() in changes["post-commit"]["advice"]
    assert os.readlink(repo / ".git/hooks/post-commit") == str(dispatcher)
    assert "coop-hooks" not in dispatcher.read_text()
    assert python_hook.read_text() == "#!/usr/bin/env python3\nprint('merged')\n"
    shown = coop("hooks", "status")
    assert "post-commit         foreign" in shown.out
    assert "commits here are not recorded" in shown.out


def test_an_outdated_script_of_ours_is_updated_and_status_says_so(repo: Path) -> None:
    coop("hooks", "install")
    path = repo / ".git/hooks/post-rewrite"
    path.write_bytes(b"#!/bin/sh\n# gitcoop-hook post-rewrite, an older version\n")
    assert states()["post-rewrite"]["state"] == "outdated"
    result = coop("hooks", "install", "--json")
    assert {c["name"]: c["action"] for c in result.json()}["post-rewrite"] == "updated"
    assert path.read_bytes() == installed("post-rewrite")
    assert not (repo / ".git/hooks/post-rewrite.legacy").exists()


def test_uninstall_leaves_a_foreign_hook_alone(repo: Path) -> None:
    (repo / ".git/hooks/post-commit").write_text("#!/bin/sh\necho one\n")
    result = coop("hooks", "uninstall", "--json")
    assert {c["name"]: c["action"] for c in result.json()}["post-commit"] == "foreign"
    assert (repo / ".git/hooks/post-commit").read_text() == "#!/bin/sh\necho one\n"


def test_a_hooks_path_outside_the_repository_needs_global(repo: Path, tmp_path: Path) -> None:
    shared = tmp_path / "every-repo-hooks"
    git(repo, "config", "--global", "core.hooksPath", str(shared))
    refused = coop("hooks", "install")
    assert refused.code == 1
    assert "outside this repository" in refused.err and "--global" in refused.err
    assert not shared.exists()
    initialised = coop("init", "--hooks")
    assert initialised.code == 0  # the ledger is made; the hooks wait for the user's word
    assert "hooks not installed" in initialised.err and "--global" in initialised.err
    assert not shared.exists()
    assert coop("hooks", "install", "--global").code == 0
    assert sorted(p.name for p in shared.iterdir()) == sorted(NAMES)
    assert {s["state"] for s in states().values()} == {"current"}


def test_a_repository_hooks_path_outside_the_worktree_is_its_own(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", ".git/my-hooks")
    assert coop("hooks", "install").code == 0
    assert sorted(p.name for p in (repo / ".git/my-hooks").iterdir()) == sorted(NAMES)
    assert not (repo / ".git/hooks/post-commit").exists()
    assert git(repo, "rev-parse", "--git-path", "hooks").strip() == ".git/my-hooks"


def test_a_linked_worktree_installs_into_the_shared_hooks_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main = make_repo(tmp_path / "main")
    (main / "f").write_text("x")
    git(main, "add", "f")
    git(main, "commit", "-qm", "first")
    git(main, "worktree", "add", "-q", str(tmp_path / "linked"), "-b", "side")
    monkeypatch.chdir(tmp_path / "linked")
    assert coop("hooks", "install").code == 0
    where = git(tmp_path / "linked", "rev-parse", "--git-path", "hooks").strip()
    assert Path(where).resolve() == (main / ".git/hooks").resolve()
    assert (main / ".git/hooks/post-commit").read_bytes() == installed("post-commit")
    monkeypatch.chdir(main)
    assert {s["state"] for s in states().values()} == {"current"}


def test_the_installed_hooks_name_this_interpreter_and_script_absolutely(repo: Path) -> None:
    assert coop("hooks", "install").code == 0
    runner = this_runner()
    assert os.path.isabs(runner.python) and os.path.isabs(runner.entry)
    assert runner.entry.endswith("git-coop")
    for name in NAMES:
        content = (repo / ".git/hooks" / name).read_bytes()
        assert hooks.recorded(content) == runner
        assert f"python='{runner.python}'\n".encode() in content
    assert {s["python"] for s in states().values()} == {runner.python}


def test_paths_with_quotes_survive_the_shell_quoting() -> None:
    odd = hooks.Runner("/opt/it's here/bin/python", "/opt/it's here/bin/git-coop")
    content = hooks.rendered("post-commit", odd)
    assert hooks.recorded(content) == odd
    assert hooks.recorded(hooks.shipped("post-commit")) == hooks.Runner()


def test_installing_from_another_gitcoop_points_the_hooks_at_it(repo: Path) -> None:
    assert coop("hooks", "install").code == 0
    path = repo / ".git/hooks/post-commit"
    path.write_bytes(hooks.rendered("post-commit", hooks.Runner("/gone/python", "/gone/git-coop")))
    path.chmod(0o755)
    assert states()["post-commit"]["state"] == "stale"
    shown = coop("hooks", "status")
    assert "the gitcoop these hooks run is gone (/gone/python)" in shown.out
    assert "run git coop hooks install" in shown.out
    again = coop("hooks", "install", "--json")
    assert {c["name"]: c["action"] for c in again.json()}["post-commit"] == "updated"
    assert states()["post-commit"]["state"] == "current"


@pytest.mark.parametrize("last", [b"exit 0\n", b'exec ./run-checks "$@"\n', b"exit\n"])
def test_a_hook_that_exits_before_the_end_gets_no_line_it_would_never_run(
    repo: Path, last: bytes
) -> None:
    mine = b"#!/bin/sh\necho mine\n" + last
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(mine)
    foreign.chmod(0o755)
    result = coop("hooks", "install", "--json")
    change = {c["name"]: c for c in result.json()}["post-commit"]
    assert change["action"] == "advised"
    assert "before" in change["advice"] and call("post-commit").decode() in change["advice"]
    assert foreign.read_bytes() == mine
    assert states()["post-commit"]["state"] == "foreign"


def test_status_does_not_call_a_line_after_an_exit_current(repo: Path) -> None:
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(b"#!/bin/sh\necho mine\nexit 0\n" + call("post-commit") + b"\n")
    foreign.chmod(0o755)
    assert coop("hooks", "install").code == 0
    state = states()["post-commit"]
    assert (state["state"], state["via"]) == ("foreign", "line")
    assert "exit" in str(state["advice"])
    moved = b"#!/bin/sh\necho mine\n" + call("post-commit") + b"\nexit 0\n"
    foreign.write_bytes(moved)  # as advised: the line before the exit
    assert states()["post-commit"]["state"] == "current"
    indented = b"#!/bin/sh\nif false; then\n  exit 1\nfi\n" + call("post-commit") + b"\n"
    foreign.write_bytes(indented)  # an exit inside a block may not run: not top-level
    assert states()["post-commit"]["state"] == "current"


def test_status_names_the_exit_of_a_hook_that_ends_early(repo: Path) -> None:
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(b"#!/bin/sh\necho mine\nexit 0\n")
    foreign.chmod(0o755)
    state = states()["post-commit"]
    assert state["state"] == "foreign" and "before that exit" in str(state["advice"])


def test_status_says_install_adds_the_line_to_a_plain_shell_hook(repo: Path) -> None:
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(b"#!/bin/sh\necho mine\n")
    foreign.chmod(0o755)
    before = states()["post-commit"]
    assert before["state"] == "foreign"
    assert "git coop hooks install adds" in str(before["advice"])
    assert "cannot add" not in str(before["advice"])
    assert coop("hooks", "install").code == 0
    assert coop("hooks", "uninstall").code == 0
    after = states()["post-commit"]
    assert "git coop hooks install adds" in str(after["advice"])


def test_status_names_global_for_a_hooks_path_outside_the_repository(
    repo: Path, tmp_path: Path
) -> None:
    shared = tmp_path / "shared-hooks"
    shared.mkdir()
    (shared / "post-commit").write_bytes(b"#!/bin/sh\necho everywhere\n")
    (shared / "post-commit").chmod(0o755)
    git(repo, "config", "--global", "core.hooksPath", str(shared))
    shown = states()
    for name in NAMES:
        advice = str(shown[name]["advice"])
        assert "outside this repository" in advice and "--global" in advice, name
    assert "cannot add" not in str(shown["post-commit"]["advice"])


@pytest.mark.parametrize("mine", [b"#!/bin/sh\necho 'no final newline here, 48 bytes'", b"echo x"])
def test_uninstall_restores_a_hook_without_a_final_newline_byte_for_byte(
    repo: Path, mine: bytes
) -> None:
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(mine)
    foreign.chmod(0o755)
    assert coop("hooks", "install").code == 0
    assert states()["post-commit"]["state"] == "current"
    assert coop("hooks", "uninstall").code == 0
    assert foreign.read_bytes() == mine


def test_a_hook_git_does_not_run_is_never_called_working(repo: Path) -> None:
    """A hook without its executable bit is one git skips (the usual way to switch one
    off): install adds nothing to it nor switches it on, and status says why commits
    do not reach gitcoop, and what to do."""
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(b"#!/bin/sh\necho mine\n")
    foreign.chmod(0o644)
    assert coop("hooks", "install").code == 0
    assert foreign.read_bytes() == b"#!/bin/sh\necho mine\n"
    assert not os.access(foreign, os.X_OK)
    state = states()["post-commit"]
    assert state["state"] == "foreign" and "not executable" in str(state["advice"])
    foreign.write_bytes(b"#!/bin/sh\necho mine\n" + call("post-commit") + b"\n")
    assert states()["post-commit"]["state"] == "foreign"  # the line is there, git skips it
    foreign.chmod(0o755)
    assert states()["post-commit"]["state"] == "current"


def test_install_makes_its_own_hook_executable_again(repo: Path) -> None:
    assert coop("hooks", "install").code == 0
    ours = repo / ".git/hooks/post-commit"
    ours.chmod(0o644)
    assert states()["post-commit"]["state"] == "outdated"
    again = coop("hooks", "install")
    assert again.code == 0 and "post-commit" in again.out
    assert os.access(ours, os.X_OK) and states()["post-commit"]["state"] == "current"
