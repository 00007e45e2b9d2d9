"""Event ids under the signing policy, attacked by mallory (a chief with push access and a
registered key): the rules of `trust.judge` and `trust.held_breakers` that read ids.

1. A breaker's kept-out event whose id is also another file's, written before it (held
   by the local ledger, or added by an authentic commit in the breaker's history),
   refuses the fetch: an event id names one event.
2. A copy of a file is vouched for when another commit adding that very file is
   authentic: signed by its author's key, or written before the policy.
3. `held_breakers` takes an id a fetched coop.yaml keeps out as kept out here only when
   every local adder of its first file is covered and not signed by its author's key.

What must hold, on every clone: an authentic event (alice's key, her signed note, her
work from before the policy) is never kept out; the sync is refused (exit 4, the ledger
unchanged) or taken with it in.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gitcoop.store import codec
from tests.conftest import coop_in, git
from tests.hostile.forge import (
    ALICE,
    MALLORY,
    REF,
    add_event,
    commit,
    config,
    files,
    new_event,
    refolded,
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
    signed_merge,
)
from tests.hostile.test_held_breakers import (  # the fixture and the building blocks
    early_start_copy_from,
    own_key_file,
    remote_tip,
    signed,
)

__all__ = ["signed"]  # the fixture, used by name

Content = dict[str, bytes]


def union(a: Content, b: Content, kept_out: tuple[str, ...]) -> Content:
    """What an honest merge of two sides holds: every file of both, coop.yaml's clock the
    larger one, the roles, settings and items refolded less `kept_out`."""
    both = {**a, **{n: d for n, d in b.items() if n.startswith("events/")}}
    clock = max(config(a).clock, config(b).clock)
    both["coop.yaml"] = codec.dump(replace(config(both), clock=clock).to_data())
    return refolded(both, tuple(sorted(kept_out)))


def keeps_it_in(where: Path, event_id: str) -> Any:
    """The sync is refused (exit 4, the ledger as it was, none for a newcomer) or taken
    with `event_id` not kept out; alice's policy still holds and mallory is no owner."""
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync", "--json")
    if synced.code != 0:
        assert synced.code == 4, (synced.code, synced.err)
        assert "the local ledger is unchanged" in synced.err, synced.err
        assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
        if not before:
            return synced
    else:
        kept = config(files(where)).kept_out
        assert event_id not in kept, (
            f"the sync (exit 0) took a ledger keeping the authentic {event_id} out: "
            f"kept out {sorted(kept)}"
        )
    assert believed(where) == (ROLES, True), f"now believed: {believed(where)}"
    return synced


def twin_note(content: Content, todo: str, twin_id: str, clock: int) -> dict[str, Any]:
    """mallory's note on the todo carrying another event's id (another path, another blob)."""
    return new_event(content, todo, "note", clock=clock, event_id=twin_id, text="twin")


# -- rule 1: the earlier file on a concurrent branch -------------------------------------


def concurrent_twin_of_alices_note(s: Signed, second: bool) -> str:
    """alice writes a signed note and pushes it. mallory forks from the commit before it
    and, unsigned, adds a note of her own with that note's id (a filler first, so that the
    path differs from alice's); she merges both sides with her own key (the twin as the
    merge's second or first parent), her coop.yaml keeping the id out. The note's id."""
    crew, mallory = s.crew, s.crew.mallory
    assert coop_in(crew.alice, "note", crew.todo, "alice's own words").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    hers = remote_tip(mallory)
    before = git(mallory, "rev-parse", f"{hers}^").strip()
    [name] = [n for n in added_between(mallory, before, hers) if crew.todo[3:] in n]
    note = event_id_of(name)
    side = files(mallory, before)
    clock = config(side).clock
    mine = new_event(side, crew.todo, "note", clock=clock + 1, text="mine")
    side = add_event(add_event(side, mine), twin_note(side, crew.todo, note, clock + 2))
    twin = commit(mallory, write_tree(mallory, side), [before], MALLORY)
    parents = [hers, twin] if second else [twin, hers]
    signed_merge(s, parents, union(files(mallory, hers), side, (note, str(mine["id"]))))
    return note


def test_a_twin_of_alices_signed_note_on_a_concurrent_branch_is_refused_where_it_is_held(
    signed: tuple[Signed, str],
) -> None:
    """What rule 1 holds: a clone that holds alice's note (hers, and bob's once he has
    synced it) refuses the twin."""
    s, _ = signed
    note = concurrent_twin_of_alices_note(s, second=True)
    synced = keeps_it_in(s.crew.alice, note)
    named = (f"adds an event {note}, the id of", f"holds event {note} in two files")
    assert synced.code == 4 and any(n in synced.err for n in named), synced.err


