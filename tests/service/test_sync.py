"""Two clones and a bare remote over file://: the five cases, conflicts, races."""

from __future__ import annotations

import sys
from pathlib import Path

from tests import barrier
from tests.conftest import Clones, coop_in, coop_process, git

LATER = {"COOP_NOW": "2026-11-29T11:00:00Z"}


def ledger_trees(path: Path) -> tuple[str, str]:
    """The items/ and events/ tree ids of a clone's ledger."""
    return (
        git(path, "rev-parse", "refs/coop/ledger:items").strip(),
        git(path, "rev-parse", "refs/coop/ledger:events").strip(),
    )


def tip(path: Path, ref: str = "refs/coop/ledger") -> str:
    return git(path, "rev-parse", "--verify", "-q", ref, check=False).strip()


def add(path: Path, title: str) -> str:
    result = coop_in(path, "add", "todo", title, "--json")
    assert result.code == 0, result.err
    return str(result.json()["id"])


def sync(path: Path, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    result = coop_in(path, "sync", "--json", *args, env=env)
    assert result.code == 0, result.err
    data: dict[str, object] = result.json()
    return data


def race_syncs(a: Path, b: Path) -> None:
    """sync a, b, a after an offline race: only the loser's sync exits 8 (LostOnMerge)."""
    codes = [coop_in(path, "sync").code for path in (a, b, a)]
    assert sorted(codes) == [0, 0, 8], codes


def offline_takes(a: Path, b: Path, todo: str) -> None:
    """Alice takes at 10:00, bob at 11:00, offline, on one clock. Whoever's take reaches
    the remote first wins (H1); every caller syncs alice's clone first."""
    assert coop_in(a, "take", todo).code == 0
    assert coop_in(b, "take", todo, env=LATER).code == 0
    takes = {
        path: next(e for e in coop_in(path, "log", todo, "--json").json() if e["verb"] == "take")
        for path in (a, b)
    }
    assert takes[a]["clock"] == takes[b]["clock"]  # a tie of clocks, which decides nothing


def two(clones: Clones) -> tuple[Path, Path]:
    """Alice's clone with a ledger on the remote, and Bob's clone that has fetched it."""
    a, b = clones.clone("alice"), clones.clone("bob")
    assert coop_in(a, "init").code == 0
    add(a, "seed")
    sync(a)
    assert sync(b)["merge"] == "new"
    return a, b


def test_new_a_fresh_clone_gets_the_whole_ledger(clones: Clones) -> None:
    a, b = two(clones)
    assert ledger_trees(a) == ledger_trees(b)
    reflog = git(b, "reflog", "--format=%gs", "refs/coop/ledger").splitlines()
    assert reflog == ["new origin by bob@example.com"]  # the ref's first move is logged too
    assert tip(b) == tip(clones.root / "remote.git")
    assert [i["title"] for i in coop_in(b, "list", "--json").json()] == ["seed"]


def test_identical_clones_sync_without_writing(clones: Clones) -> None:
    a, b = two(clones)
    before = tip(b)
    report = sync(b)
    assert (report["merge"], report["pushed"]) == ("up-to-date", False)
    assert tip(b) == before and ledger_trees(a) == ledger_trees(b)


def test_ahead_pushes_and_behind_fast_forwards(clones: Clones) -> None:
    a, b = two(clones)
    add(a, "more")
    ahead = sync(a)
    assert (ahead["merge"], ahead["pushed"]) == ("ahead", True)
    behind = sync(b)
    assert (behind["merge"], behind["pushed"]) == ("fast-forward", False)
    assert tip(a) == tip(b) and ledger_trees(a) == ledger_trees(b)


def test_diverged_clones_merge_to_equal_trees(clones: Clones) -> None:
    a, b = two(clones)
    add(a, "from alice")
    add(b, "from bob")
    sync(a)
    merged = sync(b)
    assert (merged["merge"], merged["pushed"]) == ("merged", True)
    assert sync(a)["merge"] == "fast-forward"
    assert ledger_trees(a) == ledger_trees(b)
    titles = sorted(i["title"] for i in coop_in(a, "list", "--json").json())
    assert titles == ["from alice", "from bob", "seed"]
    parents = git(b, "log", "-1", "--format=%P", "refs/coop/ledger").split()
    assert len(parents) == 2
    # init's first-owner event is clock 1, seed 2, each side's add 3: the merge keeps the
    # max, and the next write passes it
    assert "clock: 3" in git(a, "show", "refs/coop/ledger:coop.yaml")
    add(a, "after")
    assert "clock: 4" in git(a, "show", "refs/coop/ledger:coop.yaml")


def test_offline_takes_resolve_to_the_same_winner_on_both_clones(clones: Clones) -> None:
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    offline_takes(a, b, todo)
    race_syncs(a, b)
    assert ledger_trees(a) == ledger_trees(b)
    shown_a = coop_in(a, "show", todo, "--json").json()
    assert shown_a == coop_in(b, "show", todo, "--json").json()
    winner, loser = "alice@example.com", "bob@example.com"  # the earlier take
    assert shown_a["taken_by"] == winner
    assert len(shown_a["conflicts"]) == 1 and shown_a["conflicts"][0]["actor"] == loser
    for path in (a, b):
        line = coop_in(path, "list").out
        assert "[1 conflict]" in line and f"taken by {winner}" in line
    log = coop_in(a, "log", todo, "--json").json()
    assert [
        (e["actor"], e["result"].startswith("refused")) for e in log if e["verb"] == "take"
    ] == [
        (winner, False),
        (loser, True),
    ]
    # the owners see it among what is owed; others do not
    owed = coop_in(a, "owed", "--json").json()
    conflicts = [o for o in owed if o["kind"] == "conflict"]
    assert [(c["item"], c["actor"]) for c in conflicts] == [(todo, loser)]
    assert "git coop resolve" in coop_in(a, "owed").out
    not_owner = coop_in(b, "owed", "--json").json()
    assert [o for o in not_owner if o["kind"] == "conflict"] == []


def test_the_loser_is_told_on_sync(clones: Clones) -> None:
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    offline_takes(a, b, todo)
    told_a = coop_in(a, "sync", "--json")
    told_b = coop_in(b, "sync", "--json")  # bob's take lost to alice's earlier one
    assert (told_a.code, told_b.code) == (0, 8)
    assert "lost on merge" in told_b.err and "git coop ack" in told_b.err
    report = told_b.json()["error"]  # exit 8: the report travels inside the error
    assert [lost["item"] for lost in report["lost"]] == [todo]
    assert report["lost"][0]["message"].startswith("your take of td-")
    expected = "lost to alice@example.com, who took it at 2026-11-29 10:00"
    assert expected in report["lost"][0]["message"]
    again = coop_in(a, "sync", "--json")
    assert again.code == 0 and again.json()["lost"] == []


def test_an_owner_resolves_a_conflict_and_every_clone_agrees(clones: Clones) -> None:
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    offline_takes(a, b, todo)
    race_syncs(a, b)
    shown = coop_in(a, "show", todo, "--json").json()
    refused = shown["conflicts"][0]
    assert refused["actor"] == "bob@example.com"
    denied = coop_in(b, "resolve", todo, refused["event"], "--dismiss", "--reason", "x")
    assert denied.code == 1 and "only an owner" in denied.err
    done = coop_in(a, "resolve", todo, refused["event"][:7], "--apply", "--reason", "fair")
    assert done.code == 0, done.err
    sync(a), sync(b)
    for path in (a, b):
        item = coop_in(path, "show", todo, "--json").json()
        assert (item["taken_by"], item["conflicts"]) == ("bob@example.com", [])
        assert "conflict" not in coop_in(path, "list").out
    assert ledger_trees(a) == ledger_trees(b)


def test_a_push_behind_the_remote_is_refused_and_pull_merges(clones: Clones) -> None:
    a, b = two(clones)
    add(a, "alice's")
    add(b, "bob's")
    assert coop_in(a, "push").code == 0
    refused = coop_in(b, "push")
    assert refused.code == 1 and "run: git coop sync" in refused.err
    pulled = coop_in(b, "pull", "--json")
    assert pulled.code == 0 and pulled.json()["merge"] == "merged"
    assert tip(clones.root / "remote.git") == tip(a)
    assert coop_in(b, "push").code == 0
    assert tip(clones.root / "remote.git") == tip(b)


def test_remote_setup_makes_plain_git_fetch_bring_the_ledger(clones: Clones) -> None:
    a, b = two(clones)
    first = coop_in(b, "remote", "setup", "origin", "--json")
    assert first.code == 0 and first.json()["added"] is True
    assert coop_in(b, "remote", "setup", "origin", "--json").json()["added"] is False
    assert git(b, "config", "--get-all", "remote.origin.fetch").count("refs/coop/ledger") == 1
    add(a, "more")
    sync(a)
    git(b, "fetch", "origin")
    assert tip(b, "refs/coop/remotes/origin/ledger") == tip(a)


def test_unknown_remote_is_a_usage_error(clones: Clones) -> None:
    a, _ = two(clones)
    result = coop_in(a, "sync", "nowhere")
    assert result.code == 2 and "no remote named 'nowhere'" in result.err
    assert coop_in(a, "sync", "--upload-pack=x").code == 2


def test_sync_pull_and_push_default_to_the_remote_that_decides_claims(clones: Clones) -> None:
    """No origin, and `remote setup shared --claims`: a plain sync goes to shared, not to
    an origin that is not there."""
    a, b = two(clones)
    git(b, "remote", "rename", "origin", "shared")
    assert coop_in(b, "remote", "setup", "shared", "--claims").code == 0
    add(a, "more")
    sync(a)
    synced = coop_in(b, "sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["remote"] == "shared"
    assert sorted(i["title"] for i in coop_in(b, "list", "--json").json()) == ["more", "seed"]
    assert coop_in(b, "pull").code == 0 and coop_in(b, "push").code == 0
    git(b, "remote", "rename", "shared", "hub")  # coop.claims still names shared
    stale = coop_in(b, "pull")
    assert stale.code == 2 and "git config coop.claims names 'shared'" in stale.err, stale.err
    git(b, "config", "--unset", "coop.claims")
    missing = coop_in(b, "sync")
    assert missing.code == 2 and "no remote named 'origin'" in missing.err


def test_a_sync_refused_before_it_fetches_fetches_nothing(clones: Clones) -> None:
    """A command that refuses (here: `COOP_NOW` is no instant) leaves nothing fetched: the
    remote's ledger is fetched by the sync's own fetch step, not ahead of it."""
    alice = clones.clone("alice")
    assert coop_in(alice, "init").code == 0 and coop_in(alice, "sync").code == 0
    bob = clones.clone("bob")
    done = coop_process(bob, "sync", env={"COOP_NOW": "not-an-instant"})
    assert done.code == 2, done.err
    fetched = git(
        bob, "rev-parse", "-q", "--verify", "refs/coop/remotes/origin/ledger", check=False
    )
    assert fetched == ""


def test_neither_side_having_a_ledger_says_so(clones: Clones) -> None:
    lonely = clones.clone("carol")
    result = coop_in(lonely, "sync")
    assert result.code == 4 and "git coop init" in result.err


# -- races ----------------------------------------------------------------------

HOOK = """#!/bin/sh
cd "{other}" || exit 1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
if [ -e "{marker}" ] && [ "{always}" = no ]; then exit 0; fi
touch "{marker}"
"{python}" -c 'from gitcoop.cli.main import run; run()' add todo "sneaked in" >/dev/null || exit 1
"{python}" -c 'from gitcoop.cli.main import run; run()' sync >/dev/null || exit 1
exit 0
"""


def sneak_in_before_push(clones: Clones, victim: Path, other: Path, always: bool) -> None:
    """A pre-push hook in `victim` that makes `other` push first: the remote moves mid-sync."""
    hook = victim / ".git" / "hooks" / "pre-push"
    marker = clones.root / "sneaked"
    hook.write_text(
        HOOK.format(
            other=other, marker=marker, always="yes" if always else "no", python=sys.executable
        )
    )
    hook.chmod(0o755)


def test_a_rejected_push_fetches_merges_and_retries(clones: Clones) -> None:
    a, b = two(clones)
    add(a, "alice's")
    sneak_in_before_push(clones, a, b, always=False)
    report = sync(a)
    assert report["attempts"] == 2 and report["pushed"] is True
    remote = clones.root / "remote.git"
    assert tip(remote) == tip(a)
    titles = git(a, "log", "--format=%s", "refs/coop/ledger")
    assert "add " in titles and "merge origin by alice@example.com" in titles
    items = coop_in(a, "list", "--json").json()
    assert sorted(i["title"] for i in items) == ["alice's", "seed", "sneaked in"]


def test_sync_gives_up_after_bounded_attempts_with_a_clear_message(clones: Clones) -> None:
    a, b = two(clones)
    add(a, "alice's")
    sneak_in_before_push(clones, a, b, always=True)
    result = coop_in(a, "sync")
    assert result.code == 3
    assert "gave up after 5 attempts: origin kept moving" in result.err
    assert "alice's" in coop_in(a, "list").out  # nothing local was lost


def test_a_sync_that_gives_up_still_tells_its_actor_what_lost(clones: Clones) -> None:
    """The merges before the give-up stay merged, and the next sync starts from them with
    nothing new to tell: the loser is told by the give-up itself."""
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    assert coop_in(a, "take", todo).code == 0  # alice, offline
    assert coop_in(b, "take", todo, env=LATER).code == 0
    sync(b)  # bob's take reaches the remote first
    sneak_in_before_push(clones, a, b, always=True)
    result = coop_in(a, "sync")
    assert result.code == 3, result.err
    assert "meanwhile 1 of your own events lost on merge" in result.err, result.err
    assert "git coop list --mine" in result.err


def test_two_clones_syncing_at_the_same_moment_both_land(clones: Clones) -> None:
    a, b = two(clones)
    add(a, "alice's")
    add(b, "bob's")
    syncs = [barrier.start(barrier.RUN_CLI, ["sync"], path) for path in (a, b)]
    barrier.release(syncs)
    for code, _, err in barrier.finish(syncs, timeout=60):
        assert code == 0, err
    sync(a), sync(b)
    assert ledger_trees(a) == ledger_trees(b)
    on_remote = coop_process(a, "list", "--json").json()
    assert sorted(i["title"] for i in on_remote) == ["alice's", "bob's", "seed"]
    assert tip(clones.root / "remote.git") == tip(a)


def test_role_changes_merge_as_events_so_a_removal_is_not_undone(clones: Clones) -> None:
    a, b = two(clones)
    assert coop_in(a, "roles", "add", "chief", "carol@example.com").code == 0
    sync(a)
    sync(b)
    # offline: alice removes carol, while bob's clone (bob is no owner) adds nothing
    assert coop_in(a, "roles", "remove", "chief", "carol@example.com").code == 0
    assert (
        coop_in(b, "roles", "add", "chief", "dave@example.com", "--as", "alice@example.com").code
        == 0
    )
    sync(a)
    sync(b)
    sync(a)
    for clone in (a, b):
        roles = coop_in(clone, "roles", "--json").json()
        assert roles == {"owners": ["alice@example.com"], "chiefs": ["dave@example.com"]}
    assert ledger_trees(a) == ledger_trees(b)


def test_log_tells_how_a_settled_conflict_was_settled(clones: Clones) -> None:
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    offline_takes(a, b, todo)
    race_syncs(a, b)
    conflict = coop_in(a, "show", todo, "--json").json()["conflicts"][0]
    assert conflict["actor"] == "bob@example.com"
    settled = coop_in(a, "resolve", todo, conflict["event"], "--dismiss", "--reason", "dup")
    assert settled.code == 0, settled.err
    entry = next(
        e for e in coop_in(a, "log", todo, "--json").json() if e["id"] == conflict["event"]
    )
    assert entry["result"] == "refused: settled: dismissed by alice@example.com (dup)"


def test_a_fresh_clone_is_pointed_at_sync_and_unrelated_ledgers_are_not_merged(
    clones: Clones,
) -> None:
    a, _ = two(clones)
    fresh = clones.clone("carol")
    git(fresh, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/remotes/origin/ledger")
    hint = coop_in(fresh, "list")
    assert hint.code == 4 and "git coop sync origin" in hint.err
    assert coop_in(fresh, "init").code == 1  # refused: origin's ledger was fetched
    assert coop_in(fresh, "init", "--new").code == 0  # a second, unrelated ledger
    before = tip(fresh)
    refused = coop_in(fresh, "sync")
    assert refused.code == 1 and "no history in common" in refused.err
    assert tip(fresh) == before and tip(clones.root / "remote.git") == tip(a)


def test_removing_an_owner_leaves_what_their_role_allowed_and_every_clone_accepts_it(
    clones: Clones,
) -> None:
    """A role change judges only what joins after it (H1; until format 2 it refolded
    every item, and bob's amendment of carol's close was refused on replay): bob's
    amendment, made while he was an owner, stands, and every clone agrees."""
    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    assert coop_in(a, "roles", "add", "owner", "bob@example.com").code == 0
    assert coop_in(a, "done", todo, "--summary", "first", "--as", "carol@example.com").code == 0
    amended = coop_in(a, "done", todo, "--summary", "bob's", "--as", "bob@example.com")
    assert amended.code == 0, amended.err
    sync(a), sync(b)
    assert coop_in(a, "roles", "remove", "owner", "bob@example.com").code == 0
    shown = coop_in(a, "show", todo, "--json").json()
    assert shown["result_summary"] == "bob's" and shown["conflicts"] == []
    checked = coop_in(a, "fsck")
    assert checked.code == 0, checked.err
    sync(a)
    told = coop_in(b, "sync")  # bob's clone: accepted, and nothing of bob's lost
    assert told.code == 0, told.err
    assert tip(b) == tip(a)
    assert coop_in(b, "show", todo, "--json").json() == shown
