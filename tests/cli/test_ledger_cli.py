"""`git coop` for todos and requests, through the real CLI against real repositories."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from gitcoop.store.ledger.layout import REF
from tests.conftest import coop, coop_process, git, make_repo
from tests.rawledger import open_raw

BOB = {"COOP_ACTOR": "bob@example.com"}


def ref_tip(path: Path) -> str:
    return git(path, "rev-parse", REF).strip()


def test_the_walkthrough_of_the_readme(ledger: Path) -> None:
    todo = coop("add", "todo", "Fix the flaky queue test").out.strip()
    assert re.fullmatch(r"td-[0-9a-z]{4}", todo)
    request = coop("add", "request", "Review the release notes").out.strip()
    assert request.startswith("rq-")
    listing = coop("list").out
    assert "Fix the flaky queue test" in listing and "Review the release notes" in listing
    assert coop("take", todo).code == 0
    git(Path.cwd(), "commit", "-q", "--allow-empty", "-m", "the fix")
    head = git(Path.cwd(), "rev-parse", "HEAD").strip()
    assert coop("done", todo, "--summary", "fixed", "--commit", head[:7]).code == 0
    shown = coop("show", todo, "--json").json()
    assert (shown["status"], shown["result_summary"], shown["commit_sha"]) == (
        "done",
        "fixed",
        head,
    )
    assert [e["verb"] for e in coop("log", todo, "--json").json()] == ["add", "take", "done"]
    assert "settled: 1 done" in coop("list").out
    item_file = f"items/{shown['id'][3:5]}/{shown['id']}.yaml"
    plain = git(ledger, "show", f"{REF}:{item_file}")
    assert "status: done\n" in plain and "result_summary: fixed\n" in plain


def test_init_is_idempotent_and_makes_the_actor_an_owner(ledger: Path) -> None:
    tip = ref_tip(ledger)
    again = coop("init", "--json")
    assert again.code == 0 and again.json()["created"] is False
    assert ref_tip(ledger) == tip
    assert coop("roles", "--json").json()["owners"] == ["alice@example.com"]


def test_foreign_take_refuses_naming_holder_and_since(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, env={"COOP_NOW": "2026-11-29T10:02:00Z"})
    refused = coop("take", todo, env=BOB)
    assert refused.code == 1
    assert refused.err.strip() == (
        f"gitcoop: todo {todo} is already taken by alice@example.com "
        "(since 2026-11-29 10:02 UTC) — --force to take it over"
    )
    forced = coop("take", todo, "--force", "--json", env=BOB)
    assert forced.code == 0 and forced.json()["taken_by"] == "bob@example.com"
    takeover = coop("log", todo, "--json").json()[-1]
    assert takeover["verb"] == "takeover"
    assert takeover["previous_holder"] == "alice@example.com"
    assert takeover["previous_taken_at"] == "2026-11-29T10:02:00Z"


def test_identical_repeat_close_writes_nothing_and_a_correction_is_an_edit(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("done", todo, "--summary", "a", "--commit", "abc1234", "--commit-elsewhere")
    tip = ref_tip(ledger)
    assert (
        coop("done", todo, "--summary", "a", "--commit", "abc1234", "--commit-elsewhere").code == 0
    )
    assert ref_tip(ledger) == tip
    coop("done", todo, "--summary", "b")
    edit = coop("log", todo, "--json").json()[-1]
    assert (edit["verb"], edit["summary"], edit["previous_summary"]) == ("edit", "b", "a")
    shown = coop("show", todo, "--json").json()
    assert (shown["closed_by"], shown["result_summary"], shown["commit_sha"]) == (
        "alice@example.com",
        "b",
        "abc1234",
    )


def test_commit_names_resolve_to_full_shas_and_nonsense_is_refused(ledger: Path) -> None:
    (ledger / "f").write_text("x\n")
    git(ledger, "add", "f")
    git(ledger, "commit", "-qm", "work")
    head = git(ledger, "rev-parse", "HEAD").strip()
    todo = coop("add", "todo", "x").out.strip()
    refused = coop("done", todo, "--commit", "not-a-commit")
    assert refused.code == 2 and "names no commit here" in refused.err
    shown = coop("done", todo, "--commit", head[:7], "--json")
    assert shown.json()["commit_sha"] == head and shown.err == ""


ELSEWHERE = "0123456789abcdef0123456789abcdef01234567"  # a commit only another clone has


def test_a_commit_this_clone_lacks_is_refused_unless_recorded_as_given(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    tip = ref_tip(ledger)
    for sha in ("deadbeef", ELSEWHERE):
        refused = coop("done", todo, "--commit", sha, "--json")
        assert refused.code == 2, refused.err
        assert refused.json()["error"]["code"] == "usage"
        assert refused.err.strip() == (
            f"gitcoop: --commit {sha} is not a commit in this repository — fetch it first, "
            "or record it as given with --commit-elsewhere"
        )
    assert ref_tip(ledger) == tip  # nothing was written
    nonsense = coop("done", todo, "--commit", "zzzz", "--commit-elsewhere")
    assert nonsense.code == 2 and "names no commit here" in nonsense.err
    given = coop("done", todo, "--commit", ELSEWHERE, "--commit-elsewhere", "--json")
    assert given.code == 0, given.err
    assert given.json()["commit_sha"] == ELSEWHERE
    assert given.err.strip() == (
        f"gitcoop: commit {ELSEWHERE[:12]} is not in this repository — recorded as given"
    )


def test_a_tree_a_blob_or_the_ledger_is_no_work_commit(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    git(ledger, "commit", "-q", "--allow-empty", "-m", "work")
    tree = git(ledger, "rev-parse", "HEAD^{tree}").strip()
    for elsewhere in ([], ["--commit-elsewhere"]):
        named = coop("done", todo, "--commit", tree, *elsewhere)
        assert named.code == 2
        assert f"--commit {tree!r} names a tree here, not a commit" in named.err
    ledger_ref = coop("done", todo, "--commit", "refs/coop/ledger")
    assert ledger_ref.code == 2 and "names gitcoop's own ledger, not work" in ledger_ref.err
    assert coop("show", todo, "--json").json()["status"] == "open"


def test_every_command_that_takes_a_commit_checks_it(ledger: Path) -> None:
    git(ledger, "commit", "-q", "--allow-empty", "-m", "work")
    head = git(ledger, "rev-parse", "HEAD").strip()
    request = coop("add", "request", "r").out.strip()
    assert coop("close", request, "--commit", "deadbeef").code == 2
    alone = coop("close", request, "--commit-elsewhere")
    assert alone.code == 2 and "--commit-elsewhere goes with --commit" in alone.err
    here = coop("close", request, "--commit", "HEAD", "--commit-elsewhere", "--json")
    assert here.json()["commit_sha"] == head and here.err == ""  # here after all: resolved
    reported = coop("add", "todo", "r").out.strip()
    coop("take", reported)
    assert coop("report", reported, "done", "--commit", "deadbeef").code == 2
    assert coop("report", reported, "done", "--commit", "deadbeef", "--commit-elsewhere").code == 0
    reviewed = coop("add", "todo", "v").out.strip()
    coop("take", reviewed, env=BOB)
    assert coop("review", reviewed, "close", "--commit", "deadbeef").code == 2
    closed = coop("review", reviewed, "close", "--commit", "deadbeef", "--commit-elsewhere")
    assert closed.code == 0, closed.err


def test_titles_are_one_line_and_shared_text_is_shown_escaped(ledger: Path) -> None:
    assert coop("add", "todo", "red\x1b[31m").code == 2
    assert coop("add", "todo", "two\nlines").code == 2
    todo = coop("add", "todo", "fine", "--json").json()["id"]
    put_on_ledger_title(ledger, todo, "evil\x1b[2J")
    assert "\x1b" not in coop("list").out and "evil\\x1b[2J" in coop("list").out


def put_on_ledger_title(path: Path, todo: str, title: str) -> None:
    """A teammate's clone wrote a title with an escape code (raw, past the CLI)."""
    from gitcoop.store.ledger import codec

    name = f"items/{todo[3:5]}/{todo}.yaml"
    data = codec.load(git(path, "show", f"{REF}:{name}").encode(), name)
    data["title"] = title
    put_on_ledger(path, name, codec.dump(data))


