"""Every way a commit enters a branch records its trailers once: am, merge, pull.

git runs post-commit for `git commit`, cherry-pick, revert and the merge
backend of rebase; for `git am` it runs post-applypatch, for `git merge` (and
so `git pull`) post-merge, and no post-commit at all (githooks(5)). Each test
makes the commit where no hook runs (`core.hooksPath` pointed at an empty
folder), then lets it enter the branch the way it names.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from gitcoop.store.ledger import journal
from tests.conftest import coop, git
from tests.service.hook_helpers import (
    GIT,
    add,
    bare_env,
    head,
    item,
    ledger_tip,
    with_gitcoop_on_path,
)
from tests.service.test_hooks_commit import teammates_commit


@pytest.fixture
def hooked(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with_gitcoop_on_path(monkeypatch)
    assert coop("hooks", "install").code == 0
    unhooked(ledger, "Start\n", "start.txt")
    return ledger


def unhooked(repo: Path, message: str, name: str) -> str:
    """A commit made with no hook at all (as on another machine); its sha."""
    (repo / name).write_text(message)
    git(repo, "add", name)
    empty = repo.parent / "no-hooks"
    empty.mkdir(exist_ok=True)
    git(repo, "-c", f"core.hooksPath={empty}", "commit", "-q", "-m", message)
    return head(repo)


def confirmed(repo: Path, waiting: int) -> None:
    """What a merge brought in waits, never recorded by its author line (`own_commit`):
    `waiting` entries, each confirmed here as the one who merged."""
    entries = journal.entries(str(repo / ".git"))
    assert [e["state"] for e in entries] == ["unconfirmed"] * waiting, entries
    for entry in entries:
        done = coop("hook", "confirm", entry["id"])
        assert done.code == 0, done.err


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)


def test_git_am_of_a_formatted_patch_records_its_trailer(hooked: Path, tmp_path: Path) -> None:
    todo = add("todo", "sent as a patch")
    unhooked(hooked, f"Patch work\n\nCoop-Done: {todo}\n", "patch.txt")
    git(hooked, "format-patch", "-q", "-1", "-o", str(tmp_path / "patches"), "HEAD")
    git(hooked, "reset", "-q", "--hard", "HEAD~1")
    assert item(todo)["status"] == "open"  # nothing was recorded so far
    applied = run(hooked, "am", "-q", *map(str, sorted((tmp_path / "patches").iterdir())))
    shown = item(todo)
    assert (shown["status"], shown["commit_sha"]) == ("done", head(hooked))
    assert "done with" in applied.stderr


def test_a_merge_commit_with_a_trailer_records_it(hooked: Path) -> None:
    todo = add("todo", "closed by the merge")
    git(hooked, "checkout", "-q", "-b", "side")
    unhooked(hooked, "Side work\n", "side.txt")
    git(hooked, "checkout", "-q", "main")
    run(hooked, "merge", "-q", "--no-ff", "-m", f"Merge side\n\nCoop-Done: {todo}\n", "side")
    shown = item(todo)
    assert (shown["status"], shown["commit_sha"]) == ("done", head(hooked))
    assert shown["result_summary"] == "Merge side"


def test_a_fast_forward_records_the_commits_it_brought(hooked: Path) -> None:
    first, second = add("todo", "one"), add("request", "two")
    git(hooked, "checkout", "-q", "-b", "side")
    one = unhooked(hooked, f"One\n\nCoop-Done: {first}\n", "one.txt")
    two = unhooked(hooked, f"Two\n\nCoop-Close: {second}\n", "two.txt")
    git(hooked, "checkout", "-q", "main")
    run(hooked, "merge", "-q", "--ff-only", "side")
    assert item(first)["status"] == "open"  # made elsewhere: by its author line alone
    confirmed(hooked, 2)
    assert (item(first)["status"], item(first)["commit_sha"]) == ("done", one)
    assert (item(second)["status"], item(second)["commit_sha"]) == ("closed", two)
    event = coop("log", first, "--json").json()[-1]
    assert event["author"] == "alice@example.com"  # a commit merged in names its author


def test_a_pull_records_what_it_merged(hooked: Path, tmp_path: Path) -> None:
    todo = add("todo", "pulled in")
    upstream = tmp_path / "upstream"
    git(tmp_path, "clone", "-q", str(hooked), str(upstream))
    git(upstream, "config", "user.email", "alice@example.com")
    pushed = unhooked(upstream, f"Upstream work\n\nCoop-Done: {todo}\n", "up.txt")
    run(hooked, "pull", "-q", "--no-rebase", str(upstream), "main")
    confirmed(hooked, 1)
    assert item(todo)["commit_sha"] == pushed


def test_merging_commits_the_hooks_recorded_writes_nothing_again(hooked: Path) -> None:
    todo = add("todo", "recorded on the branch")
    git(hooked, "checkout", "-q", "-b", "side")
    (hooked / "side.txt").write_text("x")
    git(hooked, "add", "side.txt")
    run(hooked, "commit", "-q", "-m", f"On the branch\n\nCoop-Done: {todo}\n")
    recorded = head(hooked)
    assert item(todo)["commit_sha"] == recorded
    tip = ledger_tip(hooked)
    git(hooked, "checkout", "-q", "main")
    merged = run(hooked, "merge", "-q", "--no-ff", "-m", "Merge side", "side")
    assert ledger_tip(hooked) == tip  # once: the merge recorded nothing a second time
    assert merged.stderr == ""
    assert item(todo)["commit_sha"] == recorded


def test_a_squash_merge_waits_for_its_commit(hooked: Path) -> None:
    todo = add("todo", "squashed")
    git(hooked, "checkout", "-q", "-b", "side")
    unhooked(hooked, f"Squashed work\n\nCoop-Done: {todo}\n", "sq.txt")
    git(hooked, "checkout", "-q", "main")
    tip = ledger_tip(hooked)
    run(hooked, "merge", "-q", "--squash", "side")
    assert ledger_tip(hooked) == tip  # nothing is on the branch yet
    run(hooked, "commit", "-q", "-m", f"Squash side\n\nCoop-Done: {todo}\n")
    assert item(todo)["commit_sha"] == head(hooked)


def test_a_reset_onto_commits_no_hook_saw_is_noticed_once_by_the_next_command(
    hooked: Path,
) -> None:
    todo = add("todo", "reset onto")
    message = f"Made elsewhere\n\nCoop-Done: {todo}\n"
    made = git(hooked, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", message).strip()
    assert coop("list").err == ""  # on no branch yet
    git(hooked, "reset", "-q", "--hard", made)  # git runs no hook for a reset
    first = coop("list")
    assert first.code == 0
    assert made[:7] in first.err and "git coop hooks backfill --apply" in first.err
    assert coop("list").err == ""  # said once
    found = coop("hooks", "backfill", "--json").json()
    assert [f["commit"] for f in found] == [made]


def test_a_branch_made_from_commits_no_hook_saw_is_noticed(hooked: Path) -> None:
    todo = add("todo", "fetched into a branch")
    git(hooked, "checkout", "-q", "-b", "elsewhere")
    made = unhooked(hooked, f"Made elsewhere\n\nCoop-Done: {todo}\n", "else.txt")
    noticed = coop("list")
    assert made[:7] in noticed.err
    assert coop("list").err == ""


def test_commits_the_hooks_recorded_are_not_noticed_again(hooked: Path) -> None:
    todo = add("todo", "recorded")
    (hooked / "r.txt").write_text("r")
    git(hooked, "add", "r.txt")
    run(hooked, "commit", "-q", "-m", f"Recorded\n\nCoop-Done: {todo}\n")
    git(hooked, "branch", "-f", "copy", "HEAD")  # a branch moved with no hook, to seen work
    assert coop("list").err == ""
    assert item(todo)["commit_sha"] == head(hooked)


def test_a_rebase_with_the_apply_backend_moves_the_record_once(hooked: Path) -> None:
    todo = add("todo", "rebased with am")
    git(hooked, "checkout", "-q", "-b", "side")
    (hooked / "side.txt").write_text("s")
    git(hooked, "add", "side.txt")
    run(hooked, "commit", "-q", "-m", f"Side\n\nCoop-Done: {todo}\n")
    old = head(hooked)
    assert item(todo)["commit_sha"] == old
    git(hooked, "checkout", "-q", "main")
    unhooked(hooked, "Main moves on\n", "main.txt")
    git(hooked, "checkout", "-q", "side")
    run(hooked, "rebase", "-q", "--apply", "main")
    new = head(hooked)
    assert new != old
    shown = item(todo)
    assert (shown["status"], shown["commit_sha"]) == ("done", new)
    edits = [e for e in coop("log", todo, "--json").json() if e["verb"] != "note"]
    assert [e["commit"] for e in edits if e.get("commit")] == [old, new]


@pytest.mark.parametrize("how", ["reset", "branch -f", "update-ref", "fetch into", "pull rebase"])
def test_every_way_with_no_hook_is_noticed(hooked: Path, tmp_path: Path, how: str) -> None:
    todo = add("todo", f"arrives by {how}")
    upstream = tmp_path / "upstream"
    git(tmp_path, "clone", "-q", str(hooked), str(upstream))
    git(upstream, "config", "user.email", "bob@example.com")
    made = unhooked(upstream, f"Upstream\n\nCoop-Done: {todo}\n", "up.txt")
    git(hooked, "fetch", "-q", str(upstream), "main:refs/remotes/up/main")
    git(hooked, "branch", "-q", "other")
    assert coop("list").err == ""  # fetched, on no local branch: nothing to say yet
    if how == "reset":
        git(hooked, "reset", "-q", "--hard", made)
    elif how == "branch -f":
        git(hooked, "branch", "-f", "other", made)
    elif how == "update-ref":
        git(hooked, "update-ref", "refs/heads/other", made)
    elif how == "fetch into":
        git(hooked, "fetch", "-q", str(upstream), "main:other")
    else:  # a local commit to replay: the upstream ones arrive with no hook of their own
        unhooked(hooked, "Local work\n", "local.txt")
        assert coop("list").err == ""
        run(hooked, "pull", "-q", "--rebase", str(upstream), "main")
    noticed = coop("list")
    assert made[:7] in noticed.err and "backfill --apply" in noticed.err
    assert coop("list").err == ""


@pytest.mark.parametrize("how", ["revert", "conflicted merge"])
def test_commits_git_makes_through_post_commit_are_recorded(hooked: Path, how: str) -> None:
    todo = add("todo", f"closed by a {how}")
    message = f"By {how}\n\nCoop-Done: {todo}\n"
    if how == "revert":
        unhooked(hooked, "To revert\n", "revert.txt")
        run(hooked, "revert", "--no-edit", "HEAD")
        run(hooked, "commit", "-q", "--amend", "-m", message)
    else:
        (hooked / "both.txt").write_text("base\n")
        git(hooked, "add", "both.txt")
        git(hooked, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "base")
        git(hooked, "checkout", "-q", "-b", "side")
        (hooked / "both.txt").write_text("side\n")
        git(hooked, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "side")
        git(hooked, "checkout", "-q", "main")
        (hooked / "both.txt").write_text("main\n")
        git(hooked, "-c", "core.hooksPath=/dev/null", "commit", "-qam", "main")
        assert git(hooked, "merge", "side", check=False) is not None  # stops on the conflict
        (hooked / "both.txt").write_text("merged\n")
        git(hooked, "add", "both.txt")
        run(hooked, "commit", "-q", "-m", message)
    assert item(todo)["commit_sha"] == head(hooked)


def test_a_pull_rebase_with_nothing_to_replay_is_a_fast_forward_and_recorded(
    hooked: Path, tmp_path: Path
) -> None:
    todo = add("todo", "pulled with --rebase")
    upstream = tmp_path / "upstream"
    git(tmp_path, "clone", "-q", str(hooked), str(upstream))
    git(upstream, "config", "user.email", "alice@example.com")
    made = unhooked(upstream, f"Upstream\n\nCoop-Done: {todo}\n", "up.txt")
    run(hooked, "pull", "-q", "--rebase", str(upstream), "main")  # git runs post-merge
    confirmed(hooked, 1)
    assert item(todo)["commit_sha"] == made


def test_a_commit_on_top_of_a_reset_does_not_hide_what_the_reset_brought(hooked: Path) -> None:
    todo = add("todo", "under a later commit")
    message = f"Made elsewhere\n\nCoop-Done: {todo}\n"
    made = git(hooked, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", message).strip()
    assert coop("list").err == ""
    git(hooked, "reset", "-q", "--hard", made)
    (hooked / "later.txt").write_text("later")
    git(hooked, "add", "later.txt")
    run(hooked, "commit", "-q", "-m", "Later, with the hooks")  # post-commit runs here
    assert made[:7] in coop("list").err


def diverged(repo: Path, side_message: str, conflict: bool = True) -> str:
    """`side` and main both move on, no hook seeing either (both change both.txt, unless
    no conflict is wanted); the side commit's sha."""
    (repo / "both.txt").write_text("base\n")
    git(repo, "add", "both.txt")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "base")
    git(repo, "checkout", "-q", "-b", "side")
    (repo / "both.txt").write_text("side\n")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-qam", side_message)
    made = head(repo)
    git(repo, "checkout", "-q", "main")
    (repo / ("both.txt" if conflict else "main.txt")).write_text("main\n")
    git(repo, "add", "-A")
    git(repo, "-c", "core.hooksPath=/dev/null", "commit", "-qm", "main")
    return made


