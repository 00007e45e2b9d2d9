"""Copies of alice's events on early forks, and trees that hold an authentic event out,
attacked by mallory (a chief, with push access and a registered key).

These attacks were written against `trust.held_breakers`: when a fetched coop.yaml kept
out an event this clone's own judgement did not, the clone took it as kept out when
every local commit adding its first file broke the policy; mallory attacked what that
read (copies of alice's start and key on early forks, event ids, which commits the two
histories hold). There are no held breakers since ledger format 2, and no kept-out
list: coop.yaml holds no `kept_out` (one that does is refused), an event refused for
want of a signature is a conflict where it joined, and a tree is the state its first
parent and the events its commit adds make (docs/hardening.md, H2 and H3). So:

- a byte copy of one of alice's files on a fork is the very file the merge's first
  parent holds: it joins nothing, and nothing of alice's is refused or lost (H5: one id
  names one event);
- a tree that holds an authentic event out (alice's start, her key, her signed note,
  her take from before the policy) is not the state: the whole fetch is refused (H3);
- a merge putting the fork first is a rewrite to every clone that took the tip in (H4).

Deleted with the machinery: the twin of bob's kept-out note (twin ids are refused by
H5, test_event_ids.py; bob's own refused work syncs on, test_policy_starts.py), the
forged owner on top of the early copy (an unsigned forgery on the tip: test_signatures.py
and test_policy_starts.py), and bob's kept-out note beside alice's (there is no
kept-out list to extend: a tree hiding alice's note is the signed-note case below).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitcoop.store.ledger import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    BOB,
    MALLORY,
    REF,
    add_event,
    commit,
    config,
    files,
    new_event,
    push,
    team,
    tip,
    write_tree,
)
from tests.hostile.policy import (
    ROLES,
    Signed,
    added_between,
    alices_signed_note,
    believed,
    event_id_of,
    merge_content,
    notes,
    signed_merge,
    start_of,
    without,
)
from tests.sshkeys import make_key, sign_with

Content = dict[str, bytes]


@pytest.fixture
def signed(clones: Clones, tmp_path: Path) -> tuple[Signed, str]:
    """policy.signed_team, and the ledger's tip before any key was registered."""
    crew = team(clones, tmp_path)
    unkeyed = tip(crew.alice)
    keys = {name: make_key(tmp_path / "keys", name) for name in ("alice", "mallory", "bob")}
    for path, name in ((crew.alice, "alice"), (crew.mallory, "mallory"), (crew.victim, "bob")):
        sign_with(path, keys[name])
    for who, name in ((ALICE, "alice"), (MALLORY, "mallory"), (BOB, "bob")):
        assert coop_in(crew.alice, "keys", "add", who, str(keys[name].public)).code == 0
    before = tip(crew.alice)
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    newcomer = clones.clone("carol")
    sign_with(newcomer, keys["bob"])
    return Signed(crew, keys, before, newcomer), unkeyed


# -- building blocks --------------------------------------------------------------------


def fillers(content: Content, upto: int, actor: str) -> list[dict[str, Any]]:
    """Notes of `actor` on the seed todo lifting a commit's clock bound to `upto`."""
    todo = next(n for n in content if n.startswith("items/")).rsplit("/", 1)[1][:-5]
    clock = config(content).clock
    return [
        new_event(content, todo, "note", actor=actor, clock=at, text=f"f{k}")
        for k, at in enumerate(range(clock + 1, upto))
    ]


def own_key_file(s: Signed, unkeyed: str) -> tuple[str, bytes]:
    """The file of alice's `keys add` of her own key: its path and bytes."""
    keyed = added_between(s.crew.mallory, unkeyed, s.before_policy)
    return next((n, d) for n, d in keyed.items() if codec.load(d, n).get("who") == ALICE)


def remote_tip(where: Path) -> str:
    git(where, "fetch", "-q", "origin", f"+{REF}:refs/coop/attack")
    return tip(where, "refs/coop/attack")


def early_copy(s: Signed, fork: str, name: str, blob: bytes) -> tuple[str, list[str]]:
    """mallory's unsigned commit "by alice" on `fork`, adding a byte-identical copy of the
    event file `name` (notes "by alice" first, to lift the clock bound to its clock).
    The commit, and the fillers' ids."""
    mallory = s.crew.mallory
    side = files(mallory, fork)
    notes_ = fillers(side, codec.load(blob, name)["clock"], ALICE)
    for data in notes_:
        side = add_event(side, data)
    side = add_event(side, codec.load(blob, name))
    assert side[name] == blob
    made = commit(mallory, write_tree(mallory, side), [fork], ALICE)
    return made, [str(n["id"]) for n in notes_]


def copied(s: Signed, unkeyed: str, what: str) -> tuple[str, str, list[str]]:
    """mallory's early copy (on the commit before any key) of alice's start or of her own
    `keys add`: the event's id, the copy's commit, and the fillers' ids."""
    if what == "start":
        name, blob, event = start_of(files(s.crew.mallory))
    else:
        name, blob = own_key_file(s, unkeyed)
        event = event_id_of(name)
    made, fills = early_copy(s, unkeyed, name, blob)
    return event, made, fills


