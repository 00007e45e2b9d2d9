"""A first sync reads objects the fetch did not bring: each must still be what its id names.

`git clone /path` copies (or hard-links) the source's object files as they are, with no
`index-pack`; a later `git fetch` of refs/coop/ledger then brings nothing, since every
object is already there. So "every object came in the fetch" does not hold for a new
clone's first sync, and an object whose content is not what its id names must be
refused there, as it is by every later read and by fsck.
"""

from __future__ import annotations

import subprocess
import zlib
from pathlib import Path

from tests.conftest import coop_in, git, make_repo


def _event_blob(path: Path) -> tuple[str, str]:
    for line in git(path, "ls-tree", "-r", "refs/coop/ledger").splitlines():
        meta, name = line.split("\t")
        if name.startswith("events/") and "/cf-" not in name:
            return meta.split()[2], name
    raise AssertionError("no item event")


def test_a_first_sync_refuses_an_object_whose_content_is_not_its_id(tmp_path: Path) -> None:
    source = make_repo(tmp_path / "source")
    git(source, "commit", "-q", "--allow-empty", "-m", "code")
    assert coop_in(source, "init").code == 0
    assert coop_in(source, "add", "todo", "hello world").code == 0
    oid, name = _event_blob(source)
    # every object loose, then the event's file rewritten: the same data, other bytes
    packs = source / ".git" / "objects" / "pack"
    for pack in sorted(packs.glob("*.pack")):
        data = pack.read_bytes()
        for part in packs.glob(pack.stem + ".*"):
            part.unlink()
        subprocess.run(["git", "unpack-objects", "-q"], cwd=source, input=data, check=True)
    honest = git(source, "cat-file", "-p", oid).encode()
    other = honest.replace(b"title: hello world", b'title: "hello world"')
    assert other != honest
    loose = source / ".git" / "objects" / oid[:2] / oid[2:]
    loose.chmod(0o644)
    loose.write_bytes(zlib.compress(b"blob %d\0" % len(other) + other))

    victim = tmp_path / "victim"
    git(tmp_path, "clone", "-q", str(source), str(victim))  # a local clone: files copied
    git(victim, "config", "user.email", "bob@example.com")
    synced = coop_in(victim, "sync")
    assert synced.code == 4, (synced.code, synced.out, synced.err)
    assert "hash mismatch" in synced.err and name in synced.err
    assert git(victim, "for-each-ref", "refs/coop/ledger") == ""  # nothing taken in
