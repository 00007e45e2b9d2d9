"""What a hook could not record, kept in the git dir until it is recorded or dismissed.

One JSON object per line in `coop-journal` in the common git dir (so every
worktree shares it). A hook appends; a replay reads, records, then removes
the entries it recorded and rewrites the state of the others. Both hold a
small lock of their own (not the ledger's: a hook journals precisely because
the ledger's lock is busy), so an entry appended while a replay runs is never
lost.

A line that does not parse (a write cut short by a crash) is kept as it is
and shown as an entry of kind `unreadable`, with an id made from its bytes,
so it is reported and can be dismissed like any other.

When gitcoop itself cannot start, the shell shim of a hook writes one small
`key value` file per commit, `coop-journal-incoming.<pid>.<sha>`, using only
the shell's builtins (no PATH needed). Nothing rewrites those files, so no
write of the shim can be lost to a concurrent rewrite of the journal; the
next command turns each into an entry (`ingest`) and removes it.

An entry dropped with `git coop hook dismiss` is appended, with who dropped
it, when and why, to `coop-journal.dismissed`: nothing a person typed goes
without a trace.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import field
from typing import Any

from gitcoop.domain.record_type import record_type
from gitcoop.errors import Ambiguous, NotFound
from gitcoop.store.git.lock import file_lock

JOURNAL_NAME = "coop-journal"
DISMISSED_NAME = "coop-journal.dismissed"
INCOMING_PREFIX = "coop-journal-incoming."
INCOMING_MAGIC = "gitcoop-unrun 1"
INCOMING_END = "end"
INCOMING_KEYS = ("hook", "commit", "how", "actor", "session", "at", "note", "pair")
STALE_INCOMING = 60.0  # seconds after which a file the shim never finished is taken as it is
LOCK_TIMEOUT = 5.0
UNREADABLE = "unreadable"

Entry = dict[str, Any]


@record_type
class Incoming:
    """One file a shell shim wrote when it could not start gitcoop."""

    path: str
    fields: dict[str, str] = field(default_factory=dict)
    pairs: list[list[str]] = field(default_factory=list)
    problem: str | None = None  # why the file does not read as the shim writes it
    written: float = 0.0  # its mtime, seconds since the epoch


def journal_path(common_dir: str) -> str:
    return os.path.join(common_dir, JOURNAL_NAME)


def dismissed_path(common_dir: str) -> str:
    return os.path.join(common_dir, DISMISSED_NAME)


def _lock(common_dir: str) -> Any:
    return file_lock(journal_path(common_dir) + ".lock", LOCK_TIMEOUT)


def has_entries(common_dir: str) -> bool:
    """Cheap: a stat and a listing of the git dir, so every command can afford to ask."""
    try:
        if os.path.getsize(journal_path(common_dir)) > 0:
            return True
    except OSError:
        pass
    return bool(_incoming_names(common_dir))


def append(common_dir: str, entry: Entry) -> str:
    """Add one entry; returns the id it is kept under."""
    with _lock(common_dir):
        return _append(common_dir, entry)


def _append(common_dir: str, entry: Entry) -> str:
    import json  # imported where used: every command asks has_entries, few go further
    import secrets

    entry = {"id": secrets.token_hex(8), **entry}
    line = json.dumps(entry, sort_keys=True, ensure_ascii=False) + "\n"
    with open(journal_path(common_dir), "a+", encoding="utf-8") as handle:
        if handle.tell() > 0 and not _ends_with_newline(handle.name):
            line = "\n" + line  # a line cut short by a crash must not swallow this one
        handle.write(line)
        handle.flush()
        os.fsync(handle.fileno())
    return str(entry["id"])


def entries(common_dir: str) -> list[Entry]:
    """The pending entries, oldest first; an unreadable line as an `unreadable` entry."""
    if not has_entries(common_dir):
        return []
    with _lock(common_dir):
        return [entry for _, entry in _read(common_dir)]


def update(common_dir: str, change: Callable[[Entry], Entry | None]) -> None:
    """Rewrite every entry through `change` (None drops it), atomically.

    An unreadable line is kept byte for byte unless `change` drops it.
    """
    import json

    if not has_entries(common_dir):
        return
    with _lock(common_dir):
        kept: list[str] = []
        for line, entry in _read(common_dir):
            changed = change(entry)
            if changed is None:
                continue
            if entry.get("kind") == UNREADABLE:
                kept.append(line)
            else:
                kept.append(json.dumps(changed, sort_keys=True, ensure_ascii=False) + "\n")
        _replace(common_dir, "".join(kept))


def settle(common_dir: str, done: set[str]) -> None:
    """Remove the entries with these ids."""
    update(common_dir, lambda entry: None if entry.get("id") in done else entry)


def find(common_dir: str, prefix: str) -> Entry:
    """The one entry whose id starts with `prefix`."""
    with _lock(common_dir):
        return _one([e for _, e in _read(common_dir)], prefix)


def _one(entries: list[Entry], prefix: str) -> Entry:
    matches = [e for e in entries if str(e.get("id", "")).startswith(prefix)]
    if not prefix or not matches:
        raise NotFound(f"no journal entry {prefix!r} — git coop hook replay lists them")
    if len(matches) > 1:
        shown = ", ".join(str(e["id"])[:8] for e in matches)
        raise Ambiguous(f"{prefix!r} names {len(matches)} journal entries ({shown})")
    return matches[0]


def dismiss(common_dir: str, prefix: str, record: Entry) -> Entry:
    """Drop the one entry whose id starts with `prefix`; keep it, with `record`, in the log."""
    import json

    with _lock(common_dir):
        read = _read(common_dir)
        entry = _one([e for _, e in read], prefix)
        line = json.dumps({**record, "entry": entry}, sort_keys=True, ensure_ascii=False)
        with open(dismissed_path(common_dir), "a", encoding="utf-8") as handle:
            handle.write(line + "\n")
            handle.flush()
            os.fsync(handle.fileno())
        _replace(common_dir, "".join(text for text, e in read if e is not entry))
        return entry


# -- what the shell shims wrote --------------------------------------------------


def ingest(common_dir: str, convert: Callable[[Incoming], Entry | None]) -> list[Incoming]:
    """Turn each finished shim file into an entry (None: nothing to keep); remove it.

    A file still being written is left for the next command, unless it is
    older than STALE_INCOMING: then it is converted as it is, with its problem.
    Returns the files taken in.
    """
    names = _incoming_names(common_dir)
    if not names:
        return []
    taken: list[Incoming] = []
    with _lock(common_dir):
        for incoming in sorted(_incoming(common_dir, names), key=lambda i: (i.written, i.path)):
            finished = incoming.problem != "unfinished"
            if not finished and time.time() - incoming.written < STALE_INCOMING:
                continue
            entry = convert(incoming)
            if entry is not None:
                _append(common_dir, entry)
            os.unlink(incoming.path)  # after the append: a crash between repeats, never loses
            taken.append(incoming)
    return taken


def _incoming_names(common_dir: str) -> list[str]:
    try:
        return [n for n in os.listdir(common_dir) if n.startswith(INCOMING_PREFIX)]
    except OSError:
        return []


def _incoming(common_dir: str, names: list[str]) -> list[Incoming]:
    found: list[Incoming] = []
    for name in names:
        path = os.path.join(common_dir, name)
        try:
            written = os.stat(path).st_mtime
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read(64 * 1024)
        except OSError:
            continue  # gone already: another command ingested it
        found.append(_parse_incoming(path, text, written))
    return found


def _parse_incoming(path: str, text: str, written: float) -> Incoming:
    lines = text.split("\n")
    fields: dict[str, str] = {}
    pairs: list[list[str]] = []
    problem = None
    if INCOMING_END not in lines[1:]:
        problem = "unfinished"  # the shim may still be writing it
    elif lines[0] != INCOMING_MAGIC:
        problem = "not a gitcoop hook note"
    for line in lines[1:]:
        if line == INCOMING_END:
            break
        key, _, value = line.partition(" ")
        if key == "pair" and len(value.split()) >= 2:
            pairs.append(value.split()[:2])
        elif key in INCOMING_KEYS and key not in fields:
            fields[key] = value
        elif problem is None:
            problem = f"unexpected line {line[:60]!r}"
    return Incoming(path, fields, pairs, problem, written)


# -- the file -----------------------------------------------------------------------


def _ends_with_newline(path: str) -> bool:
    with open(path, "rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) == b"\n"


def _read(common_dir: str) -> list[tuple[str, Entry]]:
    import json

    try:
        with open(journal_path(common_dir), encoding="utf-8", errors="replace") as handle:
            lines = handle.readlines()
    except FileNotFoundError:
        return []
    result: list[tuple[str, Entry]] = []
    for line in lines:
        if not line.strip():
            continue
        if not line.endswith("\n"):
            line += "\n"
        try:
            entry = json.loads(line)
        except ValueError:
            entry = None
        if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
            import hashlib

            digest = hashlib.sha1(line.encode("utf-8")).hexdigest()[:16]
            entry = {"id": digest, "kind": UNREADABLE, "line": line.rstrip("\n")}
        result.append((line, entry))
    return result


def _replace(common_dir: str, text: str) -> None:
    path = journal_path(common_dir)
    if not text:
        if os.path.exists(path):
            os.unlink(path)
        return
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(temporary, path)
