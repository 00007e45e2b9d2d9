"""The git transport under the conditions a fleet meets (docs/sync.md, "Transport").

Real clones of a bare remote; another process's hold on a ref is a real lock file,
as git itself leaves one while it updates the ref.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests import barrier
from tests.conftest import Clones, coop_in, git

TRACKING = "refs/coop/remotes/origin/ledger"


def claiming(clones: Clones, *names: str) -> tuple[list[Path], str]:
    paths = [clones.clone(name) for name in names]
    assert coop_in(paths[0], "init").code == 0
    todo = coop_in(paths[0], "add", "todo", "shared", "--json").json()["id"]
    for path in paths:
        assert coop_in(path, "remote", "setup", "origin", "--claims").code == 0
        assert coop_in(path, "sync").code == 0
    return paths, todo


def test_a_fetch_beside_another_on_the_tracking_ref_is_not_unreachable(
    clones: Clones,
) -> None:
    """Another process of this clone updating the remote-tracking ref (its lock held)
    neither fails a claim as "cannot reach" (exit 7) nor a sync (exit 1): each fetch
    brings the remote's tip for itself, and the tracking ref is only bookkeeping."""
    (alice, bob), todo = claiming(clones, "alice", "bob")
    assert coop_in(bob, "note", todo, "bob was here").code == 0
    lock = alice / ".git" / (TRACKING + ".lock")
    lock.write_text("")  # another fetch of this clone, updating the ref right now
    try:
        took = coop_in(alice, "take", todo)
        assert took.code == 0, (took.code, took.err)
        synced = coop_in(alice, "sync")
        assert synced.code == 0, (synced.code, synced.err)
    finally:
        lock.unlink()
    shown = coop_in(alice, "show", todo, "--json").json()
    assert shown["taken_by"] == "alice@example.com"
    assert "bob was here" in str(coop_in(alice, "log", todo, "--json").json())
    leftover = git(alice, "for-each-ref", "--format=%(refname)", "refs/coop/").split()
    assert sorted(leftover) == ["refs/coop/ledger", "refs/coop/remotes/origin/ledger",
                                "refs/coop/taken/origin"], leftover  # fmt: skip


def test_workers_of_one_clone_claiming_at_once_are_never_unreachable(clones: Clones) -> None:
    """Four worker processes of one clone, released at once, each take an item through
    the remote: none is told the remote cannot be reached (the tracking ref's lock used
    to fail the losers' fetches, exit 7)."""
    (alice,), _ = claiming(clones, "alice")
    todos = [coop_in(alice, "add", "todo", f"work {n}", "--json").json()["id"] for n in range(4)]
    assert coop_in(alice, "sync").code == 0
    racers = [
        barrier.start(barrier.RUN_CLI, ["take", todo], alice, {"COOP_ACTOR": f"w{n}@example.com"})
        for n, todo in enumerate(todos)
    ]
    barrier.release(racers)
    results = barrier.finish(racers)
    for code, _, err in results:
        assert code == 0, (code, err)
    on_remote = git(clones.root / "remote.git", "log", "--format=%s", "refs/coop/ledger")
    assert sum(line.startswith("take ") for line in on_remote.splitlines()) == 4


DECLINE = """#!/bin/sh
while read old new ref; do
  case "$ref" in
    refs/heads/*|refs/tags/*) ;;
    *) echo "this host takes branches and tags only, not $ref"; exit 1 ;;
  esac
done
"""


def declining(clones: Clones) -> None:
    """The host's own rule: a pre-receive hook that allows branches and tags only."""
    hook = clones.root / "remote.git" / "hooks" / "pre-receive"
    hook.write_text(DECLINE)
    hook.chmod(0o755)


