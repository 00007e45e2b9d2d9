"""What reached the shared remote first is never overruled (ledger format 2, DESIGN §6).

A commit's state is its first parent's state plus the events it adds relative to
that first parent, judged by the first parent's rules, roles and keys; every merge
gitcoop writes has the fetched remote tip as its first parent. So an offline or
stale clone's events are replayed on top of what the remote already decided,
whatever clocks or wall times (COOP_NOW) their writer used, and a key or a role
removed on the remote vouches for nothing a fork from before the removal adds.
Each clone remembers the last remote tip it took in: a fetched tip that does not
keep it on its first-parent chain (a rewind, a deleted ref, a merge that moves it
to a second parent) is reported ("rewritten") and repaired, or sync exits 10.

Real clones of a bare remote over file://; forged commits with git plumbing
(tests/hostile/forge.py); time only through COOP_NOW.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from gitcoop.store.ledger import codec
from tests.conftest import Clones, Result, coop_in, git, make_repo
from tests.hostile.forge import (
    ALICE,
    MALLORY,
    REF,
    commit,
    files,
    push,
    tip,
    write_tree,
)
from tests.hostile.policy import ROLES, Signed, added_between, event_id_of, signed_team
from tests.service.queue_fixtures import CONFIRM, install
from tests.sshkeys import make_key, sign_with

EARLIER = {"COOP_NOW": "2026-11-29T09:00:00Z"}  # an hour before conftest's NOW
LONG_AGO = {"COOP_NOW": "1970-01-02T00:00:00Z"}
DAVE, EVE = "dave@example.com", "eve@example.com"


# -- a: offline takes replayed on top of the remote's confirmed claims ---------------------


def test_offline_clone_loses_every_race_to_confirmed_claims(clones: Clones) -> None:
    """Rule 1: unpublished takes replay after the remote's confirmed claims, whatever their time."""
    (a, b, o), todos = claiming(clones, "alice", "bob", "olga", todos=3)
    for todo in todos:  # olga is offline, and her wall clock runs an hour early
        offline = coop_in(o, "take", todo, "--offline", env=EARLIER)
        assert offline.code == 0, offline.err
    for todo in todos:  # alice's claims are decided by the remote: confirmed
        took = coop_in(a, "take", todo)
        assert took.code == 0, took.err
        assert "taken_by: alice@example.com" in on_remote(clones, todo)
    told = coop_in(o, "sync")
    assert told.code == 8, (
        f"olga's offline takes were not all lost to alice's confirmed claims "
        f"(sync exit {told.code}): {told.err}"
    )
    for path in (a, b):
        assert coop_in(path, "sync").code == 0, path
    for path in (a, b, o):
        for todo in todos:
            shown = coop_in(path, "show", todo, "--json").json()
            assert shown["taken_by"] == ALICE, (path.name, todo, shown["taken_by"])
    mine = coop_in(o, "list", "--mine", "--json")
    assert mine.code == 0, mine.err
    assert set(todos) <= {i["id"] for i in mine.json()}
    text = coop_in(o, "list", "--mine").out
    assert "lost on merge" in text, text


def test_offline_clone_is_told_of_takes_lost_to_work_already_done(clones: Clones) -> None:
    """Rule 1, with the confirmed claims finished before the offline clone syncs: the items
    are settled, and their authors are told all the same (exit 8, `list --mine`)."""
    (a, o), todos = claiming(clones, "alice", "olga", todos=3)
    for todo in todos:
        assert coop_in(o, "take", todo, "--offline", env=EARLIER).code == 0
    for todo in todos:
        assert coop_in(a, "done", todo).code == 0  # the fast path: a claim, then done
    told = coop_in(o, "sync", "--json")
    assert told.code == 8, (told.code, told.err)
    assert {lost["item"] for lost in told.json()["error"]["lost"]} == set(todos), told.out
    mine = coop_in(o, "list", "--mine", "--json")
    assert set(todos) <= {i["id"] for i in mine.json()}, mine.out
    owed = coop_in(o, "owed", "--mine", "--json").json()
    assert {entry["item"] for entry in owed if entry.get("kind") == "lost"} == set(todos)


# -- b: a backdated offline take -----------------------------------------------------------


