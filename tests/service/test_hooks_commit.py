"""End to end: `hooks install`, then real `git commit`, `--amend` and `rebase`."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from gitcoop.store.ledger import journal
from tests import rawledger
from tests.conftest import coop, git
from tests.service.hook_helpers import (
    add,
    bare_env,
    commit,
    head,
    item,
    ledger_tip,
    with_gitcoop_on_path,
)


@pytest.fixture
def hooked(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    with_gitcoop_on_path(monkeypatch)
    assert coop("hooks", "install").code == 0
    commit(ledger, "Start\n")
    return ledger


def test_coop_done_records_the_commit_and_its_subject(hooked: Path) -> None:
    todo = add("todo", "write the docs")
    assert coop("take", todo).code == 0
    done = commit(hooked, f"Write the docs\n\nLong body.\n\nCoop-Done: {todo[:7]}\n")
    shown = item(todo)
    assert shown["status"] == "done"
    assert shown["commit_sha"] == head(hooked)
    assert shown["result_summary"] == "Write the docs"
    assert shown["closed_by"] == "alice@example.com"
    assert "done with" in done.stderr


def test_several_trailers_make_one_ledger_commit(hooked: Path) -> None:
    todo, request, other = add("todo", "a"), add("request", "b"), add("todo", "c")
    before = ledger_tip(hooked)
    commit(
        hooked, f"Do three things\n\nCoop-Done: {todo}\nCoop-Close: {request}\nCoop-Refs: {other}\n"
    )
    assert git(hooked, "rev-list", "--count", f"{before}..refs/coop/ledger").strip() == "1"
    assert item(todo)["status"] == "done"
    assert item(request)["status"] == "closed"
    assert item(other)["status"] == "open"
    log = coop("log", other, "--json").json()
    assert log[-1]["verb"] == "note" and log[-1]["commit"] == head(hooked)


def test_a_commit_without_trailers_leaves_the_ledger_alone(hooked: Path) -> None:
    before = ledger_tip(hooked)
    commit(hooked, "Plain work\n\nCoop-Done: is in the body\nbut not a trailer\n")
    assert ledger_tip(hooked) == before


def test_a_coop_line_outside_the_trailer_block_is_named_not_dropped_silently(
    hooked: Path,
) -> None:
    """`git commit -m A -m "Coop-Done: X" -m "Coop-Close: Y"`: each -m is a paragraph and
    git reads only the last as trailers, so X is not recorded; the hook says so."""
    todo, request = add("todo", "retry"), add("request", "on EAGAIN")
    git(
        hooked,
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "Retry",
        "-m",
        f"Coop-Done: {todo}",
        "-m",
        f"Coop-Close: {request}",
    )
    assert item(request)["status"] == "closed"
    assert item(todo)["status"] == "open"
    made = commit(hooked, f"Again\n\nCoop-Done: {todo}\n\nMore words.\n")
    assert item(todo)["status"] == "open"
    said = [line for line in made.stderr.splitlines() if f"Coop-Done: {todo}" in line]
    assert len(said) == 1, made.stderr
    assert "not in the message's trailer block" in said[0]
    assert f"git coop done {todo} --commit {head(hooked)[:12]}" in said[0]
    # the ref is someone's text: quoted in the command offered; a request is closed
    odd = commit(hooked, f"Odd\n\nCoop-Done: $(touch${{IFS}}x)\n\nCoop-Done: {request}\n\nEnd.\n")
    assert "git coop done '$(touch${IFS}x)' --commit" in odd.stderr, odd.stderr
    assert f"git coop close {request} --commit" in odd.stderr


def test_amend_moves_the_recorded_sha_as_an_edit(hooked: Path) -> None:
    todo = add("todo", "fix it")
    commit(hooked, f"Fix it\n\nCoop-Done: {todo}\n")
    first = head(hooked)
    git(hooked, "commit", "-q", "--amend", "-m", "Fix it properly")  # the trailer is gone
    second = head(hooked)
    assert second != first
    shown = item(todo)
    assert shown["commit_sha"] == second
    assert shown["result_summary"] == "Fix it"
    edit = coop("log", todo, "--json").json()[-1]
    assert edit["verb"] == "edit"
    assert (edit["commit"], edit["previous_commit"]) == (second, first)


def test_rebase_moves_every_recorded_sha(hooked: Path) -> None:
    todo, request = add("todo", "one"), add("request", "two")
    git(hooked, "checkout", "-q", "-b", "feature")
    commit(hooked, f"One\n\nCoop-Done: {todo}\n", name="one.txt")
    commit(hooked, f"Two\n\nCoop-Close: {request}\n", name="two.txt")
    git(hooked, "checkout", "-q", "main")
    commit(hooked, "Meanwhile on main\n", name="main.txt")
    git(hooked, "checkout", "-q", "feature")
    git(hooked, "rebase", "-q", "main")
    assert item(todo)["commit_sha"] == git(hooked, "rev-parse", "HEAD~1").strip()
    assert item(request)["commit_sha"] == head(hooked)


def test_a_refused_close_is_reported_with_the_command_that_records_it(hooked: Path) -> None:
    todo = add("todo", "bob's")
    assert coop("take", todo, "--as", "bob@example.com").code == 0
    done = commit(hooked, f"Try\n\nCoop-Done: {todo}\n")
    refusal = [line for line in done.stderr.splitlines() if "not recorded" in line]
    assert len(refusal) == 1 and "bob@example.com" in refusal[0]
    sha = head(hooked)
    assert (
        f"record it with: git coop done {todo} --commit {sha} --summary Try --force" in (refusal[0])
    )
    assert journal.has_entries(str(hooked / ".git"))  # kept until recorded or dismissed
    assert item(todo)["status"] == "taken"  # still bob's: reported, never forced


def test_an_unknown_id_is_reported_and_the_rest_still_recorded(hooked: Path) -> None:
    todo = add("todo", "real")
    done = commit(hooked, f"Mixed\n\nCoop-Done: td-zzzzzzzz\nCoop-Done: {todo}\n")
    assert item(todo)["status"] == "done"
    assert "no item matches 'td-zzzzzzzz'" in done.stderr


def test_the_foreign_hook_still_runs_first(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_gitcoop_on_path(monkeypatch)
    marker = ledger.parent / "ran"
    hook = ledger / ".git/hooks/post-commit"
    hook.write_text(f"#!/bin/sh\necho foreign >> {marker}\n")
    hook.chmod(0o755)
    assert coop("hooks", "install").code == 0
    todo = add("todo", "chained")
    commit(ledger, f"Chained\n\nCoop-Done: {todo}\n")
    assert marker.read_text() == "foreign\n"
    assert item(todo)["status"] == "done"
    assert coop("hooks", "uninstall").code == 0
    commit(ledger, "After uninstall\n")
    assert marker.read_text() == "foreign\nforeign\n"


@pytest.mark.parametrize("body", ["exit 3", "false"])
def test_a_failing_foreign_prepare_commit_msg_still_stops_the_commit(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, body: str
) -> None:
    with_gitcoop_on_path(monkeypatch)
    foreign = ledger / ".git/hooks/prepare-commit-msg"
    foreign.write_text(f"#!/bin/sh\n{body}\n")
    foreign.chmod(0o755)
    assert coop("hooks", "install").code == 0
    chained = "coop-hooks/prepare-commit-msg" in foreign.read_text()
    assert chained == (body == "false")  # after a top-level exit a line would never run
    (ledger / "f").write_text("y")
    git(ledger, "add", "f")
    refused = subprocess.run(["git", "commit", "-qm", "no"], cwd=ledger, capture_output=True)
    assert refused.returncode == 1  # git's answer to a failing prepare-commit-msg
    assert git(ledger, "rev-parse", "-q", "--verify", "HEAD", check=False) == ""  # no commit


def test_a_commit_with_path_emptied_is_recorded_by_the_installed_interpreter(
    hooked: Path,
) -> None:
    todo = add("todo", "from a GUI")
    done = commit(hooked, f"From an IDE\n\nCoop-Done: {todo}\n", env=bare_env())
    assert done.returncode == 0
    assert "done with" in done.stderr
    shown = item(todo)
    assert shown["status"] == "done" and shown["commit_sha"] == head(hooked)
    assert not journal.has_entries(str(hooked / ".git"))


def test_an_agent_identity_closes_its_own_take(hooked: Path) -> None:
    agent = "agent-1@example.com"
    todo = add("todo", "the agent's")
    assert coop("take", todo, env={"COOP_ACTOR": agent}).code == 0
    done = commit(hooked, f"Agent work\n\nCoop-Done: {todo}\n", env=bare_env(COOP_ACTOR=agent))
    assert "not recorded" not in done.stderr
    shown = item(todo)
    assert (shown["status"], shown["closed_by"]) == ("done", agent)
    event = coop("log", todo, "--json").json()[-1]
    assert (event["verb"], event["actor"]) == ("done", agent)
    assert event["committer"] == "alice@example.com"  # git's committer, recorded alongside


def test_a_session_in_the_environment_is_the_event_session(hooked: Path) -> None:
    todo = add("todo", "in a session")
    commit(hooked, f"Session work\n\nCoop-Done: {todo}\n", env=bare_env(COOP_SESSION="s-42"))
    assert coop("log", todo, "--json").json()[-1]["session"] == "s-42"


def test_a_commit_in_a_linked_worktree_records_into_the_shared_ledger(
    hooked: Path, tmp_path: Path
) -> None:
    linked = tmp_path / "linked"
    git(hooked, "worktree", "add", "-q", str(linked), "-b", "side")
    todo = add("todo", "from the worktree")
    commit(linked, f"Side work\n\nCoop-Done: {todo}\n")
    assert item(todo)["commit_sha"] == head(linked)


def test_core_hooks_path_hooks_run(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with_gitcoop_on_path(monkeypatch)
    git(ledger, "config", "core.hooksPath", ".githooks")
    assert coop("hooks", "install", "--append").code == 0
    todo = add("todo", "via hooksPath")
    commit(ledger, f"Through hooksPath\n\nCoop-Done: {todo}\n")
    assert item(todo)["commit_sha"] == head(ledger)


def edit_commit(repo: Path, *args: str) -> str:
    """Commit through an editor that saves what it was shown; returns that text.

    Fails when no editor ran: an empty answer would let a check that something
    is absent from it pass without a commit ever being made.
    """
    seen = repo.parent / "seen.txt"
    seen.unlink(missing_ok=True)
    editor = f'f() {{ cp "$1" {seen}; printf \'Subject\\n\' > "$1"; }}; f'
    (repo / "edited.txt").write_text(str(len(args)) + os.urandom(4).hex())
    git(repo, "add", "edited.txt")
    env = {**os.environ, "GIT_EDITOR": editor}
    subprocess.run(
        ["git", "commit", "-q", *args], cwd=repo, env=env, check=True, capture_output=True
    )
    assert seen.exists(), "git commit never started the editor"
    shown = seen.read_text()
    assert shown.startswith("\n") or "# Please enter the commit message" in shown, shown
    return shown


def test_the_editor_suggests_the_one_held_item_commented(hooked: Path) -> None:
    todo = add("todo", "held")
    coop("take", todo)
    label = coop("show", todo, "--json").json()["short_id"]
    shown = edit_commit(hooked)
    assert f"\n# Coop-Done: {label}\n" in shown
    assert "Coop-Done" not in git(hooked, "log", "-1", "--format=%B")
    assert item(todo)["status"] == "taken"


@pytest.mark.parametrize(
    ("string", "char", "suggested"),
    [("//", None, False), ("//", ";", False), (";", ";", True), ("#", None, True)],
)
def test_no_suggestion_when_which_comment_prefix_git_takes_is_unknown(
    hooked: Path, string: str, char: str | None, suggested: bool
) -> None:
    """`core.commentString` (git 2.45) and `core.commentChar` name one setting, and gits
    read them differently (before 2.45 only the second; later the last in the config):
    when they disagree the suggestion is left out, or its lines might stay live in the
    message; when they agree it is made with their prefix."""
    git(hooked, "config", "core.commentString", string)
    if char is not None:
        git(hooked, "config", "core.commentChar", char)
    todo = add("todo", "held")
    coop("take", todo)
    shown = edit_commit(hooked)
    assert ("Coop-Done" in shown) is suggested, shown
    assert "gitcoop" not in git(hooked, "log", "-1", "--format=%B")


def test_no_suggestion_with_two_held_items_or_for_dash_m(hooked: Path) -> None:
    todo = add("todo", "held")
    coop("take", todo)
    (hooked / "m.txt").write_text("m")
    git(hooked, "add", "m.txt")
    git(hooked, "commit", "-qm", "Message given")
    assert git(hooked, "log", "-1", "--format=%B").strip() == "Message given"
    coop("take", add("todo", "second"))
    assert "Coop-Done" not in edit_commit(hooked)


def test_a_cherry_pick_keeps_the_first_commit_and_adds_the_copy_as_related(hooked: Path) -> None:
    todo = add("todo", "picked")
    git(hooked, "checkout", "-q", "-b", "feature")
    commit(hooked, f"Fix on feature\n\nCoop-Done: {todo}\n", name="fix.txt")
    original = head(hooked)
    git(hooked, "checkout", "-q", "main")
    commit(hooked, "Meanwhile on main\n", name="main.txt")  # so the copy is a new commit
    picked = subprocess.run(
        ["git", "cherry-pick", original], cwd=hooked, capture_output=True, text=True, check=True
    )
    copy = head(hooked)
    shown = item(todo)
    assert shown["commit_sha"] == original  # the first commit stays the record
    assert shown["related_commits"] == [copy]
    assert f"keeps {original[:7]} as its record" in picked.stderr
    rows = [line.split() for line in coop("show", todo).out.splitlines()]
    assert ["related", copy] in rows
    git(hooked, "cherry-pick", "--keep-redundant-commits", original)  # a second copy, once more
    assert item(todo)["related_commits"] == [copy, head(hooked)]


def test_a_cherry_pick_of_a_commit_no_branch_holds_becomes_the_record(hooked: Path) -> None:
    todo = add("todo", "moved")
    git(hooked, "checkout", "-q", "-b", "doomed")
    commit(hooked, f"Fix on a branch that goes\n\nCoop-Done: {todo}\n", name="fix.txt")
    original = head(hooked)
    git(hooked, "checkout", "-q", "main")
    commit(hooked, "Meanwhile on main\n", name="main.txt")
    git(hooked, "branch", "-q", "-D", "doomed")
    git(hooked, "cherry-pick", original)
    shown = item(todo)
    assert shown["commit_sha"] == head(hooked)
    assert "related_commits" not in shown
    edit = coop("log", todo, "--json").json()[-1]
    assert (edit["verb"], edit["previous_commit"]) == ("edit", original)


def hostile_title(repo: Path, todo: str, title: str) -> None:
    """The item's file, rewritten as a peer could push it: a title with a line break."""
    path = ["items", todo[3:5], f"{todo}.yaml"]
    data = rawledger.read(repo, "/".join(path)).decode()
    line = next(x for x in data.splitlines() if x.startswith("title:"))
    rawledger.put(repo, path, data.replace(line, "title: " + json.dumps(title)).encode())


