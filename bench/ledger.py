"""Build a realistic ledger of N items and 5N events quickly, for the benchmark.

Every item is the real fold (`rulebook.apply`) of five real events, written
with the real codec. Dumping YAML for 600,000 files would take minutes, so
each scenario is rendered once with placeholder ids, instants and clocks, and
the placeholders are replaced with each item's values: ids, instants and
clocks are fixed-width plain scalars, so the bytes are exactly what the codec
writes (checked against `codec.dump` for the first items of each scenario).

The ledger is format 2 (docs/sync.md, "Ledger format 2"). An event's id is
the hash of its content (`Event.named_by_content`): each scenario's events
are also rendered once in their canonical form (`Event.content`) with the
same placeholders, and an event's id is `ids.content_event_id` of its filled
canonical bytes, as gitcoop computes it (checked against `named_by_content`).
Each commit's items and coop.yaml are exactly its first parent's state plus
the events it adds (docs/hardening.md, H1-H3): coop.yaml is
`rulebook.config_of` of the state the ledger's `roles` event makes, and every
commit writes the file of each item whose events it adds, as the item stands
after them (checked against `rulebook.join` for the first items of each
scenario).

The files go in through `git fast-import`, which writes a pack directly
instead of 600,000 loose objects, in the few commits a fetched ledger must be
made of to pass `store/boundary/`: each commit adds only its author's events,
at most `MAX_EVENTS` of them, with clocks just above its parent's. So the
clocks run in three phases: the first owner's `roles` event and every `add`
(alice's commits), then every worker event (bob's), then every `dep` (alice's
again); each item's own events keep their order. A phase too large for one
commit is split by fan-out (so each commit rewrites as few trees as it can),
and its clocks follow that order.
"""

from __future__ import annotations

import gc
import os
import random
import re
import subprocess
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

from gitcoop.domain import ids, rulebook
from gitcoop.domain.records import Event, Item, Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.store.boundary.history import MAX_EVENTS
from gitcoop.store.ledger import codec
from gitcoop.store.ledger.layout import REF, event_path, item_path
from gitcoop.store.repository import open_repo

try:
    from bench import packs
except ImportError:  # run as a script from bench/ (bench/run.py puts it on the path)
    import packs  # type: ignore[no-redef]

OWNER = "alice@example.com"
WORKER = "bob@example.com"
ROLES = Roles(owners=(OWNER,))
BASE = datetime(2026, 1, 1, tzinfo=UTC)
EVENTS_PER_ITEM = 5
FIRST = {"action": "add", "role": "owner", "who": OWNER}  # what `init` records

ITEM_MARK = "td-000000000000"
OTHER_MARK = "td-zzzzzzzzzzzz"  # the item a linked item waits on
# as long as a content id (26 characters), digits only: no other mark is part of one
EVENT_MARKS = [f"ev-{k:0{ids.CONTENT_ID_LENGTH}d}" for k in range(1, EVENTS_PER_ITEM + 2)]
AT_MARK = datetime(2000, 1, 1, tzinfo=UTC)
CLOCK_MARKS = [900000000 + k for k in range(1, EVENTS_PER_ITEM + 2)]
# a linked item has a sixth event: it waits on an earlier item (so the links form no cycle)
LINK_STEP: tuple[str, dict[str, object], str, str | None] = (
    "dep",
    {"action": "add", "type": "blocked-by", "other": OTHER_MARK},
    OWNER,
    None,
)

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

# the phases: which of an item's events each adds (a slice), and whose commits they are
ADDS, WORK, LINKS = "adds", "work", "links"
PHASE_EVENTS: dict[str, tuple[int, int | None]] = {
    ADDS: (0, 1),
    WORK: (1, EVENTS_PER_ITEM),
    LINKS: (EVENTS_PER_ITEM, None),
}
PHASE_AUTHOR = {ADDS: ("alice", OWNER), WORK: ("bob", WORKER), LINKS: ("alice", OWNER)}

