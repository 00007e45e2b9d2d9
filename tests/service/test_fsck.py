"""fsck finds every kind of breach, each with its path; a healthy ledger has none."""

from __future__ import annotations

from pathlib import Path

import pygit2
import pytest

from gitcoop.errors import BadLedger, NoLedger
from gitcoop.service.context import Context
from gitcoop.service.fsck import Report, fsck, summary
from gitcoop.store.ledger import codec
from tests.conftest import coop, git
from tests.rawledger import (
    EXEC,
    GITLINK,
    LINK,
    REF,
    commit_tree,
    open_raw,
    put,
    raw_entries,
    raw_tree,
    read,
    replaced,
)


def check(full: bool = False) -> Report:
    return fsck(Context(), full)


def rules(report: Report) -> set[tuple[str, str]]:
    return {(b.rule, b.path) for b in report.breaches}


def files(path: Path, under: str) -> list[str]:
    return git(path, "ls-tree", "-r", "--name-only", f"refs/coop/ledger:{under}").split()


@pytest.fixture
def busy(ledger: Path) -> Path:
    """A ledger that went through most transitions."""
    first = coop("add", "todo", "one").out.strip()
    second = coop("add", "request", "two").out.strip()
    third = coop("add", "todo", "three").out.strip()
    assert coop("take", first).code == 0
    assert coop("take", second, "--session", "s1").code == 0
    assert coop("close", second, "--summary", "did it").code == 0
    assert coop("close", second, "--summary", "did it better").code == 0
    assert coop("abandon", third, "--reason", "not needed").code == 0
    assert coop("take", first, "--as", "bob@example.com", "--force").code == 0
    return ledger


def files_at(path: Path, under: str, commit: str) -> list[str]:
    return git(path, "ls-tree", "-r", "--name-only", f"{commit}:{under}").split()


def item_file(path: Path, kind: str = "td-") -> str:
    return next(f"items/{f}" for f in files(path, "items") if f.split("/")[-1].startswith(kind))


def test_a_healthy_ledger_has_no_breaches(busy: Path) -> None:
    report = check(full=True)
    assert report.breaches == []
    assert (report.items, report.events, report.commits) == (3, 10, 10)  # + the first owner
    assert summary(report).startswith("refs/coop/ledger at ")
    assert "3 items, 10 events, all 10 commits" in summary(report)


def test_an_item_file_that_is_not_the_fold_of_its_events(busy: Path) -> None:
    path = item_file(busy)
    data = codec.load(read(busy, path), path)
    data["title"] = "rewritten by hand"
    put(busy, path.split("/"), codec.dump(data))
    report = check()
    assert ("state", path) in rules(report)
    assert any("title" in b.message for b in report.breaches)


def test_a_taken_item_that_owes_nothing(busy: Path) -> None:
    path = next(
        p
        for p in (f"items/{f}" for f in files(busy, "items"))
        if codec.load(read(busy, p), p)["status"] == "taken"
    )
    data = codec.load(read(busy, path), path)
    data["obligation"] = None
    put(busy, path.split("/"), codec.dump(data))
    assert {("obligation", path), ("state", path)} <= rules(check())


def test_a_settled_item_that_still_owes(busy: Path) -> None:
    path = next(
        p
        for p in (f"items/{f}" for f in files(busy, "items"))
        if codec.load(read(busy, p), p)["status"] == "abandoned"
    )
    data = codec.load(read(busy, path), path)
    data["obligation"] = {
        "kind": "outcome",
        "holder": "alice@example.com",
        "session": None,
        "status": "pending",
        "since": "2026-11-29T10:00:00Z",
        "due": "2026-11-29T12:00:00Z",
    }
    put(busy, path.split("/"), codec.dump(data))
    report = check()
    assert ("obligation", path) in rules(report)
    assert any("still pending" in b.message for b in report.breaches)


def test_an_event_removed_from_history(busy: Path) -> None:
    path = "events/" + files(busy, "events")[-1]
    put(busy, path.split("/"))  # delete it
    report = check()
    assert ("history", path) in rules(report)
    assert any("deleted" in b.message for b in report.breaches if b.path == path)


def test_events_removed_in_two_folders_by_one_commit_are_each_named(busy: Path) -> None:
    events = files(busy, "events")
    first = events[0]
    other = next(e for e in events if e.split("/")[0] != first.split("/")[0])
    raw = open_raw(busy)
    root = raw.revparse_single(REF).tree.id
    for gone in (first, other):  # one commit: both files dropped from one tree
        root = replaced(raw, root, f"events/{gone}".split("/"), None)
    commit_tree(busy, root)
    found = {b.path for b in check().breaches if b.rule == "history"}
    assert {f"events/{first}", f"events/{other}"} <= found