def test_backdated_offline_take_loses(clones: Clones) -> None:
    """Rule 1: a take dated 1970 never overrules a claim the remote confirmed first."""
    (a, b), (todo,) = claiming(clones, "alice", "bob", todos=1)
    o = clones.clone("olga")  # no claims: her takes are decided here, until she syncs
    assert coop_in(o, "sync").code == 0
    backdated = coop_in(o, "take", todo, env=LONG_AGO)
    assert backdated.code == 0, backdated.err
    assert coop_in(a, "take", todo).code == 0  # confirmed by the remote
    told = coop_in(o, "sync")
    assert told.code == 8, f"olga's backdated take was not lost (exit {told.code}): {told.err}"
    assert coop_in(a, "sync").code == 0
    assert coop_in(b, "sync").code == 0
    for path in (a, o, b):
        shown = coop_in(path, "show", todo, "--json").json()
        assert (shown["status"], shown["taken_by"]) == ("taken", ALICE), (path.name, shown)


# -- c, d: a remote that lost what this clone took in ---------------------------------------


def test_force_pushed_older_ledger_is_reported_and_repaired(clones: Clones) -> None:
    """Rule 2: a remote rewound past the remembered tip is reported and put back."""
    a = clones.clone("alice")
    bare = bare_of(clones)
    assert coop_in(a, "init").code == 0
    assert coop_in(a, "add", "todo", "first").code == 0
    assert coop_in(a, "sync").code == 0
    old = remote_tip(bare)
    assert coop_in(a, "add", "todo", "second").code == 0
    assert coop_in(a, "sync").code == 0
    remembered = remote_tip(bare)
    assert remembered != old and remembered == tip(a)
    git(bare, "update-ref", REF, old)  # someone's `git push --force origin OLD:REF`
    synced = coop_in(a, "sync")
    assert "rewritten" in synced.err, (synced.code, synced.err)
    assert remembered in first_parents(bare), "the remote's lost history was not put back"


def test_deleted_remote_ref_is_reported_and_restored(clones: Clones) -> None:
    """Rule 2: a deleted remote ledger ref is reported and restored with the remembered tip."""
    a = clones.clone("alice")
    bare = bare_of(clones)
    assert coop_in(a, "init").code == 0
    assert coop_in(a, "add", "todo", "first").code == 0
    assert coop_in(a, "sync").code == 0
    remembered = remote_tip(bare)
    git(bare, "update-ref", "-d", REF)
    synced = coop_in(a, "sync")
    assert "rewritten" in synced.err or "deleted" in synced.err, (synced.code, synced.err)
    assert remote_tip(bare), "the remote's ledger was not restored"
    assert remembered in first_parents(bare)


def test_a_claim_on_a_rewound_tip_is_refused_with_exit_10(clones: Clones) -> None:
    """Rule 2: a claim on a remote that lost the remembered tip exits 10, nothing recorded."""
    (a, _b), (first, second) = claiming(clones, "alice", "bob", todos=2)
    bare = bare_of(clones)
    before_take = remote_tip(bare)
    assert coop_in(a, "take", first).code == 0  # confirmed: alice remembers it
    git(bare, "update-ref", REF, before_take)  # the remote is rewound past it
    here = tip(a)
    refused = coop_in(a, "take", second)
    assert refused.code == 10, (refused.code, refused.err)
    assert tip(a) == here, "a claim on a rewound tip was recorded"
    assert coop_in(a, "show", second, "--json").json()["status"] == "open"
    # the refused claim's fetch noted the rewound tip a moment ago: no claim is leased on
    # it without the check either (it was taken in by no one)
    again = coop_in(a, "take", second)
    assert again.code == 10, (again.code, again.err)
    git(a, "fetch", "origin")  # a plain fetch notes it too
    assert coop_in(a, "take", second).code == 10
    assert tip(a) == here
    put_back = coop_in(a, "sync")  # the remote holds an older tip of ours: put back, pushed
    assert put_back.code == 0 and "rewritten" in put_back.err, put_back.err
    assert "has no ledger yet" not in put_back.out and "ahead" in put_back.out, put_back.out


# -- e: a stale claim through a rewound remote ----------------------------------------------


