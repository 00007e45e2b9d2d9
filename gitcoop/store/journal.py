"""What a hook could not record, kept in the git dir until it is replayed.

One JSON object per line in `coop-journal` in the common git dir (so every
worktree shares it). A hook appends; a replay reads, records, then removes
the entries it settled. Both hold a small lock of their own (not the ledger's:
a hook journals precisely because the ledger's lock is busy), so an entry
appended while a replay runs is never lost. A line that does not parse (a
write cut short by a crash) is kept as it is and skipped.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from typing import Any

from gitcoop.store.lock import file_lock

JOURNAL_NAME = "coop-journal"
LOCK_TIMEOUT = 5.0

Entry = dict[str, Any]


def journal_path(common_dir: str) -> str:
    return os.path.join(common_dir, JOURNAL_NAME)


def _lock(common_dir: str) -> Any:
    return file_lock(journal_path(common_dir) + ".lock", LOCK_TIMEOUT)


def has_entries(common_dir: str) -> bool:
    """Cheap: one stat, so every command can afford to ask."""
    try:
        return os.path.getsize(journal_path(common_dir)) > 0
    except OSError:
        return False


def append(common_dir: str, entry: Entry) -> str:
    """Add one entry; returns the id it is kept under."""
    entry = {"id": secrets.token_hex(8), **entry}
    import json  # imported where used: every command asks has_entries, few go further

    line = json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n"
    with _lock(common_dir), open(journal_path(common_dir), "a+", encoding="utf-8") as handle:
        if handle.tell() > 0 and not _ends_with_newline(handle.name):
            line = "\n" + line  # a line cut short by a crash must not swallow this one
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
    return str(entry["id"])


def entries(common_dir: str) -> list[Entry]:
    """The pending entries, oldest first."""
    if not has_entries(common_dir):
        return []
    with _lock(common_dir):
        return [e for _, e in _read(common_dir) if e is not None]


def update(common_dir: str, change: Callable[[Entry], Entry | None]) -> None:
    """Rewrite every entry through `change` (None drops it), atomically."""
    import json

    if not has_entries(common_dir):
        return
    with _lock(common_dir):
        kept: list[str] = []
        for line, entry in _read(common_dir):
            if entry is None:
                kept.append(line)
                continue
            changed = change(entry)
            if changed is not None:
                kept.append(json.dumps(changed, sort_keys=True, ensure_ascii=False) + "\n")
        _replace(common_dir, "".join(kept))


def settle(common_dir: str, done: set[str]) -> None:
    """Remove the entries with these ids."""
    update(common_dir, lambda entry: None if entry.get("id") in done else entry)


def _ends_with_newline(path: str) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _read(common_dir: str) -> list[tuple[str, Entry | None]]:
    import json

    try:
        with open(journal_path(common_dir), encoding="utf-8") as handle:
            lines = handle.readlines()
    except FileNotFoundError:
        return []
    result: list[tuple[str, Entry | None]] = []
    for line in lines:
        if not line.strip():
            continue
        if not line.endswith("\n"):
            line += "\n"
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        result.append((line, entry if isinstance(entry, dict) and "id" in entry else None))
    return result


def _replace(common_dir: str, text: str) -> None:
    path = journal_path(common_dir)
    if not text:
        os.unlink(path)
        return
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
