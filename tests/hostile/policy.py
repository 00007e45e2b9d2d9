"""A team under the owners' signing policy, and what a forgery under it must not do:
the building blocks of tests/hostile/test_merge_base.py, test_policy_starts.py,
test_held_breakers.py, test_starts_and_twins.py and test_event_ids.py.

Under ledger format 2 (docs/hardening.md, H2 and H3) an event that joins a state
requiring signatures, written by no commit its actor's registered key signed, is
refused where it joins: a conflict on its item, or a refused change of the
ledger's own roles, settings or keys (an fsck note). A forged tree that claims
such an event was applied is not the state its events make: the whole fetch is
refused (exit 4). `merge_content` and `rejoined` build either tree as gitcoop
itself would write it, so that the one flaw a test plants is the only one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitcoop.domain import rulebook
from gitcoop.store.ledger import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    BOB,
    LEDGER,
    MALLORY,
    REF,
    Team,
    _events_raw,
    commit,
    config,
    files,
    new_event,
    push,
    team,
    tip,
    write_tree,
)
from tests.sshkeys import Key, make_key, sign_with

ROLES = {"owners": [ALICE], "chiefs": [MALLORY]}
Content = dict[str, bytes]


@dataclass
class Signed:
    crew: Team
    keys: dict[str, Key]
    before_policy: str  # the ledger's tip just before alice turned require_signed on
    newcomer: Path  # a clone with no ledger yet


def keyed_team(clones: Clones, tmp_path: Path) -> tuple[Team, dict[str, Key]]:
    """forge.team, each signing with a key alice registered; no policy yet."""
    crew = team(clones, tmp_path)
    keys = {name: make_key(tmp_path / "keys", name) for name in ("alice", "mallory", "bob")}
    for path, name in ((crew.alice, "alice"), (crew.mallory, "mallory"), (crew.victim, "bob")):
        sign_with(path, keys[name])
    for who, name in ((ALICE, "alice"), (MALLORY, "mallory"), (BOB, "bob")):
        assert coop_in(crew.alice, "keys", "add", who, str(keys[name].public)).code == 0
    return crew, keys


def signed_team(clones: Clones, tmp_path: Path) -> Signed:
    """`keyed_team`, then alice's require_signed; all synced, and a newcomer signing as bob."""
    crew, keys = keyed_team(clones, tmp_path)
    before = tip(crew.alice)
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    newcomer = clones.clone("carol")
    sign_with(newcomer, keys["bob"])
    return Signed(crew, keys, before, newcomer)


def forged_owner(content: Content, clock: int | None = None) -> dict[str, Any]:
    """alice making mallory an owner: the event mallory forges (named by its content, as
    format 2 names every event)."""
    return new_event(
        content, LEDGER, "roles", actor=ALICE, clock=clock, action="add", role="owner", who=MALLORY
    )


def believed(where: Path) -> tuple[Any, Any]:
    """The roles and the policy as the clone now holds them."""
    roles = coop_in(where, "roles", "--json").json()
    policy = coop_in(where, "config", "require_signed", "--json").json()["value"]
    return roles, policy


def notes(where: Path) -> list[str]:
    """`fsck --full --json`'s notes (the events refused where they joined); it finds no
    breach."""
    checked = coop_in(where, "fsck", "--full", "--json")
    assert checked.code == 0, f"{where.name}: fsck --full: {checked.out.strip()[:600]}"
    return list(checked.json()["notes"])


def refused_where_it_joined(where: Path, event_id: str) -> None:
    """`event_id` is in the clone's ledger, and was refused where it joined (an fsck note
    naming it); fsck --full finds nothing broken."""
    held = git(where, "ls-tree", "-r", "--name-only", REF).split()
    assert any(event_id in name for name in held), f"{where.name} does not hold {event_id}"
    found = notes(where)
    assert any(event_id in note for note in found), (
        f"{event_id} was not refused where it joined in {where.name}: notes {found}"
    )


def not_believed(
    where: Path, bad: str, event_id: str, named: bool = False, taken: bool = False
) -> None:
    """The forged commit's event does not count in `where`: the sync is refused (exit 4,
    the ledger unchanged; with `named`, naming the forged commit) or takes the event as
    refused where it joined (H2); alice's policy still holds and mallory is no owner.
    With `taken` (an honestly written tree) it must be taken."""
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync", "--json")
    assert not taken or synced.code == 0, (synced.code, synced.err)
    if synced.code != 0:
        assert synced.code == 4, (synced.code, synced.err)
        assert not named or f"commit {bad[:12]}" in synced.err, synced.err
        assert "the local ledger is unchanged" in synced.err
        assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
        if not before:
            return
    roles, policy = believed(where)
    assert (roles, policy) == (ROLES, True), (
        f"the unsigned commit {bad[:12]} was believed: roles {roles}, require_signed {policy}"
    )
    if synced.code == 0:
        refused_where_it_joined(where, event_id)


