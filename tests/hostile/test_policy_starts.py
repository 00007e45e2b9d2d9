"""Where the signing policy starts (`trust._Starts`), attacked by a peer with push access.

A commit whose parent's ledger does not require signing is still covered when a
`require_signed true` of the tip's ledger is "beside" it: not held at its parent,
and not added by commits that all have it in their history (a side branch forked
before the policy and merged in after). mallory attacks what that rule reads: the
event ids its parent holds, which starts the tip holds, who added them, and which
side of a merge holds them. What must hold: no forgery "by alice" without alice's
signature counts, alice's own start is never kept out, and honest teams (all
signing, or with no policy at all) sync cleanly on every path.
"""

from __future__ import annotations

import subprocess
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from gitcoop.domain import rulebook
from gitcoop.store import codec
from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    MALLORY,
    REF,
    _events_raw,
    add_event,
    commit,
    config,
    files,
    mktree,
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
    alices_signed_note,
    believed,
    forged_owner,
    keyed_team,
    not_believed,
    signed_merge,
    signed_team,
    start_of,
)

Content = dict[str, bytes]


@pytest.fixture
def signed(clones: Clones, tmp_path: Path) -> Signed:
    return signed_team(clones, tmp_path)


# -- an attacker's building blocks ------------------------------------------------------


# -- a copy of alice's start ------------------------------------------------------------


@pytest.mark.parametrize("path", ["fast-forward", "first-sync"])
def test_a_copy_of_alices_start_in_an_unsigned_side_commit_does_not_turn_the_policy_off(
    signed: Signed, path: str
) -> None:
    """mallory forks from the commit before the policy and, "by alice" and unsigned, adds
    a byte-for-byte copy of alice's own signed `require_signed true` (same name, same
    blob), then her forged `roles add owner mallory` on top. The side commit holding the
    copy is beside the start, so covered, and broken; what it broke is kept out by id,
    and its id is the start's own: alice's start is kept out with it, the ledger stops
    requiring signatures, and the forgery on top is uncovered. mallory's merge lists the
    start as kept out (the fold without it: no policy, mallory an owner)."""
    mallory = signed.crew.mallory
    content = files(mallory, signed.before_policy)
    name, blob, start = start_of(files(mallory))
    copied = {**content, name: blob}
    copied = refolded({**copied, "coop.yaml": files(mallory)["coop.yaml"]})
    first = commit(mallory, write_tree(mallory, copied), [signed.before_policy], ALICE)
    forged = forged_owner(copied)
    second = commit(mallory, write_tree(mallory, add_event(copied, forged)), [first], ALICE)
    union = add_event(files(mallory), forged)
    signed_merge(signed, [tip(mallory), second], refolded(union, (start,)))
    where = signed.newcomer if path == "first-sync" else signed.crew.victim
    not_believed(where, first, str(forged["id"]))


# -- the victim makes the merge ---------------------------------------------------------


@pytest.mark.parametrize("local_work", [False, True])
def test_unsigned_work_forked_before_the_policy_pushed_alone_is_not_believed(
    signed: Signed, local_work: bool
) -> None:
    """mallory makes no merge: she force-pushes her side commit "by alice" (forked from the
    commit before the policy, unsigned, `roles add owner mallory`) as the ledger itself.
    The victim holds alice's start; the fetched tip does not, so `_Starts` (which reads
    the starts of the fetched tip only) finds none beside the side commit, and its parent
    does not require signing: uncovered. The victim's own merge then folds the forgery
    into the roles."""
    crew = signed.crew
    mallory = crew.mallory
    content = files(mallory, signed.before_policy)
    forged = forged_owner(content)
    side = commit(
        mallory, write_tree(mallory, add_event(content, forged)), [signed.before_policy], ALICE
    )
    push(mallory, side)
    if local_work:
        assert coop_in(crew.victim, "note", crew.todo, "local work").code == 0
    not_believed(crew.victim, side, str(forged["id"]))