def test_a_push_the_host_refuses_is_told_at_once_in_its_own_words(clones: Clones) -> None:
    """Not a race: no retries, exit 11, the host's `remote:` lines in the message; a claim
    records nothing, another write stays here and says why."""
    (alice,), todo = claiming(clones, "alice")
    declining(clones)
    synced = coop_in(alice, "note", todo, "kept here")  # committed here, then published
    assert synced.code == 0, synced.err
    assert "takes branches and tags only" in synced.err, synced.err
    sync = coop_in(alice, "sync", "--json")
    assert sync.code == 11, (sync.code, sync.err)
    assert "takes branches and tags only" in sync.err and "refs/coop/ledger" in sync.err
    assert "attempts" not in sync.err and "kept moving" not in sync.err
    assert sync.json()["error"]["code"] == "remote_refused"
    before = git(alice, "rev-parse", "refs/coop/ledger")
    took = coop_in(alice, "take", todo)
    assert took.code == 11 and "takes branches and tags only" in took.err, (took.code, took.err)
    assert git(alice, "rev-parse", "refs/coop/ledger") == before  # the claim recorded nothing
    assert coop_in(alice, "show", todo, "--json").json()["taken_by"] is None


def test_a_remote_that_cannot_be_reached_is_exit_7_for_sync_too(clones: Clones) -> None:
    (alice,), _ = claiming(clones, "alice")
    git(alice, "remote", "set-url", "origin", str(clones.root / "gone.git"))
    synced = coop_in(alice, "sync", "--json")
    assert synced.code == 7, (synced.code, synced.err)
    assert synced.json()["error"]["code"] == "remote_unreachable"
    pulled = coop_in(alice, "pull")
    assert pulled.code == 7, (pulled.code, pulled.err)


def test_a_claim_of_an_item_not_fetched_yet_is_decided_on_the_remotes_ledger(
    clones: Clones,
) -> None:
    """With claims on, the remote's ledger is where a claim is decided, and so where its id
    is found: an item another clone added is taken without a sync first."""
    (alice, bob), _ = claiming(clones, "alice", "bob")
    todo = coop_in(alice, "add", "todo", "new there", "--json").json()["id"]
    assert coop_in(alice, "sync").code == 0
    took = coop_in(bob, "take", todo, "--json")
    assert took.code == 0, (took.code, took.err)
    assert took.json()["taken_by"] == "bob@example.com"
    short = coop_in(alice, "add", "todo", "newer there", "--json").json()
    assert coop_in(alice, "sync").code == 0
    took = coop_in(bob, "take", short["short_id"])  # a prefix, resolved there too
    assert took.code == 0, (took.code, took.err)
    fast = coop_in(alice, "add", "todo", "quick there", "--json").json()["id"]
    assert coop_in(alice, "sync").code == 0
    done = coop_in(bob, "done", fast, "--json")  # the fast path: an implicit take, a claim
    assert done.code == 0 and done.json()["closed_by"] == "bob@example.com", done.err
    unknown = coop_in(bob, "take", "td-zzzzzzzzzzzz")
    assert unknown.code == 1 and "no item" in unknown.err.lower(), (unknown.code, unknown.err)


@pytest.mark.parametrize("spec", ["blob:none", "tree:0"])
def test_a_partial_clone_syncs_the_ledger_whole(clones: Clones, spec: str) -> None:
    """The ledger is fetched whole whatever filter the clone was made with, and a later
    filtered `git fetch` (which brings the ledger's commits without their blobs through
    the refspec `remote setup` adds) does not break the next sync."""
    (alice,), todo = claiming(clones, "alice")
    bare = clones.root / "remote.git"
    git(bare, "config", "uploadpack.allowFilter", "true")
    git(alice, "commit", "-q", "--allow-empty", "-m", "code")
    git(alice, "push", "-q", "origin", "HEAD:refs/heads/main")
    carol = clones.root / "carol"
    git(clones.root, "clone", "-q", f"--filter={spec}", clones.url, str(carol))
    git(carol, "config", "user.email", "carol@example.com")
    setup = coop_in(carol, "remote", "setup", "origin", "--json")
    assert setup.code == 0 and setup.json()["refspec"] is None  # none: it would filter
    synced = coop_in(carol, "sync")
    assert synced.code == 0, (synced.code, synced.err)
    assert todo in str(coop_in(carol, "list", "--json").json())
    later = coop_in(alice, "add", "todo", "added later", "--json").json()["id"]
    assert coop_in(alice, "sync").code == 0
    # an earlier setup's refspec: a plain git fetch brings the ledger, filtered
    git(carol, "config", "--add", "remote.origin.fetch", "+refs/coop/ledger:" + TRACKING)
    git(carol, "fetch", "-q", "origin")
    synced = coop_in(carol, "sync")
    assert synced.code == 0, (synced.code, synced.err)
    assert later in str(coop_in(carol, "list", "--json").json())
    assert coop_in(carol, "fsck", "--full").code == 0


