"""Claims through the remote (coop.claims), against real servers: file://, git daemon, sshd.

Every test here runs three times, once per transport (tests/remotes.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import coop_in, git
from tests.remotes import KINDS, Served, cut_pushes, serve

PYTHON_COOP = f"\"{sys.executable}\" -c 'from gitcoop.cli.main import run; run()'"


@pytest.fixture(params=KINDS)
def served(
    request: pytest.FixtureRequest, tmp_path: Path, mp: pytest.MonkeyPatch
) -> Iterator[Served]:
    with serve(request.param, tmp_path) as remote:
        for key, value in remote.env.items():
            mp.setenv(key, value)
        yield remote


@pytest.fixture
def mp(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    return monkeypatch


def claiming(served: Served, *names: str, todos: int = 2) -> tuple[list[Path], list[str]]:
    """Clones with claims through origin, all holding a ledger of `todos` open todos."""
    paths = [served.clone(name) for name in names]
    first = paths[0]
    assert coop_in(first, "init").code == 0
    made = [coop_in(first, "add", "todo", f"todo {n}", "--json").json()["id"] for n in range(todos)]
    for path in paths:
        setup = coop_in(path, "remote", "setup", "origin", "--claims", "--json")
        assert setup.code == 0 and setup.json()["claims"] == "origin", setup.err
        assert coop_in(path, "sync").code == 0
    return paths, made


def on_remote(served: Served, item: str) -> str:
    """The item's file as the remote's ledger holds it."""
    return git(served.bare, "show", f"refs/coop/ledger:items/{item[3:5]}/{item}.yaml")


def own_takes(path: Path, actor: str) -> list[str]:
    """Commits of the clone's ledger that record a take by `actor`."""
    subjects = git(path, "log", "--format=%s", "refs/coop/ledger").splitlines()
    return [s for s in subjects if s.startswith("take") and s.endswith(f"by {actor}")]


def test_take_exits_0_once_the_remote_has_it_and_a_stale_clone_is_refused(
    served: Served,
) -> None:
    (a, b), (todo, _) = claiming(served, "alice", "bob")
    took = coop_in(b, "take", todo, "--json")
    assert took.code == 0, took.err
    assert "taken_by: bob@example.com" in on_remote(served, todo)
    assert served.tip() == git(b, "rev-parse", "refs/coop/ledger").strip()
    # alice has not fetched since: the remote decides, and names the holder
    late = coop_in(a, "take", todo)
    assert late.code == 1
    assert "already taken by bob@example.com" in late.err
    assert not own_takes(a, "alice@example.com")
    shown = coop_in(a, "show", todo, "--json").json()
    assert shown["taken_by"] == "bob@example.com" and shown["conflicts"] == []
    forced = coop_in(a, "take", todo, "--force")
    assert forced.code == 0, forced.err
    assert "taken_by: alice@example.com" in on_remote(served, todo)


SNEAK = """#!/bin/sh
# bob's push waits while alice claims through the remote first (once)
[ -e "{marker}" ] && exit 0
touch "{marker}"
cd "{other}" || exit 1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
{python} take {item} >/dev/null 2>&1 || exit 1
exit 0
"""


def alice_claims_first(served: Served, bob: Path, alice: Path, item: str) -> None:
    """A pre-push hook in bob's clone: alice's claim of `item` reaches the remote first."""
    hook = bob / ".git" / "hooks" / "pre-push"
    hook.write_text(
        SNEAK.format(marker=served.root / "sneaked", other=alice, python=PYTHON_COOP, item=item)
    )
    hook.chmod(0o755)


def test_a_claim_the_remote_refused_is_dropped_and_decided_again(served: Served) -> None:
    (a, b), (todo, _) = claiming(served, "alice", "bob")
    alice_claims_first(served, b, a, todo)
    before = git(b, "reflog", "--format=%gs", "refs/coop/ledger")
    lost = coop_in(b, "take", todo)
    assert lost.code == 1, lost.err
    assert "already taken by alice@example.com" in lost.err
    assert "taken_by: alice@example.com" in on_remote(served, todo)
    # bob's refused claim never moved his own ledger: only the merge of alice's is new
    after = git(b, "reflog", "--format=%gs", "refs/coop/ledger")
    new = after[: len(after) - len(before)].splitlines()
    assert new and all(not line.startswith("take") for line in new), new
    assert not own_takes(b, "bob@example.com")


def test_a_rejected_claim_of_another_item_lands_on_the_next_attempt(served: Served) -> None:
    (a, b), (todo, other) = claiming(served, "alice", "bob")
    alice_claims_first(served, b, a, other)
    took = coop_in(b, "take", todo)
    assert took.code == 0, took.err
    assert "taken_by: bob@example.com" in on_remote(served, todo)
    assert "taken_by: alice@example.com" in on_remote(served, other)
    assert git(b, "rev-parse", "refs/coop/ledger").strip() == served.tip()


