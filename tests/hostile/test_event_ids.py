"""Twin event ids: a second file carrying another event's id, attacked by mallory (a chief
with push access and a registered key), ledger format 2 (docs/hardening.md, H5).

These attacks were written against the rules of `trust.judge` and `trust.held_breakers`
that read ids: a breaker's events were kept out by id, a copy of a file was vouched for
by another commit adding it, and nothing made an id unique across files, so a twin of an
authentic event's id (alice's signed note, her key, her start, her take from before the
policy) could have it kept out with the twin, or vouch for a forgery. There is no
kept-out list and no vouching since format 2, and a twin cannot be written: an event's
id is the hash of its content (`domain/ids.content_event_id`), so a file carrying
another event's id is not named by its content, and the commit that adds it is refused
(exit 4, "its id is not the one its content gives"), whoever signed it, whichever side
of a merge it is on, on every clone and a newcomer's; a file of an event's own name
with other content rewrites that event (refused); a merge adds no event file of its own.

Deleted with the machinery: the cost of the twin check's walks (`twin` sent through every
other adder of an id, an ancestry test per pair; a chain of 150 twins is now refused at
its first commit, and the cost of checking a fetch is test_push_bounds.py's and
test_policy_starts.py's), and the rule-3 "start copy widens held_breakers' covered"
cases (a byte copy of alice's start or key joins nothing: test_held_breakers.py).
"""

from __future__ import annotations

import pytest

from gitcoop.store.ledger import codec
from tests.conftest import coop_in, git
from tests.hostile.forge import (
    ALICE,
    LEDGER,
    MALLORY,
    REF,
    add_event,
    commit,
    config,
    files,
    new_event,
    push,
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
    start_of,
)
from tests.hostile.test_held_breakers import (  # the fixture and the building blocks
    own_key_file,
    signed,
)

__all__ = ["signed"]  # the fixture, used by name

Content = dict[str, bytes]
ID_RULE = "its id is not the one its content gives"


# -- the event a twin copies, and a twin of it --------------------------------------------


def target(s: Signed, unkeyed: str, which: str) -> tuple[str, bytes, str]:
    """One of alice's authentic events: its file's path and bytes, and the commit just
    before the one that wrote it (where an early fork starts)."""
    crew, mallory = s.crew, s.crew.mallory
    if which == "signed-note":
        note, made = alices_signed_note(s)
        [(name, blob)] = [
            (n, d) for n, d in added_between(mallory, f"{made}^", made).items() if note in n
        ]
        return name, blob, git(mallory, "rev-parse", f"{made}^").strip()
    if which == "key":
        name, blob = own_key_file(s, unkeyed)
        return name, blob, unkeyed
    if which == "start":
        name, blob, _ = start_of(files(mallory))
        return name, blob, s.before_policy
    before = git(mallory, "rev-parse", f"{unkeyed}^").strip()  # alice's take of the seed
    [(name, blob)] = [
        (n, d) for n, d in added_between(mallory, before, unkeyed).items() if crew.todo[3:] in n
    ]
    assert codec.load(blob, name)["verb"] == "take"
    return name, blob, before


def with_twin(
    content: Content, name: str, blob: bytes, where: str, actor: str, todo: str
) -> tuple[Content, str]:
    """`content` with a twin of the event `name` holds (`blob`) added, by `actor`, one past
    coop.yaml's clock: everything as an honest writer would have it but the twin's id.
    `where`: in the event's own folder under another clock (another file name: a filler
    note of the actor's first, for a twin on a fork from just before the event), in
    another item's folder (the `add` of a todo of mallory's), or under the event's own
    name with other content. The content and the twin's path."""
    event = codec.load(blob, name)
    twin_id = str(event["id"])
    if where == "same-name":
        changed = {**event, "actor": actor, "twin": "other content"}
        return {**content, name: codec.dump(changed)}, name
    if where == "same-folder":  # a note of the actor's first: the twin's clock is not its
        filler = new_event(content, todo, "note", actor=actor, text="filler")
        content = add_event(content, filler)
    if where == "another-item":
        data = new_event(content, "td-mmmmmmmmmmmm", "add", actor=actor, kind="todo", title="t")
    elif event["item"] == LEDGER:
        data = new_event(content, LEDGER, "config", actor=actor, key="topup_size", value=7)
    else:
        data = new_event(content, event["item"], "note", actor=actor, text="twin")
    honest = add_event(content, data)
    [path] = [n for n in honest if n.startswith("events/") and n not in content]
    twin = path.replace(str(data["id"]), twin_id)
    honest.pop(path)
    honest[twin] = codec.dump({**data, "id": twin_id})
    return honest, twin


def union(a: Content, b: Content) -> Content:
    """A merge's files: `a`'s, with `b`'s event files, coop.yaml's clock the larger."""
    both = {**a, **{n: d for n, d in b.items() if n.startswith("events/")}}
    settings = codec.load(a["coop.yaml"], "coop.yaml")
    settings["clock"] = max(config(a).clock, config(b).clock)
    both["coop.yaml"] = codec.dump(settings)
    return both


