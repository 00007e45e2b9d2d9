"""The queue's pick (its verifier calls, its pick event) with claims through the remote."""

from __future__ import annotations

from tests.conftest import Clones, coop_in, git
from tests.remotes import picks_on
from tests.service.queue_fixtures import CONFIRM, install


def test_a_pick_through_the_remote_verifies_first_and_is_on_the_remote_when_it_exits_0(
    clones: Clones,
) -> None:
    a = clones.clone("alice")
    code = install(a)
    assert coop_in(a, "init").code == 0
    added = coop_in(a, "add", "item", "Fix toast", "--evidence", "src/app.py:3", "--json")
    item = added.json()["id"]
    assert coop_in(a, "remote", "setup", "origin", "--claims").code == 0
    assert coop_in(a, "sync").code == 0
    code.plan(toast=CONFIRM)
    picked = coop_in(a, "pick", "--json")
    assert picked.code == 0, picked.err
    assert picked.json()["picked"] == item and [v["item"] for v in picked.json()["verified"]]
    remote = clones.root / "remote.git"
    assert git(remote, "rev-parse", "refs/coop/ledger") == git(a, "rev-parse", "refs/coop/ledger")
    assert picks_on(remote) == {("alice@example.com", item): 1}
    verify, verdict, pick = coop_in(a, "log", item, "--json").json()[-3:]
    assert [e["verb"] for e in (verify, verdict, pick)] == ["verify", "verdict", "pick"]
    assert verify["for_pick"] == verdict["for_pick"] == pick["run"]  # one pick, named first


def test_a_pick_that_finds_the_remote_gone_exits_7_and_keeps_nothing(clones: Clones) -> None:
    a, b = clones.clone("alice"), clones.clone("bob")
    code = install(a)
    assert coop_in(a, "init").code == 0
    spec = "src/app.py:3"
    items = [
        coop_in(a, "add", "item", f"Fix {w} toast", "--evidence", spec, "--json").json()["id"]
        for w in ("first", "second")
    ]
    code.plan(default=CONFIRM)
    assert coop_in(a, "verify").code == 0
    for path in (a, b):
        assert coop_in(path, "remote", "setup", "origin", "--claims").code == 0
        assert coop_in(path, "sync").code == 0
    before = git(a, "rev-parse", "refs/coop/ledger")
    remote = clones.root / "remote.git"
    remote.rename(clones.root / "away.git")
    gone = coop_in(a, "pick", "--json")
    assert gone.code == 7 and gone.json()["error"]["code"] == "remote_unreachable"
    assert git(a, "rev-parse", "refs/coop/ledger") == before  # nothing recorded here
    (clones.root / "away.git").rename(remote)
    first = coop_in(a, "pick", "--json")
    assert first.code == 0 and first.json()["picked"] == items[0]
    # bob has the same code, and a ledger that still shows both items ready: his
    # pick chooses on the remote's ledger, merged first, so it takes the second
    git(a, "push", "-q", "origin", "HEAD:refs/heads/code")
    git(b, "fetch", "-q", "origin", "refs/heads/code")
    git(b, "reset", "-q", "--hard", "FETCH_HEAD")
    stale = coop_in(b, "queue", "--json").json()
    assert [i["status"] for i in stale if i["id"] in items] == ["ready", "ready"]
    second = coop_in(b, "pick", "--json")
    assert second.code == 0, second.err
    assert second.json()["picked"] == items[1] and second.json()["verified"] == []
    assert picks_on(remote) == {
        ("alice@example.com", items[0]): 1,
        ("bob@example.com", items[1]): 1,
    }