def test_stale_takes_are_shown_never_reverted(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, env=BOB)
    later = coop("list", env={"COOP_NOW": "2026-11-29T15:00:00Z"})
    assert "[taken by bob@example.com, 5h ago]" in later.out
    much_later = coop("show", todo, "--json", env={"COOP_NOW": "2027-01-01T00:00:00Z"}).json()
    assert (much_later["status"], much_later["taken_by"]) == ("taken", "bob@example.com")


def test_expect_version_refuses_with_the_current_version(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo)
    stale = coop("done", todo, "--expect-version", "1")
    assert stale.code == 3
    assert "is at version 2, not 1" in stale.err
    assert coop("done", todo, "--expect-version", "2").code == 0


def test_ids_by_any_unique_prefix_and_ambiguity_lists_candidates(ledger: Path) -> None:
    ids = [coop("add", "todo", f"t{i}", "--json").json()["id"] for i in range(40)]
    target = ids[0]
    assert coop("show", target[3:9], "--json").json()["id"] == target
    assert coop("show", target.upper(), "--json").json()["id"] == target
    same_start = [i for i in ids if i[3] == target[3]]
    assert all(coop("show", i, "--json").json()["id"] == i for i in same_start)
    for short in (target[3], target[3:6], f"td-{target[3:5]}"):  # labels have at least 4
        refused = coop("show", short)
        assert refused.code == 1 and "too short to name an item" in refused.err
    missing = coop("show", "zzzzzz")
    assert missing.code == 1 and "no item matches 'zzzzzz'" in missing.err


