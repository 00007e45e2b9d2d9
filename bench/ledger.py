"""Build a realistic ledger of N items and 5N events quickly, for the benchmark.

Every item is the real fold (`rulebook.apply`) of five real events, written
with the real codec. Dumping YAML for 600,000 files would take minutes, so
each scenario is rendered once with placeholder ids, instants and clocks, and
the placeholders are replaced with each item's values: ids, instants and
clocks are fixed-width plain scalars, so the bytes are exactly what the codec
writes (checked against `codec.dump` for the first items of each scenario).
The files go in through `git fast-import`, which writes a pack directly
instead of 600,000 loose objects, in the few commits a fetched ledger must be
made of to pass `store/inbound.py`: each commit adds only its author's events,
with clocks just above its parent's. So the clocks run in three phases: the
first owner's `roles` event and every `add` (alice's commit), then every
worker event (bob's), then every `dep` (alice's again); each item's own
events keep their order, and item files come with the last commit.
"""

from __future__ import annotations

import random
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gitcoop.domain import ids, rulebook
from gitcoop.domain.records import Event, LedgerConfig, Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.store import codec
from gitcoop.store.layout import REF, event_path, item_path
from gitcoop.store.repository import open_repo

OWNER = "alice@example.com"
WORKER = "bob@example.com"
ROLES = Roles(owners=(OWNER,))
BASE = datetime(2026, 1, 1, tzinfo=UTC)
EVENTS_PER_ITEM = 5
FIRST = {"action": "add", "role": "owner", "who": OWNER}  # what `init` records

ITEM_MARK = "td-000000000000"
OTHER_MARK = "td-zzzzzzzzzzzz"  # the item a linked item waits on
EVENT_MARKS = [f"ev-00000000000{k}" for k in range(1, EVENTS_PER_ITEM + 2)]
AT_MARK = datetime(2000, 1, 1, tzinfo=UTC)
CLOCK_MARKS = [900000000 + k for k in range(1, EVENTS_PER_ITEM + 2)]
# a linked item has a sixth event: it waits on an earlier item (so the links form no cycle)
LINK_STEP = ("dep", {"action": "add", "type": "blocked-by", "other": OTHER_MARK}, OWNER, None)

# name -> weight, (verb, args, actor, session) per event; ends open, taken or done
SCENARIOS: dict[str, tuple[int, list[tuple[str, dict[str, object], str, str | None]]]] = {
    "open": (
        4,
        [
            ("add", {"kind": "todo", "title": "Tidy the importer for case NNN"}, OWNER, None),
            ("take", {}, WORKER, "s-1"),
            ("release", {"reason": "needs a decision first"}, WORKER, "s-1"),
            ("take", {}, WORKER, "s-2"),
            ("release", {"reason": "blocked on review"}, WORKER, "s-2"),
        ],
    ),
    "taken": (
        2,
        [
            ("add", {"kind": "todo", "title": "Fix flaky test NNN", "tag": "ci"}, OWNER, None),
            ("take", {}, WORKER, "s-1"),
            ("release", {"reason": "handing over"}, WORKER, "s-1"),
            ("take", {}, WORKER, "s-3"),
            ("note", {"text": "found the cause"}, WORKER, "s-3"),
        ],
    ),
    "done": (
        4,
        [
            ("add", {"kind": "todo", "title": "Document option NNN"}, OWNER, None),
            ("take", {}, WORKER, "s-1"),
            ("release", {"reason": "wrong branch"}, WORKER, "s-1"),
            ("take", {}, WORKER, "s-4"),
            ("done", {"summary": "documented"}, WORKER, "s-4"),
        ],
    ),
}


@dataclass(frozen=True)
class Template:
    item: bytes
    events: list[tuple[str, bytes]]  # file name pattern (with marks), bytes


