"""An attacker's workbench: hostile ledgers made with git plumbing and pushed to the team.

A team shares a bare remote: alice (the owner) made the ledger, mallory
(a chief, with push access and a clone of her own) attacks, and bob (the
victim) syncs. The attacker reads the ledger as files, changes what she
likes, writes blobs with `git hash-object`, trees with `git mktree` and a
commit with `git commit-tree` under any author she names, and pushes it
(forcing, if she wants). Contents may be made with gitcoop's own codec and
rules, so that the one flaw a test plants is the only one there is: since
ledger format 2 an event is named by its content (`new_event`), and `add_event`
writes the item and coop.yaml as the event joining the state makes them
(`rulebook.join`), as an honest writer would.

Every hostile text carries a command substitution that would create the
marker file if anything ever ran it through a shell.
"""

from __future__ import annotations

import os
import re
import subprocess
from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitcoop.domain import rulebook
from gitcoop.domain.ids import content_event_id, is_content_id
from gitcoop.domain.records import Event, Item, LedgerConfig, canonical
from gitcoop.store.ledger import codec
from tests.conftest import Clones, Result, coop_in, coop_process, git

REF = "refs/coop/ledger"
DOCUMENTED = frozenset(range(10))  # exit codes 0-9 (README); 70 is a bug
ALICE, MALLORY, BOB = "alice@example.com", "mallory@example.com", "bob@example.com"
LEDGER = "cf-000000000000"  # the ledger's own id: role and setting events


@dataclass
class Team:
    remote: Path
    alice: Path
    mallory: Path
    victim: Path
    marker: Path  # created only if something from the ledger is ever executed
    todo: str  # a todo alice filed and took

    @property
    def shell(self) -> str:
        """Text that creates the marker wherever a shell reads it."""
        return f"$(touch {self.marker}) `touch {self.marker}`; touch {self.marker}"

    def victim_runs(self, *args: str, env: dict[str, str] | None = None) -> Result:
        """A real `git coop` process in the victim's clone; its exit code is a documented one."""
        result = coop_process(self.victim, *args, env=env)
        assert result.code in DOCUMENTED, (args, result.code, result.err)
        assert "unexpected" not in result.err, result.err
        assert not self.marker.exists(), f"{args} started a process from the ledger"
        return result


def team(clones: Clones, tmp: Path) -> Team:
    """alice owns the ledger, mallory is a chief, bob has synced; all three see the same tip."""
    alice, mallory, victim = (clones.clone(n) for n in ("alice", "mallory", "bob"))
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "roles", "add", "chief", MALLORY).code == 0
    todo = coop_in(alice, "add", "todo", "seed", "--json").json()["id"]
    assert coop_in(alice, "take", todo, "--session", "s1").code == 0
    for path in (alice, mallory, victim):
        assert coop_in(path, "sync").code == 0, path
    return Team(clones.root / "remote.git", alice, mallory, victim, tmp / "MARKER", todo)


# -- reading and writing a ledger as files ------------------------------------------------


def files(path: Path, ref: str = REF) -> dict[str, bytes]:
    """Every file of the ledger at `ref`: path -> content."""
    listing = git(path, "ls-tree", "-r", "-z", ref).split("\0")
    found: dict[str, bytes] = {}
    for line in filter(None, listing):
        meta, name = line.split("\t", 1)
        blob = meta.split()[2]
        found[name] = subprocess.run(
            ["git", "cat-file", "blob", blob], cwd=path, capture_output=True, check=True
        ).stdout
    return found


def hash_object(path: Path, data: bytes) -> str:
    done = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=path, input=data, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


