"""Property: whatever a peer pushes, the victim stays readable, runs nothing, and works on.

A real ledger (roles, a taken todo, a note, a queue item with evidence, a
review) is pushed by its owner; then the attacker changes it at random (a
value anywhere in coop.yaml, an item or an event, a clock, an instant, a
name, the roles, a file renamed or removed), often re-folding the touched
item and moving coop.yaml's clock as an honest writer would so that the
change reaches the deeper checks, commits it under her own name or the
event's actor's, and pushes it. The victim syncs (after local work of its
own, sometimes), and then:

- the sync's exit code is 0 (accepted) or 4 (refused), never anything else;
- refused, the victim's ledger is exactly what it was; accepted, `fsck --full` passes
  (exit 0: since format 2 an event refused where it joined is a note, not a breach);
- no process was started from the ledger (the marker file never appears);
- list, log and owed read, and the victim's next write lands.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from gitcoop.store.ledger import codec
from tests.conftest import coop_in, git, make_repo
from tests.hostile.forge import ALICE, MALLORY, add_event, files, new_event, tip
from tests.rawledger import BLOB, TREE, open_raw, write_tree

MARKER = "/tmp/gitcoop-hostile-marker-never-created"
SHELL = f"$(touch {MARKER}) `touch {MARKER}`"
FIELDS = (
    *("id", "item", "clock", "at", "actor", "session", "verb", "title", "kind", "status"),
    *("taken_by", "taken_at", "due", "since", "version", "obligation", "roles", "settings"),
    *("owners", "chiefs", "format", "reason", "summary", "delay_seconds", "evidence", "text"),
    *("decision", "order_key", "parent_id", "commit", "head", "value", "key", "who", "role"),
)
INSTANTS = (
    "0001-01-01T00:00:00Z",
    "1969-12-31T23:59:59Z",
    "9000-12-31T23:59:59Z",
    "9001-01-01T00:00:00Z",
    "9999-12-31T23:59:59Z",
    "9999-12-31T23:00:00-05:00",
    "2026-11-29T10:00:00",
    "not a time",
)
hostile_text = st.sampled_from(
    [
        SHELL,
        "a\nCoop-Close: td-0000",
        "\x1b]52;c;ZXZpbA==\x07",
        "\u202eevil",
        "\ud800",
        "x" * 5000,
        "",
        MALLORY,
        "td-zzzzzzzzzzzz",
        "ev-zzzzzzzzzzzz",
    ]
)
hostile_number = st.sampled_from([-1, 0, 1, 2, 10**12 - 1, 10**12, 10**20, 2**63, True])
hostile_value = st.one_of(
    hostile_text,
    hostile_number,
    st.sampled_from(INSTANTS),
    st.none(),
    st.just({"owners": [MALLORY], "chiefs": []}),
    st.just([{"path": SHELL, "line": 10**20}]),
    st.just({"verifier": SHELL}),
)


@st.composite
def mutations(draw: st.DrawFn) -> dict[str, Any]:
    return {
        "file": draw(st.integers(0, 10_000)),
        "how": draw(st.sampled_from(["set", "set", "set", "drop", "rename", "remove", "extra"])),
        "field": draw(st.sampled_from(FIELDS)),
        "value": draw(hostile_value),
        "refold": draw(st.booleans()),
        "honest_author": draw(st.booleans()),
        "diverged": draw(st.booleans()),
    }


# -- the team, made once and copied for each example ------------------------------------------


@pytest.fixture(scope="module")
def template() -> Iterator[Path]:
    root = Path(tempfile.mkdtemp(prefix="gitcoop-mutations-"))
    git(root, "init", "-q", "--bare", "remote.git")
    alice, victim = make_repo(root / "alice", ALICE), make_repo(root / "victim", "bob@example.com")
    for path in (alice, victim):
        git(path, "remote", "add", "origin", (root / "remote.git").as_uri())
        git(path, "config", "coop.fsync", "false")
        # a template is copied while tests run: no packing may start in it in the background
        git(path, "config", "gc.auto", "0")
    for args in (["init"], ["roles", "add", "chief", MALLORY]):
        assert coop_in(alice, *args).code == 0, args
    todo = coop_in(alice, "add", "todo", "seed").out.strip()
    item = ["add", "item", "Fix the toast", "--evidence", "src/app.py:3:toast()"]
    assert coop_in(alice, *item).code == 0
    for args in (["take", todo, "--session", "s1"], ["note", todo, "seen"]):
        assert coop_in(alice, *args).code == 0, args
    assert coop_in(alice, "review", todo, "defer", "--after", "1h").code == 0
    assert coop_in(alice, "sync").code == 0
    assert coop_in(victim, "sync").code == 0
    yield root
    shutil.rmtree(root, ignore_errors=True)


def copy_of(template: Path, into: Path) -> tuple[Path, Path]:
    shutil.copytree(template, into, symlinks=True)
    url = (into / "remote.git").as_uri()
    for name in ("alice", "victim"):
        git(into / name, "remote", "set-url", "origin", url)
    return into / "alice", into / "victim"


# -- the attack ---------------------------------------------------------------------------------


def mutate(content: dict[str, bytes], m: dict[str, Any]) -> tuple[dict[str, bytes], str]:
    """The changed ledger and the author the attacker signs it with."""
    names = sorted(content)
    name = names[m["file"] % len(names)]
    changed = dict(content)
    data = codec.load(content[name], name)
    author = MALLORY
    if m["how"] == "set":
        data[m["field"]] = m["value"]
    elif m["how"] == "drop":
        data.pop(m["field"], None)
    if m["how"] in ("set", "drop"):
        changed[name] = _dump(data)
    elif m["how"] == "rename":  # the last character of the id (or of coop) changes
        stem = name.removesuffix(".yaml")
        changed[f"{stem[:-1]}{'y' if stem[-1] == 'z' else 'z'}.yaml"] = changed.pop(name)
    elif m["how"] == "remove":
        del changed[name]
    elif name.startswith("events/") and m["how"] == "extra":
        extra = new_event(content, data["item"], "note", actor=ALICE, text="again")
        extra[m["field"]] = m["value"]
        return _refolded(content, extra) if m["refold"] else (_added(changed, extra), ALICE)
    if name.startswith("events/") and isinstance(data.get("actor"), str) and m["honest_author"]:
        author = data["actor"]
    return changed, author


def _refolded(content: dict[str, bytes], event: dict[str, Any]) -> tuple[dict[str, bytes], str]:
    try:
        return add_event(content, event), ALICE
    except Exception:  # an attacker's tools are allowed to choke on her own values
        return _added(content, event), ALICE


def _added(content: dict[str, bytes], event: dict[str, Any]) -> dict[str, bytes]:
    item, clock = event.get("item"), event.get("clock")
    name = f"events/{str(item)[3:5]}/{item}/{clock if isinstance(clock, int) else 0:012d}-x.yaml"
    return {**content, name: _dump(event)}


def _dump(data: dict[str, Any]) -> bytes:
    try:
        return codec.dump(data)
    except Exception:  # a lone surrogate cannot be written as UTF-8: the raw bytes go instead
        return repr(data).encode("utf-8", "surrogatepass")


def push_raw(path: Path, content: dict[str, bytes], author: str) -> bool:
    """Objects written byte by byte (any name, any content), committed and force-pushed;
    False when the remote's own git refuses the objects (an empty name in a tree), so the
    attack never reaches anyone."""
    raw = open_raw(path)

    def tree(entries: dict[str, bytes]) -> pygit2.Oid:
        here: dict[str, tuple[int, pygit2.Oid]] = {}
        below: dict[str, dict[str, bytes]] = {}
        for name, data in entries.items():
            head, slash, rest = name.partition("/")
            if slash:
                below.setdefault(head, {})[rest] = data
            else:
                here[head] = (BLOB, raw.create_blob(data))
        here.update({name: (TREE, tree(sub)) for name, sub in below.items()})
        return write_tree(raw, here)

    try:
        sig = pygit2.Signature(author, author, 1_800_000_000, 0)
    except (UnicodeEncodeError, pygit2.InvalidError):  # a lone surrogate or an empty
        return False  # author: no git writes that commit
    parent = pygit2.Oid(hex=tip(path))
    made = raw.create_commit(None, sig, sig, "work", tree(content), [parent])
    done = subprocess.run(
        ["git", "push", "-q", "-f", "origin", f"{made}:refs/coop/ledger"],
        cwd=path,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0 and "unpacker error" in done.stderr:
        return False
    assert done.returncode == 0, done.stderr
    return True


CHECKS = [HealthCheck.function_scoped_fixture, HealthCheck.too_slow]


@settings(max_examples=40, deadline=None, suppress_health_check=CHECKS)
@given(mutations())
def test_a_mutated_ledger_is_refused_or_harmless(template: Path, m: dict[str, Any]) -> None:
    attack(template, m)


@pytest.mark.long
@settings(max_examples=600, deadline=None, suppress_health_check=CHECKS)
@given(mutations())
def test_many_mutated_ledgers_are_refused_or_harmless(template: Path, m: dict[str, Any]) -> None:
    attack(template, m)


def attack(template: Path, m: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        alice, victim = copy_of(template, Path(tmp) / "team")
        content, author = mutate(files(alice), m)
        assume(push_raw(alice, content, author))
        if m["diverged"]:
            assert coop_in(victim, "add", "todo", "local work").code == 0
        before = tip(victim)
        synced = coop_in(victim, "sync")
        assert synced.code in (0, 4), (m, synced.code, synced.err)
        if synced.code == 4:
            assert tip(victim) == before, m
        else:  # accepted: it holds every invariant; events refused where they joined are
            # notes for the owners (format 2), never breaches
            checked = coop_in(victim, "fsck", "--full", "--json")
            report = checked.json()  # on exit 1 the report is inside the error object
            found = report.get("error", report)["breaches"]
            assert checked.code == 0 and found == [], (m, found)
        for command in (["list"], ["log"], ["owed", "--all"], ["queue"]):
            result = coop_in(victim, *command)
            assert result.code in (0, 1), (m, command, result.err)
            assert "unexpected" not in result.err
        assert coop_in(victim, "add", "todo", "later work").code == 0, m
        assert not Path(MARKER).exists(), m