def test_stale_claim_on_rewound_tip_does_not_overrule(clones: Clones) -> None:
    """H4: a stale claim through a rewound remote loses once the history is put back.

    The stale clone then finds its own confirmed claim aside in the repaired history, and
    nothing in the graph says whether that merge repairs a rewrite or attacks: it stops
    (exit 10) until its person takes the repaired history, where its claim is told lost."""
    (a, b), (todo,) = claiming(clones, "alice", "bob", todos=1)
    bare = bare_of(clones)
    rewind_to = remote_tip(bare)
    assert coop_in(a, "take", todo).code == 0  # confirmed by the remote
    assert "taken_by: alice@example.com" in on_remote(clones, todo)
    git(bare, "update-ref", REF, rewind_to)
    # bob never fetched alice's take: through the rewound remote his claim looks fine
    # (and his wall clock runs early, so no time or clock could favour alice)
    stale = coop_in(b, "take", todo, env=EARLIER)
    assert stale.code == 0, stale.err
    repaired = coop_in(a, "sync")
    assert "rewritten" in repaired.err, (repaired.code, repaired.err)
    stopped = coop_in(b, "sync")
    assert stopped.code == 10 and "rewritten" in stopped.err, (stopped.code, stopped.err)
    told = coop_in(b, "sync", "--accept-rewrite")
    assert told.code == 8, f"bob's stale claim was not lost (exit {told.code}): {told.err}"
    c = clones.clone("carol")
    assert coop_in(c, "sync").code == 0
    for path in (a, b, c):
        shown = coop_in(path, "show", todo, "--json").json()
        assert (shown["status"], shown["taken_by"]) == ("taken", ALICE), (path.name, shown)


# -- f: a merge that moves the remembered tip to its second parent --------------------------


def test_merge_with_remote_tip_on_second_parent_is_refused(clones: Clones) -> None:
    """Rule 2: a merge moving the remembered tip to its second parent is reported, not taken."""
    a, b, m = clones.clone("alice"), clones.clone("bob"), clones.clone("mallory")
    bare = bare_of(clones)
    assert coop_in(a, "init").code == 0
    assert coop_in(a, "add", "todo", "seed").code == 0
    for path in (a, m):
        assert coop_in(path, "sync").code == 0, path
    fork_point = tip(m)
    assert coop_in(a, "add", "todo", "alice's next").code == 0  # clock past mallory's add below
    assert coop_in(a, "sync").code == 0
    assert coop_in(b, "sync").code == 0
    shared = remote_tip(bare)
    assert tip(a) == tip(b) == shared
    # mallory's own todo, an honest gitcoop write on her stale tip: the fork commit F
    assert coop_in(m, "add", "todo", "mallory's", "--json").code == 0
    fork = tip(m)
    assert git(m, "rev-parse", f"{fork}^").strip() == fork_point
    git(m, "fetch", "-q", "origin", f"{REF}:refs/mallory/remote")
    assert git(m, "rev-parse", "refs/mallory/remote").strip() == shared
    theirs, mine = files(m, shared), files(m, fork)
    extra = {n: d for n, d in mine.items() if n not in files(m, fork_point)}
    assert extra and all(n.startswith(("items/", "events/")) for n in extra), sorted(extra)
    union = {**theirs, **extra}  # T's clock is already past F's: T's coop.yaml stands
    merged = commit(m, write_tree(m, union), [fork, shared], MALLORY)  # (F, T)
    git(m, "push", "-q", "origin", f"{merged}:{REF}")  # a fast-forward: T is an ancestor
    assert remote_tip(bare) == merged
    for path in (a, b):  # every clone that took T in stops on it; nothing is taken in
        here = tip(path)
        synced = coop_in(path, "sync")
        assert synced.code == 10 and "only aside" in synced.err, (synced.code, synced.err)
        assert tip(path) == here, path.name
        assert remote_tip(bare) == merged, "a stopped sync pushed"
        assert coop_in(path, "add", "todo", "work goes on here").code == 0, path.name


# -- g: a retired key on a fork from before its removal -------------------------------------