def test_plain_git_fetch_works_after_remote_setup_on_a_remote_with_no_ledger(
    clones: Clones,
) -> None:
    alice = clones.clone("alice")
    git(alice, "commit", "-q", "--allow-empty", "-m", "code")
    git(alice, "push", "-q", "origin", "HEAD:refs/heads/main")
    assert coop_in(alice, "remote", "setup", "origin").code == 0
    git(alice, "fetch", "-q", "origin")  # exits 0, though the remote has no ledger yet
    git(alice, "fetch", "-q", "--all")
    assert coop_in(alice, "init").code == 0 and coop_in(alice, "sync").code == 0
    bob = clones.clone("bob")
    assert coop_in(bob, "remote", "setup", "origin").code == 0
    git(bob, "fetch", "-q", "origin")  # and brings the ledger once there is one
    assert git(bob, "rev-parse", TRACKING) == git(alice, "rev-parse", "refs/coop/ledger")


def test_remote_setup_again_upgrades_the_exact_refspec(clones: Clones) -> None:
    alice = clones.clone("alice")
    old = "+refs/coop/ledger:refs/coop/remotes/origin/ledger"
    git(alice, "config", "--add", "remote.origin.fetch", old)
    assert coop_in(alice, "remote", "setup", "origin").code == 0
    fetches = git(alice, "config", "--get-all", "remote.origin.fetch").split()
    assert old not in fetches and len([f for f in fetches if "coop" in f]) == 1, fetches
    git(alice, "fetch", "-q", "origin")


def hung(clones: Clones, path: Path) -> None:
    """origin becomes an ssh remote whose ssh accepts and then never answers."""
    fake = clones.root / "hung-ssh"
    fake.write_text(f"#!/bin/sh\necho $$ >> {clones.root / 'hung-pids'}\nexec sleep 8\n")
    fake.chmod(0o755)
    git(path, "config", "core.sshCommand", str(fake))
    git(path, "remote", "set-url", "origin", "ssh://git@127.0.0.1/remote.git")
    git(path, "config", "coop.remoteTimeout", "1s")


def test_a_remote_that_never_answers_is_given_up_on_in_time(clones: Clones) -> None:
    """Every network step is bounded (coop.remoteTimeout): exit 7 naming the remote and
    the wait; a claim records nothing, another write stays here and says so."""
    (alice,), todo = claiming(clones, "alice")
    hung(clones, alice)
    before = git(alice, "rev-parse", "refs/coop/ledger")
    took = coop_in(alice, "take", todo)
    assert took.code == 7, (took.code, took.err)
    assert "origin did not finish within 1s" in took.err, took.err
    assert "git config coop.remoteTimeout 10m" in took.err, took.err
    assert git(alice, "rev-parse", "refs/coop/ledger") == before
    noted = coop_in(alice, "note", todo, "kept here")
    assert noted.code == 0 and "origin may or may not have it" in noted.err, noted.err
    synced = coop_in(alice, "sync")
    assert synced.code == 7 and "1s" in synced.err, (synced.code, synced.err)
    for pid in (clones.root / "hung-pids").read_text().split():  # none left hanging
        stat = Path(f"/proc/{pid}/stat")
        assert not stat.exists() or stat.read_text().split()[2] in "ZX", f"ssh {pid} lives on"


def test_a_remote_timeout_of_more_than_a_day_is_refused(clones: Clones) -> None:
    (alice,), _ = claiming(clones, "alice")
    git(alice, "config", "coop.remoteTimeout", "30d")
    synced = coop_in(alice, "sync")
    assert synced.code == 2 and "at most 1d" in synced.err, (synced.code, synced.err)


@pytest.mark.parametrize("value", ["soon", "0", "-5s", "\u0663", "\uff10\uff15"])
def test_a_remote_timeout_that_is_no_duration_is_a_usage_error(clones: Clones, value: str) -> None:
    (alice,), _ = claiming(clones, "alice")
    git(alice, "config", "coop.remoteTimeout", value)
    synced = coop_in(alice, "sync")
    assert synced.code == 2 and "coop.remoteTimeout" in synced.err, (synced.code, synced.err)


