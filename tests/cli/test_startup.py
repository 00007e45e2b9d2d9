"""Start-up stays lean: a command loads and compiles only what it uses."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
from pathlib import Path

import pytest

from gitcoop.cli.main import COMMAND_GC_THRESHOLD
from gitcoop.domain.ids import EVENT_ID_RE, ITEM_ID_RE
from gitcoop.store.fast.yaml_lines import FLOAT
from tests.conftest import Clones, coop, coop_in

PROBE = """
import sys
from gitcoop.cli.main import main
code = main(sys.argv[1:])
watched = ("filelock", "ruamel.yaml", "json", "secrets", "random", "gitcoop.store.fast.packwrite")
loaded = [m for m in watched if m in sys.modules]
import json
import gitcoop.store.fast.yaml_lines as canonical
from gitcoop.domain.patterns import _Pattern
patterns = sorted({
    repr(value.pattern)
    for name, module in list(sys.modules.items())
    if name.startswith("gitcoop")
    for value in vars(module).values()
    if isinstance(value, _Pattern) and value.compiled is not None
})
sys.stderr.write(
    "PROBE " + json.dumps([code, loaded, canonical._UNUSUAL.compiled is not None, patterns]) + "\\n"
)
"""


def probe(cwd: Path, *args: str) -> tuple[int, list[str], bool]:
    """Run a command in a fresh process: its exit code, which of filelock, ruamel, json,
    secrets, random and the pack writer it loaded, and whether it compiled the line
    reader's large character class."""
    code, loaded, compiled, _ = probed(cwd, *args)
    return code, loaded, compiled


def probed(cwd: Path, *args: str) -> tuple[int, list[str], bool, list[str]]:
    """`probe`, and the module-level patterns the command compiled (each one's `repr`)."""
    code, loaded, compiled, patterns = json.loads(reported(PROBE, "PROBE ", cwd, args))
    return code, loaded, compiled, patterns


def reported(script: str, mark: str, cwd: Path, args: tuple[str, ...], **env: str) -> str:
    """Run `script` with `args` in a fresh process (`env` added to this one's): the rest
    of the last line of its stderr that starts with `mark`."""
    done = subprocess.run(
        [sys.executable, "-c", script, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **env},
    )
    lines = [x for x in done.stderr.splitlines() if x.startswith(mark)]
    assert lines, done.stderr
    return lines[-1][len(mark) :]


@pytest.fixture
def busy(ledger: Path) -> tuple[Path, str]:
    made = [coop("add", "todo", f"work {k}", "--json").json()["id"] for k in range(3)]
    assert coop("take", made[0]).code == 0
    assert coop("done", made[1]).code == 0
    assert coop("list", "--all").code == 0  # warm every cache file
    return ledger, made[0]


READS = [
    ("list",),
    ("list", "--json"),
    ("list", "--mine"),
    ("list", "--all"),
    ("show", "ITEM"),
    ("log", "ITEM"),
    ("log",),
    ("owed",),
    ("ready",),
    ("blocked",),
    ("prime",),
    ("queue",),
    ("config",),
]


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_read_only_commands_load_no_lock(busy: tuple[Path, str], args: tuple[str, ...]) -> None:
    path, item = busy
    code, loaded, _ = probe(path, *(item if a == "ITEM" else a for a in args))
    assert code == 0
    assert "filelock" not in loaded


@pytest.mark.fast_only
def test_a_warm_list_compiles_no_large_pattern_and_loads_no_yaml(busy: tuple[Path, str]) -> None:
    path, _ = busy
    code, loaded, compiled = probe(path, "list")
    assert (code, compiled) == (0, False)
    assert "filelock" not in loaded and "ruamel.yaml" not in loaded
    assert "gitcoop.store.fast.packwrite" not in loaded  # zlib and hashlib serve writes only


def test_writes_still_take_the_lock(busy: tuple[Path, str]) -> None:
    path, item = busy
    code, loaded, _ = probe(path, "release", item, "--reason", "later")
    assert code == 0 and "filelock" in loaded and "gitcoop.store.fast.packwrite" in loaded


def test_a_take_loads_no_json(busy: tuple[Path, str]) -> None:
    """A take writes YAML: `json` would be loaded only to be left unused. (`secrets` and
    `random` come with filelock.)"""
    path, item = busy
    assert coop("release", item, "--reason", "later").code == 0
    code, loaded, _ = probe(path, "take", item)
    assert code == 0 and "json" not in loaded


def test_reads_load_neither_secrets_nor_random(busy: tuple[Path, str]) -> None:
    """Ids are minted from os.urandom (`context.system_bits`), so a read that mints
    nothing loads neither module tree."""
    path, item = busy
    for args in (("list",), ("show", item)):
        code, loaded, _ = probe(path, *args)
        assert code == 0 and "secrets" not in loaded and "random" not in loaded


def test_a_take_compiles_only_the_patterns_it_uses(busy: tuple[Path, str]) -> None:
    """Module-level patterns are compiled on first use (domain/patterns.py): a take
    imports eighteen and uses the few that check its id, its item's file name, its YAML
    and its trees."""
    path, item = busy
    assert coop("release", item, "--reason", "later").code == 0
    code, _, _, patterns = probed(path, "take", item)
    assert code == 0
    assert repr(ITEM_ID_RE.pattern) in patterns  # the probe sees what is compiled
    assert len(patterns) <= 5, patterns
    assert repr(EVENT_ID_RE.pattern) not in patterns
    assert repr(FLOAT.pattern) not in patterns