def test_events_replaced_by_a_file_names_every_event_it_drops(busy: Path) -> None:
    put(busy, ["events"], b"not a folder\n")
    found = {b.path for b in check().breaches if b.rule == "history"}
    assert {f"events/{e}" for e in files_at(busy, "events", "refs/coop/ledger~1")} <= found


def test_an_event_changed_in_history(busy: Path) -> None:
    path = "events/" + files(busy, "events")[0]
    data = codec.load(read(busy, path), path)
    data["title"] = "a different request"
    put(busy, path.split("/"), codec.dump(data))
    report = check()
    assert any(
        b.rule == "history" and b.path == path and "modified" in b.message for b in report.breaches
    )


def test_an_event_added_with_a_clock_that_does_not_increase(busy: Path) -> None:
    source = "events/" + files(busy, "events")[0]
    data = codec.load(read(busy, source), source)
    data.update(id="ev-zz0000000000", clock=1)
    target = source.rsplit("/", 1)[0] + "/000000000001-ev-zz0000000000.yaml"
    put(busy, target.split("/"), codec.dump(data))
    report = check()
    assert ("clock", target) in rules(report)


def test_an_event_id_used_twice(busy: Path) -> None:
    source = "events/" + files(busy, "events")[0]
    data = codec.load(read(busy, source), source)
    config = codec.load(read(busy, "coop.yaml"), "coop.yaml")
    data["clock"] = config["clock"] + 1
    config["clock"] += 1
    target = source.rsplit("/", 1)[0] + f"/{data['clock']:012d}-{data['id']}.yaml"
    put(busy, ["coop.yaml"], codec.dump(config))
    put(busy, target.split("/"), codec.dump(data))
    report = check()
    assert any(b.rule == "ids" and data["id"] in b.message for b in report.breaches)


def rewrite_first_event(ledger: Path) -> str:
    """An event file rewritten by one commit and put back by the next: two history breaches."""
    path = "events/" + files(ledger, "events")[0]
    data = codec.load(read(ledger, path), path)
    data["title"] = "rewritten"
    put(ledger, path.split("/"), codec.dump(data))
    put(ledger, path.split("/"), read(ledger, path).replace(b"rewritten", b"old"))
    return path


def checked_tip(path: Path) -> str:
    return git(path, "rev-parse", "--verify", "-q", "refs/coop/checked", check=False).strip()


def test_a_first_fsck_checks_every_commit_and_remembers_a_clean_tip(busy: Path) -> None:
    report = check()
    assert (report.breaches, report.since, report.commits) == ([], None, 10)
    assert (report.items, report.events) == (3, 10)
    assert checked_tip(busy) == report.tip == git(busy, "rev-parse", "refs/coop/ledger").strip()


def test_a_later_fsck_checks_only_the_commits_after_the_tip_checked_whole(busy: Path) -> None:
    first = check()
    assert coop("add", "todo", "four").code == 0
    assert coop("add", "todo", "five").code == 0
    later = check()
    assert later.breaches == [] and later.since == first.tip
    assert (later.commits, later.items, later.events) == (2, 2, 2)
    assert summary(later).endswith(f"the 2 new commits checked since {first.tip[:12]}")
    assert checked_tip(busy) == later.tip
    again = check()
    assert (again.since, again.commits, again.items, again.events) == (later.tip, 0, 0, 0)


def test_a_breach_after_the_tip_checked_whole_is_still_found(busy: Path) -> None:
    checked = check().tip
    path = rewrite_first_event(busy)
    item = item_file(busy)
    data = codec.load(read(busy, item), item)
    data["title"] = "rewritten by hand"
    put(busy, item.split("/"), codec.dump(data))
    report = check()
    assert report.since == checked
    assert sum(b.rule == "history" and b.path == path for b in report.breaches) == 2
    assert ("state", item) in rules(report)
    assert checked_tip(busy) == checked  # a check with breaches remembers nothing
    assert sum(b.rule == "history" for b in check().breaches) == 2


def test_a_rewound_ledger_is_checked_whole_again_and_says_so(busy: Path) -> None:
    start = git(busy, "rev-parse", "refs/coop/ledger").strip()
    assert coop("add", "todo", "four").code == 0
    assert check().since is None
    git(busy, "update-ref", "refs/coop/ledger", start)  # rewound under the remembered tip
    assert coop("add", "todo", "another four").code == 0
    report = check()
    assert report.breaches == [] and report.since is None and report.commits == 11
    assert any("no longer in the ledger's history" in note for note in report.notes)
    assert checked_tip(busy) == report.tip


def test_full_checks_every_commit_again(busy: Path) -> None:
    assert check().breaches == []
    assert coop("add", "todo", "four").code == 0
    report = check(full=True)
    assert (report.since, report.commits, report.items, report.events) == (None, 11, 4, 11)
    assert "all 11 commits checked" in summary(report)