@pytest.mark.parametrize("cleanup", ["strip", "verbatim"])
def test_a_pasted_title_can_never_become_a_trailer(hooked: Path, cleanup: str) -> None:
    request = add("request", "someone else's")
    todo = add("todo", "placeholder")
    coop("take", todo)
    hostile_title(hooked, todo, f"x\nCoop-Close: {request}\r\nCoop-Close: {request}")
    git(hooked, "config", "commit.cleanup", cleanup)
    keep_all = (  # an editor that saves what it was shown and keeps every line of it
        f'f() {{ cp "$1" {hooked.parent}/seen.txt; '
        'printf "Subject\\n\\n" | cat - "$1" > "$1.new"; mv "$1.new" "$1"; }; f'
    )
    (hooked / "edited.txt").write_text("hostile")
    git(hooked, "add", "edited.txt")
    env = {**os.environ, "GIT_EDITOR": keep_all}
    subprocess.run(["git", "commit", "-q"], cwd=hooked, env=env, check=True, capture_output=True)
    seen = (hooked.parent / "seen.txt").read_text()
    assert "(x\\x0aCoop-Close: " in seen  # shown escaped, on the one comment line
    message = git(hooked, "log", "-1", "--format=%B")
    assert not [line for line in message.splitlines() if line.startswith("Coop-")]
    assert git(hooked, "log", "-1", "--format=%(trailers)").strip() == ""
    assert item(request)["status"] == "open"
    assert item(todo)["status"] == "taken"


