"""The ledger's own event folder (`events/00/cf-000000000000`), attacked by a peer.

Roles, settings and keys are the fold of the ledger's own events, which live
in one folder of fan-out `00`. A first sync of a large ledger is checked in
two halves by fan-out (`inbound._half`: `00` falls in this process's half
unless `_FIRST_HALF` says otherwise), and the ledger's fold is checked by the
half that holds `00`, while the other half skips it. Each forgery of that
folder must be refused on every path: a fast-forward, a real merge with local
work, a first sync in one piece, and one in two halves with `00` here or in
the child; and in a real first sync of SPLIT_ITEMS items (bench/ledger.py).

Then event folders of other `cf-` ids: the layout allows any `cf-` folder,
but only the ledger's ever holds events.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitcoop.store import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    MALLORY,
    REF,
    Team,
    add_event,
    config,
    files,
    new_event,
    publish,
    refused_on,
    team,
    tip,
    with_config,
)
from tests.rawledger import TREE, _replace, commit_tree, open_raw, put

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"
FOLDER = f"events/00/{LEDGER}"
PATHS = [
    "fast-forward",
    "merge",
    "first-whole",
    "first-halves-ledger-here",
    "first-halves-ledger-in-child",
]
Content = dict[str, bytes]


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def on_path(crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, path: str) -> Path:
    """The clone that syncs on `path`, set up for it."""
    from gitcoop.store import inbound

    if path == "merge":
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    if not path.startswith("first"):
        return crew.victim
    monkeypatch.setattr(inbound, "SPLIT_ITEMS", 10**6 if path == "first-whole" else 1)
    if path == "first-halves-ledger-in-child":  # every fan-out here but the ledger's
        monkeypatch.setattr(inbound, "_FIRST_HALF", frozenset(ALPHABET) - {"0"})
    return clones.clone("carol")


# -- forgeries of the ledger's folder ---------------------------------------------------


def _pushed_raw(crew: Team, parts: list[str], leaf: tuple[int, pygit2.Oid] | None) -> str:
    """The tip with one entry set, committed by mallory and pushed as the ledger and as an
    ordinary branch (a plain fetch brings it unchecked by git)."""
    raw = open_raw(crew.mallory)
    root = _replace(raw, raw.revparse_single(REF).tree.id, parts, leaf)
    made = commit_tree(crew.mallory, root)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{made}:{REF}", f"{made}:refs/heads/feature")
    return made


def _roles_not_the_fold(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["roles"]["owners"].append(MALLORY)
    publish(crew.mallory, with_config(content, data))
    return "", "coop.yaml: its roles are not the fold of the ledger's role events"


def _settings_not_the_fold(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["settings"] = {"topup_size": 7}
    publish(crew.mallory, with_config(content, data))
    return "", "coop.yaml: its settings are not the fold of the ledger's config events"


def _by_someone_else(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    forged = new_event(
        content,
        LEDGER,
        "config",
        actor=ALICE,
        key="topup_size",
        value=7,
        event_id="ev-ffffffffffff",
    )
    made = publish(crew.mallory, add_event(content, forged))
    name = f"{forged['clock']:012d}-ev-ffffffffffff.yaml"
    return made, f"{FOLDER}/{name}: an event by {ALICE!r} in a commit authored by {MALLORY!r}"


def _an_item_verb(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    note = new_event(content, LEDGER, "note", text="x", event_id="ev-ffffffffffff")
    made = publish(crew.mallory, add_event(content, note, refold=False) | _clocked(content, note))
    return made, f"verb 'note' is not one {LEDGER} takes"


def _clocked(content: Content, event: dict[str, Any]) -> Content:
    data = config(content).to_data()
    data["clock"] = event["clock"]
    return {"coop.yaml": codec.dump(data)}


def _empty_folder(crew: Team) -> tuple[str, str]:
    empty = open_raw(crew.mallory).write(pygit2.enums.ObjectType.TREE, b"")
    made = _pushed_raw(crew, [*FOLDER.split("/"), "junk"], (TREE, empty))
    return made, f"{FOLDER}/junk: not an allowed name or mode"


def _repeated_entry(crew: Team) -> tuple[str, str]:
    raw = open_raw(crew.mallory)
    folder = raw.revparse_single(REF).tree[FOLDER]
    data = raw.odb.read(folder.id)[1]
    first = data[: data.index(b"\0") + 21]  # its first entry, written twice
    twice = raw.write(pygit2.enums.ObjectType.TREE, first + data)
    made = _pushed_raw(crew, FOLDER.split("/"), (TREE, twice))
    return made, f"{FOLDER}: a tree whose entries are not as git writes them"


FORGERIES: dict[str, Callable[[Team], tuple[str, str]]] = {
    "roles-not-the-fold": _roles_not_the_fold,
    "settings-not-the-fold": _settings_not_the_fold,
    "event-by-someone-else": _by_someone_else,
    "an-item-verb": _an_item_verb,
    "empty-folder": _empty_folder,
    "repeated-entry": _repeated_entry,
}


@pytest.mark.parametrize("path", PATHS)
@pytest.mark.parametrize("forgery", list(FORGERIES))
def test_a_forgery_of_the_ledgers_own_folder_is_refused_on_every_path(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, forgery: str, path: str
) -> None:
    """Passes: whichever half holds `00`, and in one piece, the refusal names the path
    (and, for what a commit adds, the commit)."""
    made, fragment = FORGERIES[forgery](crew)
    where = on_path(crew, clones, monkeypatch, path)
    refused_on(where, fragment, *([f"commit {made[:12]}"] if made else []))


@pytest.mark.parametrize("path", PATHS)
def test_the_ledgers_fold_is_checked_exactly_once(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, path: str
) -> None:
    """Passes: one check of the ledger's fold per sync, by the process that holds `00`
    (the child, when `_FIRST_HALF` leaves `0` out), never by both halves or neither."""
    from gitcoop.store import inbound

    assert coop_in(crew.alice, "roles", "add", "chief", "carol@example.com").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    where = on_path(crew, clones, monkeypatch, path)
    calls = tmp_path / "folds"
    real = inbound._check_ledger_fold

    def counted(*args: Any) -> None:
        with open(calls, "a") as log:  # appended by whichever process checks
            log.write(f"{os.getpid()}\n")
        real(*args)

    monkeypatch.setattr(inbound, "_check_ledger_fold", counted)
    synced = coop_in(where, "sync")
    assert synced.code == 0, synced.err
    pids = calls.read_text().split()
    assert len(pids) == 1, pids
    in_child = path == "first-halves-ledger-in-child"
    assert (pids[0] != str(os.getpid())) == (in_child and inbound.twocores.can_fork())


def test_a_ledger_event_named_as_a_local_one_with_other_content_is_refused(crew: Team) -> None:
    """Passes. bob proposes his own key (a ledger event, unsynced); mallory, having seen its
    name, pushes a history with another event of that name in the ledger's folder. The
    merge's fold of the roles skips the remote's file of a name the local side holds
    (merge._merged_roles), but the union of the folder refuses it, naming the path."""
    key = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOkWSwd3ccwAFNDKCb6d5FS6tC3fQaBrCDuZcTu8i9c5"
    assert coop_in(crew.victim, "keys", "add", "bob@example.com", key).code == 0
    mine = next(
        n
        for n in files(crew.victim)
        if n.startswith(FOLDER + "/") and b"verb: keys" in files(crew.victim)[n]
    )
    content = files(crew.mallory)
    data = codec.load(files(crew.victim)[mine], mine)
    clock = int(mine.rsplit("/", 1)[1][:12])
    assert clock == config(content).clock + 1
    other = new_event(
        content, LEDGER, "config", clock=clock, event_id=data["id"], key="topup_size", value=7
    )
    other["actor"] = ALICE  # alice's own, so only the name clashes
    forged = add_event(content, other)
    publish(crew.mallory, forged, author=ALICE)
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 4, synced.err
    assert f"{mine}: differs from the local event of the same name" in synced.err
    assert tip(crew.victim) == before


# -- a real first sync of SPLIT_ITEMS items ----------------------------------------------


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A bare remote holding a ledger of SPLIT_ITEMS items (alice owns it), built once."""
    from bench import ledger
    from gitcoop.store import inbound

    root = tmp_path_factory.mktemp("big")
    built = ledger.build(root / "built", inbound.SPLIT_ITEMS)
    subprocess.run(["git", "init", "-q", "--bare", str(root / "remote.git")], check=True)
    git(built, "push", "-q", str(root / "remote.git"), f"{REF}:{REF}")
    yield root / "remote.git"


