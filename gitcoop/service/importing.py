"""`git coop import`: another tracker's export becomes ledger events, in one commit.

Each record is checked first (`domain/imported.problem`: the command line's
rules and caps); one that fails is reported with its line and skipped
whole. The rest are planned on the ledger as the writer reads it under its
lock, with the verbs people use: `add` (keeping the record's origin ids as
aliases), `note`, `take`, `done`, `abandon`, `edit` and `dep`. A record
already imported (an alias it carries is on an item) gets only what changed
in the tracker since the last import, which the import's own events record
(`imported` on its `add` or `edit`): what was changed here since is kept.
An unchanged one gets nothing, so importing the same export twice writes
nothing the second time. docs/import.md has the tables.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from gitcoop.domain import aliases, dependencies, ids, imported
from gitcoop.domain.dependencies import Graph
from gitcoop.domain.edits import IMPORTED
from gitcoop.domain.ids import ItemId
from gitcoop.domain.imported import ABANDONED, DONE, STARTED, Imported, Unmappable
from gitcoop.domain.lifecycle import HELD, TERMINAL
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Item
from gitcoop.domain.timefmt import format_instant
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.dependencies import open_index
from gitcoop.service.import_sources import ExportRecord
from gitcoop.service.writer import Intent, write
from gitcoop.store.ledger.snapshot import Snapshot

NAMES = {
    "taskwarrior": "taskwarrior",
    "backlog": "Backlog.md",
    "beads": "beads",
    "github": "GitHub",
}


@record_type
class Skipped:
    where: str
    origin: str | None
    reason: str


@record_type
class Outcome:
    """What one record did (or, with --dry-run, would do) to the ledger."""

    where: str
    aliases: tuple[str, ...]  # the item's (a new one's: the record's), stable one first
    alias: str  # the one people say (TW-12 rather than TW-<uuid>) that names only this item
    item: ItemId
    added: bool
    verbs: tuple[str, ...]  # the events written for it, in order
    notices: tuple[str, ...] = ()  # what was left as it is, and why


@record_type
class ImportReport:
    tracker: str
    dry_run: bool
    wrote: bool
    outcomes: list[Outcome]
    skipped: list[Skipped]
    labels: dict[ItemId, str]


@dataclass
class _Plan:
    """The intents of one import, built on one reading of the ledger."""

    tracker: str
    importer: str
    people: dict[str, str]
    minted: dict[str, ItemId]  # origin -> id for records new to the ledger (minted once)
    intents: list[Intent] = field(default_factory=list)
    links: list[Intent] = field(default_factory=list)  # after every add
    graph: Graph | None = None  # what waits on what, with the links planned so far
    outcomes: list[Outcome] = field(default_factory=list)


def import_records(
    ctx: Context, tracker: str, found: list[ExportRecord], people: dict[str, str], dry_run: bool
) -> ImportReport:
    records, skipped = _checked(found)
    minted = {r.origin: ids.mint_item_id("todo", ctx.bits) for _, r in records}
    importer = ctx.who(ctx.repo())
    plans: list[_Plan] = []

    def plan(snapshot: Snapshot) -> list[Intent]:
        made = _Plan(tracker, importer, people, minted)
        plans[:] = [made]
        _fill(made, snapshot, records)
        return made.intents + made.links

    if dry_run or not records:
        snapshot = read_ledger(ctx)
        plan(snapshot)
        wrote = False
    else:  # one commit: more events than one holds are refused whole (`writer.write`)
        written = write(ctx, plan)
        snapshot, wrote = written.snapshot, written.wrote
    outcomes = plans[0].outcomes if plans else []
    labels = _labels(snapshot, outcomes)
    return ImportReport(tracker, dry_run, wrote, outcomes, skipped, labels)


def _labels(snapshot: Snapshot, outcomes: list[Outcome]) -> dict[ItemId, str]:
    """Each item's short id (a dry run's new items have none yet: their whole id)."""
    known = ids.shortest_labels(snapshot.item_ids())
    return {o.item: known.get(o.item, o.item) for o in outcomes}


def _checked(found: list[ExportRecord]) -> tuple[list[tuple[str, Imported]], list[Skipped]]:
    """The records that may enter, and the rest with the reason; one origin once."""
    records: list[tuple[str, Imported]] = []
    skipped: list[Skipped] = []
    seen: dict[str, str] = {}
    for where, record, origin in found:
        if isinstance(record, Unmappable):
            skipped.append(Skipped(where, origin, str(record)))
            continue
        record = imported.kept_readable(record)
        problem = imported.problem(record)
        first = seen.setdefault(aliases.key(record.origin), where)
        if first != where:  # the first holds the origin, taken in or skipped: never another
            problem = f"{record.origin} is already in this export ({first})"
        if problem:
            skipped.append(Skipped(where, record.origin, problem))
            continue
        records.append((where, record))
    return records, skipped


def _fill(made: _Plan, snapshot: Snapshot, records: list[tuple[str, Imported]]) -> None:
    present = _aliased(snapshot)
    named = dict(present)
    for _, record in records:
        named.setdefault(aliases.key(record.origin), made.minted[record.origin])
    matched: list[tuple[str, Imported, ItemId, Item | None]] = []
    carriers: dict[str, set[ItemId]] = {}
    for carrier in snapshot.items():
        for alias in carrier.aliases:
            carriers.setdefault(aliases.key(alias), set()).add(carrier.id)
    for where, record in records:
        item_id = present.get(aliases.key(record.origin))  # the stable alias only: TW-12 moves
        item = snapshot.item(item_id) if item_id is not None else None
        if item is None:
            item_id = made.minted[record.origin]
            for alias in record.aliases:
                carriers.setdefault(aliases.key(alias), set()).add(item_id)
        assert item_id is not None
        matched.append((where, record, item_id, item))
    for where, record, item_id, item in matched:
        asked, linked = len(made.intents), len(made.links)
        notices = [*record.notices, *_record_intents(made, snapshot, item_id, item, record, named)]
        verbs = tuple(i.verb for i in (*made.intents[asked:], *made.links[linked:]))
        held = item.aliases if item is not None else record.aliases
        said = next((a for a in reversed(held) if len(carriers[aliases.key(a)]) == 1), held[0])
        made.outcomes.append(
            Outcome(where, held, said, item_id, item is None, verbs, tuple(notices))
        )


def _aliased(snapshot: Snapshot) -> dict[str, ItemId]:
    """Every alias on the ledger (by `aliases.key`) and the item that carries it."""
    return {aliases.key(a): item.id for item in snapshot.items() for a in item.aliases}


def _record_intents(
    made: _Plan,
    snapshot: Snapshot,
    item_id: ItemId,
    item: Item | None,
    record: Imported,
    named: dict[str, ItemId],
) -> Iterator[str]:
    """Append the intents one record asks for; yield what it leaves as it is, and why."""
    now = imported.as_imported(record)
    last: dict[str, Any] = {}
    edit: dict[str, Any] = {}
    if item is None:
        made.intents.append(Intent(item_id, "add", {**_add_args(record), IMPORTED: now}))
        noted: set[str] = set()
        status, holder = "open", None
    else:
        last = _last_imported(snapshot, item_id)
        edit = _edit_args(last, record)
        if edit:
            made.intents.append(Intent(item_id, "edit", {**edit, IMPORTED: now}))
        noted = {str(e.arg("text")) for e in snapshot.events(item_id) if e.verb == "note"}
        status, holder = item.status, item.taken_by
    for text in (*record.notes, *_assignment(made, record)):
        if text not in noted:
            made.intents.append(Intent(item_id, "note", {"text": text}))
    kept = item is None or bool(edit) or now == last  # what was read is on an event
    if last.get("state") != record.state:  # only a state that moved in the tracker
        asked = len(made.intents)
        yield from _state(made, item_id, record, status, holder)
        if not kept and len(made.intents) > asked:  # it rides on the state's event
            moved = made.intents[-1]
            made.intents[-1] = replace(moved, args={**moved.args, IMPORTED: now})
            kept = True
    if not kept:
        made.intents.append(Intent(item_id, "edit", {IMPORTED: now}))
    linked = set(last.get("depends") or ())
    fresh = [d for d in record.depends if f"{d[0]} {d[1]}" not in linked]
    yield from _links(made, snapshot, item_id, item, fresh, named)


def _last_imported(snapshot: Snapshot, item_id: ItemId) -> dict[str, Any]:
    """What the last import read of the item (its latest `imported`); for an item added
    before imports kept it, what its `add` held (its state and links then unknown)."""
    found: dict[str, Any] = {}
    for event in snapshot.events(item_id):
        kept = event.arg(IMPORTED)
        if isinstance(kept, Mapping):
            found = dict(kept)
        elif event.verb == "add" and not found:
            found = {
                "title": imported.digest(str(event.arg("title") or "").strip()),
                "body": imported.digest(str(event.arg("body") or "")),
                "tags": list(event.arg("tags") or ()),
                "priority": event.arg("priority"),
                "due": event.arg("due"),
            }
    return found


def _add_args(record: Imported) -> dict[str, Any]:
    args: dict[str, Any] = {"kind": "todo", "title": record.title.strip()}
    args["aliases"] = list(record.aliases)
    if record.body:
        args["body"] = record.body
    if record.tags:
        args["tags"] = list(record.tags)
    if record.priority is not None:
        args["priority"] = record.priority
    if record.due is not None:
        args["due"] = format_instant(record.due)
    return args


def _edit_args(last: Mapping[str, Any], record: Imported) -> dict[str, Any]:
    """What changed in the tracker since the last import (`last`); what changed here
    since is kept. A tag the tracker gained is added, and one it lost (that the last
    import read) is removed; a tag given only here is kept."""
    edit: dict[str, Any] = {}
    if imported.digest(record.title.strip()) != last.get("title"):
        edit["title"] = record.title.strip()
    if imported.digest(record.body or "") != last.get("body"):
        edit["body"] = record.body or ""
    if record.priority is not None and record.priority != last.get("priority"):
        edit["priority"] = record.priority
    due = format_instant(record.due) if record.due is not None else None
    if due != last.get("due"):
        edit["due"] = due or ""  # removed in the tracker: "" clears it here too
    added = sorted(set(record.tags) - set(last.get("tags") or ()))
    if added:
        edit["tags"] = added  # what `edit --tag` asks: edits.plan records tags_added
    removed = sorted(set(last.get("tags") or ()) - set(record.tags))
    if removed:
        edit["untag"] = removed  # what `edit --untag` asks: recorded as tags_removed
    return edit


def _assignment(made: _Plan, record: Imported) -> list[str]:
    """A note naming the record's assignee, unless the import takes it for the importer."""
    if record.assignee is None:
        return []
    who = made.people.get(record.assignee, record.assignee)
    if record.state == STARTED and who == made.importer:
        return []
    return [f"assigned to {who} in {NAMES[made.tracker]}"]


