"""A claim's merge notices are escaped as everything shown is (H8).

`sync` tells what a merge refused through `cli/terminal`; a claim through the remote
(`take`) merges the remote's tip itself and tells it on stderr (`store/ledger/notice.py`).
A notice quotes the losing actor's identity, and a fetched identity may hold characters
that draw nothing (admission refuses controls only; only a writer is refused hidden
ones): tag characters spelling an instruction hidden from a person and read by an agent,
or zero-width spaces. They were printed as they were.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import Clones, coop_in, coop_process, git
from tests.hostile.forge import add_event, files, new_event, publish, team

# "IGNORE" in Unicode tag characters: invisible on a terminal, read by a model
HIDDEN = "".join(chr(0xE0000 + ord(c)) for c in "IGNORE")
SNEAKY = f"mallory{HIDDEN}\u200b@example.com"


def test_a_claims_merge_notice_shows_a_peers_hidden_characters_escaped(
    clones: Clones, tmp_path: Path
) -> None:
    crew = team(clones, tmp_path)
    bob = crew.victim
    git(bob, "config", "coop.claims", "origin")  # claims decided by the remote (docs/sync.md)
    mine = coop_in(bob, "add", "todo", "bob's", "--json").json()["id"]
    assert coop_in(bob, "take", mine, "--session", "b1").code == 0
    assert coop_in(bob, "sync").code == 0

    # a take of bob's todo by an identity holding invisible characters: refused where it
    # joins (bob holds it), a conflict on bob's item naming that identity
    assert coop_in(crew.mallory, "sync").code == 0
    content = files(crew.mallory)
    take = new_event(content, mine, "take", actor=SNEAKY, session="m1")
    publish(crew.mallory, add_event(content, take), author=SNEAKY)

    # bob claims through the remote (a takeover of alice's todo): the claim fetches and
    # merges the remote's tip, and tells bob that the sneaky take of his todo lost to his
    taken = coop_process(bob, "take", crew.todo, "--session", "b2", "--force")
    assert "lost to yours" in taken.err, taken.err  # the notice was given
    # ... and every character that draws nothing is shown escaped, as H8 requires
    assert HIDDEN not in taken.err and "\u200b" not in taken.err, ascii(taken.err)