def test_ambiguous_prefix_names_the_candidates(ledger: Path) -> None:
    env = {"COOP_SEED": "fixed"}
    first = coop("add", "todo", "a", "--json", env=env).json()["id"]
    # the same seed mints the same random part for a request: a shared prefix
    second = coop("add", "request", "b", "--json", env=env).json()["id"]
    assert first[3:] == second[3:]
    ambiguous = coop("show", first[3:10])
    assert ambiguous.code == 1
    assert "matches 2 items" in ambiguous.err and "give more of the id" in ambiguous.err
    assert coop("show", "td-" + first[3:10], "--json").json()["id"] == first


@pytest.mark.parametrize(
    ("args", "code", "words"),
    [
        (["add", "epic", "x"], 2, "'epic' is not one of 'todo', 'request', 'item'"),
        (["add", "todo", "  "], 2, "title must not be empty"),
        (["release", "td-0000"], 2, "missing option '--reason'"),
        (["release", "td-0000", "--reason", " "], 2, "release needs a --reason"),
        (["abandon", "td-0000"], 2, "missing option '--reason'"),
        (["take"], 2, "missing argument"),
        (["frobnicate"], 2, "no such command"),
    ],
)
def test_usage_mistakes_exit_two_with_a_sentence(
    ledger: Path, args: list[str], code: int, words: str
) -> None:
    result = coop(*args)
    assert result.code == code
    assert words in result.err
    assert "Traceback" not in result.err


