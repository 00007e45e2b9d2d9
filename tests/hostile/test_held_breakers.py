"""`trust.held_breakers`, attacked by mallory (a chief, with push access and a registered key).

A clone judges only the commits it fetches. When a fetched coop.yaml keeps out an event
this clone's own judgement does not, `held_breakers` takes it as kept out when every
commit of the local history adding the first file of its id broke the policy, judged as
this clone judges (a first version trusted a newcomer's judgement of the fetched
history, which these attacks fooled). mallory attacks what that reads: copies of alice's
start and key on early forks, event ids, and which commits the two histories hold. What must
hold: an authentic event (alice's start, her key, her signed note) is never kept out on
the victim's clone, which either refuses the sync (exit 4, its ledger unchanged) or takes
it with the authentic event in.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from gitcoop.store import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    BOB,
    MALLORY,
    REF,
    Team,
    add_event,
    commit,
    config,
    files,
    new_event,
    push,
    refolded,
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
    forged_owner,
    keyed_team,
    signed_merge,
    start_of,
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
    made = []
    for k, at in enumerate(range(clock + 1, upto)):
        made.append(
            new_event(
                content, todo, "note", actor=actor, clock=at, event_id=f"ev-zz{k:010d}", text="f"
            )
        )
    return made


def own_key_file(s: Signed, unkeyed: str) -> tuple[str, bytes]:
    """The file of alice's `keys add` of her own key: its path and bytes."""
    keyed = added_between(s.crew.mallory, unkeyed, s.before_policy)
    return next((n, d) for n, d in keyed.items() if codec.load(d, n).get("who") == ALICE)


def victim_keeps_it_in(where: Path, event_id: str, before: str | None = None) -> Any:
    """The sync is refused (exit 4, the ledger unchanged) or taken with `event_id` not kept
    out; either way alice's policy still holds and mallory is no owner."""
    before = tip(where) if before is None else before
    synced = coop_in(where, "sync", "--json")
    if synced.code != 0:
        assert synced.code == 4, (synced.code, synced.err)
        assert "the local ledger is unchanged" in synced.err, synced.err
        assert tip(where) == before
    else:
        assert event_id not in synced.json().get("kept_out", []), (
            f"the victim's sync took a ledger keeping {event_id} out: {synced.out.strip()}"
        )
        kept = config(files(where)).kept_out
        assert event_id not in kept, f"the victim now keeps {event_id} out: {kept}"
    assert believed(where) == (ROLES, True), (
        f"the victim now believes {believed(where)} (sync exit {synced.code})"
    )
    return synced


# -- the newcomer's judgement, widened by a copy of the start on an early fork ----------


def early_start_copy(s: Signed, unkeyed: str) -> tuple[str, list[str]]:
    """mallory forks from the commit before any key was registered and, "by alice" and
    unsigned, adds a byte-identical copy of alice's signed start (notes first, to lift the
    clock bound to the start's clock). Every adder of the start counts in `_Starts`, so
    the start's history is what its adders share: the fork point. alice's key additions,
    after the fork, are beside the start in a newcomer's judgement: covered, and broken
    (her key is not registered at the parent of the commit registering it), so her key is
    kept out, and with it her start. The copy's commit and the filler events' ids."""
    return early_start_copy_from(s, unkeyed)


def early_start_copy_from(s: Signed, fork: str) -> tuple[str, list[str]]:
    """`early_start_copy` from any fork: mallory's unsigned copy "by alice" of alice's start
    (fillers first, to reach its clock). The commit, and the fillers' ids."""
    mallory = s.crew.mallory
    name, blob, _ = start_of(files(mallory))
    side = files(mallory, fork)
    notes = fillers(side, codec.load(blob, name)["clock"], ALICE)
    for data in notes:
        side = add_event(side, data)
    side = add_event(side, codec.load(blob, name))
    assert side[name] == blob
    return commit(mallory, write_tree(mallory, side), [fork], ALICE), [str(n["id"]) for n in notes]