def mktree(path: Path, entries: list[tuple[str, str, str, str]]) -> str:
    """A tree from (mode, type, object, name) entries, through `git mktree -z`."""
    text = "".join(f"{mode} {kind} {oid}\t{name}\0" for mode, kind, oid, name in entries)
    done = subprocess.run(
        ["git", "mktree", "-z"], cwd=path, input=text.encode(), capture_output=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.decode().strip()


def write_tree(path: Path, content: dict[str, bytes]) -> str:
    """The root tree holding exactly `content`, folders and all, made with mktree."""
    here: dict[str, bytes] = {}
    below: dict[str, dict[str, bytes]] = defaultdict(dict)
    for name, data in content.items():
        head, slash, rest = name.partition("/")
        if slash:
            below[head][rest] = data
        else:
            here[head] = data
    entries = [("100644", "blob", hash_object(path, data), name) for name, data in here.items()]
    entries += [("040000", "tree", write_tree(path, sub), name) for name, sub in below.items()]
    return mktree(path, entries)


def commit(
    path: Path,
    tree: str,
    parents: list[str],
    author: str = MALLORY,
    message: str = "work",
    key: Path | None = None,
) -> str:
    """`git commit-tree` under whichever author the attacker names, signed with the private
    `key` when given (git's own SSH signing: whatever key the attacker holds)."""
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": author,
        "GIT_AUTHOR_EMAIL": author,
        "GIT_COMMITTER_NAME": author,
        "GIT_COMMITTER_EMAIL": author,
    }
    signing = ["-c", "gpg.format=ssh", "-c", f"user.signingKey={key}"] if key else []
    args = ["git", *signing, "commit-tree", *(["-S"] if key else []), tree, "-m", message]
    for parent in parents:
        args += ["-p", parent]
    done = subprocess.run(args, cwd=path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def push(path: Path, commit_id: str) -> None:
    """The attacker's push: forced, so even a rewritten history reaches the remote."""
    git(path, "update-ref", REF, commit_id)
    git(path, "push", "-q", "-f", "origin", f"{commit_id}:{REF}")


def tip(path: Path, ref: str = REF) -> str:
    return git(path, "rev-parse", ref).strip()


def publish(
    path: Path,
    content: dict[str, bytes],
    author: str = MALLORY,
    parents: list[str] | None = None,
    key: Path | None = None,
) -> str:
    """Commit `content` on top of the local tip (or `parents`) and push it; the commit id."""
    made = commit(
        path,
        write_tree(path, content),
        [tip(path)] if parents is None else parents,
        author,
        key=key,
    )
    push(path, made)
    return made


# -- building otherwise-honest changes ------------------------------------------------------


def config(content: dict[str, bytes]) -> LedgerConfig:
    return LedgerConfig.from_data(codec.load(content["coop.yaml"], "coop.yaml"))


def with_config(content: dict[str, bytes], data: dict[str, Any]) -> dict[str, bytes]:
    return {**content, "coop.yaml": codec.dump(data)}


def events_of(content: dict[str, bytes], item_id: str) -> list[Event]:
    folder = f"events/{item_id[3:5]}/{item_id}/"
    return [
        Event.from_data(codec.load(data, name))
        for name, data in content.items()
        if name.startswith(folder)
    ]


def new_event(
    content: dict[str, bytes],
    item_id: str,
    verb: str,
    actor: str = MALLORY,
    at: str = "2026-11-29T11:00:00Z",
    clock: int | None = None,
    event_id: str | None = None,
    **args: Any,
) -> dict[str, Any]:
    """An event one past coop.yaml's clock: the next one an honest writer would make, named
    by its content as format 2 names it (unless `event_id` is given). `add_event` names it
    again when its arguments change."""
    data = {
        "id": event_id or "",
        "item": item_id,
        "clock": config(content).clock + 1 if clock is None else clock,
        "at": at,
        "actor": actor,
        "session": None,
        "verb": verb,
        **args,
    }
    if event_id is None:
        data["id"] = content_id(data)
    return data


def content_id(data: dict[str, Any]) -> str:
    """The id format 2 gives an event of this data (every field but the id, hashed)."""
    rest = {k: v for k, v in data.items() if k != "id"}
    return content_event_id(canonical(rest))


def add_event(
    content: dict[str, bytes], data: dict[str, Any], refold: bool = True, rename: bool = True
) -> dict[str, bytes]:
    """`data` as a new event file (named by its content, when it was: an argument added
    after `new_event` renames it, unless not `rename`: a forger keeping an id for other
    content); the item and coop.yaml as the event joining makes them, as a writer would
    (without `refold`, only the file is added)."""
    if rename and is_content_id(data["id"]) and data["id"] != content_id(data):
        data = {**data, "id": content_id(data)}
    item_id, clock = data["item"], data["clock"]
    changed = dict(content)
    changed[f"events/{item_id[3:5]}/{item_id}/{clock:012d}-{data['id']}.yaml"] = codec.dump(data)
    if not refold:
        return changed
    [event] = [e for e in _events_raw(changed, item_id) if e.id == data["id"]]
    before = config(content)
    ledger = rulebook.state_of(before, lambda: _events_raw(content, LEDGER))

    def item(other: Any) -> Any:
        raw = content.get(f"items/{other[3:5]}/{other}.yaml")
        return Item.from_data(codec.load(raw, "item")) if raw is not None else None

    joined = rulebook.join(item, ledger, [event], None, before.conflicts)
    for joined_id, state in joined.items.items():
        if state is not None:
            changed[f"items/{joined_id[3:5]}/{joined_id}.yaml"] = codec.dump(state.to_data())
    settings = rulebook.config_of(joined.ledger, max(before.clock, clock), joined.conflicts)
    return {**changed, "coop.yaml": codec.dump(settings.to_data())}


def _events_raw(content: dict[str, bytes], item_id: str) -> list[Event]:
    """Events read without the bounds a peer's are checked against (an attacker's view)."""
    folder = f"events/{item_id[3:5]}/{item_id}/"
    found = []
    for name, data in content.items():
        if name.startswith(folder):
            raw = codec.load(data, name)
            event = Event(
                id=raw["id"],
                item=raw["item"],
                clock=raw["clock"],
                at=_instant(raw["at"]),
                actor=raw["actor"],
                session=raw["session"],
                verb=raw["verb"],
                args={k: v for k, v in raw.items() if k not in _FIELDS},
            )
            found.append(event)
    return found


_FIELDS = ("id", "item", "clock", "at", "actor", "session", "verb")


def _instant(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00")).astimezone(UTC)
    except (ValueError, OverflowError):
        return datetime(2026, 11, 29, tzinfo=UTC)


# What could drive a terminal, written out here rather than taken from the code under test:
# C0 and C1 controls, DEL, line and paragraph separators, bidi controls, lone surrogates.
TERMINAL_CONTROL = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]"
)