def view(path: Path, age: float) -> None:
    """Date the remote tip this clone took in `age` seconds back (negative: to come), so a
    claim finds it recent (pushed on at once) or not (fetched first) whatever the clock."""
    ref = path / ".git" / "refs" / "coop" / "remotes" / "origin" / "ledger"
    then = time.time() - age
    os.utime(ref, (then, then))


def test_an_unreachable_remote_refuses_a_claim_and_offline_takes_it_here(
    served: Served,
) -> None:
    (a, _b), (todo, _) = claiming(served, "alice", "bob")
    before = git(a, "rev-parse", "refs/coop/ledger")
    view(a, 60)  # taken in a minute ago: the claim asks the remote first
    served.away()
    refused = coop_in(a, "take", todo)
    assert refused.code == 7
    assert "cannot reach origin" in refused.err and "--offline" in refused.err
    assert git(a, "rev-parse", "refs/coop/ledger") == before  # nothing recorded
    offline = coop_in(a, "take", todo, "--offline")
    assert offline.code == 0, offline.err
    assert "decides it when this clone next syncs" in offline.err
    served.back()
    assert "taken_by: null" in on_remote(served, todo)
    assert coop_in(a, "sync").code == 0
    assert "taken_by: alice@example.com" in on_remote(served, todo)


def test_a_push_cut_off_after_it_landed_is_a_claim(served: Served) -> None:
    (_a, b), (todo, _) = claiming(served, "alice", "bob")
    cut_pushes(served, landed=True)
    took = coop_in(b, "take", todo, "--json")
    assert took.code == 0, took.err
    assert took.json()["taken_by"] == "bob@example.com"
    assert "taken_by: bob@example.com" in on_remote(served, todo)
    assert git(b, "rev-parse", "refs/coop/ledger").strip() == served.tip()


def test_a_push_cut_off_before_it_landed_is_tried_again(served: Served) -> None:
    (_a, b), (todo, _) = claiming(served, "alice", "bob")
    cut_pushes(served, landed=False)
    took = coop_in(b, "take", todo)
    assert took.code == 0, took.err
    assert "taken_by: bob@example.com" in on_remote(served, todo)
    assert not (served.root / "cut-next-push").exists()  # the first push was cut


def test_a_remote_gone_mid_push_is_exit_7_and_sync_shows_where_it_landed(
    served: Served,
) -> None:
    (_a, b), (todo, _) = claiming(served, "alice", "bob")
    cut_pushes(served, landed=True, then_away=True)
    before = git(b, "rev-parse", "refs/coop/ledger")
    took = coop_in(b, "take", todo)
    assert took.code == 7
    assert "whether origin took it is not known" in took.err
    assert git(b, "rev-parse", "refs/coop/ledger") == before  # nothing recorded here
    served.back()
    assert coop_in(b, "sync").code == 0
    mine = coop_in(b, "list", "--mine", "--json").json()
    assert [i["id"] for i in mine] == [todo]  # it did land: the item is bob's


def test_other_writes_are_pushed_at_once_or_by_the_next_write(served: Served) -> None:
    (a, _b), (todo, other) = claiming(served, "alice", "bob")
    assert coop_in(a, "done", todo).code == 0  # a fast-path done: decided there, as a take
    assert "status: done" in on_remote(served, todo)
    served.away()
    noted = coop_in(a, "note", other, "seen offline")
    assert noted.code == 0
    assert "not yet on origin" in noted.err and "git coop sync origin" in noted.err
    served.back()
    assert coop_in(a, "note", other, "back online").code == 0
    events = git(served.bare, "ls-tree", "-r", "--name-only", "refs/coop/ledger", "events")
    notes = [line for line in events.splitlines() if other in line]
    assert len(notes) == 3  # the add and both notes


MEANWHILE = """#!/bin/sh
# while alice's claim is on the wire, another gitcoop write in her clone
[ -e "{marker}" ] && exit 0
touch "{marker}"
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
cd "{path}" || exit 1
git config coop.lockTimeout 2
{before}
{python} note {item} meanwhile >/dev/null 2>&1 || exit 1
{after}
exit 0
"""


def write_during_push(served: Served, path: Path, item: str, publish: bool) -> None:
    """A pre-push hook that writes a note in the same clone (through the writer lock)."""
    keep_local = ("git config --unset coop.claims", "git config coop.claims origin")
    before, after = ("", "") if publish else keep_local
    hook = path / ".git" / "hooks" / "pre-push"
    hook.write_text(
        MEANWHILE.format(
            marker=served.root / "meanwhile",
            path=path,
            before=before,
            after=after,
            python=PYTHON_COOP,
            item=item,
        )
    )
    hook.chmod(0o755)