# every placeholder, in the order they are matched: no mark is part of one after it
# (a clock's 12-digit file-name form is matched before its plain form)
MARKS: list[bytes] = [
    b"events/00/",
    ITEM_MARK.encode(),
    OTHER_MARK.encode(),
    *(f"{m:012d}".encode() for m in CLOCK_MARKS),
    *(str(m).encode() for m in CLOCK_MARKS),
    AT_MARK.strftime("%Y-%m-%dT%H:%M:%SZ").encode(),
    b"QQQQQQQ",
    *(m.encode() for m in EVENT_MARKS),
]
_MARK = re.compile(b"|".join(re.escape(m) for m in MARKS))
_EVENT_MARKS = {m.encode(): k for k, m in enumerate(EVENT_MARKS)}


@dataclass(frozen=True)
class Piece:
    """A rendered file with its marks cut out: `form % values of its marks`."""

    form: bytes
    marks: tuple[bytes, ...]
    event_marks: frozenset[int]  # the events whose ids it holds

    @classmethod
    def of(cls, raw: bytes) -> Piece:
        parts, marks, at = [], [], 0
        for found in _MARK.finditer(raw):
            parts.append(raw[at : found.start()].replace(b"%", b"%%"))
            marks.append(found.group())
            at = found.end()
        parts.append(raw[at:].replace(b"%", b"%%"))
        held = frozenset(_EVENT_MARKS[m] for m in marks if m in _EVENT_MARKS)
        return cls(b"%b".join(parts), tuple(marks), held)

    def fill(self, values: dict[bytes, bytes]) -> bytes:
        return self.form % tuple(map(values.__getitem__, self.marks))


@dataclass(frozen=True)
class Template:
    items: list[Piece]  # the item file after each of its events
    events: list[tuple[Piece, Piece]]  # each event's file: its path, its bytes
    contents: list[Piece]  # each event's content (what its id hashes)