def test_a_side_pushed_alone_with_another_file_of_the_starts_name_is_refused(
    signed: Signed,
) -> None:
    """The same way in, the side commit also holding a file of the very name of alice's
    start with other content (`require_signed false`): refused, naming the side commit
    (covered: beside the start the victim holds) or the two files of one name."""
    crew = signed.crew
    mallory = crew.mallory
    name, blob, _ = start_of(files(mallory))
    content = files(mallory, signed.before_policy)
    other = codec.load(blob, name)
    other["value"] = False
    content = add_event(content, other)
    assert name in content and content[name] != blob
    forged = forged_owner(content)
    side = commit(
        mallory, write_tree(mallory, add_event(content, forged)), [signed.before_policy], ALICE
    )
    push(mallory, side)
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 4, synced.err
    differs = f"{name}: differs from the local event of the same name"
    named = (
        f"commit {side[:12]}: no signature",
        f"commit {side[:12]}: adds an event",
        f"commit {side[:12]}: adds {name}, the policy's start",
    )
    assert differs in synced.err or any(n in synced.err for n in named), synced.err
    assert tip(crew.victim) == before
    assert believed(crew.victim) == (ROLES, True)


# -- an event of the start's id ---------------------------------------------------------


@pytest.mark.parametrize("path", ["fast-forward", "first-sync"])
def test_an_event_of_mallorys_own_with_the_starts_id_does_not_uncover_a_side_branch(
    signed: Signed, path: str
) -> None:
    """Whether a commit's parent "holds" a start is asked by event id, and nothing makes an
    id unique across files: mallory forks from the commit before the policy, and in a
    commit signed by her own key (covered as beside the start, and good) adds two config
    events of her own (refused by the fold: she is no owner), the second with the id of
    alice's start under another clock, so another file name. Her next side commit, "by
    alice" and unsigned, holds the forged owner: its parent holds the start's id, so no
    start is beside it, and its parent does not require signing."""
    crew = signed.crew
    mallory = crew.mallory
    _, _, start = start_of(files(mallory))
    content = files(mallory, signed.before_policy)
    clock = config(content).clock
    filler = new_event(
        content, LEDGER, "config", clock=clock + 1, event_id="ev-aaaaaaaaaaaa",
        key="topup_size", value=7,
    )  # fmt: skip
    twin = new_event(
        content, LEDGER, "config", clock=clock + 2, event_id=start, key="topup_size", value=8
    )
    mine = add_event(add_event(content, filler), twin)
    assert config(mine).settings == config(content).settings  # both refused: no owner's
    first = commit(
        mallory,
        write_tree(mallory, mine),
        [signed.before_policy],
        key=signed.keys["mallory"].private,
    )
    forged = forged_owner(mine)
    second = commit(mallory, write_tree(mallory, add_event(mine, forged)), [first], ALICE)
    union = add_event(add_event(add_event(files(mallory), filler), twin), forged)
    signed_merge(signed, [tip(mallory), second], refolded(union))
    where = signed.newcomer if path == "first-sync" else crew.victim
    not_believed(where, second, str(forged["id"]))


# -- starts nobody counts ---------------------------------------------------------------


def test_a_start_nobody_counts_does_not_cover_honest_work_in_a_ledger_with_no_policy(
    clones: Clones, tmp_path: Path
) -> None:
    """No keys, no policy: nobody signs. mallory (a chief) pushes a `config require_signed
    true` of her own, which the fold refuses (only owners change settings): the ledger
    still requires nothing. bob's unsigned note, written before he fetched it, is merged
    and pushed as any honest work is. `_Starts` takes every `require_signed true`,
    counted or not, so to alice (who holds mallory's start) and to a newcomer bob's note
    is beside a start: covered, unsigned, and with nothing good beside it, refused. Every
    clone but bob's can then never sync again."""
    crew = team(clones, tmp_path)
    assert coop_in(crew.victim, "note", crew.todo, "offline work").code == 0
    mallory = crew.mallory
    content = files(mallory)
    uncounted = new_event(
        content, LEDGER, "config", event_id="ev-ssssssssssss", key="require_signed", value=True
    )
    changed = add_event(content, uncounted)
    assert "require_signed" not in config(changed).settings  # refused: mallory is no owner
    push(mallory, commit(mallory, write_tree(mallory, changed), [tip(mallory)], MALLORY))
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.victim, "sync").code == 0  # bob merges and pushes
    synced = coop_in(crew.alice, "sync")
    assert synced.code == 0, f"alice's sync of bob's honest merge: {synced.err.strip()}"
    fresh = clones.clone("carol")
    first = coop_in(fresh, "sync")
    assert first.code == 0, f"a newcomer's first sync: {first.err.strip()}"
    checked = coop_in(crew.alice, "fsck", "--full")  # lists mallory's refused change only
    assert "[signature]" not in checked.out, checked.out


