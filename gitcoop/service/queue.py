"""The queue's use-cases: add an item, show the queue, scan import, edit, split, finish."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gitcoop.domain import bounds, ids, queue, settings, shape
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Evidence, RecordError
from gitcoop.errors import Refused, UsageError
from gitcoop.service.context import Context, commit_named, read_ledger
from gitcoop.service.queries import labels
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store.snapshot import Snapshot

# -- add -------------------------------------------------------------------------


def add_item(
    ctx: Context,
    title: str,
    tag: str | None = None,
    evidence: tuple[Evidence, ...] = (),
    source: str = "human",
    body: str | None = None,
) -> Shown:
    """File a draft queue item with a time-ordered order key."""
    if source not in queue.SOURCES:
        raise UsageError(f"unknown source {source!r}: use one of {', '.join(queue.SOURCES)}")
    item_id = ids.mint_item_id("item", ctx.bits)
    args: dict[str, Any] = {
        "kind": "item",
        "title": title,
        "tag": tag,
        "body": body,
        "source": source,
        "evidence": [e.to_data() for e in evidence],
    }

    def plan(snapshot: Snapshot) -> list[Intent]:
        key = queue.time_key(ctx.now, item_id, snapshot.config.clock + 1)
        given = {k: v for k, v in args.items() if v is not None}
        return [Intent(item_id, "add", {**given, "order_key": key})]

    return write(ctx, plan).shown(item_id)


def parse_evidence(spec: str) -> Evidence:
    """PATH:LINE[:QUOTE] as typed on the command line."""
    path, _, rest = spec.partition(":")
    line_text, _, quote = rest.partition(":")
    if not path.strip() or not line_text.strip().isdigit() or int(line_text) < 1:
        raise UsageError(f"--evidence {spec!r} is not PATH:LINE[:QUOTE] (e.g. src/app.py:42)")
    return Evidence(path.strip(), int(line_text), quote or None)


# -- the queue view ----------------------------------------------------------------


@dataclass(frozen=True)
class QueueView:
    shown: list[Shown]  # triage order; with --all, settled items follow
    settled: dict[str, int]
    hint: str | None  # what to do next when nothing is ready
    low: bool  # needs a top-up


def view(ctx: Context, include_settled: bool = False) -> QueueView:
    snapshot = read_ledger(ctx)
    items = [i for i in snapshot.items() if i.kind == "item"]
    names = labels(snapshot)  # against every id, as `list` shows them
    ordered = queue.triage(items)
    settled = Counter(i.status for i in items if queue.settled(i))
    if include_settled:
        ordered += sorted((i for i in items if queue.settled(i)), key=queue.sort_key)
    hint = None
    if not any(not queue.settled(i) for i in ordered):
        hint = "the queue is empty — import findings with: git coop scan --from FILE"
    if any(i.status in ("draft", "verifying") for i in items) and not any(
        i.status == "ready" for i in items
    ):
        hint = "nothing is ready — verify the drafts with: git coop verify"
    threshold = int(settings.value(snapshot.config.settings, "topup_threshold"))
    return QueueView(
        [Shown(i, names[i.id], wrote=False) for i in ordered],
        dict(settled),
        hint,
        queue.needs_top_up(items, threshold),
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
    if before and after:
        raise UsageError("give --before or --after, not both")

    def plan(snapshot: Snapshot) -> list[Intent]:
        item_id = snapshot.resolve(ref)
        args: dict[str, Any] = {"title": title, "status": status, "reason": reason}
        anchor_ref = before or after
        if anchor_ref:
            args["order_key"] = _key_next_to(snapshot, item_id, anchor_ref, after=bool(after))
        args = {k: v for k, v in args.items() if v is not None}
        if not args:
            raise UsageError("nothing to edit: give --title, --before/--after or --state")
        return [Intent(item_id, "edit_item", args, ctx.expect_version)]

    return write(ctx, plan).first()


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
                "tag": parent.tag,
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


def finish(ctx: Context, ref: str, outcome: str, **args: Any) -> list[Shown]:
    """End a round; the first item shown is the one finished (a closed parent may follow)."""

    if isinstance(args.get("commit"), str):
        args["commit"] = commit_named(ctx.repo(), args["commit"])

    def plan(snapshot: Snapshot) -> list[Intent]:
        given = {k: v for k, v in args.items() if v}
        return [Intent(snapshot.resolve(ref), "finish", {"outcome": outcome, **given})]

    written = write(ctx, plan)
    return [written.shown(i) for i in written.items]


# -- scan import ---------------------------------------------------------------------


@dataclass(frozen=True)
class ScanReport:
    added: list[Shown]
    dropped: list[str]  # titles with no usable evidence
    collapsed: list[str]  # titles sharing a first evidence path:line with another
    trimmed: list[tuple[str, str]]  # (title, shape) over max_same_shape
    lopsided: bool


@dataclass(frozen=True)
class Finding:
    title: str
    tag: str | None
    evidence: tuple[Evidence, ...]

    @property
    def spot(self) -> tuple[str, int | None]:
        return (self.evidence[0].path, self.evidence[0].line)


def read_findings(path: str) -> list[Any]:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{path} is not valid JSON ({exc}) — expected a list of findings"
        ) from None
    if isinstance(data, Mapping):
        data = data.get("findings")
    if not isinstance(data, list):
        raise UsageError(f'{path} must hold a JSON list of findings (or {{"findings": [...]}})')
    return data


def _finding(raw: Any) -> Finding | None:
    """A finding with at least one usable evidence entry; None otherwise."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("title"), str):
        return None
    title = raw["title"].strip()
    if bounds.line_problem(title, "title"):  # a title is one line, whoever found it
        return None
    usable = []
    for entry in raw.get("evidence") or [] if isinstance(raw.get("evidence"), list) else []:
        try:
            cited = Evidence.from_data(entry)
        except RecordError:
            continue
        if cited.line is not None and cited.line >= 1:
            usable.append(Evidence(cited.path.strip(), cited.line, cited.quote))
    tag = raw.get("tag") if isinstance(raw.get("tag"), str) else None
    return Finding(title, tag, tuple(usable)) if title and usable else None


