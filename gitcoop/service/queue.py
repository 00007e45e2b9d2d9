"""The queue's use-cases: add an item, show the queue, edit, split, finish (scan: scan.py)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from gitcoop.domain import ids, queue, settings
from gitcoop.domain.ids import ItemId
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Evidence, Item
from gitcoop.errors import Refused, UsageError
from gitcoop.service import citations, ledger
from gitcoop.service.context import Context, commit_named, read_ledger
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store.git import ancestry
from gitcoop.store.ledger.snapshot import Snapshot

# -- add -------------------------------------------------------------------------


def add_item(
    ctx: Context,
    title: str,
    tags: tuple[str, ...] = (),
    evidence: tuple[Evidence, ...] = (),
    source: str = "human",
    body: str | None = None,
    priority: int | None = None,
    discovered_from: str | None = None,
    follows: str | None = None,
    due: str | None = None,
) -> Shown:
    """File a draft queue item with a time-ordered order key (and its own `due` date)."""
    if source not in queue.SOURCES:
        raise UsageError(f"unknown source {source!r}: use one of {', '.join(queue.SOURCES)}")
    item_id = ids.mint_item_id("item", ctx.bits)
    args: dict[str, Any] = {
        "kind": "item",
        "title": title,
        "tags": list(tags) or None,
        "body": body,
        "priority": priority,
        "due": due,
        "source": source,
        "evidence": [e.to_data() for e in evidence],
    }

    def plan(snapshot: Snapshot) -> list[Intent]:
        key = queue.time_key(ctx.now, item_id, snapshot.config.clock + 1)
        given = {k: v for k, v in args.items() if v is not None}
        intents = [Intent(item_id, "add", {**given, "order_key": key})]
        if discovered_from is not None:
            intents.append(ledger.discovered_intent(snapshot, item_id, discovered_from))
        if follows is not None:
            intents.append(ledger.follows_intent(snapshot, item_id, follows))
        return intents

    return write(ctx, plan).shown(item_id)


def check_evidence(
    ctx: Context, evidence: tuple[Evidence, ...]
) -> tuple[tuple[Evidence, ...], list[str]]:
    """A person's evidence with normalised paths, and warnings where it is not in the tree at HEAD.

    Only warnings: a person may cite code that is not committed yet.
    """
    repo = ctx.repo()
    return citations.check(repo, ancestry.current_head(repo), evidence)


def parse_evidence(spec: str, line_required: bool = True) -> Evidence:
    """PATH:LINE[:QUOTE] as typed on the command line (in a scan, PATH alone too)."""
    path, colon, rest = spec.partition(":")
    line_text, _, quote = rest.partition(":")
    line_ok = line_text.strip().isdigit() and int(line_text) >= 1
    if not path.strip() or (colon and not line_ok) or (line_required and not colon):
        form = "PATH:LINE[:QUOTE]" if line_required else "PATH[:LINE[:QUOTE]]"
        raise UsageError(f"--evidence {spec!r} is not {form} (e.g. src/app.py:42)")
    return Evidence(path.strip(), int(line_text) if colon else None, quote or None)


# -- the queue view ----------------------------------------------------------------


@record_type
class QueueView:
    shown: list[Shown]  # triage order; with --all, settled items follow
    settled: dict[str, int]
    hint: str | None  # what to do next when nothing is ready
    low: str | None  # what a top-up needs, when the queue is running low


def view(ctx: Context, include_settled: bool = False) -> QueueView:
    """The queue from the open index; settled items are read only with `include_settled`."""
    snapshot = read_ledger(ctx)
    assert snapshot.cache is not None
    settled: Counter[str] = Counter()
    if include_settled:
        found = snapshot.rows(snapshot.cache)
    else:
        opened = snapshot.open_view(snapshot.cache)
        found = opened.rows
        for tally in opened.settled:
            if tally.kind == "item" and tally.status in queue.SETTLED:
                settled[tally.status] += tally.number
    rows = [row for row in found if row.summary.kind == "item"]
    items = [Item.from_data(row.data()) for row in rows]
    names = {row.item_id: row.label for row in rows}  # against every id, as `list` shows them
    ordered = queue.triage(items)
    settled.update(i.status for i in items if queue.settled(i))
    if include_settled:
        ordered += sorted((i for i in items if queue.settled(i)), key=queue.sort_key)
    hint, low = None, _top_up(items, snapshot.config.settings)
    if not any(not queue.settled(i) for i in ordered):  # one line (seed 004): it says scan
        hint, low = "the queue is empty — import findings with: git coop scan --from FILE", None
    if any(i.status in ("draft", "verifying") for i in items) and not any(
        i.status == "ready" for i in items
    ):
        hint = "nothing is ready — verify the drafts with: git coop verify"
    return QueueView(
        [Shown(i, names[i.id], wrote=False) for i in ordered],
        dict(settled),
        hint,
        low,
    )


def _top_up(items: list[Item], current: Mapping[str, Any]) -> str | None:
    """The low-queue hint: how many live items there are, and how many findings to add."""
    threshold = int(settings.value(current, "topup_threshold"))
    if not queue.needs_top_up(items, threshold):
        return None
    size = int(settings.value(current, "topup_size"))
    live = sum(1 for i in items if i.status in queue.TOP_UP_COUNTED)
    return (
        f"the queue is running low ({live} live item{'s' if live != 1 else ''}, fewer than "
        f"{threshold}) — top it up with {size} findings: git coop scan --from FILE"
    )


# -- edit, split, finish ------------------------------------------------------------


def edit(
    ctx: Context,
    ref: str,
    title: str | None = None,
    before: str | None = None,
    after: str | None = None,
    status: str | None = None,
    reason: str | None = None,
) -> Shown:
    """A queue item's title (an `edit`), place and state (an `edit_item`), in one commit."""

    def moved(snapshot: Snapshot, item_id: ItemId) -> dict[str, Any] | None:
        return moves(snapshot, item_id, before, after, status, reason)

    return ledger.edit(ctx, ref, {"title": title} if title is not None else {}, moved)


