"""Reading an export to import: a file, standard input, or Backlog.md's folder of tasks.

What comes out is a list of (where, record or why not, origin): `where` is
the line of JSON lines (`line 12`), the number of a record in a JSON array
(`record 12`) or, for Backlog.md, the task's file; the origin names a record
that could not be read, when its id could be. The text is
a stranger's: the whole input is capped before it is read, and each record
is mapped by the pure readers in `domain/trackers.py`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from gitcoop.domain import backlog_tasks, ids, trackers
from gitcoop.domain.imported import Imported, Unmappable
from gitcoop.errors import BadLedger, UsageError
from gitcoop.store.ledger import codec

MAX_INPUT = 64 * 1024 * 1024  # bytes of one export
MAX_TASK_FILE = 1024 * 1024  # bytes of one Backlog.md task file
TRACKERS = ("taskwarrior", "backlog", "beads", "github")
# one record of an export as read: where it is, the record or why it maps to none, its origin
ExportRecord = tuple[str, Imported | Unmappable, str | None]


def read(tracker: str, source: str) -> list[ExportRecord]:
    if tracker not in TRACKERS:
        raise UsageError(f"unknown format {tracker!r} — use one of {', '.join(TRACKERS)}")
    if tracker == "backlog":
        return _backlog(source)
    reader: Callable[[Any], Imported] = trackers.READERS[tracker]
    text = _text(source)
    try:
        numbered = trackers.json_records(text)
    except Unmappable as bad:
        raise UsageError(
            f"{_name(source)}: {bad} — give the export as the tool prints it"
        ) from None
    found: list[ExportRecord] = []
    for where, raw in numbered:
        try:
            record = reader(raw)
        except Unmappable as bad:
            found.append((where, bad, trackers.origin_of(tracker, raw)))
        else:
            found.append((where, record, record.origin))
    return found


def _name(source: str) -> str:
    return "standard input" if source == "-" else source


def _text(source: str) -> str:
    try:
        if source == "-":
            raw = sys.stdin.buffer.read(MAX_INPUT + 1)
        else:
            with open(source, "rb") as handle:
                raw = handle.read(MAX_INPUT + 1)
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror}") from None
    if len(raw) > MAX_INPUT:
        raise UsageError(f"{_name(source)} is over {MAX_INPUT // 2**20} MiB — split the export")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UsageError(f"{_name(source)} is not UTF-8 text") from None


def _backlog(source: str) -> list[ExportRecord]:
    """Backlog.md's task files: a folder (its tasks/ and completed/, or the files in it),
    or one task file."""
    root = Path(source)
    if source == "-" or not root.exists():
        raise UsageError(f"give Backlog.md's folder (backlog/ or backlog/tasks), not {source!r}")
    if root.is_file():
        files = [root]
    else:
        folders = [root / "tasks", root / "completed"] if (root / "tasks").is_dir() else [root]
        files = sorted(f for d in folders if d.is_dir() for f in d.glob("*.md") if f.is_file())
    inside = root.resolve()
    return [
        (str(f), _task(f) if f.resolve().is_relative_to(inside) else _OUTSIDE, None) for f in files
    ]


# a task file that links out of the folder given: what it names is not the import's to read
_OUTSIDE = Unmappable("a link to a file outside the folder given: not read")


def _task(path: Path) -> Imported | Unmappable:
    try:
        if os.path.getsize(path) > MAX_TASK_FILE:
            return Unmappable(f"over {MAX_TASK_FILE // 1024} KiB")
        text = path.read_bytes().decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return Unmappable("not readable UTF-8 text")
    lines = text.splitlines()
    if not lines or lines[0].strip() != "---" or "---" not in (s.strip() for s in lines[1:]):
        return Unmappable("no front matter (a --- block at the top)")
    end = next(n for n, s in enumerate(lines[1:], 1) if s.strip() == "---")
    try:
        front = codec.parse("\n".join(lines[1:end]) + "\n", str(path))
    except BadLedger as bad:
        return Unmappable(f"front matter: {bad.message}")
    try:
        return backlog_tasks.backlog(front, "\n".join(lines[end + 1 :]))
    except Unmappable as bad:
        return bad


def read_people(path: str | None) -> dict[str, str]:
    """`--people FILE`: lines `NAME = EMAIL` mapping a tracker's names for people to the
    identities the ledger uses (a line starting with # is a comment)."""
    if path is None:
        return {}
    people: dict[str, str] = {}
    for number, line in enumerate(_text(path).splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, sep, who = (part.strip() for part in line.partition("="))
        problem = ids.identity_problem(who) if sep and name else "expected NAME = EMAIL"
        if problem:
            raise UsageError(f"{path}, line {number}: {problem}")
        people[name] = who
    return people
