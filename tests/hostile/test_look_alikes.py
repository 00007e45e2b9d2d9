"""#40 Identities that cannot impersonate: NFC, one script a part, nothing invisible, and
no id added to the roles or keys that looks like one the ledger knows (without --force)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import Clones, coop_in, git
from tests.hostile.forge import ALICE, Team, add_event, files, new_event, publish, team, tip
from tests.sshkeys import make_key

CYRILLIC_ALICE = "\u0430lice@example.com"  # а, not a


@pytest.fixture
def crew(clones: Clones, tmp_path: Path) -> Team:
    return team(clones, tmp_path)


@pytest.mark.parametrize(
    ("who", "said"),
    [
        (CYRILLIC_ALICE, "mixes scripts"),
        ("alice\u200b@example.com", "invisible"),
        ("alice@example.com\U000e0020", "invisible"),
        ("alice@ex\u0430mple.com", "mixes scripts"),
    ],
)
def test_no_one_acts_as_a_look_alike(crew: Team, who: str, said: str) -> None:
    before = tip(crew.victim)
    for how in (["--as", who], []):
        env = {} if how else {"COOP_ACTOR": who}
        result = coop_in(crew.victim, "add", "todo", "fine", *how, env=env)
        assert result.code == 2 and said in result.err, result.err
    assert tip(crew.victim) == before


def test_an_actor_is_written_in_nfc(crew: Team) -> None:
    decomposed = "jose\u0301@example.com"
    added = coop_in(crew.victim, "add", "todo", "fine", "--as", decomposed, "--json")
    assert added.code == 0, added.err
    assert added.json()["created_by"] == "jos\u00e9@example.com"


@pytest.mark.parametrize("who", [CYRILLIC_ALICE, "ALICE@example.com", "a1ice@example.com"])
def test_roles_add_refuses_a_look_alike_unless_forced(crew: Team, who: str) -> None:
    before = tip(crew.alice)
    refused = coop_in(crew.alice, "roles", "add", "chief", who)
    if who == CYRILLIC_ALICE:  # mixing scripts is never written, forced or not
        assert refused.code == 2 and "mixes scripts" in refused.err, refused.err
        assert coop_in(crew.alice, "roles", "add", "chief", who, "--force").code == 2
        assert tip(crew.alice) == before
        return
    assert refused.code == 1, refused.err
    assert f"looks like {ALICE}" in refused.err and "--force" in refused.err
    assert tip(crew.alice) == before
    forced = coop_in(crew.alice, "roles", "add", "chief", who, "--force", "--json")
    assert forced.code == 0 and who in forced.json()["chiefs"], forced.err


def test_keys_add_refuses_a_look_alike_unless_forced(crew: Team, tmp_path: Path) -> None:
    key = make_key(tmp_path / "keys", "k")
    before = tip(crew.alice)
    refused = coop_in(crew.alice, "keys", "add", "mal1ory@example.com", str(key.public))
    assert refused.code == 1 and "looks like mallory@example.com" in refused.err, refused.err
    assert tip(crew.alice) == before
    forced = coop_in(crew.alice, "keys", "add", "mal1ory@example.com", str(key.public), "--force")
    assert forced.code == 0, forced.err
    other = coop_in(crew.alice, "keys", "add", "carol@example.com", str(key.public))
    assert other.code in (0, 1) and "looks like" not in other.err


def test_an_older_look_alike_in_the_shared_ledger_stays_readable(crew: Team) -> None:
    """The ledger is judged by the rule its events were written under: an id that mixes
    scripts, recorded before the rule, is shown (escaped where it hides), not refused."""
    content = files(crew.mallory)
    item = "td-kkkkkkkkkkkk"
    added = new_event(content, item, "add", actor=CYRILLIC_ALICE, kind="todo", title="Old one")
    publish(crew.mallory, add_event(content, added), author=CYRILLIC_ALICE)
    synced = coop_in(crew.victim, "sync")
    assert synced.code == 0, synced.err
    shown = coop_in(crew.victim, "show", item, "--json")
    assert shown.code == 0 and shown.json()["created_by"] == CYRILLIC_ALICE
    assert coop_in(crew.victim, "fsck").code == 0
    assert git(crew.victim, "rev-parse", "refs/coop/ledger").strip() == tip(crew.mallory)


def test_a_look_alike_of_someone_holding_open_work_is_refused_too(crew: Team) -> None:
    """bob holds no role and no key, but filed and holds work: his look-alike is refused."""
    assert coop_in(crew.victim, "add", "todo", "bob's", "--json").code == 0
    assert coop_in(crew.victim, "sync").code == 0
    assert coop_in(crew.alice, "sync").code == 0
    refused = coop_in(crew.alice, "roles", "add", "chief", "BOB@example.com")
    assert refused.code == 1 and "looks like bob@example.com" in refused.err, refused.err