def test_not_a_repository_exits_four(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = coop("list")
    assert result.code == 4 and "not a git repository" in result.err


def test_no_ledger_yet_exits_four_with_a_hint(repo: Path) -> None:
    result = coop("list")
    assert result.code == 4
    assert "run: git coop init" in result.err
    assert coop("take", "td-1234").code == 4
    added = coop("add", "todo", "before init")
    assert added.code == 4 and "run: git coop init" in added.err
    assert sorted(p.name for p in (repo / ".git").iterdir() if "coop" in p.name) == []


def test_no_identity_is_a_usage_error(repo: Path) -> None:
    git(repo, "config", "--unset", "user.email")
    result = coop("init")
    assert result.code == 2 and "who is acting?" in result.err


def put_on_ledger(path: Path, name: str, content: bytes) -> None:
    """Write one file into the ledger's tip with raw pygit2, like a hostile clone would."""
    raw = open_raw(path)
    tip = raw.references[REF].target
    commit = raw[tip]
    parts = name.split("/")

    def rebuild(tree: pygit2.Tree | None, parts: list[str]) -> pygit2.Oid:
        builder = raw.TreeBuilder(tree) if tree is not None else raw.TreeBuilder()
        if len(parts) == 1:
            builder.insert(parts[0], raw.create_blob(content), pygit2.GIT_FILEMODE_BLOB)
        else:
            sub = tree[parts[0]] if tree is not None and parts[0] in tree else None
            builder.insert(
                parts[0], rebuild(raw[sub.id] if sub else None, parts[1:]), pygit2.GIT_FILEMODE_TREE
            )
        return builder.write()

    sig = pygit2.Signature("x", "x@example.com")
    new = raw.create_commit(None, sig, sig, "tamper", rebuild(commit.tree, parts), [tip])
    raw.references[REF].set_target(new)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b"id: [unclosed\n", "malformed YAML"),
        (b"- just\n- a list\n", "must be a mapping"),
        (b"a: &x 1\n", "anchors are not allowed"),
    ],
)
def test_broken_item_files_on_the_ref_are_clear_errors(
    ledger: Path, content: bytes, words: str
) -> None:
    todo = coop("add", "todo", "x", "--json").json()["id"]
    put_on_ledger(ledger, f"items/{todo[3:5]}/{todo}.yaml", content)
    tip = ref_tip(ledger)
    for args in (["show", todo], ["list"], ["take", todo]):
        result = coop(*args)
        assert result.code == 4, args
        assert f"items/{todo[3:5]}/{todo}.yaml" in result.err and words in result.err
        assert "Traceback" not in result.err
    assert ref_tip(ledger) == tip


def test_unknown_format_version_is_refused(ledger: Path) -> None:
    put_on_ledger(ledger, "coop.yaml", b"format: 3\n")
    result = coop("list")
    assert result.code == 4 and "format 3 is not supported" in result.err


def test_json_shapes(ledger: Path) -> None:
    added = coop("add", "todo", "x", "--json").json()
    for key in (
        "id",
        "kind",
        "title",
        "status",
        "taken_by",
        "taken_at",
        "closed_by",
        "closed_at",
        "result_summary",
        "commit_sha",
        "version",
        "obligation",
    ):
        assert key in added
    listed = coop("list", "--json").json()
    assert isinstance(listed, list) and listed[0]["id"] == added["id"]
    events = coop("log", "--json").json()
    assert [e["verb"] for e in events] == ["roles", "add"]
    assert all(e["result"] == "accepted" for e in events)
    assert all(set(e) >= {"id", "item", "clock", "at", "actor", "session", "verb"} for e in events)


def test_session_and_actor_are_recorded_on_events(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, "--session", "s-42", "--as", "carol@example.com")
    take = coop("log", todo, "--json").json()[-1]
    assert (take["actor"], take["session"]) == ("carol@example.com", "s-42")
    env = {"COOP_ACTOR": "dave@example.com", "COOP_SESSION": "s-9"}
    coop("note", todo, "hello", env=env)
    note = coop("log", todo, "--json").json()[-1]
    assert (note["actor"], note["session"], note["at"]) == (
        "dave@example.com",
        "s-9",
        "2026-11-29T10:00:00Z",
    )


