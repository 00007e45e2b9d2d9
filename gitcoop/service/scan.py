"""Importing a scan's findings as drafts: dropped, collapsed, trimmed by shape, one commit.

The findings format is the JSON Schema shipped in the package
(`gitcoop/schemas/findings.schema.json`, `git coop scan --schema`); `finding`
accepts exactly what it describes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from gitcoop.domain import bounds, citation, ids, progress, queue, settings, shape
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Evidence, RecordError
from gitcoop.errors import UsageError
from gitcoop.service import citations
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.queue import parse_evidence
from gitcoop.service.writer import Intent, Shown, write
from gitcoop.store.ledger.snapshot import Snapshot


@record_type
class ScanReport:
    added: list[Shown]
    dropped: list[str]  # titles of findings that could not be used
    collapsed: list[str]  # titles sharing a first evidence path:line with another
    trimmed: list[tuple[str, str]]  # (title, shape) over max_same_shape
    lopsided: bool  # five or more usable findings offered span fewer than three shapes
    dropped_why: list[str]  # why each of `dropped` could not be used


@record_type
class Finding:
    title: str
    tag: str | None
    evidence: tuple[Evidence, ...]

    @property
    def spot(self) -> tuple[str, int] | None:
        """The first evidence as path:line, which two findings must not share; None: no line."""
        first = self.evidence[0]
        return None if first.line is None else (first.path, first.line)


FINDINGS_MAX = 64 * 1024 * 1024  # bytes: what an import reads at most, too


def read_findings(path: str) -> list[Any]:
    try:
        if os.path.getsize(path) > FINDINGS_MAX:
            raise UsageError(f"{path} is over {FINDINGS_MAX // 2**20} MiB: no list of findings is")
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except OSError as exc:
        raise UsageError(f"cannot read {path}: {exc.strerror}") from None
    except RecursionError:
        raise UsageError(
            f"{path} is nested deeper than a list of findings is — expected a list of "
            "findings (git coop scan --schema prints their format)"
        ) from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"{path} is not valid JSON ({exc}) — expected a list of findings "
            "(git coop scan --schema prints their format)"
        ) from None
    if isinstance(data, Mapping):
        data = data.get("findings")
    if not isinstance(data, list):
        raise UsageError(f'{path} must hold a JSON list of findings (or {{"findings": [...]}})')
    return data


def _cited(entry: Any, roots: tuple[str, ...]) -> Evidence | None:
    """One evidence entry of a finding: an object, or the CLI's PATH[:LINE[:QUOTE]] string."""
    try:
        if isinstance(entry, str):
            cited = parse_evidence(entry, line_required=False)
        else:
            cited = Evidence.from_data(entry)
    except (RecordError, UsageError):
        return None
    path = citation.normalise_path(cited.path, roots)
    if path is None or (cited.line is not None and cited.line < 1):
        return None
    return Evidence(path, cited.line, cited.quote)


def finding(raw: Any, roots: tuple[str, ...] = ()) -> Finding | None:
    """A one-line title with at least one usable evidence entry (a path, maybe a line); else None.

    What this accepts is what gitcoop/schemas/findings.schema.json describes.
    """
    examined = _examined(raw, roots)
    return examined if isinstance(examined, Finding) else None


def _examined(raw: Any, roots: tuple[str, ...]) -> Finding | str:
    """`finding`, or why there is none (what a dropped finding is reported with)."""
    if not isinstance(raw, Mapping) or not isinstance(raw.get("title"), str):
        return "no title"
    title = raw["title"].strip()
    problem = bounds.line_problem(title, "title") or bounds.hidden_problem(title, "title")
    if problem:
        return problem  # a title is one line that hides nothing, whoever found it
    if not title:
        return "an empty title"
    given = raw["evidence"] if isinstance(raw.get("evidence"), list) else []
    usable = [e for e in (_cited(entry, roots) for entry in given) if e is not None]
    tag = raw.get("tag") if isinstance(raw.get("tag"), str) else None
    return Finding(title, tag, tuple(usable)) if usable else "no usable evidence"


@dataclass
class _Batch:
    fresh: list[Finding] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)  # titles: no usable finding
    why: list[str] = field(default_factory=list)  # why each was dropped
    collapsed: list[str] = field(default_factory=list)  # a spot already cited
    offered: list[str] = field(default_factory=list)  # every usable finding's title


def _sorted(raw: list[Any], roots: tuple[str, ...], taken: set[tuple[str, int]]) -> _Batch:
    """The findings as usable and new, dropped, or collapsed onto a spot already cited."""
    batch = _Batch()
    shown = progress.reporter()
    for done, entry in enumerate(raw):
        shown.step("reading the findings", done, len(raw))
        found = _examined(entry, roots)
        if isinstance(found, str):
            title = entry.get("title") if isinstance(entry, Mapping) else None
            batch.dropped.append(title if isinstance(title, str) else repr(entry)[:60])
            batch.why.append(found)
            continue
        batch.offered.append(found.title)
        if found.spot is not None and found.spot in taken:
            batch.collapsed.append(found.title)
            continue
        if found.spot is not None:
            taken.add(found.spot)
        batch.fresh.append(found)
    shown.step("reading the findings", len(raw), len(raw))
    return batch


def findings_schema() -> str:
    """The JSON Schema of a findings file, as shipped in the package."""
    return resources.files("gitcoop").joinpath("schemas/findings.schema.json").read_text("utf-8")


def scan(ctx: Context, path: str) -> ScanReport:
    raw = read_findings(path)
    snapshot = read_ledger(ctx)
    roots = citations.roots(ctx.repo())
    taken = {
        (i.evidence[0].path, i.evidence[0].line)
        for i in snapshot.open_items()  # every unsettled item is there
        if i.kind == "item"
        and i.evidence
        and i.evidence[0].line is not None
        and not queue.settled(i)
    }
    batch_in = _sorted(raw, roots, taken)
    limit = int(settings.value(snapshot.config.settings, "max_same_shape"))
    fresh = batch_in.fresh
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
        with progress.reporter().waiting(f"recording {len(item_ids)} drafts"):
            written = write(ctx, plan)
        added = [written.shown(i) for i in item_ids]
    trimmed = [(f.title, form) for f, form in batch.trimmed]
    lopsided = shape.repeating(batch_in.offered)
    return ScanReport(added, batch_in.dropped, batch_in.collapsed, trimmed, lopsided, batch_in.why)


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
