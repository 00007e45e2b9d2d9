"""Shadows no cache at all (each read parsing what it needs); gains 100,000 rows loaded in
~0.2 s, against ~1.5 s as nested data (docs/performance.md, "The read cache", "Format:
marshal"); held equal by tests/store/fast/test_cache.py and tests/store/fast/test_reference.py.

The read cache's files: marshal data behind a magic and a CRC, replaced atomically.

marshal was chosen by measurement: loading 10,000 item summaries takes ~15 ms
(pickle is similar, JSON ~5x slower, sqlite adds a per-row cost and a lock
protocol), and unlike pickle it cannot run code when loading a tampered file.
A file is written to a uniquely named temporary file and renamed over the old
one, so readers see the old or the new file, never a mix; two processes racing
just both write a correct file. An unreadable, corrupt or foreign file reads as
missing. Failing to write (a read-only git dir, a full disk) is ignored: the
cache only saves work.
"""

from __future__ import annotations

import contextlib
import marshal
import os
import shutil
import zlib
from typing import Any

CACHE_DIR = "coop-cache"
FORMAT = "items-v9"
MAGIC = b"COOPCACHE9\n"
MAX_FILE_BYTES = 256 * 1024 * 1024


def cache_dir(common_dir: str) -> str:
    return os.path.join(common_dir, CACHE_DIR, FORMAT)


class ShardFiles:
    """The cache's files under one directory, each named for what it holds."""

    unkept = False  # `Unkept`: no file is read or written

    def __init__(self, root: str) -> None:
        self.root = root

    def path(self, name: str) -> str:
        return os.path.join(self.root, name)

    def read(self, name: str) -> Any:
        """A file's value, or None when it is missing or damaged."""
        try:
            with open(self.path(name), "rb") as handle:
                raw = handle.read()
        except OSError:
            return None
        return _decode(raw, name)

    def write(self, name: str, value: Any) -> bool:
        """Replace one file atomically; whether it was written (failing to write only costs
        a rebuild later)."""
        payload = marshal.dumps((FORMAT, name, value))
        if len(payload) > MAX_FILE_BYTES:
            return False
        body = MAGIC + zlib.crc32(payload).to_bytes(4, "big") + payload
        path = self.path(name)
        temp = f"{path}.{os.getpid()}.{os.urandom(4).hex()}.tmp"
        try:
            if not os.path.isdir(self.root):
                os.makedirs(self.root, exist_ok=True)
                _drop_other_formats(os.path.dirname(self.root))
            with open(temp, "wb") as handle:
                handle.write(body)
            os.replace(temp, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            return False
        except BaseException:  # stopped (SIGTERM, Ctrl-C) while writing: nothing left behind
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
        return True

    def drop(self, name: str) -> None:
        """Remove a file, so that what it held is made again."""
        with contextlib.suppress(OSError):
            os.unlink(self.path(name))


class Unkept(ShardFiles):
    """No cache (`COOP_REFERENCE=1`): every file reads as missing and nothing is written,
    so each read parses, from the commit, every file it needs."""

    unkept = True

    def read(self, name: str) -> Any:
        return None

    def write(self, name: str, value: Any) -> bool:
        return False

    def drop(self, name: str) -> None:
        return None


def _drop_other_formats(parent: str) -> None:
    """Remove the files of earlier cache formats, which nothing reads any more
    (a later format's, kept by a newer gitcoop sharing this repository, stay)."""
    current = _format_number(FORMAT)
    for name in os.listdir(parent):
        number = _format_number(name)
        if number is not None and current is not None and number < current:
            shutil.rmtree(os.path.join(parent, name), ignore_errors=True)


def _format_number(name: str) -> int | None:
    prefix, _, number = name.partition("-v")
    return int(number) if prefix == "items" and number.isdigit() else None


def _decode(raw: bytes, name: str) -> Any:
    """A file's value, or None for anything damaged or foreign."""
    head = len(MAGIC) + 4
    if len(raw) < head or not raw.startswith(MAGIC):
        return None
    payload = raw[head:]
    if zlib.crc32(payload).to_bytes(4, "big") != raw[len(MAGIC) : head]:
        return None
    try:
        value = marshal.loads(payload)
    except (ValueError, EOFError, TypeError):
        return None
    if not (isinstance(value, tuple) and len(value) == 3 and value[:2] == (FORMAT, name)):
        return None
    return value[2]
