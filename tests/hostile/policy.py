"""A team under the owners' signing policy, and what a forgery under it must not do:
the building blocks of tests/hostile/test_merge_base.py and test_policy_starts.py."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gitcoop.store import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    BOB,
    LEDGER,
    MALLORY,
    REF,
    Team,
    commit,
    files,
    new_event,
    push,
    team,
    tip,
    write_tree,
)
from tests.sshkeys import Key, make_key, sign_with

ROLES = {"owners": [ALICE], "chiefs": [MALLORY]}


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


def forged_owner(content: dict[str, bytes], clock: int | None = None) -> dict[str, Any]:
    """alice making mallory an owner: the event mallory forges."""
    return new_event(
        content,
        LEDGER,
        "roles",
        actor=ALICE,
        clock=clock,
        event_id="ev-ffffffffffff",
        action="add",
        role="owner",
        who=MALLORY,
    )


def believed(where: Path) -> tuple[Any, Any]:
    """The roles and the policy as the clone now folds them."""
    roles = coop_in(where, "roles", "--json").json()
    policy = coop_in(where, "config", "require_signed", "--json").json()["value"]
    return roles, policy


def not_believed(where: Path, bad: str, event_id: str, named: bool = False) -> None:
    """The forged commit's event does not count in `where`: the sync is refused (exit 4,
    the ledger unchanged; with `named`, naming the forged commit) or keeps the event out;
    alice's policy still holds and mallory is no owner."""
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync", "--json")
    if synced.code != 0:
        assert synced.code == 4, synced.err
        assert not named or f"commit {bad[:12]}" in synced.err, synced.err
        assert "the local ledger is unchanged" in synced.err
        assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
        if not before:
            return
    roles, policy = believed(where)
    kept = synced.json().get("kept_out", []) if synced.code == 0 else []
    assert (roles, policy) == (ROLES, True), (
        f"the unsigned commit {bad[:12]} was believed: roles {roles}, require_signed "
        f"{policy}, kept out {kept}"
    )
    assert synced.code != 0 or event_id in kept, kept


def start_of(content: dict[str, bytes]) -> tuple[str, bytes, str]:
    """alice's `config require_signed true`: its path, its bytes and its event id."""
    for name, data in content.items():
        if name.startswith(f"events/00/{LEDGER}/"):
            raw = codec.load(data, name)
            if raw["verb"] == "config" and raw["key"] == "require_signed" and raw["value"]:
                return name, data, str(raw["id"])
    raise AssertionError("no require_signed true in the ledger")


def signed_merge(s: Signed, parents: list[str], content: dict[str, bytes]) -> str:
    """mallory's merge of `parents` holding `content`, signed by her own key; pushed."""
    mallory = s.crew.mallory
    made = commit(
        mallory, write_tree(mallory, content), parents, MALLORY, key=s.keys["mallory"].private
    )
    push(mallory, made)
    return made


def event_id_of(name: str) -> str:
    return name.rsplit("/", 1)[1].split("-", 1)[1].removesuffix(".yaml")


def added_between(where: Path, old: str, new: str) -> dict[str, bytes]:
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
