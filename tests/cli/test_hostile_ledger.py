"""Hostile ledgers built with raw object writes: each refused with its own error, exit 4.

Nothing local may change: the ref, its reflog and the object count stay as they
were, and `fsck` names the breach with its path (exit 1).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import coop, git
from tests.rawledger import EXEC, GITLINK, LINK, TREE, nested_trees, open_raw, put, read, tip

ITEM = "td-ab0000000000"
ITEM_PATH = ["items", "ab", f"{ITEM}.yaml"]


def local_state(path: Path) -> tuple[str, str, str]:
    return (
        tip(path),
        git(path, "reflog", "refs/coop/ledger"),
        git(path, "count-objects"),
    )


@pytest.fixture
def one_item(ledger: Path) -> Path:
    """A ledger with one real todo; hostile entries are grafted beside it."""
    assert coop("add", "todo", "real work").code == 0
    return ledger


def assert_refused(path: Path, command: list[str], *fragments: str) -> None:
    before = local_state(path)
    result = coop(*command)
    assert result.code == 4, (result.out, result.err)
    assert result.err.startswith("gitcoop: ") and result.err.count("\n") == 1
    for fragment in fragments:
        assert fragment in result.err
    assert "unexpected" not in result.err
    assert local_state(path) == before


def assert_fsck_names(path: Path, fragment: str) -> None:
    result = coop("fsck")
    assert result.code == 1, (result.out, result.err)
    assert fragment in result.out
    assert "breach" in result.err


MEASURE = """
import re, resource, sys
from gitcoop.cli.main import main
code = main(["list"])
status = open("/proc/self/status").read()
peak = int(re.search(r"VmHWM:\\s+(\\d+)", status).group(1))
print(code, peak, resource.getrusage(resource.RUSAGE_SELF).ru_utime, file=sys.stderr)
"""


def measured_list(path: Path) -> tuple[int, int, float]:
    """Run `list` in a fresh process: its exit code, peak memory (KiB) and CPU time.

    VmHWM belongs to the process's own address space, so unlike ru_maxrss it
    does not inherit the test process's memory across fork and exec.
    """
    done = subprocess.run(
        [sys.executable, "-c", MEASURE], cwd=path, capture_output=True, text=True, check=False
    )
    code, peak, cpu = done.stderr.splitlines()[-1].split()
    return int(code), int(peak), float(cpu)


# -- names and modes -----------------------------------------------------------


@pytest.mark.parametrize(
    ("parts", "shown"),
    [
        ([".."], ".."),
        ([".git"], ".git"),
        (["a/b"], "a/b"),
        (["items", ".."], "items/.."),
        (["items", ".git"], "items/.git"),
        (["items", "a/b"], "items/a/b"),
        (["items", "ab", ".."], "items/ab/.."),
        (["items", "ab", "a/b"], "items/ab/a/b"),
    ],
)
def test_bad_names_are_refused(one_item: Path, parts: list[str], shown: str) -> None:
    put(one_item, parts, b"format: 1\n")
    assert_refused(one_item, ["list"], shown, "not an allowed")
    assert_refused(one_item, ["add", "todo", "more"] if len(parts) == 1 else ["list"], shown)
    assert_fsck_names(one_item, shown)


@pytest.mark.parametrize(
    ("parts", "mode", "command"),
    [
        (["coop.yaml"], EXEC, ["add", "todo", "x"]),
        (["coop.yaml"], LINK, ["list"]),
        (ITEM_PATH, EXEC, ["list"]),
        (ITEM_PATH, LINK, ["list"]),
        (ITEM_PATH, GITLINK, ["list"]),
        (["events", "ab", ITEM, "000000000001-ev-ab0000000000.yaml"], LINK, ["log"]),
        (["events", "ab", ITEM, "000000000001-ev-ab0000000000.yaml"], GITLINK, ["log"]),
        (["events", "ab", ITEM, "000000000001-ev-ab0000000000.yaml"], EXEC, ["log"]),
    ],
)
def test_bad_modes_are_refused(
    one_item: Path, parts: list[str], mode: int, command: list[str]
) -> None:
    raw = open_raw(one_item)
    target = raw.revparse_single("refs/coop/ledger").id if mode == GITLINK else None
    if target is None:
        put(one_item, parts, b"format: 1\n", mode=mode)
    else:
        put(one_item, parts, mode=mode, oid=target)
    assert_refused(one_item, command, "/".join(parts), "mode" if parts[-1] == "coop.yaml" else "")
    assert_fsck_names(one_item, "/".join(parts))


def test_a_tree_where_a_blob_belongs_and_a_blob_where_a_tree_belongs(one_item: Path) -> None:
    raw = open_raw(one_item)
    blob = raw.create_blob(b"format: 1\n")
    put(one_item, ["items", "cd"], mode=TREE, oid=blob)  # tree mode, blob object
    assert_refused(one_item, ["list"], "items/cd", "is a blob")
    assert_fsck_names(one_item, "items/cd")


def test_deep_trees_are_refused_at_the_first_wrong_level(one_item: Path) -> None:
    deep = nested_trees(one_item, 1000)
    put(one_item, ["events", "ab", ITEM, "d"], mode=TREE, oid=deep)
    assert_refused(one_item, ["log"], f"events/ab/{ITEM}/d", "not an allowed event file")
    assert_fsck_names(one_item, f"events/ab/{ITEM}/d")


# -- sizes -----------------------------------------------------------------------


def test_a_100mb_blob_is_refused_by_size_before_it_is_read(one_item: Path) -> None:
    put(one_item, ITEM_PATH, b"x" * (100 * 1024 * 1024))
    assert_refused(one_item, ["list"], "/".join(ITEM_PATH), "104857600 bytes", "cap")
    code, peak_kib, _ = measured_list(one_item)
    assert code == 4
    assert peak_kib < 90 * 1024  # the 100 MB were never loaded


def test_the_file_cap_is_configurable(one_item: Path) -> None:
    git(one_item, "config", "coop.maxFileBytes", "64")
    assert_refused(one_item, ["list"], "bytes, over the 64-byte cap", "coop.maxFileBytes")
    git(one_item, "config", "coop.maxFileBytes", str(10 * 1024 * 1024))
    put(one_item, ITEM_PATH, b"title: " + b"y" * (2 * 1024 * 1024) + b"\n")
    result = coop("list")  # read, then refused for its content, not its size
    assert result.code == 4 and "cap" not in result.err and ITEM in result.err


# -- YAML --------------------------------------------------------------------------

LAUGHS = b"a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n" + b"".join(
    b"%c: &%c [*%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c, *%c]\n"
    % ((ord("a") + i,) * 2 + (ord("a") + i - 1,) * 9)
    for i in range(1, 9)
)

HOSTILE_YAML = {
    "billion laughs": (LAUGHS, "anchors are not allowed"),
    "recursive alias": (b"format: &loop [*loop]\n", "anchors are not allowed"),
    "bare alias": (b"format: 1\nroles: *elsewhere\n", "aliases are not allowed"),
    "python tag": (b"format: !!python/object/apply:os.system [id]\n", "tags are not allowed"),
    "duplicate keys": (b"format: 1\nclock: 1\nclock: 99\n", "duplicate key 'clock'"),
    "non-UTF-8": (b"format: 1\ntitle: \xff\xfe\n", "not valid UTF-8"),
    "non-mapping": (b"- format\n- 1\n", "must be a mapping, not a list"),
    "deep nesting": (b"a: " + b"[" * 40 + b"]" * 40 + b"\n", "nested deeper than"),
    "two documents": (b"format: 1\n---\nformat: 1\n", "more than one YAML document"),
}


@pytest.mark.parametrize("case", sorted(HOSTILE_YAML))
def test_hostile_yaml_in_coop_yaml_stops_every_command(one_item: Path, case: str) -> None:
    data, rule = HOSTILE_YAML[case]
    put(one_item, ["coop.yaml"], data)
    assert_refused(one_item, ["list"], "coop.yaml", rule)
    assert_refused(one_item, ["add", "todo", "more"], "coop.yaml", rule)
    assert_fsck_names(one_item, "coop.yaml")


@pytest.mark.parametrize("case", sorted(HOSTILE_YAML))
def test_hostile_yaml_in_an_event_stops_log_and_writes(one_item: Path, case: str) -> None:
    data, rule = HOSTILE_YAML[case]
    item = coop("list", "--json").json()[0]["id"]
    fan = item.split("-")[1][:2]
    files = git(one_item, "ls-tree", "--name-only", f"refs/coop/ledger:events/{fan}/{item}")
    name = files.split()[0]
    put(one_item, ["events", fan, item, name], data)
    assert_refused(one_item, ["log"], f"events/{fan}/{item}/{name}", rule)
    assert_fsck_names(one_item, f"events/{fan}/{item}/{name}")


def test_the_laughs_document_is_small_and_refused_fast(one_item: Path) -> None:
    assert len(LAUGHS) < 600
    put(one_item, ["coop.yaml"], LAUGHS)
    assert read(one_item, "coop.yaml") == LAUGHS
    code, peak_kib, cpu_seconds = measured_list(one_item)
    assert code == 4
    assert cpu_seconds < 5 and peak_kib < 90 * 1024