def unsafe_in(text: str) -> list[str]:
    """Characters on a terminal line that could drive the terminal (line breaks are layout)."""
    return TERMINAL_CONTROL.findall(text)


def refused_on(where: Path, *fragments: str) -> str:
    """A plain `git fetch` (git's own check of fetched objects is off), then `git coop
    sync`: exit 4 naming each fragment, the ledger unchanged."""
    before = git(where, "rev-parse", "-q", "--verify", REF, check=False).strip()
    git(where, "fetch", "-q", "origin")  # plain git: transfer.fsckObjects is off
    synced = coop_in(where, "sync")
    assert synced.code == 4, (synced.code, synced.err)
    for fragment in fragments:
        assert fragment in synced.err, synced.err
    assert "the local ledger is unchanged" in synced.err
    assert "unexpected" not in synced.err
    assert git(where, "rev-parse", "-q", "--verify", REF, check=False).strip() == before
    return synced.err


def with_events(content: dict[str, bytes], shapes: list[dict[str, Any]]) -> dict[str, bytes]:
    """These events added in one commit, each named by its content, the items and coop.yaml
    as joining them makes them (only these events joined: the items' earlier ones are in
    the state they join)."""
    before = config(content)
    changed, made = dict(content), set()
    for n, shape in enumerate(shapes, start=1):
        data = {"id": "", "clock": before.clock + n, "at": "2026-11-29T11:00:00Z"}
        data |= {"actor": "mallory@example.com", "session": None, **shape}
        data["id"] = content_id(data)
        made.add(data["id"])
        item = data["item"]
        path = f"events/{item[3:5]}/{item}/{data['clock']:012d}-{data['id']}.yaml"
        changed[path] = codec.dump(data)
    touched = {shape["item"] for shape in shapes}
    events = [e for item in touched for e in _events_raw(changed, item) if e.id in made]
    ledger = rulebook.state_of(before, lambda: _events_raw(content, LEDGER))

    def item_of(item_id: Any) -> Any:
        raw = content.get(f"items/{item_id[3:5]}/{item_id}.yaml")
        return Item.from_data(codec.load(raw, "item")) if raw is not None else None

    joined = rulebook.join(item_of, ledger, events, None, before.conflicts)
    for item_id, state in joined.items.items():
        assert state is not None
        changed[f"items/{item_id[3:5]}/{item_id}.yaml"] = codec.dump(state.to_data())
    settings = rulebook.config_of(joined.ledger, before.clock + len(shapes), joined.conflicts)
    return {**changed, "coop.yaml": codec.dump(settings.to_data())}