@pytest.mark.parametrize("who", ["bob", "alice"])
@pytest.mark.parametrize("listed", ["all-a-newcomer-keeps-out", "the-start-and-the-fillers"])
def test_a_copy_of_the_start_forked_before_the_keys_does_not_turn_the_policy_off_on_the_victim(
    signed: tuple[Signed, str], listed: str, who: str
) -> None:
    """mallory's early copy of alice's start (`early_start_copy`), merged in, its coop.yaml
    keeping out the start and the fillers (and alice's key additions, all a newcomer's
    judgement keeps out). A first version of `held_breakers` trusted that judgement:
    every local commit adding them was "found broken", so a clone holding alice's own
    signed commits (bob's, or alice's own) took the ledger with the policy off. Judged
    as the clone judges, alice's commits are signed with keys registered at their
    parents: refused."""
    s, unkeyed = signed
    crew, mallory = s.crew, s.crew.mallory
    now = files(mallory)
    _, _, start = start_of(now)
    copy, notes = early_start_copy(s, unkeyed)
    keys = [event_id_of(n) for n in added_between(mallory, unkeyed, s.before_policy)]
    kept = [*notes, start] + (keys if listed == "all-a-newcomer-keeps-out" else [])
    union = {**now, **added_between(mallory, tip(mallory), copy)}
    signed_merge(s, [tip(mallory), copy], refolded(union, tuple(sorted(kept))))
    victim_keeps_it_in(crew.victim if who == "bob" else crew.alice, start)


def test_a_copy_of_the_start_forked_before_the_keys_does_not_turn_the_policy_off_for_a_newcomer(
    signed: tuple[Signed, str],
) -> None:
    """The same ledger, listing all a newcomer's judgement kept out, for a first sync: while
    every adder of a start counted, the copy shrank the start's history to the fork
    point, and the newcomer took it with alice's start and keys kept out. A start has one
    adder: the copy refuses."""
    s, unkeyed = signed
    mallory = s.crew.mallory
    now = files(mallory)
    _, _, start = start_of(now)
    copy, notes = early_start_copy(s, unkeyed)
    keys = [event_id_of(n) for n in added_between(mallory, unkeyed, s.before_policy)]
    union = {**now, **added_between(mallory, tip(mallory), copy)}
    signed_merge(s, [tip(mallory), copy], refolded(union, tuple(sorted([*notes, start, *keys]))))
    first = coop_in(s.newcomer, "sync", "--json")
    if first.code != 0:
        assert first.code == 4 and "the local ledger is unchanged" in first.err, first.err
        return
    assert start not in first.json()["kept_out"], first.out
    assert believed(s.newcomer) == (ROLES, True), believed(s.newcomer)


def test_after_the_early_start_copy_a_forged_owner_by_alice_is_not_believed(
    signed: tuple[Signed, str],
) -> None:
    """The consequence of the one above, had the victim taken it: mallory's next commit
    "by alice", unsigned, making mallory an owner, must not count (both syncs refused)."""
    s, unkeyed = signed
    crew, mallory = s.crew, s.crew.mallory
    now = files(mallory)
    _, _, start = start_of(now)
    copy, notes = early_start_copy(s, unkeyed)
    union = {**now, **added_between(mallory, tip(mallory), copy)}
    signed_merge(s, [tip(mallory), copy], refolded(union, tuple(sorted([*notes, start]))))
    coop_in(crew.victim, "sync")
    content = files(mallory)
    forged = forged_owner(content)
    forging = refolded(add_event(content, forged), tuple(config(content).kept_out))
    push(mallory, commit(mallory, write_tree(mallory, forging), [tip(mallory)], ALICE))
    coop_in(crew.victim, "sync")
    roles = coop_in(crew.victim, "roles", "--json").json()
    assert MALLORY not in roles["owners"], f"the victim now folds mallory an owner: {roles}"


# -- the newcomer's judgement, with no local file to vouch for a copy -------------------