def test_retired_key_signs_nothing_after_removal(clones: Clones, tmp_path: Path) -> None:
    """Rule 3: a key removed in the merge's first parent vouches for no event the merge joins."""
    s = signed_team(clones, tmp_path)
    crew = s.crew
    retire_alices_first_key(s, tmp_path)
    keys_before = coop_in(crew.victim, "keys", "list", "--json").json()
    # mallory, still at the tip from before the removal, holds alice's old key
    before = tip(crew.mallory)
    sign_with(crew.mallory, s.keys["alice"])
    forged = coop_in(crew.mallory, "roles", "add", "owner", MALLORY, env={"COOP_ACTOR": ALICE})
    assert forged.code == 0, forged.err  # on her fork alice is an owner and the key hers
    fork = tip(crew.mallory)
    [name] = [n for n in added_between(crew.mallory, before, fork) if "/cf-" in n]
    event = event_id_of(name)
    # her own gitcoop merges it, the remote tip as first parent, and pushes, as mallory
    sign_with(crew.mallory, s.keys["mallory"])
    coop_in(crew.mallory, "sync")
    assert is_ancestor(bare_of(clones), fork, remote_tip(bare_of(clones))), (
        "the fork never reached the remote"
    )
    for path in (crew.victim, crew.alice, s.newcomer):
        synced = coop_in(path, "sync")  # (8 allowed: the refused event is in alice's name)
        assert synced.code in (0, 8), (path.name, synced.code, synced.err)
        roles = coop_in(path, "roles", "--json").json()
        assert roles == ROLES, f"{path.name} believes the retired key: roles {roles}"
    assert coop_in(crew.victim, "keys", "list", "--json").json() == keys_before
    checked = coop_in(crew.victim, "fsck", "--full")
    assert checked.code == 0, checked.out + checked.err
    assert mentions(checked, event), checked.out + checked.err


def test_retired_key_in_a_hand_made_merge_is_believed_nowhere(
    clones: Clones, tmp_path: Path
) -> None:
    """Rule 3: a hand-made merge believing a retired key's event is refused or keeps it out."""
    s = signed_team(clones, tmp_path)
    crew = s.crew
    retire_alices_first_key(s, tmp_path)
    bare = bare_of(clones)
    before = tip(crew.mallory)
    sign_with(crew.mallory, s.keys["alice"])
    forged = coop_in(crew.mallory, "roles", "add", "owner", MALLORY, env={"COOP_ACTOR": ALICE})
    assert forged.code == 0, forged.err
    fork = tip(crew.mallory)
    [name] = [n for n in added_between(crew.mallory, before, fork) if "/cf-" in n]
    event = event_id_of(name)
    git(crew.mallory, "fetch", "-q", "origin", f"{REF}:refs/mallory/remote")
    shared = git(crew.mallory, "rev-parse", "refs/mallory/remote").strip()
    theirs, mine = files(crew.mallory, shared), files(crew.mallory, fork)
    settings = codec.load(theirs["coop.yaml"], "coop.yaml")
    fork_settings = codec.load(mine["coop.yaml"], "coop.yaml")
    assert MALLORY in fork_settings["roles"]["owners"]
    settings["roles"] = fork_settings["roles"]  # the old model's fold: mallory an owner
    settings["clock"] = max(settings["clock"], fork_settings["clock"])
    union = {**theirs, name: mine[name], "coop.yaml": codec.dump(settings)}
    merged = commit(
        crew.mallory,
        write_tree(crew.mallory, union),
        [shared, fork],
        MALLORY,
        key=s.keys["mallory"].private,
    )
    push(crew.mallory, merged)
    assert remote_tip(bare) == merged
    for path in (crew.victim, crew.alice, s.newcomer):
        was = git(path, "rev-parse", "-q", "--verify", REF, check=False).strip()
        synced = coop_in(path, "sync")
        if synced.code == 4:  # refused whole: nothing taken in
            assert git(path, "rev-parse", "-q", "--verify", REF, check=False).strip() == was
            continue
        assert synced.code in (0, 8), (path.name, synced.code, synced.err)
        roles = coop_in(path, "roles", "--json").json()
        assert roles == ROLES, f"{path.name} believes the retired key: roles {roles}"
        checked = coop_in(path, "fsck", "--full")
        assert checked.code == 0, checked.out + checked.err
        assert mentions(checked, event), checked.out + checked.err


# -- h: a removed owner backdating on a fork from before the removal ------------------------