@pytest.mark.parametrize("ledger_half", ["here", "in-child"])
@pytest.mark.parametrize("forgery", ["roles-not-the-fold", "event-by-someone-else", None])
def test_a_real_split_first_sync_checks_the_ledgers_folder(
    big: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    forgery: str | None,
    ledger_half: str,
) -> None:
    """Passes: SPLIT_ITEMS items (no SPLIT_ITEMS patched), so the check runs in two halves;
    a forgery of the ledger's folder is refused whichever half holds `00`, and the honest
    ledger is taken."""
    from gitcoop.store import inbound, twocores

    if ledger_half == "in-child":
        monkeypatch.setattr(inbound, "_FIRST_HALF", frozenset(ALPHABET) - {"0"})
    remote = tmp_path / "remote.git"
    shutil.copytree(big, remote)
    mallory = tmp_path / "mallory"
    git(tmp_path, "init", "-q", str(mallory))
    git(mallory, "remote", "add", "origin", remote.as_uri())
    git(mallory, "fetch", "-q", "origin", f"{REF}:{REF}")
    raw = open_raw(mallory)
    at = raw.revparse_single(REF)
    clock = config({"coop.yaml": raw[at.tree["coop.yaml"].id].data}).clock
    made = ""
    expected = ""
    if forgery == "roles-not-the-fold":
        data = codec.load(raw[at.tree["coop.yaml"].id].data, "coop.yaml")
        data["roles"]["chiefs"] = [MALLORY]
        made = put(mallory, ["coop.yaml"], codec.dump(data))
        expected = "coop.yaml: its roles are not the fold of the ledger's role events"
    elif forgery == "event-by-someone-else":  # "alice's" event in a commit by mallory
        event = {
            "id": "ev-ffffffffffff", "item": LEDGER, "clock": clock + 1,
            "at": "2026-11-29T11:00:00Z", "actor": ALICE, "session": None,
            "verb": "roles", "action": "add", "role": "chief", "who": MALLORY,
        }  # fmt: skip
        data = codec.load(raw[at.tree["coop.yaml"].id].data, "coop.yaml")
        data["roles"]["chiefs"] = [MALLORY]
        data["clock"] = clock + 1
        name = f"{clock + 1:012d}-ev-ffffffffffff.yaml"
        tree = _replace(
            raw,
            at.tree.id,
            [*FOLDER.split("/"), name],
            (0o100644, raw.create_blob(codec.dump(event))),
        )
        tree = _replace(raw, tree, ["coop.yaml"], (0o100644, raw.create_blob(codec.dump(data))))
        made = commit_tree(mallory, tree)
        expected = f"{FOLDER}/{name}: an event by {ALICE!r} in a commit authored by {MALLORY!r}"
    if made:
        git(mallory, "push", "-q", "-f", "origin", f"{made}:{REF}")
    split: list[int] = []
    real = twocores.halves

    def spied(work: Any, *args: Any) -> Any:
        split.append(1)
        return real(work, *args)

    monkeypatch.setattr(twocores, "halves", spied)
    carol = tmp_path / "carol"
    git(tmp_path, "init", "-q", str(carol))
    git(carol, "config", "user.email", "carol@example.com")
    git(carol, "remote", "add", "origin", remote.as_uri())
    synced = coop_in(carol, "sync")
    assert split == [1], "the first sync was not checked in two halves"
    if forgery is None:
        assert synced.code == 0, synced.err
        return
    assert synced.code == 4, synced.err
    assert expected in synced.err and "the local ledger is unchanged" in synced.err, synced.err
    if forgery == "event-by-someone-else":
        assert f"commit {made[:12]}" in synced.err
    assert git(carol, "rev-parse", "-q", "--verify", REF, check=False) == ""