def keeps_it_all(where: Path, todo: str, note: str) -> None:
    """alice's policy holds, mallory is no owner, alice's key is registered, and alice's
    signed note `note` on `todo` is hers, no conflict."""
    assert believed(where) == (ROLES, True), believed(where)
    listed = coop_in(where, "keys", "list", "--json")
    assert listed.code == 0 and ALICE in listed.out, listed.out
    shown = coop_in(where, "show", todo, "--json")
    assert "alice's own words" in shown.out, shown.out
    assert note not in str(shown.json()["conflicts"]), shown.out


def refused_whole(where: Path, *fragments: str) -> None:
    """The sync is refused (exit 4) naming each fragment; the ledger as it was."""
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    for fragment in (*fragments, "the local ledger is unchanged"):
        assert fragment in synced.err, synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before


# -- an early copy, merged in as the second parent ---------------------------------------


@pytest.mark.parametrize(
    ("what", "tree", "who"),
    [
        ("start", "honest", "bob"),
        ("start", "honest", "newcomer"),
        ("start", "holds-it-out", "bob"),
        ("start", "holds-it-out", "alice"),
        ("start", "holds-it-out", "newcomer"),
        ("key", "honest", "alice"),
        ("key", "holds-it-out", "bob"),
        ("key", "holds-it-out", "newcomer"),
    ],
)
def test_an_early_copy_of_alices_start_or_key_merged_in_joins_nothing(
    signed: tuple[Signed, str], what: str, tree: str, who: str
) -> None:
    """mallory forks from the commit before any key was registered and, "by alice" and
    unsigned, adds a byte-identical copy of alice's signed start or of her own `keys add`
    (fillers "by alice" first, to reach its clock), and merges it in as the second
    parent, signed by her key. Once its coop.yaml kept the start (or the key) out, and a
    newcomer's judgement or a first `held_breakers` believed it: the policy went off,
    or alice's key and everything she signed after it. Now the copy is the file the
    merge's first parent holds: it joins nothing. Only the fillers join, unsigned under
    the policy: refused where they join. A merge whose tree holds the start or the key
    out is not the state (H3): refused whole, on bob's clone, alice's, and a newcomer's."""
    s, unkeyed = signed
    mallory = s.crew.mallory
    note, _ = alices_signed_note(s)
    event, copy, fills = copied(s, unkeyed, what)
    content = merge_content(mallory, tip(mallory), copy)
    if tree == "holds-it-out":
        content = without(content, event, tuple(fills))
        assert content["coop.yaml"] != files(mallory)["coop.yaml"]
    made = signed_merge(s, [tip(mallory), copy], content)
    where = {"bob": s.crew.victim, "alice": s.crew.alice, "newcomer": s.newcomer}[who]
    if tree == "holds-it-out":
        refused_whole(where, f"commit {made[:12]}: coop.yaml: is not the state")
        return
    synced = coop_in(where, "sync", "--json")
    assert synced.code == 0, (synced.code, synced.err)
    assert tip(where) == made
    keeps_it_all(where, s.crew.todo, note)
    found = notes(where)
    assert len(found) == len(fills) and all(any(f in n for n in found) for f in fills), found
    assert not any(event in n or note in n for n in found), found


# -- an early copy as the merge's first parent --------------------------------------------


@pytest.mark.parametrize("who", ["bob", "alice", "bob-with-local-work"])
def test_an_early_copy_of_alices_key_as_the_merges_first_parent_is_a_rewrite(
    signed: tuple[Signed, str], who: str
) -> None:
    """The copy of alice's `keys add` as the merge's FIRST parent, the tip as its second
    (once a first `held_breakers` took alice's signed note as kept out this way, on bob's
    clone, on alice's own, and on the merge path). The tip each clone took in is on the
    merge's second parent only: exit 10 (H4), nothing taken, local work kept."""
    s, unkeyed = signed
    crew, mallory = s.crew, s.crew.mallory
    note, _ = alices_signed_note(s)
    _, copy, _ = copied(s, unkeyed, "key")
    signed_merge(s, [copy, tip(mallory)], merge_content(mallory, copy, tip(mallory)))
    where = crew.alice if who == "alice" else crew.victim
    if who == "bob-with-local-work":
        assert coop_in(where, "note", crew.todo, "bob's, signed, not pushed").code == 0
    before = tip(where)
    synced = coop_in(where, "sync")
    assert synced.code == 10, (synced.code, synced.err)
    assert tip(where) == before
    keeps_it_all(where, crew.todo, note)
    if who == "bob-with-local-work":
        shown = coop_in(where, "show", crew.todo, "--json")
        assert "not pushed" in shown.out, shown.out