# -- side branches the start does cover -------------------------------------------------


def side_before_policy(s: Signed, *events: dict[str, Any]) -> list[str]:
    """Unsigned commits "by alice" on the commit before the policy, one per event, each
    adding it; their ids."""
    mallory = s.crew.mallory
    content, made = files(mallory, s.before_policy), [s.before_policy]
    for data in events:
        content = add_event(content, data)
        made.append(commit(mallory, write_tree(mallory, content), [made[-1]], ALICE))
    return made[1:]


@pytest.mark.parametrize("path", ["fast-forward", "first-sync"])
def test_a_side_branch_merged_in_as_the_first_parent_is_still_covered(
    signed: Signed, path: str
) -> None:
    """Passes: the merge's first parent is mallory's side commit (forked before the policy),
    its second the tip holding the start; the side is still beside the start."""
    mallory = signed.crew.mallory
    forged = forged_owner(files(mallory, signed.before_policy))
    [side] = side_before_policy(signed, forged)
    signed_merge(signed, [side, tip(mallory)], add_event(files(mallory), forged))
    where = signed.newcomer if path == "first-sync" else signed.crew.victim
    not_believed(where, side, str(forged["id"]))


def test_a_forged_second_start_on_the_side_branch_vouches_for_nothing(signed: Signed) -> None:
    """Passes: the side's first commit, "by alice" and unsigned, adds a `require_signed
    true` of its own (a start that commit did add, so not beside it), then the forged
    owner; alice's own start is still beside both."""
    mallory = signed.crew.mallory
    content = files(mallory, signed.before_policy)
    second = new_event(
        content, LEDGER, "config", actor=ALICE, event_id="ev-gggggggggggg",
        key="require_signed", value=True,
    )  # fmt: skip
    forged = forged_owner(add_event(content, second))
    first, side = side_before_policy(signed, second, forged)
    union = add_event(add_event(files(mallory), second), forged)
    signed_merge(signed, [tip(mallory), side], union)
    not_believed(signed.crew.victim, first, str(forged["id"]))


def test_a_side_branch_forked_while_the_policy_was_off_is_covered_once_it_is_on_again(
    signed: Signed, clones: Clones
) -> None:
    """Passes: alice turns the policy off, bob writes an unsigned note (honest: nothing
    requires a signature then), and alice turns it on again. mallory forks from bob's note
    (policy off there) and merges her unsigned "alice" owner in: the second start is
    beside it. bob's own note in the gap is before the second start and after the first's
    end, so a newcomer takes the honest history with nothing kept out."""
    crew = signed.crew
    assert coop_in(crew.alice, "config", "require_signed", "false").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.victim, "sync").code == 0
    git(crew.victim, "config", "coop.sign", "false")
    assert coop_in(crew.victim, "note", crew.todo, "unsigned, in the gap").code == 0
    gap = tip(crew.victim)
    assert not git(crew.victim, "cat-file", "commit", gap).count("gpgsig")
    assert coop_in(crew.victim, "sync").code == 0
    git(crew.victim, "config", "coop.sign", "true")
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    honest = coop_in(clones.clone("erin"), "sync", "--json")
    assert honest.code == 0 and honest.json()["kept_out"] == [], honest.err
    mallory = crew.mallory
    content = files(mallory, gap)
    forged = forged_owner(content)
    side = commit(mallory, write_tree(mallory, add_event(content, forged)), [gap], ALICE)
    signed_merge(signed, [tip(mallory), side], add_event(files(mallory), forged))
    not_believed(crew.victim, side, str(forged["id"]))
    not_believed(signed.newcomer, side, str(forged["id"]))