@pytest.mark.parametrize("how", ["conflicted merge", "merge --no-commit", "conflicted pull"])
def test_a_merge_finished_by_git_commit_records_what_it_merged_in(
    hooked: Path, tmp_path: Path, how: str
) -> None:
    todo = add("todo", f"merged in by a {how}")
    made = diverged(hooked, f"Side\n\nCoop-Done: {todo}\n", how != "merge --no-commit")
    if how == "conflicted merge":
        assert subprocess.run(["git", "merge", "side"], cwd=hooked, capture_output=True).returncode
        (hooked / "both.txt").write_text("merged\n")
        git(hooked, "add", "both.txt")
    elif how == "merge --no-commit":
        run(hooked, "merge", "--no-commit", "--no-ff", "side")
    else:
        upstream = tmp_path / "upstream"
        git(tmp_path, "clone", "-q", "-b", "side", str(hooked), str(upstream))
        pulled = subprocess.run(
            ["git", "pull", "--no-rebase", str(upstream), "side"], cwd=hooked, capture_output=True
        )
        assert pulled.returncode  # stops on the conflict
        (hooked / "both.txt").write_text("merged\n")
        git(hooked, "add", "both.txt")
    assert item(todo)["status"] == "open"  # git ran no hook yet
    run(hooked, "commit", "-q", "--no-edit")
    confirmed(hooked, 1)
    shown = item(todo)
    assert (shown["status"], shown["commit_sha"]) == ("done", made)
    assert coop("list").err == ""  # recorded, so nothing is left to notice