def test_the_writer_lock_is_free_while_a_claim_is_pushed(served: Served) -> None:
    """The note waits for no network (a 2 s lock wait would fail it); its own push
    moves the remote, so the claim is refused there and decided again on top of it."""
    (a, _b), (todo, other) = claiming(served, "alice", "bob")
    write_during_push(served, a, other, publish=True)
    took = coop_in(a, "take", todo)
    assert took.code == 0, took.err
    assert [e["verb"] for e in coop_in(a, "log", other, "--json").json()] == ["add", "note"]
    assert "taken_by: alice@example.com" in on_remote(served, todo)
    assert "meanwhile" in git(served.bare, "log", "-p", "refs/coop/ledger")
    assert git(a, "rev-parse", "refs/coop/ledger").strip() == served.tip()


def test_a_local_write_during_the_push_is_kept_when_the_claim_lands(served: Served) -> None:
    (a, _b), (todo, other) = claiming(served, "alice", "bob")
    write_during_push(served, a, other, publish=False)
    took = coop_in(a, "take", todo)
    assert took.code == 0, took.err
    claim = served.tip()
    assert "take" in git(served.bare, "log", "-1", "--format=%s", claim)
    # the local ledger moved under the claim (the note): it is merged, nothing lost
    parents = git(a, "log", "-1", "--format=%P", "refs/coop/ledger").split()
    assert len(parents) == 2 and claim in parents
    assert [e["verb"] for e in coop_in(a, "log", other, "--json").json()] == ["add", "note"]
    assert coop_in(a, "show", todo, "--json").json()["taken_by"] == "alice@example.com"


def test_a_claim_moments_after_the_remote_answered_pushes_without_fetching(
    served: Served,
) -> None:
    (a,), (first, second, third) = claiming(served, "alice", todos=3)
    assert coop_in(a, "take", first).code == 0
    url = git(a, "remote", "get-url", "origin").strip()
    git(a, "config", "remote.origin.pushurl", url)
    git(a, "config", "remote.origin.url", str(served.root / "no-such-remote.git"))  # no fetch
    view(a, -30)
    took = coop_in(a, "take", second)
    assert took.code == 0, took.err
    assert "taken_by: alice@example.com" in on_remote(served, second)
    assert git(a, "rev-parse", "refs/coop/ledger").strip() == served.tip()
    view(a, 60)  # no longer recent: the claim fetches, and that fails
    before = served.tip()
    late = coop_in(a, "take", third)
    assert late.code == 7 and "cannot reach origin" in late.err
    assert served.tip() == before and "taken_by: null" in on_remote(served, third)


def test_a_claim_on_an_out_of_date_view_is_fetched_and_decided_again(served: Served) -> None:
    (a, b), (first, second, third) = claiming(served, "alice", "bob", todos=3)
    assert coop_in(b, "take", second).code == 0
    assert coop_in(b, "take", first).code == 0
    view(a, -30)  # alice's view: both free, and the remote moved twice since
    lost = coop_in(a, "take", second)
    assert lost.code == 1 and "already taken by bob@example.com" in lost.err
    assert "taken_by: bob@example.com" in on_remote(served, second)
    assert coop_in(b, "release", first, "--reason", "not mine after all").code == 0
    view(a, -30)  # alice's view now: first is bob's; the remote has it free again
    took = coop_in(a, "take", first)
    assert took.code == 0, took.err
    assert "taken_by: alice@example.com" in on_remote(served, first)
    view(a, -30)
    assert coop_in(a, "take", third).code == 0
    assert "taken_by: alice@example.com" in on_remote(served, third)
    assert not [i for i in coop_in(a, "list", "--json", "--all").json() if i["conflicts"]]


HOLD_TURN = """
import sys
from filelock import FileLock
with FileLock(sys.argv[1]):
    print("held", flush=True)
    sys.stdin.readline()
"""


def test_a_claim_waits_its_turn_in_the_clone_then_goes_ahead_without_it(
    served: Served,
) -> None:
    (a,), (todo, _) = claiming(served, "alice")
    git(a, "config", "coop.remoteTimeout", "1")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_TURN, str(a / ".git" / "coop-claims.lock")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline() == "held\n"
    try:
        started = time.monotonic()
        took = coop_in(a, "take", todo)
        waited = time.monotonic() - started
    finally:
        holder.communicate("done\n")
    assert took.code == 0, took.err  # the remote decides; the turn is only a courtesy
    assert waited >= 1.0  # it did wait for the turn, as long as one talk may take
    assert "taken_by: alice@example.com" in on_remote(served, todo)