# -- what a kept-out commit leaves ------------------------------------------------------


def test_an_unsigned_add_kept_out_under_a_signed_note_leaves_a_ledger_every_clone_takes(
    signed: Signed,
) -> None:
    """mallory's unsigned commit adds a todo of her own; her next, signed, adds a note on it.
    The victim keeps the `add` out (good and bad mixed) in a commit of its own on top,
    which folds the todo to no item and drops its file, while the signed note stays in
    its folder: an event folder of no item whose events are not all kept out, what fsck
    calls broken and what `_check_tip` now refuses. So the victim's own keep-out commit
    fails its fsck, and every clone that syncs it is refused (exit 4) from then on."""
    crew = signed.crew
    mallory = crew.mallory
    content = files(mallory)
    todo = "td-kkkkkkkkkkkk"
    added = new_event(content, todo, "add", event_id="ev-kkkkkkkkkkkk", kind="todo", title="mine")
    content = add_event(content, added)
    bad = commit(mallory, write_tree(mallory, content), [tip(mallory)], MALLORY)
    note = new_event(content, todo, "note", event_id="ev-nnnnnnnnnnnn", text="signed")
    content = add_event(content, note)
    push(
        mallory,
        commit(mallory, write_tree(mallory, content), [bad], key=signed.keys["mallory"].private),
    )
    before = tip(crew.victim)
    synced = coop_in(crew.victim, "sync", "--json")
    if synced.code != 0:  # refusing the whole push is a fix too
        assert synced.code == 4 and "the local ledger is unchanged" in synced.err, synced.err
        assert tip(crew.victim) == before
        return
    assert "ev-kkkkkkkkkkkk" in synced.json()["kept_out"], synced.out
    checked = coop_in(crew.victim, "fsck", "--full")
    assert checked.code == 0, f"the victim's own keep-out commit: {checked.out.strip()[:300]}"
    others = coop_in(crew.alice, "sync")
    assert others.code == 0, f"alice syncing the victim's ledger: {others.err.strip()}"


# -- honest teams -----------------------------------------------------------------------


def cleanly(where: Path) -> None:
    """A sync that takes everything and keeps nothing out, then a clean fsck --full."""
    synced = coop_in(where, "sync", "--json")
    assert synced.code == 0, synced.err
    assert synced.json()["kept_out"] == [], synced.out
    checked = coop_in(where, "fsck", "--full")
    assert checked.code == 0, checked.out


@pytest.mark.parametrize("first", ["alice", "bob"])
def test_signed_work_written_before_the_policy_and_merged_after_it_is_taken_everywhere(
    clones: Clones, tmp_path: Path, first: str
) -> None:
    """Passes: every one signs from the start. bob writes a note offline on the commit
    before the policy while alice turns it on; whoever syncs first pushes, the other
    merges, and every clone (a fast-forward, a merge, a first sync) takes it all."""
    crew, _ = keyed_team(clones, tmp_path)
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    assert coop_in(crew.victim, "note", crew.todo, "offline, signed").code == 0
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    order = [crew.alice, crew.victim] if first == "alice" else [crew.victim, crew.alice]
    for path in (*order, *order, crew.mallory):
        cleanly(path)
    assert coop_in(crew.victim, "note", crew.todo, "after the policy").code == 0
    assert coop_in(crew.mallory, "note", crew.todo, "beside it").code == 0
    for path in (crew.victim, crew.mallory, crew.victim, crew.alice):
        cleanly(path)
    fresh = clones.clone("carol")
    cleanly(fresh)
    assert files(fresh) == files(crew.alice)
    assert believed(fresh) == (ROLES, True)


def test_a_ledger_with_no_policy_takes_concurrent_unsigned_work_on_every_path(
    clones: Clones, tmp_path: Path
) -> None:
    """Passes: no keys, no policy, nobody signs; concurrent notes merge both ways."""
    crew = team(clones, tmp_path)
    for path, text in ((crew.victim, "bob's"), (crew.alice, "alice's"), (crew.mallory, "hers")):
        assert coop_in(path, "note", crew.todo, text).code == 0
    for path in (crew.alice, crew.victim, crew.mallory, crew.alice, crew.victim):
        cleanly(path)
    fresh = clones.clone("carol")
    cleanly(fresh)
    assert files(fresh) == files(crew.alice)
    assert coop_in(fresh, "config", "require_signed", "--json").json()["value"] in (None, False)


