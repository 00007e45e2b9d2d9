"""Hostile or broken remote data is refused before use, naming the remote and the path."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gitcoop.domain.records import Event
from gitcoop.store.ledger import codec, merge
from gitcoop.store.repository import Oid, open_repo
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import hash_object


def setup(clones: Clones) -> tuple[Path, Path, str]:
    """Mallory's clone and the victim's, both at the same ledger; one todo in it."""
    mallory, victim = clones.clone("mallory"), clones.clone("victim")
    coop_in(mallory, "init")
    todo = coop_in(mallory, "add", "todo", "seed", "--json").json()["id"]
    assert coop_in(mallory, "sync").code == 0
    assert coop_in(victim, "sync").code == 0
    return mallory, victim, todo


def tamper(path: Path, changes: dict[str, bytes | None], message: str = "tamper") -> None:
    """Commit `changes` (path -> content, None deletes) on top of the ledger and push them."""
    env = {**os.environ, "GIT_INDEX_FILE": str(path / ".git" / "tamper-index")}
    subprocess.run(["git", "read-tree", "refs/coop/ledger"], cwd=path, env=env, check=True)
    for name, content in changes.items():
        if content is None:
            subprocess.run(["git", "rm", "-q", "--cached", name], cwd=path, env=env, check=True)
            continue
        blob = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"], cwd=path, input=content,
            capture_output=True, check=True,
        ).stdout.decode().strip()  # fmt: skip
        info = f"100644,{blob},{name}"
        subprocess.run(["git", "update-index", "--add", "--cacheinfo", info], cwd=path, env=env,
                       check=True)  # fmt: skip
    tree = subprocess.run(["git", "write-tree"], cwd=path, env=env, capture_output=True,
                          check=True).stdout.decode().strip()  # fmt: skip
    commit = git(path, "commit-tree", tree, "-p", "refs/coop/ledger", "-m", message).strip()
    git(path, "update-ref", "refs/coop/ledger", commit)
    git(path, "push", "-q", "origin", "refs/coop/ledger:refs/coop/ledger")


def event_files(path: Path, todo: str) -> list[str]:
    listing = git(path, "ls-tree", "-r", "--name-only", "refs/coop/ledger", "events/")
    return [line for line in listing.splitlines() if f"/{todo}/" in line]


def refused(victim: Path, pattern: str, diverged: bool, *options: str) -> None:
    if diverged:
        assert coop_in(victim, "add", "todo", "local work").code == 0
    before = git(victim, "rev-parse", "refs/coop/ledger").strip()
    result = coop_in(victim, "sync", *options)
    assert result.code == 4, result.out + result.err
    assert "remote origin: " in result.err
    assert pattern in result.err
    assert git(victim, "rev-parse", "refs/coop/ledger").strip() == before


@pytest.mark.parametrize("diverged", [False, True])
def test_a_ref_that_is_not_a_ledger(clones: Clones, diverged: bool) -> None:
    mallory, victim, _ = setup(clones)
    (mallory / "README").write_text("code\n")
    git(mallory, "add", "README")
    git(mallory, "commit", "-qm", "code")
    git(mallory, "push", "-q", "--force", "origin", "HEAD:refs/coop/ledger")
    if diverged:
        assert coop_in(victim, "add", "todo", "local work").code == 0
    before = git(victim, "rev-parse", "refs/coop/ledger").strip()
    # to a clone that took a ledger in, the ref replaced is first a rewrite (H4)
    rewritten = coop_in(victim, "sync")
    assert rewritten.code == 10, rewritten.out + rewritten.err
    assert "was replaced by" in rewritten.err and "shares no history" in rewritten.err
    # taking the rewrite is then refused for what it holds, and forgets nothing
    refused(victim, "README: not an allowed entry", False, "--accept-rewrite")
    again = coop_in(victim, "sync")
    assert again.code == 10 and "was replaced by" in again.err, again.out + again.err
    assert git(victim, "rev-parse", "refs/coop/ledger").strip() == before


@pytest.mark.parametrize("diverged", [False, True])
def test_an_unknown_format_version(clones: Clones, diverged: bool) -> None:
    mallory, victim, _ = setup(clones)
    config = git(mallory, "show", "refs/coop/ledger:coop.yaml").replace("format: 2", "format: 3")
    tamper(mallory, {"coop.yaml": config.encode()})
    refused(victim, "coop.yaml: ledger format 3 is not supported", diverged)


def test_malformed_yaml_in_an_event(clones: Clones) -> None:
    mallory, victim, todo = setup(clones)
    [name] = event_files(mallory, todo)
    extra = name.rsplit("/", 1)[0] + "/000000000001-ev-zzzzzzzzzzzz.yaml"
    tamper(mallory, {extra: b"a: [b\n"})
    refused(victim, "malformed YAML", diverged=True)


def test_an_alias_bomb_is_refused(clones: Clones) -> None:
    mallory, victim, todo = setup(clones)
    [name] = event_files(mallory, todo)
    extra = name.rsplit("/", 1)[0] + "/000000000001-ev-zzzzzzzzzzzz.yaml"
    tamper(mallory, {extra: b"a: &x [1]\nb: *x\n"})
    refused(victim, "YAML anchors are not allowed", diverged=True)


def test_an_event_in_the_wrong_items_folder(clones: Clones) -> None:
    mallory, victim, todo = setup(clones)
    [name] = event_files(mallory, todo)
    content = git(mallory, "show", f"refs/coop/ledger:{name}").encode()
    other = "td-" + ("z" if todo[3] != "z" else "y") + todo[4:]
    moved = f"events/{other[3:5]}/{other}/{name.rsplit('/', 1)[1]}"
    tamper(mallory, {moved: content})
    refused(victim, "the file's name does not match its content", diverged=False)


def test_an_event_from_the_future_clock(clones: Clones) -> None:
    mallory, victim, todo = setup(clones)
    [name] = event_files(mallory, todo)
    data = codec.load(git(mallory, "show", f"refs/coop/ledger:{name}").encode(), name)
    event = Event.from_data({**data, "id": "ev-zzzzzzzzzzzz", "clock": 99, "verb": "note",
                             "text": "hi"}).named_by_content()  # fmt: skip
    folder = name.rsplit("/", 1)[0]
    tamper(mallory, {f"{folder}/000000000099-{event.id}.yaml": codec.dump(event.to_data())})
    refused(victim, "clock 99 is outside 3..3", diverged=True)


def test_a_dropped_event_is_refused(clones: Clones) -> None:
    mallory, victim, todo = setup(clones)
    [name] = event_files(mallory, todo)
    item = f"items/{todo[3:5]}/{todo}.yaml"
    tamper(mallory, {name: None, item: None})
    refused(victim, "an event was dropped or rewritten", diverged=True)


def test_an_item_file_that_is_not_the_fold_of_its_events(clones: Clones) -> None:
    mallory, victim, todo = setup(clones)
    item = f"items/{todo[3:5]}/{todo}.yaml"
    content = git(mallory, "show", f"refs/coop/ledger:{item}").replace("status: open",
                                                                        "status: done")  # fmt: skip
    tamper(mallory, {item: content.encode()})
    refused(victim, f"{item}: is not the state its events make", diverged=False)


def test_a_file_outside_the_layout(clones: Clones) -> None:
    mallory, victim, todo = setup(clones)
    tamper(mallory, {f"items/{todo[3:5]}/notes.txt": b"hello\n"})
    refused(victim, "notes.txt: not an allowed name or mode", diverged=True)


def test_plan_writes_no_ref(clones: Clones) -> None:
    """The merge decision writes objects only; the ref moves in merge()'s swap."""
    a, b, _ = setup(clones)
    coop_in(a, "add", "todo", "a")
    coop_in(b, "add", "todo", "b")
    assert coop_in(a, "sync").code == 0
    git(b, "fetch", "-q", "origin", "+refs/coop/ledger:refs/coop/remotes/origin/ledger")
    repo = open_repo(str(b))
    ours, theirs = repo.tip(), repo.tip("refs/coop/remotes/origin/ledger")
    assert ours is not None and theirs is not None
    planned = merge.plan(repo, "origin", ours, theirs, "bob@example.com", _now())
    assert planned.kind == "merged" and repo.tip() == ours
    assert repo.commit_parents(Oid(planned.after or "")) == [theirs, ours]  # the remote first