def scan(ctx: Context, path: str) -> ScanReport:
    raw = read_findings(path)
    snapshot = read_ledger(ctx)
    taken = {
        (i.evidence[0].path, i.evidence[0].line)
        for i in snapshot.items()
        if i.kind == "item" and i.evidence and not queue.settled(i)
    }
    dropped: list[str] = []
    collapsed: list[str] = []
    fresh: list[Finding] = []
    for entry in raw:
        finding = _finding(entry)
        if finding is None:
            title = entry.get("title") if isinstance(entry, Mapping) else None
            dropped.append(title if isinstance(title, str) else repr(entry)[:60])
        elif finding.spot in taken:
            collapsed.append(finding.title)
        else:
            taken.add(finding.spot)
            fresh.append(finding)
    limit = int(settings.value(snapshot.config.settings, "max_same_shape"))
    batch = shape.trim(fresh, [f.title for f in fresh], limit)
    item_ids = [ids.mint_item_id("item", ctx.bits) for _ in batch.kept]

    def plan(snapshot: Snapshot) -> list[Intent]:
        clock = snapshot.config.clock + 1
        return [
            Intent(item_id, "add", _scan_args(finding, queue.time_key(ctx.now, item_id, clock + n)))
            for n, (item_id, finding) in enumerate(zip(item_ids, batch.kept, strict=True))
        ]

    added: list[Shown] = []
    if item_ids:
        written = write(ctx, plan)
        added = [written.shown(i) for i in item_ids]
    trimmed = [(f.title, form) for f, form in batch.trimmed]
    return ScanReport(added, dropped, collapsed, trimmed, batch.lopsided)


def _scan_args(finding: Finding, order_key: str) -> dict[str, Any]:
    args: dict[str, Any] = {
        "kind": "item",
        "title": finding.title,
        "source": "scan",
        "evidence": [e.to_data() for e in finding.evidence],
        "order_key": order_key,
    }
    if finding.tag:
        args["tag"] = finding.tag
    return args