def test_removed_owner_backdating_changes_nothing(clones: Clones) -> None:
    """Rule 3: a removed owner's backdated role change is judged by the remote's roles: refused."""
    alice, dave, bob = clones.clone("alice"), clones.clone("dave"), clones.clone("bob")
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "roles", "add", "owner", DAVE).code == 0
    for path in (alice, dave, bob):
        assert coop_in(path, "sync").code == 0, path
    assert coop_in(alice, "roles", "remove", "owner", DAVE).code == 0
    assert coop_in(alice, "sync").code == 0
    before = tip(dave)
    added = coop_in(dave, "roles", "add", "owner", EVE, env=LONG_AGO)
    assert added.code == 0, added.err  # on his fork dave is still an owner
    [name] = [n for n in added_between(dave, before, tip(dave)) if "/cf-" in n]
    event = event_id_of(name)
    synced = coop_in(dave, "sync")
    assert synced.code in (0, 8), (synced.code, synced.err)
    carol = clones.clone("carol")
    for path in (alice, bob, carol, dave):
        assert coop_in(path, "sync").code in (0, 8), path
        owners = coop_in(path, "roles", "--json").json()["owners"]
        assert owners == [ALICE], f"{path.name}: owners {owners}"
    checked = coop_in(alice, "fsck", "--full")
    assert checked.code == 0, checked.out + checked.err
    assert mentions(checked, event), checked.out + checked.err
    logged = {e["id"]: e["result"] for e in coop_in(alice, "log", "--json").json()}
    assert logged[event].startswith("refused:"), logged[event]  # coop.yaml's conflict


# -- i: the fast path of done is a claim ----------------------------------------------------


@pytest.mark.parametrize("kind", ["todo", "request"])
def test_a_stale_fast_path_finish_is_refused_at_once(clones: Clones, kind: str) -> None:
    """Rule 4: with claims on, a done or close of an item still open here (an implicit
    take) is decided by the remote like a take: bob's stale view cannot finish away
    alice's confirmed claim; he is refused at once, naming her, and nothing lands."""
    (a, b), _ = claiming(clones, "alice", "bob", todos=0)
    item = coop_in(a, "add", kind, "shared work", "--json").json()["id"]
    assert coop_in(a, "sync").code == 0 and coop_in(b, "sync").code == 0
    assert coop_in(a, "take", item).code == 0  # confirmed by the remote
    remote = remote_tip(bare_of(clones))
    verb = "done" if kind == "todo" else "close"
    assert coop_in(b, "show", item, "--json").json()["status"] == "open"  # bob's stale view
    stale = coop_in(b, verb, item, env=EARLIER)
    assert stale.code == 1, (stale.code, stale.err)
    assert ALICE in stale.err, stale.err
    assert remote_tip(bare_of(clones)) == remote, "a stale finish reached the remote"
    c = clones.clone("carol")
    for path in (b, a, c):
        coop_in(path, "sync")
    for path in (a, b, c):
        shown = coop_in(path, "show", item, "--json").json()
        assert (shown["status"], shown["taken_by"]) == ("taken", ALICE), (path.name, shown)


def test_a_finish_of_an_offline_pick_is_decided_at_the_remote(clones: Clones) -> None:
    """Rule 4: a `finish` is decided at the remote: bob's offline pick lost to alice's
    confirmed one, so his finish is refused at once, naming her, and nothing lands."""
    a, b = clones.clone("alice"), clones.clone("bob")
    code = install(a)
    assert coop_in(a, "init").code == 0
    item = coop_in(a, "add", "item", "Fix toast", "--evidence", "src/app.py:3", "--json").json()
    code.plan(default=CONFIRM)
    assert coop_in(a, "verify").code == 0
    git(a, "push", "-q", "origin", "HEAD:refs/heads/code")
    git(b, "fetch", "-q", "origin", "refs/heads/code")
    git(b, "reset", "-q", "--hard", "FETCH_HEAD")
    for path in (a, b):
        assert coop_in(path, "remote", "setup", "origin", "--claims").code == 0
        assert coop_in(path, "sync").code == 0
    offline = coop_in(b, "pick", "--offline", "--json")
    assert offline.code == 0 and offline.json()["picked"] == item["id"], offline.err
    assert coop_in(a, "pick", "--json").json()["picked"] == item["id"]  # confirmed
    remote = remote_tip(bare_of(clones))
    finished = coop_in(b, "finish", item["id"], "closed", "--reason", "not needed")
    assert finished.code == 1, (finished.code, finished.err)
    assert ALICE in finished.err, finished.err
    assert remote_tip(bare_of(clones)) == remote, "a finish of a lost pick reached the remote"
    assert coop_in(a, "show", item["id"], "--json").json()["taken_by"] == ALICE