def test_the_victims_merge_of_a_side_pushed_alone_agrees_with_its_own_fsck_and_a_newcomer(
    signed: Signed, clones: Clones
) -> None:
    """The sync path and the fsck --full path judge the same history alike: what the
    victim's sync took (its own merge of mallory's side, pushed) its fsck --full passes
    and a newcomer's first sync takes."""
    crew = signed.crew
    mallory = crew.mallory
    content = files(mallory, signed.before_policy)
    side = commit(
        mallory,
        write_tree(mallory, add_event(content, forged_owner(content))),
        [signed.before_policy],
        ALICE,
    )
    push(mallory, side)
    synced = coop_in(crew.victim, "sync")
    if synced.code != 0:
        assert synced.code == 4, synced.err
        return
    checked = coop_in(crew.victim, "fsck", "--full")
    first = coop_in(clones.clone("dave"), "sync")
    assert (checked.code, first.code) == (0, 0), (
        f"the victim took it (exit 0); its fsck --full: {checked.out.strip()[:200]}; "
        f"a newcomer: {first.err.strip()[:200]}"
    )


# -- many starts, many commits ----------------------------------------------------------

ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz"


def _id(prefix: str, n: int) -> str:
    tail = ""
    for _ in range(12):
        tail, n = ALPHABET[n % 32] + tail, n // 32
    return f"{prefix}-{tail}"


def own_config(clock: int, n: int, key: str, value: object) -> dict[str, Any]:
    """A `config` event of mallory's own (refused by the fold: she is no owner)."""
    return {
        "id": _id("ev", 10**6 + n), "item": LEDGER, "clock": clock,
        "at": "2026-11-29T11:00:00Z", "actor": MALLORY, "session": None,
        "verb": "config", "key": key, "value": value,
    }  # fmt: skip


def imported(where: Path, commits: list[list[dict[str, Any]]]) -> str:
    """mallory's commits on the ledger's tip through `git fast-import`, each adding its
    events (a new todo's `add` gets its item file) with coop.yaml's clock moved: what an
    honest writer would hold, thousands of commits in a moment. Pushed; the new tip."""
    settings = config(files(where))
    out = [f"reset {REF}\nfrom {tip(where)}\n\n".encode()]
    for events in commits:
        head = f"mallory <{MALLORY}> 1767225600 +0000"
        out.append(f"commit {REF}\nauthor {head}\ncommitter {head}\ndata 4\nwork\n".encode())
        for data in events:
            item_id = data["item"]
            blob = codec.dump(data)
            name = f"events/{item_id[3:5]}/{item_id}/{data['clock']:012d}-{data['id']}.yaml"
            out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(blob), blob))
            if data["verb"] == "add":
                item = rulebook.fold(_events_raw({name: blob}, item_id), settings.roles)
                assert item is not None
                body = codec.dump(item.to_data())
                path = f"items/{item_id[3:5]}/{item_id}.yaml".encode()
                out.append(b"M 100644 inline %s\ndata %d\n%s\n" % (path, len(body), body))
            settings = replace(settings, clock=max(settings.clock, data["clock"]))
        if events:
            yaml = codec.dump(settings.to_data())
            out.append(b"M 100644 inline coop.yaml\ndata %d\n%s\n" % (len(yaml), yaml))
        out.append(b"\n")
    done = subprocess.run(
        ["git", "fast-import", "--quiet"], cwd=where, input=b"".join(out), capture_output=True
    )
    assert done.returncode == 0, done.stderr
    git(where, "push", "-q", "-f", "origin", f"{REF}:{REF}")
    return tip(where)


class _Counted:
    """A pygit2 walker whose commits are counted as they are yielded."""

    def __init__(self, walker: Any, counter: list[int]) -> None:
        self.walker, self.counter = walker, counter

    def __getattr__(self, name: str) -> Any:
        return getattr(self.walker, name)

    def __iter__(self) -> Any:
        for found in self.walker:
            self.counter[0] += 1
            yield found