@pytest.mark.fast_only
def test_a_command_process_collects_cycles_less_often_and_keeps_what_it_read(
    busy: tuple[Path, str],
) -> None:
    """The `git-coop` script raises the collector's first threshold: start-up's objects
    live until the process ends. The collector still runs, and still frees cycles. What
    the command read (its repository, with libgit2's caches) is held until the process
    leaves, which frees nothing one by one (`memory.keep`)."""
    path, _ = busy
    script = (
        "import atexit, gc, json, sys\n"
        "from gitcoop.cli.main import run\n"
        "from gitcoop.store.fast import memory\n"
        "def report():\n"
        "    made = []\n"
        "    made.append(made)  # a cycle: only the collector frees it\n"
        "    del made\n"
        "    found = gc.collect(0)\n"
        "    kept = [type(value).__name__ for value in memory._kept]\n"
        "    state = [gc.get_threshold(), gc.isenabled(), found, kept]\n"
        "    sys.stderr.write('GC ' + json.dumps(state))\n"
        "atexit.register(report)\n"
        "sys.argv = ['git-coop', 'list']\n"
        "run()\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=path, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    threshold, enabled, found, kept = json.loads(done.stderr.split("GC ")[-1])
    assert threshold[0] == COMMAND_GC_THRESHOLD > 700 and enabled and found >= 1
    assert "Repo" in kept


def test_a_command_run_in_a_longer_process_keeps_nothing(busy: tuple[Path, str]) -> None:
    """`main` called in-process (the MCP server, these tests) frees what a command read
    as it returns: only the script's own process, which ends with the command, keeps."""
    from gitcoop.store.fast import memory

    assert coop("list").code == 0
    assert memory._kept == []


@pytest.mark.fast_only
def test_a_command_keeps_only_the_last_few_things_it_read() -> None:
    """A command that opens repository after repository holds only the last
    `KEPT_MOST`: the ones before are let go as they always were."""
    from gitcoop.store.fast import memory

    memory.keep_until_exit()
    try:
        for n in range(memory.KEPT_MOST + 5):
            memory.keep(n)
        assert memory._kept == list(range(5, memory.KEPT_MOST + 5))
    finally:
        memory.keep_nothing()
    memory.keep("after")
    assert memory._kept == []


CERTS = """
import ssl, sys
from gitcoop.cli.main import main
code = main(sys.argv[1:])
import pygit2
told = pygit2.settings._default_tls_verify_paths
sys.stderr.write("CERTS %d %s %s %s\\n" % (
    code, told.cafile, told.capath, ssl.get_default_verify_paths.__module__))
"""


def certificates(cwd: Path, env: dict[str, str], *args: str) -> list[str]:
    """A command in a fresh process: its exit code, the CA file and folder libgit2 was
    given, and the module `ssl.get_default_verify_paths` comes from afterwards."""
    return reported(CERTS, "CERTS ", cwd, args, **env).split()


def test_a_command_leaves_the_ca_file_unread_where_a_ca_folder_serves(
    busy: tuple[Path, str], tmp_path: Path
) -> None:
    """libgit2's TLS is never used (git carries the network), and parsing the whole CA
    bundle at pygit2's import was a tenth of a `show`: it is given the folder only."""
    path, item = busy
    bundle, folder = tmp_path / "bundle.pem", tmp_path / "certs"
    bundle.write_text(Path(ssl.get_default_verify_paths().openssl_cafile).read_text())
    folder.mkdir()
    env = {"SSL_CERT_FILE": str(bundle), "SSL_CERT_DIR": str(folder)}
    assert certificates(path, env, "show", item) == ["0", "None", str(folder), "ssl"]


def test_without_a_ca_folder_libgit2_still_gets_the_ca_file(
    busy: tuple[Path, str], tmp_path: Path
) -> None:
    path, item = busy
    bundle = tmp_path / "bundle.pem"
    bundle.write_text(Path(ssl.get_default_verify_paths().openssl_cafile).read_text())
    env = {"SSL_CERT_FILE": str(bundle), "SSL_CERT_DIR": str(tmp_path / "absent")}
    assert certificates(path, env, "show", item) == ["0", str(bundle), "None", "ssl"]


FETCH_PROBE = """
import subprocess, sys
from gitcoop.cli.main import main
watched = (
    "gitcoop.store.ledger.merge",
    "gitcoop.store.boundary.fetched",
    "gitcoop.service.notices",
    "filelock",
)
at_fetch = []
def audit(event, args):
    if event == "subprocess.Popen" and "fetch" in list(args[1]) and not at_fetch:
        at_fetch.append([m for m in watched if m in sys.modules])
sys.addaudithook(audit)
code = main(sys.argv[1:])
sys.stderr.write("FETCHED " + repr([code, at_fetch]) + "\\n")
"""


def test_a_sync_starts_its_fetch_before_it_loads_the_merge(clones: Clones) -> None:
    """The merge, the check of what arrived and the notices load while git fetches."""
    alice, bob = clones.clone("alice"), clones.clone("bob")
    assert coop_in(alice, "init").code == 0
    assert coop_in(alice, "sync").code == 0
    found = reported(FETCH_PROBE, "FETCHED ", bob, ("sync",))
    assert found == "[0, [[]]]", found