def test_bad_coop_now_is_a_usage_error(ledger: Path) -> None:
    result = coop("list", env={"COOP_NOW": "yesterday"})
    assert result.code == 2 and "COOP_NOW" in result.err


def test_works_in_a_bare_repository_and_a_linked_worktree(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    env = {"COOP_ACTOR": "alice@example.com"}
    assert coop_process(bare, "init", env=env).code == 0
    todo = coop_process(bare, "add", "todo", "in bare", env=env).out.strip()
    assert coop_process(bare, "done", todo, env=env).code == 0

    main = make_repo(tmp_path / "main")
    (main / "f").write_text("x")
    git(main, "add", "f")
    git(main, "commit", "-qm", "first")
    git(main, "worktree", "add", "-q", str(tmp_path / "wt"))
    assert coop_process(main, "init").code == 0
    todo = coop_process(tmp_path / "wt", "add", "todo", "from the worktree").out.strip()
    shown = coop_process(main, "show", todo, "--json")
    assert shown.code == 0 and '"from the worktree"' in shown.out
    assert (main / ".git" / "coop.lock").exists()  # one lock in the common git dir
    assert not (main / ".git" / "worktrees" / "wt" / "coop.lock").exists()


def test_git_coop_runs_as_a_real_process_with_help(ledger: Path) -> None:
    helped = coop_process(ledger, "-h")  # git turns --help into man
    assert helped.code == 0
    for verb in (
        "init",
        "add",
        "list",
        "show",
        "log",
        "take",
        "release",
        "done",
        "close",
        "abandon",
    ):
        assert verb in helped.out
    take_help = coop_process(ledger, "take", "-h")
    assert (
        "--force" in take_help.out
        and "--expect-version" in take_help.out
        and "--json" in take_help.out
    )


@pytest.mark.parametrize("actor", ["bob\nsmith", "bob <b@x>", "tab\there", "x" * 201])
def test_an_actor_that_cannot_sign_a_commit_is_a_usage_error(ledger: Path, actor: str) -> None:
    todo = coop("add", "todo", "x").out.strip()
    tip = ref_tip(ledger)
    result = coop("take", todo, "--as", actor)
    assert result.code == 2 and "cannot name a person" in result.err
    assert ref_tip(ledger) == tip
    assert coop("roles", "add", "chief", actor).code == 2
    assert coop("list").code == 0
    git(ledger, "fsck", "--strict", "--no-dangling")


@pytest.mark.parametrize(
    ("args", "env"),
    [
        (["review", "ID", "defer", "--after", "99999999999d"], {}),
        (["take", "ID"], {"COOP_NOW": "9999-12-31T23:00:00Z"}),
        (["review", "ID", "release"], {}),
    ],
)
def test_extreme_or_missing_values_are_usage_errors(
    ledger: Path, args: list[str], env: dict[str, str]
) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo)
    result = coop(*[todo if a == "ID" else a for a in args], env=env)
    assert result.code == 2, result.err
    assert "unexpected" not in result.err