def test_many_starts_in_one_commit_do_not_make_every_sync_walk_the_history_once_each(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mallory pushes 200 commits that add nothing, then one commit holding 200
    `require_signed true` of her own (refused by the fold: the ledger requires nothing,
    and no check bounds how many events a commit adds). `_Starts` walks the history of
    every start's adders once per start, not once per adder: 200 walks of the whole
    history, for the sync that brings it and for every newcomer's first sync (and every
    fsck --full). Measured with 2,000 of each: 42 s for the victim's sync and 35 s for a
    first sync, against 0.8 s before the fix; it grows as their product. Here: the
    commits walked in one sync, counted as pygit2 yields them, stay within a small
    multiple of the history's length."""
    import pygit2

    crew = team(clones, tmp_path)
    clock = config(files(crew.mallory)).clock
    starts = [own_config(clock + k, k, "require_signed", True) for k in range(1, 201)]
    imported(crew.mallory, [[] for _ in range(200)] + [starts])
    history = len(git(crew.mallory, "rev-list", REF).split())
    walked = [0]
    real = pygit2.Repository.walk

    def counted(self: pygit2.Repository, *args: Any) -> _Counted:
        return _Counted(real(self, *args), walked)

    monkeypatch.setattr(pygit2.Repository, "walk", counted)
    for where in (crew.victim, clones.clone("carol")):
        walked[0] = 0
        assert coop_in(where, "sync").code == 0
        assert walked[0] <= 10 * history, (
            f"one sync walked {walked[0]} commits of a history of {history}"
        )