@pytest.mark.parametrize("second", [True, False], ids=["twin-second", "twin-first"])
@pytest.mark.parametrize("who", ["bob-one-sync-behind", "newcomer"])
def test_a_twin_of_alices_signed_note_on_a_concurrent_branch_does_not_keep_it_out(
    signed: tuple[Signed, str], who: str, second: bool
) -> None:
    """The twin's commit is a breaker: its events are kept out by id. A first twin check
    looked for an earlier file of the id in the local ledger and in the breaker's own
    history only; alice's commit is in neither for a clone that has not synced it yet
    (bob, one sync behind) or a newcomer, which kept alice's signed note out while
    alice's clone refused the same ledger. A file beside the breaker's (on a concurrent
    branch) counts as earlier now: refused everywhere."""
    s, _ = signed
    note = concurrent_twin_of_alices_note(s, second)
    where = s.crew.victim if who == "bob-one-sync-behind" else s.newcomer
    keeps_it_in(where, note)


# -- rule 1: a twin of a pre-policy event on a fork from before it ----------------------


def early_twin(s: Signed, fork: str, twin_id: str) -> str:
    """mallory forks from `fork` (before the event `twin_id` names was written), adds,
    unsigned, a note of hers with that id (after one of her own, so that its path is
    not the event's own), and merges it in with her own key, her
    coop.yaml keeping the id out. The fork is beside alice's start: covered, broken."""
    mallory = s.crew.mallory
    side = files(mallory, fork)
    clock = config(side).clock
    mine = new_event(side, s.crew.todo, "note", clock=clock + 1, text="mine")
    side = add_event(add_event(side, mine), twin_note(side, s.crew.todo, twin_id, clock + 2))
    twin = commit(mallory, write_tree(mallory, side), [fork], MALLORY)
    now = files(mallory)
    return signed_merge(s, [tip(mallory), twin], union(now, side, (twin_id, str(mine["id"]))))


def test_a_twin_of_alices_key_event_on_a_fork_from_before_it_does_not_keep_her_key_out(
    signed: tuple[Signed, str],
) -> None:
    """The twin of alice's own `keys add` id, on a fork from before any key (so alice's
    key commit is not in the twin's history). Existing clones hold the key's file and
    refuse; a newcomer kept the id out, and alice's key with it, until a file beside the
    breaker's counted as earlier: it refuses too now."""
    s, unkeyed = signed
    key = event_id_of(own_key_file(s, unkeyed)[0])
    early_twin(s, unkeyed, key)
    refused = coop_in(s.crew.victim, "sync")
    assert refused.code == 4 and f"adds an event {key}, the id of" in refused.err, refused.err
    if keeps_it_in(s.newcomer, key).code == 0:  # taken: alice's key is there
        listed = coop_in(s.newcomer, "keys", "list", "--json")
        assert ALICE in listed.out, f"the newcomer has no key of alice's: {listed.out}"


def test_a_twin_of_alices_pre_policy_take_on_a_fork_from_before_it_does_not_keep_it_out(
    signed: tuple[Signed, str],
) -> None:
    """For a newcomer: the same with alice's take of the seed todo, written
    before the policy (its commit unsigned, before any key)."""
    s, unkeyed = signed
    crew = s.crew
    take = next(e["id"] for e in coop_in(crew.alice, "log", crew.todo, "--json").json()
                if e["verb"] == "take")  # fmt: skip
    early_twin(s, git(crew.mallory, "rev-parse", f"{unkeyed}^").strip(), take)
    keeps_it_in(s.newcomer, take)


# -- rule 3: held_breakers' "covered", widened by a copy of the start ---------------------


def held_target(s: Signed, unkeyed: str, target: str) -> tuple[str, str]:
    """The authentic event mallory's coop.yaml keeps out, and the fork before it."""
    crew = s.crew
    if target == "alices-first-key":
        return event_id_of(own_key_file(s, unkeyed)[0]), unkeyed
    take = next(e["id"] for e in coop_in(crew.alice, "log", crew.todo, "--json").json()
                if e["verb"] == "take")  # fmt: skip
    return take, git(crew.mallory, "rev-parse", f"{unkeyed}^").strip()


@pytest.mark.parametrize("who", ["bob", "alice"])
@pytest.mark.parametrize("target", ["alices-first-key", "pre-policy-take"])
def test_a_start_copy_makes_held_breakers_keep_out_alices_unsigned_pre_policy_commits(
    signed: tuple[Signed, str], target: str, who: str
) -> None:
    """On existing clones. mallory's unsigned copy of alice's start, on a
    fork from before the target (alice's first `keys add`, never signed by a key registered
    before it; or her take of the seed todo, from before any key), merged in with her own
    key, her coop.yaml keeping out the fillers and the target, but not the start. The
    clone's judgement keeps the fillers out. For the target, `held_breakers` counts every
    adder of the start, the copy's too (`_Starts(states, every, ...)`): the start's history
    shrinks to the fork, alice's commit adding the target is beside it, so "covered", and
    it is not signed by a key registered at its parent, so "broken": it was taken as kept
    out. A start has one adder now, and `held_breakers` reads the clone's own starts."""
    s, unkeyed = signed
    mallory = s.crew.mallory
    event, fork = held_target(s, unkeyed, target)
    copy, notes = early_start_copy_from(s, fork)
    now = files(mallory)
    signed_merge(s, [tip(mallory), copy], union(now, files(mallory, copy), (*notes, event)))
    keeps_it_in(s.crew.victim if who == "bob" else s.crew.alice, event)