# -- j: content-hash event ids ----------------------------------------------------------------


def test_event_ids_are_content_hashes(tmp_path: Path) -> None:
    """Format 2: an event's id is its content hash: ev- and 26 base32 characters."""
    path = make_repo(tmp_path / "fresh")
    assert coop_in(path, "init").code == 0
    assert coop_in(path, "add", "todo", "T").code == 0
    names = git(path, "ls-tree", "-r", "--name-only", REF, "events").split()
    assert len(names) >= 2, names
    for name in names:
        from_name = event_id_of(name)
        blob = git(path, "cat-file", "blob", f"{REF}:{name}")
        from_yaml = str(codec.load(blob.encode(), name)["id"])
        assert from_yaml == from_name, name
        assert re.fullmatch(r"ev-[0-9a-z]{26}", from_yaml), f"{from_yaml} is not a content id"


# -- helpers ----------------------------------------------------------------------------------


def test_a_claim_on_a_deleted_remote_ledger_is_refused_with_exit_10(clones: Clones) -> None:
    """H4: a remote whose ledger was deleted decides no claim; sync puts it back."""
    (a, _b), (todo,) = claiming(clones, "alice", "bob", todos=1)
    bare = bare_of(clones)
    git(bare, "update-ref", "-d", REF)
    here = tip(a)
    refused = coop_in(a, "take", todo)
    assert refused.code == 10 and "deleted" in refused.err, (refused.code, refused.err)
    assert tip(a) == here and remote_tip(bare) == ""  # nothing recorded, nothing pushed
    repaired = coop_in(a, "sync")
    assert repaired.code == 0 and "rewritten" in repaired.err, (repaired.code, repaired.err)
    assert remote_tip(bare) == here


def claiming(clones: Clones, *names: str, todos: int) -> tuple[list[Path], list[str]]:
    """Clones with claims through origin, all synced to a ledger of `todos` open todos
    (tests/service/test_claims.py's set-up, over file://)."""
    paths = [clones.clone(name) for name in names]
    first = paths[0]
    assert coop_in(first, "init").code == 0
    made = [coop_in(first, "add", "todo", f"todo {n}", "--json").json()["id"] for n in range(todos)]
    for path in paths:
        setup = coop_in(path, "remote", "setup", "origin", "--claims", "--json")
        assert setup.code == 0 and setup.json()["claims"] == "origin", setup.err
        assert coop_in(path, "sync").code == 0, path
    return paths, made


def bare_of(clones: Clones) -> Path:
    return clones.root / "remote.git"


def remote_tip(bare: Path) -> str:
    return git(bare, "rev-parse", "-q", "--verify", REF, check=False).strip()


def first_parents(bare: Path) -> list[str]:
    """The bare remote's ledger commits on its first-parent chain."""
    return git(bare, "rev-list", "--first-parent", REF).split()


def is_ancestor(repo: Path, older: str, newer: str) -> bool:
    done = subprocess.run(["git", "merge-base", "--is-ancestor", older, newer], cwd=repo)
    return done.returncode == 0


def on_remote(clones: Clones, item: str) -> str:
    """The item's file as the remote's ledger holds it."""
    return git(bare_of(clones), "show", f"{REF}:items/{item[3:5]}/{item}.yaml")


def retire_alices_first_key(s: Signed, tmp_path: Path) -> None:
    """alice rotates under require_signed: a new key added and used, the first removed;
    alice and the victim sync (mallory does not: her tip is from before the removal)."""
    crew = s.crew
    new = make_key(tmp_path / "keys", "alice-new")
    assert coop_in(crew.alice, "keys", "add", ALICE, str(new.public)).code == 0
    sign_with(crew.alice, new)
    removed = coop_in(crew.alice, "keys", "remove", ALICE, str(s.keys["alice"].public))
    assert removed.code == 0, removed.err
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.victim, "sync").code == 0


def mentions(result: Result, event: str) -> bool:
    """Whether the output names the event: its id, or a unique prefix of it (at least
    the kind prefix and 4 characters, as gitcoop shows ids)."""
    text = result.out + result.err
    if event in text:
        return True
    return any(event.startswith(shown) for shown in re.findall(r"ev-[0-9a-z]{4,}", text))