def _takes(made: _Plan, record: Imported) -> bool:
    """A started record is taken by the importer when it is theirs (or names nobody)."""
    if record.assignee is None:
        return True
    return made.people.get(record.assignee, record.assignee) == made.importer


def _state(
    made: _Plan, item_id: ItemId, record: Imported, status: str, holder: str | None
) -> Iterator[str]:
    tracker = NAMES[made.tracker]
    if status in TERMINAL:
        if record.state not in (DONE, ABANDONED):
            yield f"stays {status}: the first close is the record (reopened in {tracker})"
        return
    if status in HELD and holder != made.importer and record.state in (DONE, ABANDONED):
        yield f"taken by {holder}: {record.state} in {tracker}, left for them to record"
        return
    if record.state == DONE:
        args = {"summary": record.summary} if record.summary else {}
        made.intents.append(Intent(item_id, "done", args))
    elif record.state == ABANDONED:
        reason = record.summary or f"deleted in {tracker}"
        made.intents.append(Intent(item_id, "abandon", {"reason": reason}))
    elif record.state == STARTED and status not in HELD and _takes(made, record):
        made.intents.append(Intent(item_id, "take", {}))


def _links(
    made: _Plan,
    snapshot: Snapshot,
    item_id: ItemId,
    item: Item | None,
    depends: list[tuple[str, str]],
    named: dict[str, ItemId],
) -> Iterator[str]:
    for phrase, other_alias in depends:
        other = named.get(aliases.key(other_alias))
        if other is None:
            yield f"{phrase} {other_alias}: not in the ledger nor in this export, left out"
            continue
        if other == item_id:
            yield f"{phrase} {other_alias}: left out, an item is not linked to itself"
            continue
        holder, kind, target = dependencies.held(item_id, phrase, other)
        there = item if holder == item_id else snapshot.item(ItemId(holder))
        if there is not None and any((k.type, k.item) == (kind, target) for k in there.links):
            continue
        args = {"action": "add", "type": kind, "other": target}
        if any(i.target == holder and i.args == args for i in made.links):
            continue
        if kind in dependencies.WAITING:
            graph = made.graph = made.graph or open_index(snapshot).graph
            if graph.cycle_closed_by(holder, target) is not None:
                yield f"{phrase} {other_alias}: left out, it would close a cycle of links"
                continue
            graph.waits.setdefault(holder, []).append(target)
        made.links.append(Intent(holder, "dep", args))