def teammates_commit(repo: Path, message: str, name: str) -> str:
    """A commit bob made (author and committer), recorded by no hook here: his own work."""
    path = repo / name
    path.write_text("bob's\n")
    git(repo, "add", name)
    bob = {"GIT_AUTHOR_NAME": "bob", "GIT_AUTHOR_EMAIL": "bob@example.com"}
    bob |= {"GIT_COMMITTER_NAME": "bob", "GIT_COMMITTER_EMAIL": "bob@example.com"}
    subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", "commit", "-q", "-m", message],
        cwd=repo,
        env={**os.environ, **bob},
        check=True,
    )
    return head(repo)


def test_a_cherry_pick_of_a_teammates_commit_waits_for_you_to_confirm_it(hooked: Path) -> None:
    todo = add("todo", "mine, held")
    assert coop("take", todo).code == 0
    git(hooked, "checkout", "-q", "-b", "bobs")
    theirs = teammates_commit(hooked, f"Bob's fix\n\nCoop-Done: {todo}\n", "bob.txt")
    git(hooked, "checkout", "-q", "main")
    picked = subprocess.run(
        ["git", "cherry-pick", theirs], cwd=hooked, capture_output=True, text=True, check=True
    )
    copy = head(hooked)
    assert item(todo)["status"] == "taken"  # not closed in alice's name by bob's trailer
    [entry] = journal.entries(str(hooked / ".git"))
    short = entry["id"][:8]
    assert (entry["state"], entry["authored_by"]) == ("unconfirmed", "bob@example.com")
    lines = [line for line in picked.stderr.splitlines() if line.startswith("gitcoop:")]
    assert len(lines) == 1 and "authored by bob@example.com" in lines[0]
    assert f"git coop hook confirm {short}" in lines[0]
    assert coop("list").err == "gitcoop: 1 trailer waits: git coop hook replay\n"
    replayed = coop("hook", "replay")
    assert f"git coop hook confirm {short}" in replayed.out
    assert item(todo)["status"] == "taken"  # a replay confirms nothing

    confirmed = coop("hook", "confirm", short)
    assert confirmed.code == 0, confirmed.err
    shown = item(todo)
    assert (shown["status"], shown["closed_by"], shown["commit_sha"]) == (
        "done",
        "alice@example.com",
        copy,
    )
    done = coop("log", todo, "--json").json()[-1]
    assert (done["verb"], done["author"], done["actor"]) == (
        "done",
        "bob@example.com",
        "alice@example.com",
    )
    assert not journal.has_entries(str(hooked / ".git"))
    assert coop("hook", "confirm", short).code == 1  # gone: nothing left to confirm