def _events(
    scenario: str,
    item_id: str,
    event_ids: list[str],
    at: datetime,
    clocks: list[int],
    number: int | None,
    other: str | None = None,
) -> list[Event]:
    steps = SCENARIOS[scenario][1]
    if other is not None:
        verb, args, actor, session = LINK_STEP
        steps = [*steps, (verb, {**args, "other": other}, actor, session)]
    events = []
    for (verb, args, actor, session), event_id, clock in zip(steps, event_ids, clocks, strict=True):
        text = "QQQQQQQ" if number is None else f"{number:07d}"
        real = {k: (v.replace("NNN", text) if isinstance(v, str) else v) for k, v in args.items()}
        events.append(
            Event(ids.EventId(event_id), ids.ItemId(item_id), clock, at, actor, session, verb, real)
        )
    return events


def _render(events: list[Event]) -> tuple[bytes, list[tuple[str, bytes]]]:
    item = None
    for event in events:
        item = rulebook.apply(item, event, ROLES)
    assert item is not None
    files = [(event_path(e), codec.dump(e.to_data())) for e in events]
    return codec.dump(item.to_data()), files


def templates() -> dict[tuple[str, bool], Template]:
    """Each scenario rendered once, plain and with a link (`(name, linked)`)."""
    found = {}
    for name in SCENARIOS:
        for linked in (False, True):
            count = EVENTS_PER_ITEM + linked
            other = OTHER_MARK if linked else None
            marks, clocks = EVENT_MARKS[:count], CLOCK_MARKS[:count]
            events = _events(name, ITEM_MARK, marks, AT_MARK, clocks, None, other)
            item, files = _render(events)
            found[name, linked] = Template(item, files)
    return found


def _instant(at: datetime) -> bytes:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ").encode()


def _fill(raw: bytes, marks: dict[bytes, bytes]) -> bytes:
    for mark, value in marks.items():
        raw = raw.replace(mark, value)
    return raw


def files(
    n: int, seed: int = 7, check: int = 3, links: int = 0, unsettled: int | None = None
) -> Iterator[tuple[int, str, bytes]]:
    """(commit, path, bytes) of every item and event file of an n-item ledger, then the
    ledger's own event and coop.yaml: commit 1 holds the adds, 2 the worker's events,
    3 the links, 0 the item files and coop.yaml (they go with the last commit).

    With `links`, that many items (every other one from the second) wait on a
    random earlier item: a `dep` event and a link in the item file. With
    `unsettled`, that many items, spread evenly, end open or taken (two to one)
    and every other item is done: a ledger with a long history."""
    rng = random.Random(seed)
    table = templates()
    names = [name for name, (weight, _) in SCENARIOS.items() for _ in range(weight)]
    checked: dict[tuple[str, bool], int] = {}
    linked_so_far = 0
    made: list[str] = []
    for number in range(n):
        scenario = names[number % len(names)]
        if unsettled is not None:
            slot, step = divmod(number * unsettled, n)
            chosen = step < unsettled  # the first item of each of `unsettled` runs
            scenario = ("open", "open", "taken")[slot % 3] if chosen else "done"
        linked = number % 2 == 1 and number < 2 * links
        count = EVENTS_PER_ITEM + linked
        item_id = ids.mint_item_id("todo", rng.getrandbits)
        other = made[rng.randrange(len(made))] if linked else None
        made.append(item_id)
        event_ids = [ids.mint_event_id(rng.getrandbits) for _ in range(count)]
        # the ledger's `roles` event is clock 1; then the phases described above
        worker = n + 2 + (EVENTS_PER_ITEM - 1) * number
        clocks = [2 + number, *range(worker, worker + EVENTS_PER_ITEM - 1)]
        if linked:
            clocks.append(EVENTS_PER_ITEM * n + 2 + linked_so_far)
            linked_so_far += 1
        at = BASE + timedelta(seconds=number)
        marks = {  # in this order: no mark is part of one replaced after it
            b"events/00/": f"events/{ids.fanout(item_id)}/".encode(),
            ITEM_MARK.encode(): item_id.encode(),
            OTHER_MARK.encode(): (other or OTHER_MARK).encode(),
            **{m.encode(): e.encode() for m, e in zip(EVENT_MARKS, event_ids, strict=False)},
            **{
                f"{m:012d}".encode(): f"{c:012d}".encode()
                for m, c in zip(CLOCK_MARKS, clocks, strict=False)
            },
            **{str(m).encode(): str(c).encode() for m, c in zip(CLOCK_MARKS, clocks, strict=False)},
            _instant(AT_MARK): _instant(at),
            b"QQQQQQQ": f"{number:07d}".encode(),
        }
        template = table[scenario, linked]
        item_bytes = _fill(template.item, marks)
        event_files = [
            (_fill(p.encode(), marks).decode(), _fill(b, marks)) for p, b in template.events
        ]
        if checked.get((scenario, linked), 0) < check:  # the shortcut must give the codec's bytes
            checked[scenario, linked] = checked.get((scenario, linked), 0) + 1
            real = _events(scenario, item_id, event_ids, at, clocks, number, other)
            assert _render(real) == (item_bytes, event_files), f"template drift in {scenario}"
        yield 0, item_path(item_id), item_bytes
        for k, (path, data) in enumerate(event_files):
            yield (1 if k == 0 else 2 if k < EVENTS_PER_ITEM else 3), path, data
    first = Event(ids.EventId("ev-000000000001"), LEDGER_ID, 1, BASE, OWNER, None, "roles", FIRST)
    yield 1, event_path(first), codec.dump(first.to_data())
    config = LedgerConfig(roles=ROLES, clock=EVENTS_PER_ITEM * n + 1 + linked_so_far)
    yield 0, "coop.yaml", codec.dump(config.to_data())


