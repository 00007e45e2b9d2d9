"""keys add/remove/list/export, signed ledger writes, and the owners' require_signed policy."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.conftest import Clones, coop, coop_in, git
from tests.sshkeys import Key, ledger_commits, make_key, sign_with, verified

ALICE, BOB = "alice@example.com", "bob@example.com"
REF = "refs/coop/ledger"


@pytest.fixture
def keys(tmp_path: Path) -> dict[str, Key]:
    return {name: make_key(tmp_path / "keys", name) for name in ("alice", "bob", "old")}


def tip(repo: Path) -> str:
    return git(repo, "rev-parse", REF).strip()


def exported(repo: Path) -> Path:
    result = coop("keys", "export", "--output", str(repo.parent / "allowed"))
    assert result.code == 0, result.err
    return repo.parent / "allowed"


def test_an_owner_adds_lists_exports_and_removes_keys(ledger: Path, keys: dict[str, Key]) -> None:
    added = coop("keys", "add", ALICE, str(keys["alice"].public), "--json")
    assert added.code == 0, added.err
    assert added.json()["status"] == "registered"
    assert added.json()["fingerprint"] == keys["alice"].fingerprint
    assert coop("keys", "add", BOB, keys["bob"].text).code == 0
    listed = coop("keys", "list", "--json").json()
    assert [(r["who"], r["key"]) for r in listed] == [
        (ALICE, keys["alice"].text),
        (BOB, keys["bob"].text),
    ]
    allowed = exported(ledger).read_text().splitlines()
    assert allowed == [
        f'{ALICE} namespaces="git" {keys["alice"].text}',
        f'{BOB} namespaces="git" {keys["bob"].text}',
    ]
    assert [r["who"] for r in coop("keys", "list", BOB, "--json").json()] == [BOB]
    as_data = coop("keys", "export", "--json").json()
    assert as_data == {"allowed_signers": "\n".join(allowed) + "\n", "output": None}
    unwritable = coop("keys", "export", "--output", str(ledger / "no" / "such" / "dir"))
    assert unwritable.code == 2 and unwritable.err.startswith("gitcoop: cannot write")
    removed = coop("keys", "remove", BOB, keys["bob"].fingerprint)
    assert removed.code == 0 and "removed" in removed.out
    assert [r["who"] for r in coop("keys", "list", "--json").json()] == [ALICE]
    log = git(ledger, "log", "--format=%s", REF)
    assert f"keys add {BOB} {keys['bob'].fingerprint} by {ALICE}" in log


def test_a_person_proposes_their_own_key_and_an_owner_approves_it(
    ledger: Path, keys: dict[str, Key]
) -> None:
    proposed = coop("keys", "add", BOB, str(keys["bob"].public), "--as", BOB)
    assert proposed.code == 0, proposed.err
    assert "proposed" in proposed.out and "an owner approves it" in proposed.out
    assert coop("keys", "list", "--json").json()[0]["status"] == "proposed"
    assert coop("keys", "export").out == ""  # a proposal signs nothing
    others = coop("keys", "add", ALICE, str(keys["old"].public), "--as", BOB)
    assert others.code == 1 and "only owners" in others.err
    assert coop("keys", "add", BOB, str(keys["bob"].public)).code == 0  # alice approves
    assert coop("keys", "list", "--json").json()[0]["status"] == "registered"


@pytest.mark.parametrize(
    "given",
    ["not a key", "ssh-ed25519 AAAA", "private"],
)
def test_a_bad_key_is_a_usage_error_and_writes_nothing(
    ledger: Path, keys: dict[str, Key], given: str
) -> None:
    before = tip(ledger)
    text = str(keys["alice"].private) if given == "private" else given
    result = coop("keys", "add", ALICE, text)
    assert result.code == 2, result.err
    assert ("private key" if given == "private" else "SSH public key") in result.err
    assert tip(ledger) == before


def test_every_ledger_commit_is_signed_when_coop_sign_is_set(
    repo: Path, keys: dict[str, Key]
) -> None:
    sign_with(repo, keys["alice"])
    assert coop("init").code == 0
    assert coop("keys", "add", ALICE, str(keys["alice"].public)).code == 0
    todo = coop("add", "todo", "signed work", "--json").json()["id"]
    for verb in ("take", "done"):
        assert coop(verb, todo).code == 0
    allowed = exported(repo)
    commits = ledger_commits(repo)
    assert len(commits) == 5
    assert all(verified(repo, allowed, c) for c in commits)


def test_gits_own_commit_gpgsign_with_an_ssh_format_signs_too(
    ledger: Path, keys: dict[str, Key]
) -> None:
    git(ledger, "config", "commit.gpgSign", "true")
    git(ledger, "config", "user.signingKey", str(keys["alice"].public) + "")
    git(ledger, "config", "gpg.format", "openpgp")
    assert coop("add", "todo", "not ssh: unsigned").code == 0
    assert "gpgsig" not in git(ledger, "cat-file", "-p", REF)
    git(ledger, "config", "gpg.format", "ssh")
    git(ledger, "config", "user.signingKey", str(keys["alice"].private))
    assert coop("add", "todo", "ssh: signed").code == 0
    assert "gpgsig -----BEGIN SSH SIGNATURE-----" in git(ledger, "cat-file", "-p", REF)
    git(ledger, "config", "coop.sign", "false")  # coop.sign, when set, decides
    assert coop("add", "todo", "unsigned again").code == 0
    assert "gpgsig" not in git(ledger, "cat-file", "-p", REF)


def test_signing_through_the_ssh_agent_with_the_key_itself_configured(
    ledger: Path, keys: dict[str, Key], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    socket = tmp_path / "agent.sock"
    agent = subprocess.Popen(["ssh-agent", "-D", "-a", str(socket)], stdout=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if socket.exists():
                break
            subprocess.run(["sleep", "0.01"], check=True)
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket))
        subprocess.run(["ssh-add", "-q", str(keys["alice"].private)], check=True)
        git(ledger, "config", "user.signingKey", f"key::{keys['alice'].text}")
        git(ledger, "config", "coop.sign", "true")
        assert coop("keys", "add", ALICE, keys["alice"].text).code == 0
        assert verified(ledger, exported(ledger), tip(ledger))
    finally:
        agent.terminate()
        agent.wait()


def test_a_missing_key_is_a_usage_error_and_nothing_is_written(ledger: Path) -> None:
    before = tip(ledger)
    git(ledger, "config", "coop.sign", "true")
    result = coop("add", "todo", "needs a key")
    assert result.code == 2 and "git config user.signingKey" in result.err, result.err
    git(ledger, "config", "user.signingKey", str(ledger / "no-such-key"))
    result = coop("add", "todo", "needs a key")
    assert result.code == 2 and "no such file" in result.err, result.err
    assert tip(ledger) == before


def test_a_missing_signing_program_is_an_environment_failure(
    ledger: Path, keys: dict[str, Key]
) -> None:
    before = tip(ledger)
    sign_with(ledger, keys["alice"])
    git(ledger, "config", "gpg.ssh.program", str(ledger / "no-such-program"))
    result = coop("add", "todo", "cannot be signed")
    assert result.code == 9 and "is not installed" in result.err, result.err
    assert tip(ledger) == before


def require_signed(repo: Path, key: Key) -> None:
    sign_with(repo, key)
    assert coop_in(repo, "keys", "add", ALICE, str(key.public)).code == 0
    result = coop_in(repo, "config", "require_signed", "true")
    assert result.code == 0, result.err


def test_require_signed_cannot_be_turned_on_by_an_owner_without_a_registered_key(
    ledger: Path, keys: dict[str, Key]
) -> None:
    before = tip(ledger)
    result = coop("config", "require_signed", "true")
    assert result.code == 1 and "requires signed commits" in result.err, result.err
    sign_with(ledger, keys["alice"])
    result = coop("config", "require_signed", "true")
    assert result.code == 1 and "not registered to alice" in result.err, result.err
    assert tip(ledger) == before


def test_under_require_signed_a_write_that_cannot_be_signed_is_refused(
    ledger: Path, keys: dict[str, Key]
) -> None:
    require_signed(ledger, keys["alice"])
    before = tip(ledger)
    git(ledger, "config", "coop.sign", "false")
    result = coop("add", "todo", "unsigned")
    assert result.code == 1 and "coop.sign is false" in result.err
    git(ledger, "config", "--unset", "coop.sign")
    assert coop("add", "todo", "signed without coop.sign: the policy signs").code == 0
    before = tip(ledger)
    git(ledger, "config", "--unset", "user.signingKey")
    result = coop("add", "todo", "no key")
    assert result.code == 1 and "keys add" in result.err, result.err
    git(ledger, "config", "user.signingKey", str(keys["bob"].private))
    result = coop("add", "todo", "alice with bob's key")
    assert result.code == 1 and keys["bob"].fingerprint in result.err
    result = coop("add", "todo", "bob, whose key nobody registered", "--as", BOB)
    assert result.code == 1 and f"not registered to {BOB}" in result.err
    assert tip(ledger) == before


def test_a_merge_commit_is_signed_too(clones: Clones, keys: dict[str, Key]) -> None:
    alice, bob = clones.clone("alice"), clones.clone("bob")
    sign_with(alice, keys["alice"])
    sign_with(bob, keys["bob"])
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "keys", "add", BOB, str(keys["bob"].public)).code == 0
    assert coop_in(alice, "keys", "add", ALICE, str(keys["alice"].public)).code == 0
    assert coop_in(alice, "sync").code == 0
    assert coop_in(bob, "sync").code == 0
    assert coop_in(alice, "add", "todo", "one side").code == 0
    assert coop_in(alice, "sync").code == 0
    assert coop_in(bob, "add", "todo", "other side").code == 0
    assert coop_in(bob, "sync").code == 0
    merge = tip(bob)
    assert len(git(bob, "rev-list", "--parents", "-1", merge).split()) == 3
    assert verified(bob, exported_from(bob), merge)


def exported_from(repo: Path) -> Path:
    text = coop_in(repo, "keys", "export").out
    path = repo.parent / f"{repo.name}-allowed"
    path.write_text(text)
    return path


def test_an_unsigned_write_neither_imports_nor_starts_anything_for_signing(ledger: Path) -> None:
    """A real process: the signing modules stay unloaded and no process starts."""
    script = textwrap.dedent(
        """
        import json, sys
        started = []
        def audit(event, args):
            if event == "subprocess.Popen":
                started.append(str(args[0]))
        sys.addaudithook(audit)
        from gitcoop.cli.main import main
        code = main(["add", "todo", "plain"])
        loaded = [m for m in sys.modules if m.endswith(("signing", "signatures"))]
        print(json.dumps({"code": code, "loaded": loaded, "started": started}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=ledger, capture_output=True, text=True, check=False
    )
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found == {"code": 0, "loaded": [], "started": []}, done.stderr


def test_a_hook_recorded_close_is_signed_under_the_policy(
    ledger: Path, keys: dict[str, Key], monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.service.hook_helpers import commit, with_gitcoop_on_path

    with_gitcoop_on_path(monkeypatch)
    require_signed(ledger, keys["alice"])
    assert coop("hooks", "install").code == 0
    todo = coop("add", "todo", "closed by a commit", "--json").json()["id"]
    commit(ledger, f"Close it\n\nCoop-Done: {todo}\n")
    assert coop("show", todo, "--json").json()["status"] == "done"
    assert verified(ledger, exported(ledger), tip(ledger))
    assert "Coop-Done" not in git(ledger, "log", "-1", "--format=%B", REF)  # a ledger commit
    # without a key the hook cannot record it: the code commit lands, the close waits
    other = coop("add", "todo", "waits for a key", "--json").json()["id"]
    before = tip(ledger)
    git(ledger, "config", "--unset", "user.signingKey")
    commit(ledger, f"Close the other\n\nCoop-Done: {other}\n")
    assert tip(ledger) == before
    assert coop("show", other, "--json").json()["status"] == "open"
    journaled = (ledger / ".git" / "coop-journal").read_text()
    assert other in journaled and "requires signed commits" in journaled, journaled