def _events(
    scenario: str,
    item_id: str,
    event_ids: Sequence[str],
    at: datetime,
    clocks: Sequence[int],
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


def _render(events: list[Event]) -> tuple[list[bytes], list[tuple[str, bytes]], list[bytes]]:
    """The item file after each event, each event's (path, file), each event's content."""
    item = None
    items = []
    for event in events:
        item = rulebook.apply(item, event, ROLES)
        items.append(codec.dump(item.to_data()))
    files = [(event_path(e), codec.dump(e.to_data())) for e in events]
    return items, files, [e.content() for e in events]


def templates() -> dict[tuple[str, bool], Template]:
    """Each scenario rendered once, plain and with a link (`(name, linked)`)."""
    found = {}
    for name in SCENARIOS:
        for linked in (False, True):
            count = EVENTS_PER_ITEM + linked
            other = OTHER_MARK if linked else None
            marks, clocks = EVENT_MARKS[:count], CLOCK_MARKS[:count]
            events = _events(name, ITEM_MARK, marks, AT_MARK, clocks, None, other)
            items, files, contents = _render(events)
            found[name, linked] = Template(
                [Piece.of(raw) for raw in items],
                [(Piece.of(path.encode()), Piece.of(raw)) for path, raw in files],
                [Piece.of(raw) for raw in contents],
            )
    return found


def _instant(at: datetime) -> bytes:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ").encode()


@dataclass
class Planned:
    """One item of the ledger: what its files are made of."""

    number: int
    scenario: str
    linked: bool
    item_id: str
    other: str | None
    at: datetime
    clocks: list[int]  # set once the phases' orders are known


@dataclass(frozen=True)
class Commit:
    phase: str
    items: list[int]  # the items whose events it adds (item numbers)
    clock: int  # coop.yaml's clock after it
    ledger: bool = False  # it also adds the ledger's `roles` event (the first commit)


@dataclass(frozen=True)
class Plan:
    items: list[Planned]
    commits: list[Commit]


def _split(numbers: list[int], items: list[Planned], per_commit: int) -> list[list[int]]:
    """`numbers` in commits of at most `per_commit`: in their order when one commit holds
    them, else by fan-out, in near-equal parts."""
    if len(numbers) <= per_commit:
        return [numbers] if numbers else []
    ordered = sorted(numbers, key=lambda k: (ids.fanout(items[k].item_id), k))
    parts = -(-len(ordered) // per_commit)
    size = -(-len(ordered) // parts)
    return [ordered[a : a + size] for a in range(0, len(ordered), size)]


def plan(n: int, seed: int = 7, links: int = 0, unsettled: int | None = None) -> Plan:
    """Every item of an n-item ledger, and the commits that hold them. With `links`, that
    many items (every other one from the second) wait on a random earlier item: a `dep`
    event and a link in the item file. With `unsettled`, that many items, spread evenly,
    end open or taken (two to one) and every other item is done: a ledger with a long
    history."""
    rng = random.Random(seed)
    names = [name for name, (weight, _) in SCENARIOS.items() for _ in range(weight)]
    items: list[Planned] = []
    for number in range(n):
        scenario = names[number % len(names)]
        if unsettled is not None:
            slot, step = divmod(number * unsettled, n)
            chosen = step < unsettled  # the first item of each of `unsettled` runs
            scenario = ("open", "open", "taken")[slot % 3] if chosen else "done"
        linked = number % 2 == 1 and number < 2 * links
        item_id = ids.mint_item_id("todo", rng.getrandbits)
        other = items[rng.randrange(len(items))].item_id if linked else None
        for _ in range(EVENTS_PER_ITEM + linked):  # format 1's random event ids: the same
            rng.getrandbits(5 * ids.RANDOM_LENGTH)  # item ids and links as then
        at = BASE + timedelta(seconds=number)
        items.append(Planned(number, scenario, linked, item_id, other, at, []))
    # the ledger's `roles` event is clock 1; then the phases, each in its commits' order
    commits: list[Commit] = []
    clock = 1
    adds = _split(list(range(n)), items, MAX_EVENTS - 1)  # the first also adds `roles`
    for part in adds or [[]]:
        for number in part:
            clock += 1
            items[number].clocks.append(clock)
        commits.append(Commit(ADDS, part, clock, ledger=not commits))
    for part in _split(list(range(n)), items, MAX_EVENTS // (EVENTS_PER_ITEM - 1)):
        for number in part:
            items[number].clocks += range(clock + 1, clock + EVENTS_PER_ITEM)
            clock += EVENTS_PER_ITEM - 1
        commits.append(Commit(WORK, part, clock))
    waiting = [item.number for item in items if item.linked]
    for part in _split(waiting, items, MAX_EVENTS):
        for number in part:
            clock += 1
            items[number].clocks.append(clock)
        commits.append(Commit(LINKS, part, clock))
    return Plan(items, commits)


class Filled:
    """One item's values for the marks: its own, and the ids of the events asked for."""

    def __init__(self, item: Planned, template: Template, wanted: frozenset[int]) -> None:
        values = {
            b"events/00/": f"events/{ids.fanout(item.item_id)}/".encode(),
            MARKS[1]: item.item_id.encode(),
            MARKS[2]: (item.other or OTHER_MARK).encode(),
            _instant(AT_MARK): _instant(item.at),
            b"QQQQQQQ": f"{item.number:07d}".encode(),
        }
        for mark, clock in zip(CLOCK_MARKS, item.clocks, strict=False):
            values[f"{mark:012d}".encode()] = f"{clock:012d}".encode()
            values[str(mark).encode()] = str(clock).encode()
        # an event's id hashes its content, which holds no id: the values above fill it
        for k in wanted:
            content = template.contents[k].fill(values)
            values[EVENT_MARKS[k].encode()] = ids.content_event_id(content).encode()
        self.values = values

    def id(self, k: int) -> str:
        return self.values[EVENT_MARKS[k].encode()].decode()


def ledger_event() -> Event:
    """The ledger's first event, as `init` writes it: alice is its owner."""
    placeholder = ids.EventId(EVENT_MARKS[0])
    return Event(placeholder, LEDGER_ID, 1, BASE, OWNER, None, "roles", FIRST).named_by_content()


def ledger_state() -> rulebook.LedgerState:
    return rulebook.apply_ledger(rulebook.LedgerState(), ledger_event())


def config(clock: int) -> bytes:
    """coop.yaml at `clock`: the state the `roles` event makes (format 2)."""
    return codec.dump(rulebook.config_of(ledger_state(), clock).to_data())


def _phase_pieces(template: Template, phase: str, count: int) -> tuple[list[Piece], int]:
    """The event files a phase writes for an item of `count` events, and which of the
    item's files it writes (after how many events)."""
    start, stop = PHASE_EVENTS[phase]
    stop = count if stop is None else stop
    return [piece for pair in template.events[start:stop] for piece in pair], stop


Wants = dict[tuple[str, bool, str, bool, bool], tuple[list[Piece], Piece | None, frozenset[int]]]


def _item_files(
    item: Planned,
    table: dict[tuple[str, bool], Template],
    phase: str,
    wants: Wants,
    events: bool = True,
    state: bool = True,
) -> Iterator[tuple[bytes, bytes]]:
    """(path, bytes) of what a commit of `phase` writes for `item`: the `events` it adds,
    then the item's file after them (`state`). `wants` remembers, per kind of item, the
    pieces and the ids of its events they hold (only those are hashed)."""
    key = (item.scenario, item.linked, phase, events, state)
    template = table[item.scenario, item.linked]
    if key not in wants:
        pieces, after = _phase_pieces(template, phase, len(item.clocks))
        pieces = pieces if events else []
        written = template.items[after - 1] if state else None
        held = [p.event_marks for p in [*pieces, *([written] if written else [])]]
        wants[key] = (pieces, written, frozenset().union(*held))
    pieces, written, wanted = wants[key]
    values = Filled(item, template, wanted).values
    for k in range(0, len(pieces), 2):
        yield pieces[k].fill(values), pieces[k + 1].fill(values)
    if written is not None:
        yield item_path(item.item_id).encode(), written.fill(values)


def files(
    built: Plan, table: dict[tuple[str, bool], Template], commit: Commit
) -> Iterator[tuple[bytes, bytes]]:
    """(path, bytes) of what one commit adds or rewrites: its events (the ledger's own
    with the first), then the file of each item they touch as it stands after them. Alike
    files come one after another, since fast-import stores each blob as a delta against
    the one before it."""
    if commit.ledger:
        first = ledger_event()
        yield event_path(first).encode(), codec.dump(first.to_data())
    wants: Wants = {}
    for number in commit.items:
        yield from _item_files(built.items[number], table, commit.phase, wants, state=False)
    for number in commit.items:
        yield from _item_files(built.items[number], table, commit.phase, wants, events=False)


def verify(built: Plan, table: dict[tuple[str, bool], Template], check: int) -> None:
    """The shortcut must give the codec's bytes, the ids `named_by_content` gives, and the
    item files `rulebook.join` makes in each commit, for the first `check` items of each
    scenario."""
    assert ledger_state().roles == ROLES
    checked: dict[tuple[str, bool], int] = {}
    for item in built.items:
        key = (item.scenario, item.linked)
        if checked.get(key, 0) >= check:
            continue
        checked[key] = checked.get(key, 0) + 1
        template = table[key]
        count = len(item.clocks)
        filled = Filled(item, template, frozenset(range(count)))
        events = _events(
            item.scenario, item.item_id, EVENT_MARKS[:count], item.at, item.clocks,
            item.number, item.other,
        )  # fmt: skip
        events = [e.named_by_content() for e in events]
        assert [e.id for e in events] == [filled.id(k) for k in range(count)], f"ids: {key}"
        held: Item | None = None
        for phase, (start, stop) in PHASE_EVENTS.items():
            added = events[start:stop]
            if not added:
                continue
            assert {e.actor for e in added} == {PHASE_AUTHOR[phase][1]}, f"{phase}: two authors"

            def parent(_: ids.ItemId, before: Item | None = held) -> Item | None:
                return before  # the item as the commit's first parent holds it

            joined = rulebook.join(parent, ledger_state(), added)
            held = joined.items[ids.ItemId(item.item_id)]
            assert held is not None and not joined.refused, f"{phase} refused: {key}"
            # what a commit of the phase writes for it: the events it adds, the joined item
            wrote = list(_item_files(item, table, phase, {}))
            made = [(event_path(e).encode(), codec.dump(e.to_data())) for e in added]
            made.append((item_path(item.item_id).encode(), codec.dump(held.to_data())))
            assert wrote == made, f"{phase}: drift from the codec or the join: {key}"


def build(
    path: Path,
    n: int,
    seed: int = 7,
    links: int = 0,
    unsettled: int | None = None,
    writer: str = "pack",
) -> Path:
    """A fresh repository at `path` whose ledger holds n items, 5n events and `links` links
    (with `unsettled`: that many not settled, the rest done). The objects are written as
    one pack (`bench/packs.py`), or with `writer="fast-import"` by `git fast-import`:
    the same commits either way."""
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["git", "init", "-q", str(path)], check=True)
    for key, value in (("user.email", OWNER), ("user.name", "alice")):
        subprocess.run(["git", "-C", str(path), "config", key, value], check=True)
    links = min(links, n // 2)
    table = templates()
    built = plan(n, seed, links, unsettled)
    verify(built, table, check=3)
    if writer == "pack":
        _write_pack(path, n, built, table)
    else:
        _fast_import(path, n, built, table)
    open_repo(str(path)).ensure_reflog()
    return path


def _write_pack(path: Path, n: int, built: Plan, table: dict[tuple[str, bool], Template]) -> None:
    packs.without_collector()
    try:
        out = packs.PackOut(path / ".git" / "objects" / "pack")
        ledger = packs.Ledger(out)
        tip = b""
        for number, commit in enumerate(built.commits, 1):
            who, email = PHASE_AUTHOR[commit.phase]
            message = f"bench ledger of {n} items, part {number} ({commit.phase})".encode()
            header = f"author {who} <{email}> 1767225600 +0000\n".encode()
            header += f"committer {who} <{email}> 1767225600 +0000\n".encode()
            tip = ledger.commit(files(built, table, commit), config(commit.clock), header, message)
        out.finish()
    finally:
        gc.enable()
    subprocess.run(["git", "-C", str(path), "update-ref", REF, tip.hex()], check=True)


def _fast_import(path: Path, n: int, built: Plan, table: dict[tuple[str, bool], Template]) -> None:
    # glibc's malloc gives memory back to the system after each of fast-import's objects
    # and asks for it again (most of its time was brk): keep 64 MB at the top of the heap
    importer = subprocess.Popen(
        ["git", "-C", str(path), "fast-import", "--quiet"],
        stdin=subprocess.PIPE,
        env={**os.environ, "MALLOC_TOP_PAD_": str(64 << 20)},
    )
    assert importer.stdin is not None
    out = importer.stdin
    for number, commit in enumerate(built.commits, 1):
        who, email = PHASE_AUTHOR[commit.phase]
        message = f"bench ledger of {n} items, part {number} ({commit.phase})".encode()
        out.write(f"commit {REF}\nauthor {who} <{email}> 1767225600 +0000\n".encode())
        out.write(f"committer {who} <{email}> 1767225600 +0000\n".encode())
        out.write(b"data %d\n%s\n" % (len(message), message))
        for name, data in files(built, table, commit):
            out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (name, len(data), data))
        data = config(commit.clock)
        out.write(b"M 100644 inline coop.yaml\ndata %d\n%s\n" % (len(data), data))
        out.write(b"\n")
    out.close()
    if importer.wait() != 0:
        raise RuntimeError("git fast-import failed")