def last_clocks(n: int, links: int) -> dict[int, int]:
    """coop.yaml's clock after each commit."""
    return {1: n + 1, 2: EVENTS_PER_ITEM * n + 1, 3: EVENTS_PER_ITEM * n + 1 + links}


def build(path: Path, n: int, seed: int = 7, links: int = 0, unsettled: int | None = None) -> Path:
    """A fresh repository at `path` whose ledger holds n items, 5n events and `links` links
    (with `unsettled`: that many not settled, the rest done)."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    for key, value in (("user.email", OWNER), ("user.name", "alice")):
        subprocess.run(["git", "-C", str(path), "config", key, value], check=True)
    importer = subprocess.Popen(
        ["git", "-C", str(path), "fast-import", "--quiet"], stdin=subprocess.PIPE
    )
    assert importer.stdin is not None
    out = importer.stdin
    links = min(links, n // 2)
    commits = [1, 2, 3] if links else [1, 2]
    clocks = last_clocks(n, links)
    for commit in commits:  # one pass over the generated files per commit: little memory
        who, email = ("bob", WORKER) if commit == 2 else ("alice", OWNER)
        message = f"bench ledger of {n} items, part {commit}".encode()
        out.write(f"commit {REF}\nauthor {who} <{email}> 1767225600 +0000\n".encode())
        out.write(f"committer {who} <{email}> 1767225600 +0000\n".encode())
        out.write(b"data %d\n%s\n" % (len(message), message))
        last = commit == commits[-1]
        for part, name, data in files(n, seed, links=links, unsettled=unsettled):
            if part == commit or (last and part == 0):
                out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(data), data))
        if not last:
            config = LedgerConfig(roles=ROLES, clock=clocks[commit])
            data = codec.dump(config.to_data())
            out.write(b"M 100644 inline coop.yaml\ndata %d\n%s\n" % (len(data), data))
        out.write(b"\n")
    out.close()
    if importer.wait() != 0:
        raise RuntimeError("git fast-import failed")
    open_repo(str(path)).ensure_reflog()
    return path