def test_a_merge_commit_records_its_merged_in_commits_once(hooked: Path) -> None:
    todo = add("todo", "recorded on the branch")
    git(hooked, "checkout", "-q", "-b", "side")
    (hooked / "side.txt").write_text("x")
    git(hooked, "add", "side.txt")
    run(hooked, "commit", "-q", "-m", f"On the branch\n\nCoop-Done: {todo}\n")
    recorded = head(hooked)
    tip = ledger_tip(hooked)
    git(hooked, "checkout", "-q", "main")
    unhooked(hooked, "Main moves on\n", "main.txt")
    run(hooked, "merge", "-q", "--no-commit", "--no-ff", "side")
    committed = run(hooked, "commit", "-q", "--no-edit")
    assert ledger_tip(hooked) == tip  # written once, by the branch's own commit
    assert committed.stderr == ""
    assert item(todo)["commit_sha"] == recorded


def test_a_merged_teammates_trailer_waits_for_you_as_a_picked_one_does(hooked: Path) -> None:
    """A teammate's trailer a merge brings in closes nothing in your name until you
    confirm it, as a picked one (docs/hooks.md): the merge's committer is the teammate."""
    todo = add("todo", "mine, held")
    assert coop("take", todo).code == 0
    git(hooked, "checkout", "-q", "-b", "bobs")
    teammates_commit(hooked, f"Bob's fix\n\nCoop-Done: {todo}\n", "bob.txt")
    git(hooked, "checkout", "-q", "main")
    subprocess.run(["git", "merge", "-q", "--ff-only", "bobs"], cwd=hooked, check=True)
    # docs/hooks.md: "a teammate's trailer can no longer close, in your name, work you hold"
    shown = item(todo)
    assert shown["status"] == "taken", (shown["status"], shown["closed_by"])
    [entry] = journal.entries(str(hooked / ".git"))
    assert entry["state"] == "unconfirmed"


