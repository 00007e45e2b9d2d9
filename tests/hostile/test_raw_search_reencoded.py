"""A peer spells item and event files otherwise (the same data); the hooks' search agrees.

`store/fast/blob_search.py` finds the items naming a string, and the commits the events
name, by searching raw bytes. The boundary promises data, not bytes: it accepts an item
file whose data is its state (`joining.as_state`), and an event file with a comment (an
event's id is its content's). It took gitcoop's writer's spelling for granted, so a
done item's sha spelt as escapes stayed on the vanished commit after post-rewrite, and a
sha in an honest note's comment hid an unrecorded commit from backfill, where the
reference path (COOP_REFERENCE=1) answered right.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import Clones, coop_in, coop_process, git
from tests.hostile.forge import files, publish, team


def _hook(path: Path, stdin: str, reference: bool) -> subprocess.CompletedProcess[str]:
    env = {**os.environ}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    if reference:
        env["COOP_REFERENCE"] = "1"
    else:
        env.pop("COOP_REFERENCE", None)
    return subprocess.run(
        ["git", "coop", "hook", "post-rewrite", "amend"],
        cwd=path,
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def _escaped(sha: str) -> bytes:
    """The sha as a YAML double-quoted scalar, each character a \\x escape."""
    return ('"' + "".join(f"\\x{ord(c):02x}" for c in sha) + '"').encode()


def test_an_item_file_spelt_with_escapes_still_moves_to_the_rewritten_commit(
    clones: Clones, tmp_path: Path
) -> None:
    crew = team(clones, tmp_path)
    bob = crew.victim
    (bob / "f.txt").write_text("one\n")
    git(bob, "add", "f.txt")
    git(bob, "commit", "-q", "-m", "fix")
    old = git(bob, "rev-parse", "HEAD").strip()
    todo = coop_in(bob, "add", "todo", "fix it", "--json").json()["id"]
    assert coop_in(bob, "done", todo, "--commit", old).code == 0
    assert coop_in(bob, "sync").code == 0

    # mallory: the same data, the sha spelt "\x..": no event added, nothing else changed
    assert coop_in(crew.mallory, "sync").code == 0
    content = files(crew.mallory)
    path = f"items/{todo[3:5]}/{todo}.yaml"
    assert old.encode() in content[path], content[path]
    content[path] = content[path].replace(old.encode(), _escaped(old))
    assert old.encode() not in content[path]
    publish(crew.mallory, content)

    synced = coop_in(bob, "sync")
    assert synced.code == 0, synced.err  # the boundary takes it: the data is the state

    git(bob, "commit", "-q", "--amend", "-m", "fix, reworded")
    new = git(bob, "rev-parse", "HEAD").strip()
    twin = tmp_path / "bob-reference"
    shutil.copytree(bob, twin, symlinks=True)

    ref = _hook(twin, f"{old} {new}\n", reference=True)
    assert ref.returncode == 0, ref.stderr
    assert coop_in(twin, "show", todo, "--json").json()["commit_sha"] == new  # reference moves it

    fast = _hook(bob, f"{old} {new}\n", reference=False)
    assert fast.returncode == 0, fast.stderr
    # the fast path must agree with the reference: the done item now records `new`
    assert coop_in(bob, "show", todo, "--json").json()["commit_sha"] == new


def test_a_sha_in_a_yaml_comment_does_not_hide_an_unrecorded_commit_from_backfill(
    clones: Clones, tmp_path: Path
) -> None:
    """`blob_search.commits_named` takes any 40 hex digits in an event file's bytes, a YAML
    comment's included; the reference path (COOP_REFERENCE=1) takes only parsed values. A
    peer's own note, its id its content's (a comment is no content), names bob's commit in
    a comment, and bob's `hooks backfill` no longer finds the commit's Coop-Done trailer."""
    from tests.hostile.forge import add_event, new_event

    crew = team(clones, tmp_path)
    bob = crew.victim
    todo = coop_in(bob, "add", "todo", "fix it", "--json").json()["id"]
    assert coop_in(bob, "sync").code == 0
    (bob / "f.txt").write_text("one\n")
    git(bob, "add", "f.txt")
    git(bob, "commit", "-q", "-m", f"fix\n\nCoop-Done: {todo}")
    sha = git(bob, "rev-parse", "HEAD").strip()  # pushed to a code branch: anyone knows it

    def found(reference: bool) -> list[str]:
        env = {"COOP_REFERENCE": "1"} if reference else {"COOP_REFERENCE": "0"}
        listed = coop_process(bob, "hooks", "backfill", "--json", env=env)
        assert listed.code == 0, listed.err
        return [str(entry) for entry in listed.json()]

    assert any(sha in entry for entry in found(reference=False))  # before: found

    assert coop_in(crew.mallory, "sync").code == 0
    content = files(crew.mallory)
    note = new_event(content, crew.todo, "note", text="an ordinary note")
    changed = add_event(content, note)
    [name] = [n for n in changed if n not in content and n.startswith("events/")]
    changed[name] = changed[name] + f"# {sha}\n".encode()
    publish(crew.mallory, changed)
    synced = coop_in(bob, "sync")
    assert synced.code == 0, synced.err

    assert any(sha in entry for entry in found(reference=True))  # the reference still finds it
    assert any(sha in entry for entry in found(reference=False))  # the fast path must agree