def moves(
    snapshot: Snapshot,
    item_id: ItemId,
    before: str | None = None,
    after: str | None = None,
    status: str | None = None,
    reason: str | None = None,
) -> dict[str, Any] | None:
    """A queue item's `edit_item` arguments: its place (--before/--after ID), its state."""
    if before and after:
        raise UsageError("give --before or --after, not both")
    args: dict[str, Any] = {"status": status, "reason": reason}
    anchor_ref = before or after
    if anchor_ref:
        args["order_key"] = _key_next_to(snapshot, item_id, anchor_ref, after=bool(after))
    if status is None and reason is not None:
        raise UsageError("--reason goes with --state")
    given = {k: v for k, v in args.items() if v is not None}
    return given or None


def _key_next_to(snapshot: Snapshot, item_id: ItemId, anchor_ref: str, after: bool) -> str:
    anchor_id = snapshot.resolve(anchor_ref)
    if anchor_id == item_id:
        raise UsageError("an item cannot be ordered relative to itself")
    others = [i for i in queue.in_order(snapshot.items()) if i.id != item_id]
    anchor = next((i for i in others if i.id == anchor_id), None)
    if anchor is None or anchor.order_key is None:
        raise Refused(f"{snapshot.label(anchor_id)} is not a queue item with an order")
    low, high = queue.neighbour_keys(others, anchor, after)
    try:
        return queue.key_between(low, high)
    except ValueError:  # two clones placed items at the same spot: their keys are equal
        raise Refused(
            f"{snapshot.label(anchor_id)} shares its place in the queue with its neighbour — "
            "move one of them elsewhere first"
        ) from None


def split(ctx: Context, ref: str, titles: list[str]) -> tuple[Shown, list[Shown]]:
    """Child drafts with parent_id, placed where the parent stood; the parent is split."""
    titles = [t.strip() for t in titles if t.strip()]
    if len(titles) < 2:
        raise UsageError("split needs at least two --into TITLE")
    child_ids = [ids.mint_item_id("item", ctx.bits) for _ in titles]

    def plan(snapshot: Snapshot) -> list[Intent]:
        parent_id = snapshot.resolve(ref)
        parent = snapshot.item(parent_id)
        assert parent is not None
        ordered = queue.in_order(snapshot.items())
        if parent.kind != "item" or parent.order_key is None:
            raise Refused(f"{snapshot.label(parent_id)} is not a queue item — only items split")
        _, high = queue.neighbour_keys(ordered, parent, after=True)
        intents = [Intent(parent_id, "split", {"children": child_ids}, ctx.expect_version)]
        low = parent.order_key
        for child_id, title in zip(child_ids, titles, strict=True):
            low = queue.key_between(low, high)
            args = {
                "kind": "item",
                "title": title,
                "tags": list(parent.tags) or None,
                "source": "human",
                "evidence": [e.to_data() for e in queue.invalidated(parent.evidence)],
                "order_key": low,
                "parent_id": parent_id,
            }
            given = {k: v for k, v in args.items() if v is not None}
            intents.append(Intent(child_id, "add", given))
        return intents

    written = write(ctx, plan)
    parent_id = next(i for i in written.items if i not in child_ids)
    return written.shown(parent_id), [written.shown(c) for c in child_ids]


def finish(
    ctx: Context, ref: str, outcome: str, commit_elsewhere: bool = False, **args: Any
) -> list[Shown]:
    """End a round; the first item shown is the one finished (a closed parent may follow).

    A `commit` must name a commit here, unless `commit_elsewhere` keeps a sha as given."""

    if isinstance(args.get("commit"), str):
        args["commit"] = commit_named(ctx.repo(), args["commit"], commit_elsewhere)

    def plan(snapshot: Snapshot) -> list[Intent]:
        given = {k: v for k, v in args.items() if v}
        finishing = {"outcome": outcome, **given}
        return [Intent(snapshot.resolve(ref), "finish", finishing, ctx.expect_version)]

    written = write(ctx, plan)
    if not written.wrote:  # an identical repeat: the item as it stands
        return [written.first()]
    return [written.shown(i) for i in written.items]