def test_an_agents_own_merge_commit_closes_its_own_take(hooked: Path) -> None:
    """An agent (COOP_ACTOR, its git identity alice's) ends a merge with a trailer in -m:
    the merge commit is the one merging's, judged as a `git commit` is, and closes its
    take at once; only the commits a merge brings in are judged by their author."""
    agent = "agent-1@example.com"
    todo = add("todo", "the agent's")
    assert coop("take", todo, env={"COOP_ACTOR": agent}).code == 0
    git(hooked, "checkout", "-q", "-b", "side")
    unhooked(hooked, "side\n", "side.txt")
    git(hooked, "checkout", "-q", "main")
    unhooked(hooked, "main\n", "main.txt")
    subprocess.run(
        [GIT, "merge", "-q", "--no-ff", "side", "-m", f"Merge side\n\nCoop-Done: {todo}\n"],
        cwd=hooked,
        check=True,
        env=bare_env(COOP_ACTOR=agent),
        capture_output=True,
    )
    shown = item(todo)
    assert (shown["status"], shown["closed_by"]) == ("done", agent)


def test_a_fast_forward_noted_by_the_post_merge_shim_waits_too(ledger: Path) -> None:
    """post-merge's shell shim (gitcoop could not start) notes HEAD; the next command reads
    the note (`from_incoming`) and judges a commit the merge brought in by its author."""
    (ledger / "start.txt").write_text("start\n")
    git(ledger, "add", "start.txt")
    git(ledger, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "Start")
    git(ledger, "branch", "-M", "main")
    todo = add("todo", "mine, held")
    assert coop("take", todo).code == 0
    git(ledger, "checkout", "-q", "-b", "bobs")
    sha = teammates_commit(ledger, f"Bob's fix\n\nCoop-Done: {todo}\n", "bob.txt")
    git(ledger, "checkout", "-q", "main")
    git(ledger, "merge", "-q", "--ff-only", "bobs")
    assert head(ledger) == sha
    # what gitcoop/hookscripts/post-merge writes when no gitcoop starts
    (ledger / ".git" / f"coop-journal-incoming.4242.{sha}").write_text(
        f"gitcoop-unrun 1\nhook post-merge\ncommit {sha}\nactor alice@example.com\n"
        f"session \nat \nnote gitcoop could not start\nend\n"
    )
    coop("list", "--all")
    shown = item(todo)
    assert shown["status"] == "taken", (shown["status"], shown["closed_by"])