def _now():  # type: ignore[no-untyped-def]
    from datetime import UTC, datetime

    return datetime(2026, 11, 29, 12, tzinfo=UTC)


def test_a_remote_event_named_like_a_local_one_with_other_bytes_is_refused(
    clones: Clones,
) -> None:
    """Events are never rewritten: a fetched event file whose name (clock and id) is one
    of this clone's own unpushed events, but whose bytes differ, must not replace it.
    From format 2 a name gives its content (H5): honest writers can no longer collide,
    so mallory copies the victim's file name onto other bytes, and the file is refused
    before any merge."""
    mallory, victim, todo = setup(clones)
    assert coop_in(victim, "take", todo).code == 0
    assert coop_in(mallory, "note", todo, "mine now").code == 0
    [name] = set(event_files(victim, todo)) - set(event_files(mallory, todo))
    bytes_ = git(victim, "show", f"refs/coop/ledger:{name}")
    assert "session: null" in bytes_
    other = bytes_.replace("session: null", "session: forged").encode()
    tamper(mallory, {name: other})  # the victim's event's name and id, other bytes
    before = git(victim, "rev-parse", "refs/coop/ledger").strip()
    result = coop_in(victim, "sync")
    assert result.code == 4, result.out + result.err
    assert "the local ledger is unchanged" in result.err  # by H5 or H6, whichever is first
    assert git(victim, "rev-parse", "refs/coop/ledger").strip() == before
    assert coop_in(victim, "show", todo, "--json").json()["taken_by"] == "victim@example.com"