def test_a_large_ledger_folder_is_not_read_again_for_every_fetched_commit(
    clones: Clones, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`LedgerStates.at` folded the ledger once per version of its event folder and, for a
    version it had, read nothing; it now lists and looks up every event of the folder on
    each call (`LedgerStates.events`): at least once per fetched commit, whether or not
    any policy exists (three or four times under one). mallory adds 300 ledger events of
    her own (refused config changes) in one commit, then 150 ordinary commits follow:
    each sync reads some 46,000 ledger events, against some 600 before. Measured with
    2,000 ledger events and 1,000 commits: 5.5 s against 3.2 s, growing as their product
    on every first sync and fsck --full."""
    from gitcoop.domain.roles import LEDGER_ID
    from gitcoop.store import inbound

    crew = team(clones, tmp_path)
    clock = config(files(crew.mallory)).clock
    ledger = [own_config(clock + k, k, "topup_size", 7) for k in range(1, 301)]
    clock += len(ledger)
    adds = [
        [new_event({}, _id("td", k), "add", clock=clock + k,
                   event_id=_id("ev", k), kind="todo", title=f"t{k}")]
        for k in range(1, 151)
    ]  # fmt: skip
    imported(crew.mallory, [ledger, *adds])
    read = [0]
    real = inbound.Reader.item_events

    def counted(self: inbound.Reader, snapshot: Any, item_id: Any) -> Any:
        found = real(self, snapshot, item_id)
        if item_id == LEDGER_ID:
            read[0] += len(found)
        return found

    monkeypatch.setattr(inbound.Reader, "item_events", counted)
    for where in (crew.victim, clones.clone("carol")):
        read[0] = 0
        assert coop_in(where, "sync").code == 0
        assert read[0] <= 20 * 300, f"one sync read the ledger's events {read[0]} times"


# -- roots in disguise ------------------------------------------------------------------


@pytest.mark.parametrize("disguise", ["a-parent-of-no-ledger", "an-empty-root-beneath"])
@pytest.mark.parametrize("path", ["fast-forward", "first-sync"])
def test_a_root_in_disguise_is_refused(
    clones: Clones, tmp_path: Path, disguise: str, path: str
) -> None:
    """Passes. mallory's note sits on a commit that is no ledger commit: one on the tip
    whose tree holds only a README (every event dropped), or a root of an empty tree,
    reached through a merge's second parent (a second root for a newcomer, a root of
    its own for the victim). Refused with exit 4, naming a commit, nothing moved."""
    crew = team(clones, tmp_path)
    mallory = crew.mallory
    content = files(mallory)
    if disguise == "a-parent-of-no-ledger":
        under = commit(mallory, write_tree(mallory, {"README": b"code\n"}), [tip(mallory)])
    else:
        under = commit(mallory, mktree(mallory, []), [])
    note = new_event(content, crew.todo, "note", event_id="ev-nnnnnnnnnnnn", text="x")
    side = commit(mallory, write_tree(mallory, add_event(content, note)), [under])
    if disguise == "a-parent-of-no-ledger":
        push(mallory, side)
    else:
        push(mallory, commit(mallory, write_tree(mallory, add_event(content, note)),
                             [tip(mallory), side]))  # fmt: skip
    where = clones.clone("carol") if path == "first-sync" else crew.victim
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(where, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    assert "commit " in synced.err and "the local ledger is unchanged" in synced.err
    assert "unexpected" not in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before


# -- a copy of an item's signed event -----------------------------------------------------


def test_a_copy_of_alices_signed_note_in_a_forged_commit_does_not_keep_hers_out(
    signed: Signed,
) -> None:
    """alice's signed note is in every clone's ledger. mallory forks from the commit before
    it, adds a byte-identical copy of its file in a commit "by alice" without a signature,
    and merges that in with her own key. The copy breaks the policy, but the event is
    alice's, held by the victim's own ledger: keeping it out (by its id) would hide
    alice's real note on every clone that syncs after."""
    crew = signed.crew
    before = tip(crew.alice)
    alices_signed_note(signed)
    mallory = crew.mallory
    now = files(mallory)
    old = files(mallory, before)
    added = [name for name in now if name.startswith("events/") and name not in old]
    note = next(name for name in added if b"verb: note" in now[name])
    side = add_event(old, codec.load(now[note], note))  # coop.yaml's clock moved, as a writer
    assert side[note] == now[note]
    copy = commit(mallory, write_tree(mallory, side), [before], ALICE)
    event_id = note.rsplit("/", 1)[1].split("-", 1)[1].removesuffix(".yaml")
    signed_merge(signed, [tip(mallory), copy], refolded(now, kept_out=(event_id,)))
    before_sync = tip(crew.victim)
    synced = coop_in(crew.victim, "sync", "--json")
    if synced.code == 0:  # taken: the note is not kept out
        assert event_id not in synced.json().get("kept_out", []), synced.out
    else:  # or refused: the merge's coop.yaml keeps out an event no breaker alone added
        assert synced.code == 4 and f"keeps {event_id} out" in synced.err, synced.err
        assert tip(crew.victim) == before_sync
    shown = coop_in(crew.victim, "show", crew.todo, "--json")
    assert shown.code == 0 and "alice's own words" in shown.out, shown.out


# -- an event of another file with a forged event's id -------------------------------------


@pytest.mark.parametrize("path", ["fast-forward", "first-sync"])
def test_an_event_of_mallorys_own_with_a_forged_events_id_vouches_for_nothing(
    signed: Signed, path: str
) -> None:
    """Nothing makes an event id unique across files. mallory's unsigned commit "by alice"
    adds the forged owner; her own signed commit beside it adds a note of hers with the
    same id, in another item's folder. Were another commit's event of that id enough to
    vouch for the forged one, nothing would be kept out, and the merge's honest fold of
    both would make her an owner."""
    crew = signed.crew
    mallory = crew.mallory
    content = files(mallory)
    forged = forged_owner(content)
    forgery = commit(
        mallory, write_tree(mallory, add_event(content, forged)), [tip(mallory)], ALICE
    )
    note = new_event(
        content, crew.todo, "note", actor=MALLORY, clock=forged["clock"],
        event_id=str(forged["id"]), text="mine",
    )  # fmt: skip
    key = signed.keys["mallory"].private
    mine = commit(mallory, write_tree(mallory, add_event(content, note)), [tip(mallory)], key=key)
    signed_merge(signed, [forgery, mine], refolded(add_event(add_event(content, forged), note)))
    where = signed.newcomer if path == "first-sync" else crew.victim
    not_believed(where, forgery, str(forged["id"]))