def test_a_pulled_commit_in_your_name_closes_nothing_until_you_confirm_it(
    hooked: Path, tmp_path: Path
) -> None:
    """A peer pushes a code commit whose author and committer say alice, with a trailer
    closing what alice holds: alice's pull records nothing in her name (a first close is
    the record, and git vouches for no author line); she confirms or drops it."""
    todo = add("todo", "alice's, held")
    assert coop("take", todo).code == 0
    upstream = tmp_path / "upstream"
    git(tmp_path, "clone", "-q", str(hooked), str(upstream))
    forged = {"GIT_AUTHOR_EMAIL": "alice@example.com", "GIT_COMMITTER_EMAIL": "alice@example.com"}
    (upstream / "typo.txt").write_text("typo")
    git(upstream, "add", "typo.txt")
    subprocess.run(
        [GIT, "-c", "core.hooksPath=/dev/null", "commit", "-qm", f"Typo\n\nCoop-Done: {todo}\n"],
        cwd=upstream,
        check=True,
        env=bare_env(**forged),
    )
    pulled = run(hooked, "pull", "-q", "--no-rebase", str(upstream), "main")
    assert item(todo)["status"] == "taken"
    assert "not proof that you wrote it" in pulled.stderr, pulled.stderr
    [entry] = journal.entries(str(hooked / ".git"))
    assert entry["state"] == "unconfirmed"