def test_a_remote_role_change_decides_only_what_joins_after_it(
    clones: Clones,
) -> None:
    """Until format 2 a role change refolded every item, and a remote that kept an item
    file an owner's role had made, after removing the owner, was refused. Now (H1) what
    joined stays decided: bob's amendment, made while he was an owner, stands after his
    removal, and the remote that holds it is taken in."""
    mallory, victim, todo = setup(clones)
    assert coop_in(mallory, "roles", "add", "owner", "bob@example.com").code == 0
    closed = coop_in(mallory, "done", todo, "--summary", "first", "--as", "carol@example.com")
    assert closed.code == 0, closed.err
    amended = coop_in(mallory, "done", todo, "--summary", "bob's", "--as", "bob@example.com")
    assert amended.code == 0, amended.err
    assert coop_in(mallory, "sync").code == 0 and coop_in(victim, "sync").code == 0
    item = f"items/{todo[3:5]}/{todo}.yaml"
    stale = git(mallory, "show", f"refs/coop/ledger:{item}").encode()  # bob's amendment in it
    assert coop_in(mallory, "roles", "remove", "owner", "bob@example.com").code == 0
    assert git(mallory, "show", f"refs/coop/ledger:{item}").encode() == stale  # not refolded
    assert coop_in(mallory, "sync").code == 0
    assert coop_in(victim, "sync").code == 0
    assert coop_in(victim, "show", todo, "--json").json()["result_summary"] == "bob's"
    assert coop_in(victim, "fsck", "--full").code == 0


def test_a_dead_writers_ref_lock_does_not_stop_a_merge(clones: Clones) -> None:
    """A writer killed mid-swap leaves refs/coop/ledger.lock: the next merge clears it,
    like the next write does, instead of failing on it."""
    other, victim, _ = setup(clones)
    assert coop_in(other, "add", "todo", "theirs").code == 0
    assert coop_in(other, "sync").code == 0
    lock = victim / ".git" / "refs" / "coop" / "ledger.lock"
    lock.write_text("")
    os.utime(lock, (1_000, 1_000))
    result = coop_in(victim, "sync")
    assert result.code == 0, result.err
    assert "removed a stale" in result.err and not lock.exists()
    assert git(victim, "rev-parse", "refs/coop/ledger") == git(
        other, "rev-parse", "refs/coop/ledger"
    )


@pytest.mark.parametrize("kind", ["blob", "tree", "tag"])
@pytest.mark.parametrize("who", ["victim", "newcomer"])
def test_a_ref_that_names_no_commit(clones: Clones, kind: str, who: str) -> None:
    """A remote ledger ref naming a blob, a tree or an annotated tag (even of a ledger
    commit) is refused where it arrives (H7): exit 4, never a traceback, nothing taken."""
    mallory, victim, _ = setup(clones)
    at = git(mallory, "rev-parse", "refs/coop/ledger").strip()
    if kind == "blob":
        named = hash_object(mallory, b"hi\n")
    elif kind == "tree":
        named = git(mallory, "rev-parse", f"{at}^{{tree}}")
    else:
        git(mallory, "tag", "-a", "-m", "a tag", "ledger-tag", at)
        named = git(mallory, "rev-parse", "ledger-tag")
    git(mallory, "push", "-q", "--force", "origin", f"{named.strip()}:refs/coop/ledger")
    clone = victim if who == "victim" else clones.clone("newcomer")
    before = git(clone, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False).strip()
    result = coop_in(clone, "sync")
    assert result.code == 4, result.out + result.err
    assert f"names a {'tag' if kind == 'tag' else kind}, not a commit" in result.err, result.err
    after = git(clone, "rev-parse", "-q", "--verify", "refs/coop/ledger", check=False).strip()
    assert after == before