def test_a_signed_twin_of_alices_note_is_not_taken_where_fsck_then_fails(
    signed: tuple[Signed, str],
) -> None:
    """mallory's own commit, signed by her key, adds a note of hers carrying the id of
    alice's signed note, in the same item's folder: no breaker, so no policy rule reads
    the id, and every clone took it; each clone's `fsck` then reported "event id ... is
    also used by", for good. What a sync takes, fsck must pass: an item's folder holding
    an id twice is refused where it arrives (`inbound.one_id_each`). A twin in another item's
    folder is not caught yet (docs/hardening.md)."""
    s, _ = signed
    crew, mallory = s.crew, s.crew.mallory
    note, _ = alices_signed_note(s)
    content = files(mallory)
    twin = twin_note(content, crew.todo, note, config(content).clock + 1)
    changed = add_event(content, twin)
    made = commit(mallory, write_tree(mallory, changed), [tip(mallory)],
                  key=s.keys["mallory"].private)  # fmt: skip
    git(mallory, "push", "-q", "-f", "origin", f"{made}:{REF}")
    synced = coop_in(crew.victim, "sync")
    if synced.code != 0:
        assert synced.code == 4 and "the local ledger is unchanged" in synced.err, synced.err
        return
    checked = coop_in(crew.victim, "fsck", "--full")
    assert checked.code == 0, f"sync took it (exit 0); fsck --full says: {checked.out}"


# -- cost: the twin check's walks ---------------------------------------------------------


def chain_of_twins(where: Path, under: str, todo: str, twin_id: str, count: int) -> str:
    """`count` unsigned commits of mallory's, one on the other, each adding with the same
    id `twin_id` the `add` of a todo of its own (each another item: one folder holding an
    id twice is refused where it arrives), coop.yaml's clock moved along; built with
    pygit2 (one new tree path per commit). The last one."""
    import pygit2

    repo = pygit2.Repository(str(where))
    sig = pygit2.Signature(MALLORY, MALLORY)
    parent = pygit2.Oid(hex=under)
    content = files(where, under)
    clock = config(content).clock
    for k in range(1, count + 1):
        index = pygit2.Index()
        index.read_tree(repo[parent].peel(pygit2.Tree))
        item = f"td-{k:04d}{todo[7:]}"  # (digits: a valid id, its own fan-out folder)
        data = new_event(
            content, item, "add", clock=clock + k, event_id=twin_id, kind="todo", title="t"
        )
        path = f"events/{item[3:5]}/{item}/{clock + k:012d}-{twin_id}.yaml"
        blob = repo.create_blob(codec.dump(data))
        index.add(pygit2.IndexEntry(path, blob, pygit2.enums.FileMode.BLOB))
        settings = replace(config(content), clock=clock + k)
        yaml = repo.create_blob(codec.dump(settings.to_data()))
        index.add(pygit2.IndexEntry("coop.yaml", yaml, pygit2.enums.FileMode.BLOB))
        parent = repo.create_commit(None, sig, sig, "work", index.write_tree(repo), [parent])
    return str(parent)


def test_a_chain_of_unsigned_twins_does_not_cost_a_walk_per_pair(
    signed: tuple[Signed, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """COST. mallory pushes 150 unsigned commits, each adding a todo of hers with one
    event id (150 files of it, in 150 folders), and one signed commit on top keeping the
    id out. Each breaker's kept-out id sent `twin` through every other adder of it: an
    ancestry test per pair, 150 x 150 here, on the sync of every clone. Measured by the
    ancestry tests and history walks of the victim's one sync."""
    from gitcoop.store import repository

    s, _ = signed
    crew, mallory = s.crew, s.crew.mallory
    count, twin_id = 150, "ev-tttttttttttt"
    last = chain_of_twins(mallory, tip(mallory), crew.todo, twin_id, count)
    content = files(mallory, last)
    mine = new_event(content, crew.todo, "note", event_id="ev-mmmmmmmmmmmm", text="x")
    changed = refolded(add_event(content, mine), (twin_id,))
    made = commit(mallory, write_tree(mallory, changed), [last], key=s.keys["mallory"].private)
    git(mallory, "push", "-q", "-f", "origin", f"{made}:{REF}")
    walks: list[str] = []
    real, walked = repository.Repo.is_ancestor, repository.Repo.ancestors

    def counted(self: Any, ancestor: Any, descendant: Any) -> bool:
        walks.append(descendant)
        return real(self, ancestor, descendant)

    def counted_walk(self: Any, commit: Any) -> Any:
        walks.append(commit)
        return walked(self, commit)

    monkeypatch.setattr(repository.Repo, "is_ancestor", counted)
    monkeypatch.setattr(repository.Repo, "ancestors", counted_walk)
    synced = coop_in(crew.victim, "sync", "--json")
    if synced.code == 0:
        assert twin_id in synced.json()["kept_out"], synced.out
    else:
        assert synced.code == 4 and "the local ledger is unchanged" in synced.err, synced.err
    assert len(walks) <= 4 * count, f"one sync made {len(walks)} ancestry tests for {count} commits"