@pytest.mark.parametrize("tree", ["honest", "holds-them-out"])
def test_an_early_copy_of_alices_key_as_the_first_parent_keeps_her_key_for_a_newcomer(
    signed: tuple[Signed, str], tree: str
) -> None:
    """The same merge, for a first sync, which believes the remote's first-parent chain.
    The copy joins the early fork where no policy is yet, as alice's own event (it is
    hers, byte for byte): her key is registered there, and everything the tip adds joins
    after it. So the newcomer keeps alice's key, her start and her signed note, none a
    conflict. Once the merge's coop.yaml kept the key and the note out and the newcomer's
    judgement agreed; a tree that holds them out now is not the state: refused whole."""
    s, unkeyed = signed
    mallory = s.crew.mallory
    note, _ = alices_signed_note(s)
    key, copy, _ = copied(s, unkeyed, "key")
    content = merge_content(mallory, copy, tip(mallory))
    if tree == "holds-them-out":
        content = without(content, key)
    made = signed_merge(s, [copy, tip(mallory)], content)
    if tree == "holds-them-out":
        refused_whole(s.newcomer, f"commit {made[:12]}: coop.yaml: is not the state")
        return
    first = coop_in(s.newcomer, "sync")
    assert first.code == 0, first.err
    keeps_it_all(s.newcomer, s.crew.todo, note)
    assert notes(s.newcomer) == []


# -- a tree holding an authentic event out ------------------------------------------------


@pytest.mark.parametrize("target", ["signed-note", "pre-policy-take", "start", "alices-key"])
def test_a_tree_holding_an_authentic_event_out_is_refused(
    signed: tuple[Signed, str], clones: Clones, target: str
) -> None:
    """mallory's own signed commit on the tip adds a note of hers, its items and coop.yaml
    folded as if one authentic event had never joined: alice's signed note, her take from
    before the policy, her start, her key (once: listed in coop.yaml's kept-out list,
    which a clone had to judge). Its tree is not the state its first parent and its one
    note make (H3): refused whole, naming the item or coop.yaml, on the victim's clone
    and a newcomer's."""
    s, unkeyed = signed
    crew, mallory = s.crew, s.crew.mallory
    note, _ = alices_signed_note(s)
    content = files(mallory)
    take = next(
        event_id_of(n)
        for n, d in content.items()
        if crew.todo[3:] in n and n.startswith("events/") and b"verb: take" in d
    )
    event = {
        "signed-note": note,
        "pre-policy-take": take,
        "start": start_of(content)[2],
        "alices-key": event_id_of(own_key_file(s, unkeyed)[0]),
    }[target]
    mine = new_event(content, crew.todo, "note", text="x")
    changed = without(add_event(content, mine), event)
    made = commit(mallory, write_tree(mallory, changed), [tip(mallory)],
                  key=s.keys["mallory"].private)  # fmt: skip
    push(mallory, made)
    path = "coop.yaml" if target in ("start", "alices-key") else f"items/{crew.todo[3:5]}/"
    for where in (crew.victim, clones.clone("dave")):
        refused_whole(where, f"commit {made[:12]}: {path}")
    assert believed(crew.victim) == (ROLES, True)


def test_a_coop_yaml_with_a_kept_out_list_is_refused_without_checking_every_signature(
    signed: tuple[Signed, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """COST, and the list itself. mallory's signed commit brings back format 1's kept-out
    list in coop.yaml, naming an id nothing holds. `held_breakers` once judged the
    fetched tip's whole history before refusing it: every commit since the policy began
    had its signature checked by git (an ssh-keygen each), on every sync of every clone.
    Format 2 keeps no such list: the fetched coop.yaml is refused as it is read, and
    refusing it checks few signatures (here after 40 signed commits; counted by the
    commits given to `boundary/signatures.check` in the victim's one refused sync)."""
    from gitcoop.store.boundary import signatures

    s, _ = signed
    crew, mallory = s.crew, s.crew.mallory
    for k in range(40):
        assert coop_in(crew.alice, "note", crew.todo, f"signed {k}").code == 0
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    content = files(mallory)
    mine = new_event(content, crew.todo, "note", text="x")
    changed = add_event(content, mine)
    listed = {**codec.load(changed["coop.yaml"], "coop.yaml"), "kept_out": ["ev-0000000000bb"]}
    changed["coop.yaml"] = codec.dump(listed)
    key = s.keys["mallory"].private
    made = commit(mallory, write_tree(mallory, changed), [tip(mallory)], key=key)
    push(mallory, made)
    checked: list[str] = []
    real = signatures.check

    def counted(repo: Any, commits: Any, keys: Any) -> Any:
        checked.extend(commits)
        return real(repo, commits, keys)

    monkeypatch.setattr(signatures, "check", counted)
    refused_whole(crew.victim, f"commit {made[:12]}", "kept_out is a format-1 list")
    assert len(checked) <= 5, f"one refused sync checked {len(checked)} signatures"