def start_of(content: Content) -> tuple[str, bytes, str]:
    """alice's `config require_signed true`: its path, its bytes and its event id."""
    for name, data in content.items():
        if name.startswith(f"events/00/{LEDGER}/"):
            raw = codec.load(data, name)
            if raw["verb"] == "config" and raw["key"] == "require_signed" and raw["value"]:
                return name, data, str(raw["id"])
    raise AssertionError("no require_signed true in the ledger")


def signed_merge(s: Signed, parents: list[str], content: Content) -> str:
    """mallory's merge of `parents` holding `content`, signed by her own key; pushed."""
    mallory = s.crew.mallory
    made = commit(
        mallory, write_tree(mallory, content), parents, MALLORY, key=s.keys["mallory"].private
    )
    push(mallory, made)
    return made


def event_id_of(name: str) -> str:
    return name.rsplit("/", 1)[1].split("-", 1)[1].removesuffix(".yaml")


def added_between(where: Path, old: str, new: str) -> Content:
    """The event files `new` holds that `old` does not."""
    before, after = files(where, old), files(where, new)
    return {n: d for n, d in after.items() if n.startswith("events/") and n not in before}


def alices_signed_note(s: Signed) -> tuple[str, str]:
    """alice writes a signed note after the policy began; every clone syncs it. Its event
    id, and the commit adding it."""
    crew = s.crew
    assert coop_in(crew.alice, "note", crew.todo, "alice's own words").code == 0
    made = tip(crew.alice)
    assert coop_in(crew.alice, "sync").code == 0
    for path in (crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    [note] = [n for n in added_between(crew.alice, f"{made}^", made) if crew.todo[3:] in n]
    return event_id_of(note), made


# -- trees as gitcoop writes them ----------------------------------------------------------


def merge_content(where: Path, first: str, second: str, claim: bool = False) -> Content:
    """What gitcoop's merge of `first` and `second` holds (`boundary/joining.py`): the
    files of `first`, the event files only `second` holds, and the items and coop.yaml
    those events make joining `first`'s state, each judged there. With `claim`, the
    forger's claim instead: every added event applied as if its commit were signed."""
    from gitcoop.store.boundary import joining
    from gitcoop.store.boundary.history import Reader
    from gitcoop.store.ledger.layout import item_path
    from gitcoop.store.ledger.snapshot import Snapshot
    from gitcoop.store.repository import open_repo

    repo = open_repo(str(where))
    reader = Reader(repo)
    joined = joining.join(repo, reader, first, second)
    state = joined.state
    if claim:
        before = Snapshot(repo, first)
        ledger = joining.ledger_before(before, reader)
        state = rulebook.join(before.item, ledger, joined.events, None, before.config.conflicts)
    mine, theirs = files(where, first), files(where, second)
    content = {**mine, **{f.path: theirs[f.path] for f in joined.added}}
    for item_id, item in state.items.items():
        if item is None:
            content.pop(item_path(item_id), None)
        else:
            content[item_path(item_id)] = codec.dump(item.to_data())
    clock = max(config(mine).clock, config(theirs).clock)
    content["coop.yaml"] = codec.dump(
        rulebook.config_of(state.ledger, clock, state.conflicts).to_data()
    )
    return content


def rejoined(where: Path, made: str, key: Path | None = None) -> str:
    """The commit an honest gitcoop would have written for the non-merge commit `made`:
    the same parent, author and added event files (signed with `key`, or not), its items
    and coop.yaml the state those events make joining its parent's, each judged there
    (an unsigned event under the policy refused, H2). Not pushed."""
    parent = git(where, "rev-parse", f"{made}^").strip()
    author = git(where, "log", "-1", "--format=%ae", made).strip()
    content = merge_content(where, parent, made)
    return commit(where, write_tree(where, content), [parent], author, key=key)


def without(content: Content, event_id: str, refused: tuple[str, ...] = ()) -> Content:
    """`content` with its roles, settings, keys and items folded as if the event
    `event_id` had never joined (its file kept, its item's conflict marked kept out): the
    tree a forger writes to make an authentic event not count. Folded less only the
    events `refused` where they joined for a signature, it is `content` itself (checked),
    so the one event is the only change."""
    changed = _folded(content, refused)
    assert changed == content, "the fold of the ledger is not its tree"
    return _folded(content, (*refused, event_id))


def _folded(content: Content, kept_out: tuple[str, ...]) -> Content:
    state, _ = rulebook.fold_ledger(_events_raw(content, LEDGER), kept_out)
    changed = {
        **content,
        "coop.yaml": codec.dump(rulebook.config_of(state, config(content).clock).to_data()),
    }
    for name in content:
        if name.startswith("items/"):
            item_id = name.rsplit("/", 1)[1].removesuffix(".yaml")
            item = rulebook.fold(
                _events_raw(changed, item_id),
                state.roles,
                events_of=lambda other: _events_raw(changed, other),
                kept_out=kept_out,
            )
            assert item is not None
            data = item.to_data()
            said = {c["event"]: c["reason"] for c in codec.load(content[name], name)["conflicts"]}
            for conflict in data["conflicts"]:  # the reason as the join gave it
                conflict["reason"] = said.get(conflict["event"], conflict["reason"])
            changed[name] = codec.dump(data)
    return changed