def planted(s: Signed, name: str, blob: bytes, fork: str, where: str, how: str) -> tuple[str, str]:
    """mallory's twin of the event `name`, in a commit made `how`, pushed. The commit that
    adds the twin (the one a refusal names), and its path.

    signed-on-the-tip / unsigned-on-the-tip: her own commit on the tip, signed by her
    key or not. unsigned-fork-merged / signed-fork-merged: a commit on the early `fork`
    (before the event was written), "by alice" and unsigned or hers and signed, merged
    in as the second parent by her signed merge. signed-fork-pushed-alone: that signed
    fork force-pushed as the ledger itself. in-the-merge: her signed merge of the tip
    and an honest signed note of hers, the merge's own tree adding the twin."""
    mallory, key = s.crew.mallory, s.keys["mallory"].private
    todo = s.crew.todo
    if how in ("signed-on-the-tip", "unsigned-on-the-tip"):
        content, path = with_twin(files(mallory), name, blob, where, MALLORY, todo)
        made = commit(mallory, write_tree(mallory, content), [tip(mallory)],
                      key=key if how.startswith("signed") else None)  # fmt: skip
        push(mallory, made)
        return made, path
    if how == "in-the-merge":
        content = files(mallory)
        mine = add_event(content, new_event(content, todo, "note", text="mine"))
        side = commit(mallory, write_tree(mallory, mine), [tip(mallory)], key=key)
        merged, path = with_twin(mine, name, blob, where, MALLORY, todo)
        return signed_merge(s, [tip(mallory), side], merged), path
    actor = ALICE if how.startswith("unsigned") else MALLORY
    content, path = with_twin(files(mallory, fork), name, blob, where, actor, todo)
    made = commit(mallory, write_tree(mallory, content), [fork], actor,
                  key=None if actor == ALICE else key)  # fmt: skip
    if how == "signed-fork-pushed-alone":
        push(mallory, made)
    else:
        signed_merge(s, [tip(mallory), made], union(files(mallory), content))
    return made, path


CASES = [
    # alice's signed note: a twin on a concurrent branch, one a fork pushed alone, one on
    # the tip signed by mallory, a rewrite of its file, one a merge adds itself
    ("signed-note", "same-folder", "unsigned-fork-merged", "bob"),
    ("signed-note", "same-folder", "unsigned-fork-merged", "newcomer"),
    ("signed-note", "same-folder", "signed-fork-pushed-alone", "bob"),
    ("signed-note", "same-folder", "signed-on-the-tip", "alice"),
    ("signed-note", "same-folder", "signed-on-the-tip", "fsck"),
    ("signed-note", "another-item", "signed-on-the-tip", "fsck"),
    ("signed-note", "another-item", "signed-on-the-tip", "bob"),
    ("signed-note", "same-name", "signed-on-the-tip", "bob"),
    ("signed-note", "another-item", "in-the-merge", "bob"),
    # alice's key: a twin on a fork from before any key, one in another item's folder
    ("key", "same-folder", "unsigned-fork-merged", "newcomer"),
    ("key", "another-item", "unsigned-on-the-tip", "alice"),
    # alice's start: a second start file "by alice", one of mallory's own, its own name
    ("start", "same-folder", "unsigned-fork-merged", "newcomer"),
    ("start", "same-folder", "signed-fork-merged", "bob"),
    ("start", "same-name", "signed-fork-pushed-alone", "bob"),
    ("start", "same-folder", "unsigned-fork-merged", "fsck"),
    # alice's take from before the policy and before any key
    ("take", "same-folder", "unsigned-fork-merged", "newcomer"),
    ("take", "another-item", "signed-fork-merged", "bob"),
]


@pytest.mark.parametrize(("which", "where", "how", "who"), CASES)
def test_a_twin_of_an_authentic_events_id_is_refused_where_it_arrives(
    signed: tuple[Signed, str], which: str, where: str, how: str, who: str
) -> None:
    """The twin's commit is refused, naming it and the twin's file: exit 4, the ledger as
    it was (none for a newcomer), alice's policy, roles and event untouched. A ledger
    that holds a twin by other means than a sync (`git update-ref` by hand) fails
    fsck --full."""
    s, unkeyed = signed
    crew = s.crew
    name, blob, fork = target(s, unkeyed, which)
    bad, path = planted(s, name, blob, fork, where, how)
    if where == "same-name" and how.endswith("on-the-tip"):
        fragment = f"{path}: an event was dropped or rewritten"
    elif how == "in-the-merge":
        fragment = f"{path}: a merge commit adds an event of its own"
    else:
        fragment = f"{path}: {ID_RULE}"
    if who == "fsck":
        git(crew.victim, "fetch", "-q", "origin", f"+{REF}:refs/heads/probe")
        git(crew.victim, "update-ref", REF, "refs/heads/probe")
        checked = coop_in(crew.victim, "fsck", "--full")
        assert checked.code == 1, (checked.code, checked.out, checked.err)
        assert path in checked.out, checked.out
        return
    place = {"bob": crew.victim, "alice": crew.alice, "newcomer": s.newcomer}[who]
    before = git(place, "rev-parse", "-q", "--verify", REF, check=False).strip()
    synced = coop_in(place, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    assert f"commit {bad[:12]}: {fragment}" in synced.err, synced.err
    assert "the local ledger is unchanged" in synced.err and "unexpected" not in synced.err
    assert git(place, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
    if before:
        assert believed(place) == (ROLES, True)
        assert files(place)[name] == blob
        assert event_id_of(name) not in str(coop_in(place, "fsck", "--full", "--json").out)