def test_a_merged_commit_its_own_clone_recorded_waits_for_nothing(hooked: Path) -> None:
    todo = add("todo", "recorded where it was made")
    git(hooked, "checkout", "-q", "-b", "side")
    (hooked / "side.txt").write_text("x")
    git(hooked, "add", "side.txt")
    run(hooked, "commit", "-q", "-m", f"Made here\n\nCoop-Done: {todo}\n")  # recorded now
    git(hooked, "checkout", "-q", "main")
    merged = run(hooked, "merge", "-q", "--ff-only", "side")
    assert merged.stderr == "" and journal.entries(str(hooked / ".git")) == []


def test_a_merged_commit_kept_as_a_related_one_waits_for_nothing(hooked: Path) -> None:
    """A second Coop-Done of a closed item is kept as a related commit; merging the branch
    that made both asks for nothing (its own clone recorded both)."""
    todo = add("todo", "closed twice on the branch")
    git(hooked, "checkout", "-q", "-b", "feat")
    for n in (1, 2):
        (hooked / f"f{n}.txt").write_text(str(n))
        git(hooked, "add", f"f{n}.txt")
        run(hooked, "commit", "-q", "-m", f"Part {n}\n\nCoop-Done: {todo}\n")
    assert head(hooked) in item(todo)["related_commits"]
    git(hooked, "checkout", "-q", "main")
    merged = run(hooked, "merge", "-q", "--no-ff", "-m", "Merge feat", "feat")
    assert merged.stderr == "" and journal.entries(str(hooked / ".git")) == []
    assert coop("hook", "replay").code == 0


def test_a_recorded_commit_noted_by_the_post_merge_shim_waits_for_nothing(ledger: Path) -> None:
    """The shim's note of a fast-forward (gitcoop could not start) whose commit its own
    clone recorded asks for nothing either."""
    (ledger / "start.txt").write_text("start\n")
    git(ledger, "add", "start.txt")
    git(ledger, "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", "Start")
    git(ledger, "branch", "-M", "main")
    todo = add("todo", "recorded where it was made")
    git(ledger, "checkout", "-q", "-b", "feat")
    sha = unhooked(ledger, f"Fix\n\nCoop-Done: {todo}\n", "fix.txt")
    assert coop("done", todo, "--commit", sha).code == 0  # as its own clone's hook did
    git(ledger, "checkout", "-q", "main")
    git(ledger, "merge", "-q", "--ff-only", "feat")
    (ledger / ".git" / f"coop-journal-incoming.4242.{sha}").write_text(
        f"gitcoop-unrun 1\nhook post-merge\ncommit {sha}\nactor alice@example.com\n"
        f"session \nat \nnote gitcoop could not start\nend\n"
    )
    listed = coop("list", "--all")
    assert listed.code == 0 and "waits" not in listed.err and "proof" not in listed.err
    assert journal.entries(str(ledger / ".git")) == []
