"""The ledger's own event folder (`events/00/cf-000000000000`), attacked by a peer.

Roles, settings and keys are the state the ledger's own events make, which live
in one folder of fan-out `00`, and coop.yaml must be exactly that state at each
commit of the fetched first-parent chain (store/boundary/joining.py `holds_state`;
the folder's files are checked commit by commit in store/boundary/history.py).
Each forgery of that folder must be refused on every path: a fast-forward, a real
merge with local work and a first sync. (Until format 2 a first sync of a large
ledger was checked in two halves by fan-out, one per process, and these attacks
were also run with `00` in either half and on a real ledger of SPLIT_ITEMS items;
that split is gone, a fetch is checked in one process, and so are those
parametrisations.)

Then event folders of other `cf-` ids: the layout allows any `cf-` folder,
but only the ledger's ever holds events.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pygit2
import pytest

from gitcoop.store.ledger import codec
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
from tests.rawledger import TREE, commit_tree, open_raw, replaced

FOLDER = f"events/00/{LEDGER}"
PATHS = ["fast-forward", "merge", "first-sync"]
NOT_THE_STATE = "coop.yaml: is not the state its first parent and the events it adds make"
Content = dict[str, bytes]


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


def on_path(crew: Team, clones: Clones, path: str) -> Path:
    """The clone that syncs on `path`, set up for it."""
    if path == "merge":
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    return clones.clone("carol") if path == "first-sync" else crew.victim


# -- forgeries of the ledger's folder ---------------------------------------------------


def _pushed_raw(crew: Team, parts: list[str], leaf: tuple[int, pygit2.Oid] | None) -> str:
    """The tip with one entry set, committed by mallory and pushed as the ledger and as an
    ordinary branch (a plain fetch brings it unchecked by git)."""
    raw = open_raw(crew.mallory)
    root = replaced(raw, raw.revparse_single(REF).tree.id, parts, leaf)
    made = commit_tree(crew.mallory, root)
    git(crew.mallory, "push", "-q", "-f", "origin", f"{made}:{REF}", f"{made}:refs/heads/feature")
    return made


def _roles_not_the_fold(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["roles"]["owners"].append(MALLORY)
    return publish(crew.mallory, with_config(content, data)), NOT_THE_STATE


def _settings_not_the_fold(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    data = config(content).to_data()
    data["settings"] = {"topup_size": 7}
    return publish(crew.mallory, with_config(content, data)), NOT_THE_STATE


def _by_someone_else(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    forged = new_event(content, LEDGER, "config", actor=ALICE, key="topup_size", value=7)
    made = publish(crew.mallory, add_event(content, forged))
    name = f"{forged['clock']:012d}-{forged['id']}.yaml"
    return made, f"{FOLDER}/{name}: an event by {ALICE!r} in a commit authored by {MALLORY!r}"


def _an_item_verb(crew: Team) -> tuple[str, str]:
    content = files(crew.mallory)
    note = new_event(content, LEDGER, "note", text="x")
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
    crew: Team, clones: Clones, forgery: str, path: str
) -> None:
    """Passes: the refusal names the path (and, for what a commit adds or claims, the
    commit); a first sync takes nothing in."""
    made, fragment = FORGERIES[forgery](crew)
    where = on_path(crew, clones, path)
    refused_on(where, fragment, *([f"commit {made[:12]}"] if made else []))
    if path == "first-sync":
        assert coop_in(where, "list").code == 4  # no ledger here
    else:
        assert coop_in(where, "roles", "--json").json() == {
            "owners": [ALICE],
            "chiefs": [MALLORY],
        }


@pytest.mark.parametrize("path", PATHS)
def test_the_ledgers_state_is_checked_once_per_fetched_commit(
    crew: Team, clones: Clones, monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """Formerly "the ledger's fold is checked exactly once": by the one of two processes
    whose half held `00`, never by both or neither. There are no halves since format 2;
    what stays is that the check is neither skipped nor repeated: coop.yaml (and the items)
    are held against the joined state once for each commit the fetch adds to the
    first-parent chain (H3), on every path (and the cost is linear in what arrived, H7)."""
    from gitcoop.store.boundary import joining

    for who in ("carol@example.com", "dave@example.com"):
        assert coop_in(crew.alice, "roles", "add", "chief", who).code == 0
    assert coop_in(crew.alice, "sync").code == 0
    where = on_path(crew, clones, path)
    known = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    remote = tip(crew.alice)
    calls: list[str] = []
    real = joining.holds_config  # a commit at a time or a folder at a time, once a commit

    def counted(state: Any, after: Any) -> Any:
        calls.append(str(after.commit))
        return real(state, after)

    monkeypatch.setattr(joining, "holds_config", counted)
    synced = coop_in(where, "sync")
    assert synced.code == 0, synced.err
    span = [remote, "--not", known] if known else [remote]
    fetched = git(where, "rev-list", "--first-parent", *span).split()
    assert len(fetched) == (2 if known else len(git(where, "rev-list", remote).split()))
    checked = [c for c in calls if c in fetched]
    assert sorted(checked) == sorted(fetched), (calls, fetched)  # each once, none skipped
    chiefs = coop_in(where, "roles", "--json").json()["chiefs"]
    assert sorted(chiefs) == ["carol@example.com", "dave@example.com", MALLORY], chiefs


def test_a_ledger_event_named_as_a_local_one_with_other_content_is_refused(crew: Team) -> None:
    """bob proposes his own key (a ledger event, unsynced); mallory, having seen its name,
    pushes a history with another event of that name in the ledger's folder. Until format 2
    the union of the folder refused it as "differs from the local event of the same name";
    a format-2 event's id is its content's hash (H5), so another content under that id is
    refused as soon as its commit is read, before any merge."""
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
    forged = add_event(content, other, rename=False)
    made = publish(crew.mallory, forged, author=ALICE)
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 4, synced.err
    assert f"commit {made[:12]}: {mine}: its id is not the one its content gives" in synced.err
    assert tip(crew.victim) == before
    shown = coop_in(crew.victim, "keys", "list", "--json")
    assert shown.code == 0 and "bob@example.com" in shown.out, shown.out  # his own, kept


# -- event folders of other cf- ids -------------------------------------------------------


@pytest.mark.parametrize("item_id", ["cf-111111111111", "cf-00000000000z", "td-111111111111"])
@pytest.mark.parametrize("path", ["fast-forward", "first-sync"])
def test_events_of_no_item_outside_the_ledgers_folder_are_refused(
    crew: Team, clones: Clones, item_id: str, path: str
) -> None:
    """The layout allows an event folder of any `cf-` id, and of an item with no file;
    mallory's own note there (by her, clock one past the tip's, named by its content)
    makes no item, and no item file is what the tip holds. Taken, nothing could ever
    remove it: only a refused `add` leaves a folder without an item (H2/H3)."""
    content = files(crew.mallory)
    note = new_event(content, item_id, "note", text="x")
    made = publish(crew.mallory, add_event(content, note, refold=False) | _clocked(content, note))
    where = on_path(crew, clones, path)
    folder = f"events/{item_id[3:5]}/{item_id}"
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    if synced.code == 0:
        checked = coop_in(where, "fsck")
        pytest.fail(
            f"taken in (exit 0); then fsck exits {checked.code}: {checked.out.strip()[:200]}"
        )
    assert synced.code == 4, synced.err
    assert f"commit {made[:12]}: {folder}: events of no item" in synced.err, synced.err
    assert "the local ledger is unchanged" in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
