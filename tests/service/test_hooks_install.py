"""hooks install / uninstall / status on real repositories (no commits run here)."""

from __future__ import annotations

import filecmp
import os
import stat
from pathlib import Path

import pytest

from gitcoop.cli.hooks_commands import this_runner
from gitcoop.service import hooks
from tests.conftest import coop, git, make_repo

TOP = Path(__file__).resolve().parents[2]
NAMES = hooks.HOOK_NAMES


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
    assert [c["action"] for c in result.json()] == ["installed"] * 3
    for name in NAMES:
        path = repo / ".git" / "hooks" / name
        assert path.read_bytes() == installed(name)
        assert path.stat().st_mode & stat.S_IXUSR
    assert {n: s["state"] for n, s in states().items()} == dict.fromkeys(NAMES, "current")


def test_install_twice_is_a_no_op(repo: Path) -> None:
    coop("hooks", "install")
    before = {n: (repo / ".git/hooks" / n).stat().st_mtime_ns for n in NAMES}
    again = coop("hooks", "install", "--json")
    assert [c["action"] for c in again.json()] == ["unchanged"] * 3
    assert {n: (repo / ".git/hooks" / n).stat().st_mtime_ns for n in NAMES} == before
    assert not list((repo / ".git/hooks").glob("*.legacy"))


def test_a_foreign_hook_is_chained_and_uninstall_restores_it_exactly(repo: Path) -> None:
    foreign = repo / ".git/hooks/post-commit"
    foreign.write_bytes(b"#!/bin/sh\necho mine\n")
    foreign.chmod(0o750)
    result = coop("hooks", "install", "--json")
    actions = {c["name"]: c["action"] for c in result.json()}
    assert actions["post-commit"] == "chained"
    assert (repo / ".git/hooks/post-commit.legacy").read_bytes() == b"#!/bin/sh\necho mine\n"
    assert states()["post-commit"]["legacy"] is True

    assert coop("hooks", "install").code == 0  # still a no-op with the chain in place
    assert (repo / ".git/hooks/post-commit.legacy").exists()

    undone = coop("hooks", "uninstall", "--json")
    assert {c["name"]: c["action"] for c in undone.json()} == {
        "post-commit": "restored",
        "post-rewrite": "removed",
        "prepare-commit-msg": "removed",
    }
    assert foreign.read_bytes() == b"#!/bin/sh\necho mine\n"
    assert stat.S_IMODE(foreign.stat().st_mode) == 0o750
    assert not (repo / ".git/hooks/post-commit.legacy").exists()
    assert not (repo / ".git/hooks/post-rewrite").exists()


def test_an_outdated_script_of_ours_is_updated_and_status_says_so(repo: Path) -> None:
    coop("hooks", "install")
    path = repo / ".git/hooks/post-rewrite"
    path.write_bytes(b"#!/bin/sh\n# gitcoop-hook post-rewrite, an older version\n")
    assert states()["post-rewrite"]["state"] == "outdated"
    result = coop("hooks", "install", "--json")
    assert {c["name"]: c["action"] for c in result.json()}["post-rewrite"] == "updated"
    assert path.read_bytes() == installed("post-rewrite")
    assert not (repo / ".git/hooks/post-rewrite.legacy").exists()


def test_install_refuses_when_a_foreign_hook_and_a_legacy_one_both_exist(repo: Path) -> None:
    (repo / ".git/hooks/post-commit").write_text("#!/bin/sh\necho one\n")
    (repo / ".git/hooks/post-commit.legacy").write_text("#!/bin/sh\necho two\n")
    result = coop("hooks", "install")
    assert result.code == 1
    assert "post-commit.legacy already exists" in result.err
    assert not (repo / ".git/hooks/post-rewrite").exists()  # nothing half installed


def test_uninstall_leaves_a_foreign_hook_alone(repo: Path) -> None:
    (repo / ".git/hooks/post-commit").write_text("#!/bin/sh\necho one\n")
    result = coop("hooks", "uninstall", "--json")
    assert {c["name"]: c["action"] for c in result.json()}["post-commit"] == "foreign"
    assert (repo / ".git/hooks/post-commit").read_text() == "#!/bin/sh\necho one\n"


@pytest.mark.parametrize("configured", ["shared-hooks", "ABSOLUTE"])
def test_core_hooks_path_is_honoured(repo: Path, configured: str) -> None:
    target = repo.parent / "elsewhere" if configured == "ABSOLUTE" else repo / configured
    git(repo, "config", "core.hooksPath", str(target) if configured == "ABSOLUTE" else configured)
    assert coop("hooks", "install").code == 0
    assert sorted(p.name for p in target.iterdir()) == sorted(NAMES)
    assert not (repo / ".git/hooks/post-commit").exists()
    assert git(repo, "rev-parse", "--git-path", "hooks").strip() in (configured, str(target))


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