def test_git_dir_names_the_repository_like_git_does(tmp_path: Path) -> None:
    here, there = make_repo(tmp_path / "here"), make_repo(tmp_path / "there")
    assert coop_process(there, "init").code == 0
    env = {"GIT_DIR": str(there / ".git")}
    assert coop_process(here, "add", "todo", "goes there", env=env).code == 0
    assert "goes there" in coop_process(there, "list").out
    assert coop_process(here, "list").code == 4  # nothing was written here
    via_git = subprocess.run(
        ["git", f"--git-dir={there / '.git'}", "coop", "list"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
        check=False,
    )
    assert via_git.returncode == 0 and "goes there" in via_git.stdout


def test_an_empty_as_is_refused_not_ignored(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    result = coop("take", todo, "--as", "")
    assert result.code == 2 and "--as needs a name" in result.err


def test_a_draft_queue_item_is_not_done_by_the_todo_verbs(ledger: Path) -> None:
    item = coop("add", "item", "check it", "--evidence", "README.md:1", "--json").json()["id"]
    for verb in ("done", "close"):
        refused = coop(verb, item)
        assert refused.code == 1 and "git coop finish" in refused.err


def test_a_title_that_yaml_could_read_as_a_number_stays_a_title(ledger: Path) -> None:
    added = coop("add", "todo", ".5e5", "--json")
    assert added.code == 0, added.err
    listed = coop("list", "--json")
    assert listed.code == 0, listed.err
    assert [entry["title"] for entry in listed.json()] == [".5e5"]


# -- Coop's rules, exactly (re-takes, amendments, messages, clocks) ---------------------------

CHIEF = "carol@example.com"


def at(hhmm: str, **extra: str) -> dict[str, str]:
    return {"COOP_NOW": f"2026-11-29T{hhmm}:00Z", **extra}


def test_a_retake_in_a_new_session_keeps_the_debt(
    ledger: Path,
) -> None:
    assert coop("roles", "add", "chief", CHIEF).code == 0
    todo = coop("add", "todo", "long work").out.strip()
    assert coop("take", todo, "--session", "s1", env=at("10:00", **BOB)).code == 0
    coop("report", todo, "blocked", "--reason", "needs creds", env=at("10:30", **BOB))
    review = ["review", todo, "escalate", "--after", "1h", "--as", CHIEF]
    assert coop(*review, env=at("10:40")).code == 0
    before = coop("show", todo, "--json").json()["obligation"]
    assert coop("take", todo, "--session", "s2", env=at("11:30", **BOB)).code == 0
    shown = coop("show", todo, "--json").json()
    after = shown["obligation"]
    assert (after["due"], after["since"], after["escalated"]) == (
        "2026-11-29T11:40:00Z",
        "2026-11-29T10:00:00Z",
        True,
    )
    assert after["latest_report"] == before["latest_report"]
    assert (after["session"], after["sessions"]) == ("s2", ["s1", "s2"])
    assert (shown["taken_at"], shown["session"]) == ("2026-11-29T11:30:00Z", "s2")
    owed = coop("owed", "--json", env=at("12:00")).json()
    assert [e["owed_for_seconds"] for e in owed] == [7200]  # not reset by the re-take


def test_retaking_your_own_item_refreshes_taken_at_and_keeps_the_debt(ledger: Path) -> None:
    todo = coop("add", "todo", "long work").out.strip()
    assert coop("take", todo, "--session", "s1", env=at("10:00", **BOB)).code == 0
    coop("report", todo, "blocked", "--reason", "needs creds", env=at("10:30", **BOB))
    before = coop("show", todo, "--json").json()
    listed = coop("list", env=at("15:00")).out
    assert "[taken by bob@example.com, 5h ago]" in listed
    again = coop("take", todo, "--session", "s1", env=at("15:00", **BOB))
    assert again.code == 0 and "unchanged" not in again.out
    after = coop("show", todo, "--json").json()
    assert after["taken_at"] == "2026-11-29T15:00:00Z"
    assert after["version"] == before["version"] + 1  # one event
    assert after["obligation"] == before["obligation"]  # its due time and report stay
    assert "[taken by bob@example.com, 0s ago]" in coop("list", env=at("15:00")).out


def test_the_holder_backfills_the_commit_after_a_chiefs_close(ledger: Path) -> None:
    assert coop("roles", "add", "chief", CHIEF).code == 0
    todo = coop("add", "todo", "work").out.strip()
    coop("take", todo, "--session", "s1", env=BOB)
    assert coop("review", todo, "close", "--as", CHIEF).code == 0
    backfill = coop("done", todo, "--commit", "abc1234", "--commit-elsewhere", env=BOB)
    assert backfill.code == 0, backfill.err
    assert backfill.out.startswith(f"amended {todo}")
    assert "amended commit: none -> abc1234" in backfill.out
    shown = coop("show", todo, "--json").json()
    assert (shown["closed_by"], shown["commit_sha"]) == (CHIEF, "abc1234")
    stranger = coop(
        "done", todo, "--commit", "def5678", "--commit-elsewhere", "--as", "dave@example.com"
    )
    assert stranger.code == 1 and "bob@example.com" in stranger.err


def test_a_second_close_says_what_it_did_not_change(ledger: Path) -> None:
    request = coop("add", "request", "x").out.strip()
    assert coop("close", request, "--reason", "duplicate").code == 0
    tip = ref_tip(ledger)
    again = coop("close", request, "--reason", "obsolete")
    assert again.code == 0
    assert "the reason was not changed" in again.out and "first close is the record" in again.out
    assert "it already records that" not in again.out
    assert ref_tip(ledger) == tip


def test_a_capped_defer_says_it_was_capped(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, env=BOB)
    coop("report", todo, "blocked", "--reason", "creds", env=BOB)
    capped = coop("review", todo, "defer", "--after", "2d", env=at("10:10"))
    assert capped.code == 0 and "capped to 6h" in capped.out
    assert coop("show", todo, "--json").json()["obligation"]["due"] == "2026-11-29T16:10:00Z"


def test_review_close_takes_a_summary_and_a_commit(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, env=BOB)
    closed = coop(
        "review",
        todo,
        "close",
        "--summary",
        "by hand",
        "--commit",
        "abc1234",
        "--commit-elsewhere",
        "--json",
    )
    assert closed.code == 0, closed.err
    assert (closed.json()["result_summary"], closed.json()["commit_sha"]) == ("by hand", "abc1234")
    assert coop("review", todo, "defer", "--summary", "x").code == 2


def test_a_repeated_report_done_writes_nothing(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, env=BOB)
    assert coop("report", todo, "done", "--summary", "shipped", env=BOB).code == 0
    tip = ref_tip(ledger)
    again = coop("report", todo, "done", "--summary", "shipped", env=BOB)
    assert again.code == 0 and "unchanged" in again.out
    assert ref_tip(ledger) == tip


def test_text_log_shows_force_and_every_previous_field(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, env=at("10:01"))
    coop("take", todo, "--force", env=at("10:02", **BOB))
    coop("abandon", todo, "--reason", "moot", env=BOB)
    coop("done", todo, "--force", "--summary", "a")
    coop("done", todo, "--summary", "b")
    text = coop("log", todo).out
    assert "previous_holder=alice@example.com" in text
    assert "previous_taken_at=2026-11-29T10:01:00Z" in text
    assert "force=True" in text and "previous_status=abandoned" in text
    assert "previous_summary=a" in text and "previous_commit=none" not in text


def test_a_done_dated_before_its_take_is_recorded_at_the_takes_time(ledger: Path) -> None:
    todo = coop("add", "todo", "x").out.strip()
    coop("take", todo, env=at("10:30", **BOB))
    done = coop("done", todo, env=at("10:20", **BOB))
    assert done.code == 0 and "recorded at the take's time" in done.out
    shown = coop("show", todo, "--json").json()
    assert shown["closed_at"] == shown["taken_at"] == "2026-11-29T10:30:00Z"
    assert "10:20" in shown["closed_note"]


@pytest.mark.parametrize("how", ["flag", "env"])
def test_a_blank_session_name_is_refused(ledger: Path, how: str) -> None:
    todo = coop("add", "todo", "x").out.strip()
    if how == "flag":
        result = coop("take", todo, "--session", "  ")
    else:
        result = coop("take", todo, env={"COOP_SESSION": " \t"})
    assert result.code == 2 and "session" in result.err
    assert coop("show", todo, "--json").json()["status"] == "open"
    assert coop("take", todo, env={"COOP_SESSION": ""}).code == 0  # empty: unset