def test_a_commit_you_wrote_for_someone_else_waits_too(hooked: Path) -> None:
    todo = add("todo", "written for bob")
    commit(
        hooked, f"For bob\n\nCoop-Done: {todo}\n", "x.txt", None, "--author=bob <bob@example.com>"
    )
    assert item(todo)["status"] == "open"
    assert journal.entries(str(hooked / ".git"))[0]["state"] == "unconfirmed"


def test_a_rebased_commit_of_your_own_is_recorded_as_ever(hooked: Path) -> None:
    todo = add("todo", "rebased")
    git(hooked, "checkout", "-q", "-b", "topic")
    commit(hooked, f"Topic\n\nCoop-Done: {todo}\n", name="topic.txt")
    git(hooked, "checkout", "-q", "main")
    commit(hooked, "Main moves\n", name="main.txt")
    git(hooked, "checkout", "-q", "topic")
    git(hooked, "rebase", "-q", "main")
    assert item(todo)["commit_sha"] == head(hooked)
    assert not journal.has_entries(str(hooked / ".git"))


def test_confirm_is_only_for_a_teammates_trailers(hooked: Path) -> None:
    todo = add("todo", "refused, not unconfirmed")
    assert coop("take", todo, "--as", "bob@example.com").code == 0
    commit(hooked, f"Mine\n\nCoop-Done: {todo}\n", name="mine.txt")
    [entry] = journal.entries(str(hooked / ".git"))
    assert entry["state"] == "refused"
    confirmed = coop("hook", "confirm", entry["id"][:8])
    assert confirmed.code == 2
    assert "waits for no confirmation — git coop hook replay says what it needs" in confirmed.err
    assert journal.entries(str(hooked / ".git"))[0]["state"] == "refused"