FLAKY = """#!/bin/sh
count=$(cat "{counter}" 2>/dev/null || echo 0)
echo $((count + 1)) > "{counter}"
if [ "$count" -lt {fails} ]; then
  echo "kex_exchange_identification: read: Connection reset by peer" >&2
  exit 255
fi
for last; do :; done
exec sh -c "$last"
"""


def flaky(clones: Clones, path: Path, fails: int) -> Path:
    """origin over an ssh whose first `fails` connections are reset, then served."""
    counter = clones.root / f"ssh-count-{path.name}"
    fake = clones.root / f"flaky-ssh-{path.name}"
    fake.write_text(FLAKY.format(counter=counter, fails=fails))
    fake.chmod(0o755)
    git(path, "config", "core.sshCommand", str(fake))
    git(path, "config", "ssh.variant", "ssh")  # no `ssh -G` probe before each connection
    git(path, "remote", "set-url", "origin", f"ssh://git@127.0.0.1{clones.root}/remote.git")
    return counter


def test_a_connection_reset_once_is_tried_again_not_unreachable(clones: Clones) -> None:
    """A reset connection (a host at its limit) is passing: a claim tries again within its
    attempts; a refused one (nothing listening) is told at once."""
    (alice,), todo = claiming(clones, "alice")
    counter = flaky(clones, alice, fails=1)
    took = coop_in(alice, "take", todo)
    assert took.code == 0, (took.code, took.err)
    assert int(counter.read_text()) == 3  # the reset fetch, the fetch again, the push
    counter.write_text("-99")  # from now on every connection is reset
    refused = coop_in(alice, "take", todo, "--force")
    assert refused.code == 7 and "Connection reset" in refused.err, (refused.code, refused.err)


def test_a_killed_fetchs_scratch_ref_is_swept_by_the_next(clones: Clones) -> None:
    (alice,), _ = claiming(clones, "alice")
    tip = git(alice, "rev-parse", "refs/coop/ledger").strip()
    dead = 4_194_304 + 7  # above any pid this machine hands out (pid_max is at most 2**22)
    git(alice, "update-ref", f"refs/coop/fetching/{dead}-0a0b0c0d", tip)
    assert coop_in(alice, "sync").code == 0
    assert git(alice, "for-each-ref", "refs/coop/fetching/").strip() == ""


def test_a_write_recorded_here_stays_recorded_whatever_stops_its_sharing(
    clones: Clones,
) -> None:
    """A note is committed here first; a bad coop.remoteTimeout then stops its publishing,
    and it says so, exit 0, rather than failing a write that was made."""
    (alice,), todo = claiming(clones, "alice")
    git(alice, "config", "coop.remoteTimeout", "soon")
    noted = coop_in(alice, "note", todo, "kept here")
    assert noted.code == 0, (noted.code, noted.err)
    assert "recorded here, not yet on origin" in noted.err and "coop.remoteTimeout" in noted.err


def test_a_remote_given_by_a_relative_path_is_reached_from_a_subfolder(clones: Clones) -> None:
    """git takes a remote's relative URL from the worktree's top, wherever it runs; so
    does every git gitcoop runs."""
    (alice,), todo = claiming(clones, "alice")
    git(alice, "remote", "set-url", "origin", "../remote.git")
    (alice / "deep" / "er").mkdir(parents=True)
    took = coop_in(alice / "deep" / "er", "take", todo)
    assert took.code == 0, (took.code, took.err)
    assert coop_in(alice / "deep", "sync").code == 0


def test_a_mirror_remote_is_refused_by_name(clones: Clones) -> None:
    """A push mirror takes no refspec, and a fetch mirror overwrites refs/coop/ledger with
    every plain `git fetch`: neither shares a ledger, and gitcoop says so at setup."""
    (alice,), _ = claiming(clones, "alice")
    git(alice, "remote", "add", "--mirror=push", "backup", clones.url)
    done = coop_in(alice, "remote", "setup", "backup")
    assert done.code == 2 and "mirror" in done.err, (done.code, done.err)
    synced = coop_in(alice, "sync", "backup")
    assert synced.code == 2 and "mirror" in synced.err, (synced.code, synced.err)