def test_unsigned_work_forked_before_the_policy_is_kept_out_and_its_author_still_syncs(
    clones: Clones, tmp_path: Path
) -> None:
    """bob writes a note offline and unsigned on the commit before alice turns
    require_signed on. His sync merges her start (his own commit is not fetched, so
    his clone does not judge it) and pushes; alice's sync judges bob's commit beside
    the start and, with his signed note beside it, keeps the unsigned one out and pushes
    that. bob's next sync then fetches a
    coop.yaml keeping out an event of a commit his clone holds already: it must take it,
    as a newcomer does, not refuse every sync from then on."""
    crew, _ = keyed_team(clones, tmp_path)
    for path in (crew.alice, crew.mallory, crew.victim):
        assert coop_in(path, "sync").code == 0
    git(crew.victim, "config", "coop.sign", "false")
    assert coop_in(crew.victim, "note", crew.todo, "offline, unsigned").code == 0
    note = coop_in(crew.victim, "log", crew.todo, "--json").json()[-1]["id"]
    assert coop_in(crew.alice, "config", "require_signed", "true").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    assert coop_in(crew.victim, "sync").code == 0  # merges alice's start, pushes his note
    git(crew.victim, "config", "coop.sign", "true")  # signing again, as the refusal asks
    assert coop_in(crew.victim, "note", crew.todo, "again, signed").code == 0
    assert coop_in(crew.victim, "sync").code == 0
    kept = coop_in(crew.alice, "sync", "--json")
    assert kept.code == 0, kept.err
    assert note in kept.json()["kept_out"], kept.out
    again = coop_in(crew.victim, "sync", "--json")
    assert again.code == 0, f"bob's next sync: {again.err.strip()}"
    assert note in again.json()["kept_out"], again.out
    assert tip(crew.victim) == tip(crew.alice)
    fresh = clones.clone("carol")
    first = coop_in(fresh, "sync", "--json")
    assert first.code == 0, first.err
    assert note in first.json()["kept_out"], first.out
    for path in (crew.victim, crew.alice, fresh):
        checked = coop_in(path, "fsck", "--full")
        assert checked.code == 0, checked.out
    assert files(fresh) == files(crew.victim) == files(crew.alice)


def test_a_fork_without_alices_signed_note_that_keeps_a_copy_of_it_out_is_refused(
    signed: Signed,
) -> None:
    """As above, but mallory's branch never holds alice's signed commit: it forks from the
    commit before it, adds an unsigned copy of her note "by alice", then a signed note of
    mallory's own whose coop.yaml keeps alice's note out. A newcomer to that branch alone
    would keep the note out (nothing there vouches for the copy); the victim, who holds
    alice's signed commit, must not, however it judges commits it holds already."""
    crew = signed.crew
    before = tip(crew.alice)
    alices_signed_note(signed)
    mallory = crew.mallory
    now, old = files(mallory), files(mallory, before)
    added = [name for name in now if name.startswith("events/") and name not in old]
    note = next(name for name in added if b"verb: note" in now[name])
    side = add_event(old, codec.load(now[note], note))
    copy = commit(mallory, write_tree(mallory, side), [before], ALICE)
    event_id = note.rsplit("/", 1)[1].split("-", 1)[1].removesuffix(".yaml")
    hers = new_event(side, crew.todo, "note", actor=MALLORY, text="mine")
    content = refolded(add_event(side, hers), kept_out=(event_id,))
    key = signed.keys["mallory"].private
    made = commit(mallory, write_tree(mallory, content), [copy], key=key)
    git(mallory, "push", "-q", "--force", "origin", f"{made}:{REF}")
    before_sync = tip(crew.victim)
    synced = coop_in(crew.victim, "sync", "--json")
    if synced.code == 0:  # taken: the note is not kept out
        assert event_id not in synced.json().get("kept_out", []), synced.out
    else:
        assert synced.code == 4 and f"keeps {event_id} out" in synced.err, synced.err
        assert tip(crew.victim) == before_sync
    shown = coop_in(crew.victim, "show", crew.todo, "--json")
    assert shown.code == 0 and "alice's own words" in shown.out, shown.out
