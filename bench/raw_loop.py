"""The in-process transition rates of docs/performance.md against a raw pygit2 loop.

`in_process_seconds` runs take + done through the service layer (every rule,
YAML, the lock, the compare-and-swap); `raw_seconds` writes the same objects
(item, event and coop.yaml blobs, the six trees, a commit) and swaps the ref
with pygit2 alone: the floor this design allows.
"""

from __future__ import annotations

import random
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import ledger as builder
import pygit2

from gitcoop.service import ledger as service
from gitcoop.service.context import Context
from gitcoop.store.ledger.layout import REF


def in_process_seconds(path: Path, items: list[str], fsync: bool) -> float:
    """take + done through the service layer (every rule, YAML, lock, CAS)."""
    subprocess.run(
        ["git", "config", "coop.fsync", "true" if fsync else "false"], cwd=path, check=True
    )
    ctx = Context(
        path=str(path),
        actor=builder.WORKER,
        session="s-bench",
        now=datetime(2026, 11, 29, 10, tzinfo=UTC),
    )
    start = time.perf_counter()
    for item in items:
        service.act(ctx, item, "take", {})
        service.act(ctx, item, "done", {"summary": "benchmarked"})
    return time.perf_counter() - start


def raw_seconds(path: Path, items: list[str], fsync: bool) -> float:
    """The floor this design allows: the same blobs, trees, commit and ref swap, no rules."""
    pygit2.settings.enable_fsync_gitdir(fsync)
    repo = pygit2.Repository(str(path / ".git"))
    signature = pygit2.Signature("bench", builder.WORKER, 1767225600, 0)
    rng = random.Random(5)
    start = time.perf_counter()
    for n in range(2 * len(items)):
        item = items[n // 2]
        fan = item[3:5]
        tip = repo.references[REF].target
        root = repo[tip].tree
        # same sizes as gitcoop writes, still valid YAML (a trailing comment makes each new)
        noise = b"# %d\n" % rng.getrandbits(64)
        item_blob = repo.create_blob(repo[root[f"items/{fan}/{item}.yaml"].id].data + noise)
        event_blob = repo.create_blob(noise * 12)  # an event file is ~250 B
        config_blob = repo.create_blob(repo[root["coop.yaml"].id].data + noise)
        items_fan = repo.TreeBuilder(root[f"items/{fan}"])
        items_fan.insert(f"{item}.yaml", item_blob, pygit2.GIT_FILEMODE_BLOB)
        items_top = repo.TreeBuilder(root["items"])
        items_top.insert(fan, items_fan.write(), pygit2.GIT_FILEMODE_TREE)
        folder = repo.TreeBuilder(root[f"events/{fan}/{item}"])
        folder.insert(f"{n:012d}-ev-bench{n:07d}.yaml", event_blob, pygit2.GIT_FILEMODE_BLOB)
        events_fan = repo.TreeBuilder(root[f"events/{fan}"])
        events_fan.insert(item, folder.write(), pygit2.GIT_FILEMODE_TREE)
        events_top = repo.TreeBuilder(root["events"])
        events_top.insert(fan, events_fan.write(), pygit2.GIT_FILEMODE_TREE)
        top = repo.TreeBuilder(root)
        top.insert("coop.yaml", config_blob, pygit2.GIT_FILEMODE_BLOB)
        top.insert("items", items_top.write(), pygit2.GIT_FILEMODE_TREE)
        top.insert("events", events_top.write(), pygit2.GIT_FILEMODE_TREE)
        commit = repo.create_commit(None, signature, signature, "raw", top.write(), [tip])
        with repo.transaction() as txn:
            txn.lock_ref(REF)
            if repo.references[REF].target != tip:
                raise RuntimeError("raw loop lost its swap")
            txn.set_target(REF, commit, message="raw")
    return time.perf_counter() - start