@pytest.mark.parametrize(
    "case", ["side-second", "side-first", "side-first-alice", "side-first-local-work"]
)
def test_a_copy_of_alices_key_event_on_an_early_fork_does_not_keep_her_signed_note_out(
    signed: tuple[Signed, str], case: str
) -> None:
    """mallory forks from the commit before alice registered her key and, "by alice" and
    unsigned, adds a byte-identical copy of that `keys add` file; she merges it in with
    her own key (the copy as either parent of the merge), her coop.yaml keeping out
    alice's signed note written after the policy. The victim's judgement vouches for the
    copy (its ledger holds that very file): nothing kept out. A newcomer's, before alice's
    own commit adding the key could vouch for copies of it, kept the key out, and so
    alice's note: a first `held_breakers`, trusting it, took the note as kept out on
    bob's clone, on alice's own, and on the merge path. Refused on every path now."""
    s, unkeyed = signed
    crew, mallory = s.crew, s.crew.mallory
    note, _ = alices_signed_note(s)
    name, blob = own_key_file(s, unkeyed)
    side = add_event(files(mallory, unkeyed), codec.load(blob, name))
    assert side[name] == blob
    copy = commit(mallory, write_tree(mallory, side), [unkeyed], ALICE)
    parents = [tip(mallory), copy] if case == "side-second" else [copy, tip(mallory)]
    signed_merge(s, parents, refolded(files(mallory), (note,)))
    where = crew.alice if case == "side-first-alice" else crew.victim
    if case == "side-first-local-work":
        assert coop_in(where, "note", crew.todo, "bob's, signed, not pushed").code == 0
    victim_keeps_it_in(where, note)
    shown = coop_in(where, "show", crew.todo, "--json")
    assert "alice's own words" in shown.out, shown.out


def test_a_copy_of_alices_key_event_on_an_early_fork_does_not_keep_her_key_out_for_a_newcomer(
    signed: tuple[Signed, str],
) -> None:
    """Held since a copy of a file a commit wrote before the policy is vouched for by it
    (`judge`: alice's commit adding her first key is authentic by its place, though never
    signed by a key registered before it). The same copy, the merge's coop.yaml
    keeping out alice's key and her signed note, for a first sync: what the newcomer's
    judgement (the one `held_breakers` trusts) makes of it: both kept out."""
    s, unkeyed = signed
    mallory = s.crew.mallory
    note, _ = alices_signed_note(s)
    name, blob = own_key_file(s, unkeyed)
    side = add_event(files(mallory, unkeyed), codec.load(blob, name))
    copy = commit(mallory, write_tree(mallory, side), [unkeyed], ALICE)
    kept = tuple(sorted((note, event_id_of(name))))
    signed_merge(s, [copy, tip(mallory)], refolded(files(mallory), kept))
    first = coop_in(s.newcomer, "sync", "--json")
    if first.code != 0:
        assert first.code == 4 and "the local ledger is unchanged" in first.err, first.err
        return
    assert not set(kept) & set(first.json()["kept_out"]), first.out


# -- the author of the kept-out work ----------------------------------------------------


def bobs_offline_note(clones: Clones, tmp_path: Path) -> tuple[Team, Any, str]:
    """bob writes a note offline and unsigned on the commit before alice turns require_signed
    on; his sync merges her start and pushes it (tests/hostile/test_policy_starts.py,
    `test_unsigned_work_forked_before_the_policy_is_kept_out_and_its_author_still_syncs`).
    The team, the keys, and the note's event id."""
    crew, keys = keyed_team(clones, tmp_path)
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    git(crew.victim, "config", "coop.sign", "false")
    assert coop_in(crew.victim, "note", crew.todo, "offline, unsigned").code == 0
    note = coop_in(crew.victim, "log", crew.todo, "--json").json()[-1]["id"]
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.victim, "sync").code == 0  # merges alice's start, pushes his note
    git(crew.victim, "config", "coop.sign", "true")
    return crew, keys, note