# -- event folders of other cf- ids -------------------------------------------------------


@pytest.mark.parametrize("item_id", ["cf-111111111111", "cf-00000000000z", "td-111111111111"])
@pytest.mark.parametrize("path", ["fast-forward", "first-whole", "first-halves-ledger-in-child"])
def test_events_of_no_item_outside_the_ledgers_folder_are_refused(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, item_id: str, path: str
) -> None:
    """The layout allows an event folder of any `cf-` id, and of an item with no file;
    mallory's own note there (by her, clock one past the tip's) folds to no item, and no
    item file is what the tip holds. Taken, nothing could ever remove it, and every
    clone's `git coop fsck` would report "events of no item": the check refuses what fsck
    calls broken."""
    content = files(crew.mallory)
    note = new_event(content, item_id, "note", text="x", event_id="ev-ffffffffffff")
    publish(crew.mallory, add_event(content, note, refold=False) | _clocked(content, note))
    where = on_path(crew, clones, monkeypatch, path)
    folder = f"events/{item_id[3:5]}/{item_id}"
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    if synced.code == 0:
        checked = coop_in(where, "fsck")
        pytest.fail(
            f"taken in (exit 0); then fsck exits {checked.code}: {checked.out.strip()[:200]}"
        )
    assert synced.code == 4, synced.err
    assert f"{folder}: events of no item" in synced.err, synced.err
    assert "the local ledger is unchanged" in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