def test_old_history_breaches_are_found_until_a_clean_check(ledger: Path) -> None:
    git(ledger, "config", "coop.fsync", "false")
    assert coop("add", "todo", "old").code == 0
    path = rewrite_first_event(ledger)
    for n in range(5):
        assert coop("add", "todo", f"filler {n}").code == 0
    for full in (False, True, False):
        found = check(full=full)
        assert sum(b.rule == "history" and b.path == path for b in found.breaches) == 2
    assert checked_tip(ledger) == ""


def test_no_ledger_and_an_unreadable_tip_are_errors_not_breaches(repo: Path) -> None:
    with pytest.raises(NoLedger, match="no ledger"):
        check()
    assert coop("init").code == 0
    blob = git(repo, "hash-object", "-w", "--stdin").strip()
    git(repo, "update-ref", "refs/coop/ledger", blob)
    with pytest.raises(BadLedger, match="refs/coop/ledger"):
        check()


@pytest.mark.parametrize("mode", [EXEC, LINK, GITLINK, "event folder"])
def test_an_entry_whose_mode_changed_is_surveyed_again_after_a_checked_tip(
    busy: Path, mode: int | str
) -> None:
    """The survey after a tip checked whole reads the entries that changed since, in mode
    as in id: a mode-only change (an item file's, or an event folder made a gitlink) is a
    layout breach as a whole survey names it."""
    check()
    path = item_file(busy)
    if mode == "event folder":
        path, mode = "events/" + path.removeprefix("items/").removesuffix(".yaml"), GITLINK
    blob = git(busy, "rev-parse", f"refs/coop/ledger:{path}").strip()
    put(busy, path.split("/"), oid=pygit2.Oid(hex=blob), mode=int(mode))
    later, whole = check(), check(full=True)
    layout = ("layout", path)
    assert layout in rules(later) and layout in rules(whole), (later.breaches, whole.breaches)


def test_an_item_file_with_no_events_is_a_state_breach_named_once(busy: Path) -> None:
    """From format 2 an item file is its state (H3), not the fold of its folder: a copy of
    an item under an id with no events is the state breach of the commit that wrote it,
    named once, by the rule it breaks."""
    path = item_file(busy)
    data = codec.load(read(busy, path), path)
    twin = data["id"][:-1] + ("x" if data["id"][-1] != "x" else "y")
    data["id"] = twin
    put(busy, ["items", path.split("/")[1], f"{twin}.yaml"], codec.dump(data))
    for full in (False, True):
        named = [(b.rule, b.path) for b in check(full).breaches if twin in b.path]
        assert named == [("state", f"items/{path.split('/')[1]}/{twin}.yaml")], named


def test_a_tree_not_as_git_writes_it_hides_nothing_of_the_commits_after_it(
    busy: Path,
) -> None:
    """A commit C whose events/ listing is not as git writes it is reported at C; its child
    D, whose listing is, is still read against C's: the event D drops is reported too."""
    raw = open_raw(busy)
    head = raw.revparse_single(REF)
    root = raw_entries(raw, head.tree.id)
    events = next(oid for _, name, oid in root if name == b"events")
    fans = raw_entries(raw, events)
    assert len(fans) >= 2
    # C: one fan-out's mode spelt 040000 (git writes 40000)
    padded = raw_tree(
        raw, [(b"040000", n, o) if at == 0 else (m, n, o) for at, (m, n, o) in enumerate(fans)]
    )
    # D: events/ as git writes it, the last folder's first item missing its last event
    mode, fan, folder = fans[-1]
    items = raw_entries(raw, folder)
    item_mode, item, item_tree = items[0]
    kept = raw_entries(raw, item_tree)[:-1]
    dropped = [(item_mode, item, raw_tree(raw, kept))] if kept else []
    fewer = raw_tree(raw, [*fans[:-1], (mode, fan, raw_tree(raw, dropped + items[1:]))])

    def with_events(tree: pygit2.Oid) -> pygit2.Oid:
        return raw_tree(raw, [(m, n, tree if n == b"events" else o) for m, n, o in root])

    who = pygit2.Signature("alice", "alice@example.com", 1_800_000_000, 0)
    c = raw.create_commit(None, who, who, "C", with_events(padded), [head.id])
    d = raw.create_commit(None, who, who, "D", with_events(fewer), [c])
    git(busy, "update-ref", REF, str(d))
    report = check(full=True)
    history = [b for b in report.breaches if b.rule == "history"]
    assert any(b.path == "events" and str(c)[:12] in b.message for b in history), history
    assert any("deleted" in b.message and str(d) in b.message for b in history), history