def remote_tip(where: Path) -> str:
    git(where, "fetch", "-q", "origin", f"+{REF}:refs/coop/attack")
    return tip(where, "refs/coop/attack")


def test_a_signed_twin_of_bobs_kept_out_note_does_not_stop_his_syncs_for_good(
    clones: Clones, tmp_path: Path
) -> None:
    """LIVENESS. As soon as bob pushes his offline note, mallory pushes a todo of her own,
    signed by her key, its `add` carrying the note's event id (another item's folder: one
    folder holding an id twice is refused where it arrives, another item's is not yet).
    bob syncs it (a fast-forward: good). alice's sync then keeps bob's note's id out, and
    mallory's later twin with it. bob's next sync meets that coop.yaml: his local history
    adds the id twice, in his unsigned commit and in mallory's good one after it. The id
    is its first file's (`trust._first_files`): his commit broke the policy, so he keeps
    it out too, and syncs on, where a refusal would have come back at mallory's will."""
    crew, keys, note = bobs_offline_note(clones, tmp_path)
    mallory = crew.mallory
    under = remote_tip(mallory)
    content = files(mallory, under)
    hers = "td-mmmmmmmmmmmm"
    twin = new_event(content, hers, "add", event_id=note, kind="todo", title="twin")
    changed = refolded(add_event(content, twin))
    made = commit(mallory, write_tree(mallory, changed), [under], key=keys["mallory"].private)
    push(mallory, made)
    assert coop_in(crew.victim, "sync").code == 0  # bob takes mallory's signed commit
    kept = coop_in(crew.alice, "sync", "--json")
    assert kept.code == 0, kept.err
    assert note in kept.json()["kept_out"], kept.out
    again = coop_in(crew.victim, "sync", "--json")
    assert again.code == 0, f"bob's next sync: {again.err.strip()}"
    assert note in again.json()["kept_out"], again.out
    assert tip(crew.victim) == tip(crew.alice)


# -- cost ---------------------------------------------------------------------------------


def test_a_coop_yaml_keeping_out_an_unknown_id_does_not_check_every_signature_of_the_history(
    signed: tuple[Signed, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """COST. mallory's signed commit lists, in coop.yaml, an id nothing holds. Refusing it
    needs only the fetched commit; `held_breakers` first judges the fetched tip's whole
    history as a newcomer would: every commit since the policy began has its signature
    checked by git (an ssh-keygen each), on every sync of every clone, for as long as
    the remote holds it. Here 40 signed commits; measured by the commits given to
    `signatures.check` in the victim's one (refused) sync."""
    from gitcoop.store import signatures

    s, _ = signed
    crew, mallory = s.crew, s.crew.mallory
    for k in range(40):
        assert coop_in(crew.alice, "note", crew.todo, f"signed {k}").code == 0
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    content = files(mallory)
    mine = new_event(content, crew.todo, "note", event_id="ev-mmmmmmmmmmmm", text="x")
    changed = refolded(add_event(content, mine), ("ev-0000000000bb",))
    key = s.keys["mallory"].private
    push(mallory, commit(mallory, write_tree(mallory, changed), [tip(mallory)], key=key))
    checked: list[str] = []
    real = signatures.check

    def counted(repo: Any, commits: Any, keys: Any) -> Any:
        checked.extend(commits)
        return real(repo, commits, keys)

    monkeypatch.setattr(signatures, "check", counted)
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 4 and "keeps ev-0000000000bb out" in synced.err, synced.err
    assert tip(crew.victim) == before
    assert len(checked) <= 5, f"one refused sync checked {len(checked)} signatures"


# -- what the rule does hold --------------------------------------------------------------


@pytest.mark.parametrize("target", ["signed-note", "pre-policy-take", "start", "alices-key"])
def test_a_coop_yaml_keeping_out_an_authentic_event_with_nothing_broken_is_refused(
    signed: tuple[Signed, str], target: str
) -> None:
    """mallory's own signed commit on the tip lists one authentic event as kept out:
    alice's signed note, her take from before the policy (linear history: not beside any
    start), her start, her key. A newcomer's judgement of that history keeps none of them
    out, so `held_breakers` takes none: refused, the ledger unchanged."""
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
    mine = new_event(content, crew.todo, "note", event_id="ev-mmmmmmmmmmmm", text="x")
    changed = refolded(add_event(content, mine), (event,))
    push(mallory, commit(mallory, write_tree(mallory, changed), [tip(mallory)],
                         key=s.keys["mallory"].private))  # fmt: skip
    synced = victim_keeps_it_in(crew.victim, event)
    assert synced.code == 4 and f"keeps {event} out" in synced.err, synced.err


def test_bobs_kept_out_note_with_alices_signed_note_beside_it_is_refused(
    clones: Clones, tmp_path: Path
) -> None:
    """bob's offline note is kept out by alice, as it should be; mallory's signed
    commit on alice's keep-out also lists alice's signed note. bob's clone takes his own
    note as kept out (`held_breakers`) but not alice's: refused."""
    crew, keys, note = bobs_offline_note(clones, tmp_path)
    assert coop_in(crew.victim, "note", crew.todo, "again, signed").code == 0
    assert coop_in(crew.victim, "sync").code == 0
    assert coop_in(crew.alice, "note", crew.todo, "alice's own words").code == 0
    kept = coop_in(crew.alice, "sync", "--json")
    assert kept.code == 0 and note in kept.json()["kept_out"], kept.out
    hers = coop_in(crew.alice, "log", crew.todo, "--json").json()
    alices = next(e["id"] for e in hers if e.get("text") == "alice's own words")
    mallory = crew.mallory
    under = remote_tip(mallory)
    content = files(mallory, under)
    mine = new_event(content, crew.todo, "note", event_id="ev-mmmmmmmmmmmm", text="x")
    changed = refolded(add_event(content, mine), tuple(sorted((note, alices))))
    push(mallory, commit(mallory, write_tree(mallory, changed), [under],
                         key=keys["mallory"].private))  # fmt: skip
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync", "--json")
    assert synced.code == 4 and f"keeps {alices} out" in synced.err, synced.err
    assert tip(crew.victim) == before


# -- outside held_breakers: fails before the change too ------------------------------------


def test_a_twin_of_alices_key_event_in_an_unsigned_commit_does_not_keep_her_key_out(
    signed: tuple[Signed, str],
) -> None:
    """Nothing makes an event id unique across files, and a breaker's events are kept out
    by id. mallory's unsigned commit adds a note of her own on the todo with the id of
    alice's `keys add` for her own key; her signed commit on top keeps that id out. Were
    the twin's id kept out, alice's key would fold out with it: alice's signed work after
    would be "signed by a key not registered to alice" everywhere. Neither can the twin
    be taken (it is unsigned under the policy): the sync is refused, naming it, on every
    clone, alice's own too, and her key stays."""
    s, unkeyed = signed
    crew, mallory = s.crew, s.crew.mallory
    twin_id = event_id_of(own_key_file(s, unkeyed)[0])
    content = files(mallory)
    twin = new_event(content, crew.todo, "note", event_id=twin_id, text="twin")
    content = add_event(content, twin)
    bad = commit(mallory, write_tree(mallory, content), [tip(mallory)], MALLORY)
    mine = new_event(content, crew.todo, "note", event_id="ev-mmmmmmmmmmmm", text="x")
    content = refolded(add_event(content, mine), (twin_id,))
    made = commit(mallory, write_tree(mallory, content), [bad], key=s.keys["mallory"].private)
    push(mallory, made)
    victim_keeps_it_in(crew.victim, twin_id)
    assert coop_in(crew.alice, "note", crew.todo, "alice, signed, after").code == 0
    victim_keeps_it_in(crew.alice, twin_id)
    for where in (crew.victim, crew.alice, s.newcomer):
        refused = coop_in(where, "sync")
        assert refused.code == 4 and f"adds an event {twin_id}, the id of" in refused.err, (
            refused.err
        )
