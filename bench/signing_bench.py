"""Signing benchmark: what signed ledger commits cost to write and to check.

  - a whole `git coop take` process: unsigned, signed (coop.sign), and signed
    under the owners' require_signed policy (the key is also checked against
    the ledger's registry), medians of --runs takes
  - a whole `git coop sync` process in a clone that has the ledger up to the
    moment the policy began, fetching --commits signed commits (each adds one
    event), against the same history unsigned without the policy
  - the check alone (git's verdicts through store/boundary/signatures.py, as a
    join under the policy asks for them) on those commits, and what one
    `git verify-commit` process per commit would take instead

Keys are made by ssh-keygen in a temporary folder; fsync is off in every
clone (the cost measured is signing and checking, not the disk).

Run: python bench/signing_bench.py [--runs 15] [--commits 1000]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from gitcoop.service import ledger as service
from gitcoop.service.context import Context
from gitcoop.store.boundary import signatures
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo

OWNER = "alice@example.com"


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


def environment() -> dict[str, str]:
    bin_dir = str(Path(sys.executable).parent)
    return {
        **os.environ,
        "PATH": bin_dir + os.pathsep + os.environ.get("PATH", ""),
        "COOP_NOW": "2026-11-29T10:00:00Z",
    }


def coop(cwd: Path, *args: str) -> float:
    """Wall seconds of one whole `git coop` process."""
    started = time.perf_counter()
    done = subprocess.run(["git", "coop", *args], cwd=cwd, env=environment(), capture_output=True)
    if done.returncode != 0:
        raise SystemExit(f"git coop {' '.join(args)} failed: {done.stderr.decode()}")
    return time.perf_counter() - started


def children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def make_clone(root: Path, name: str, url: str, key: Path | None) -> Path:
    path = root / name
    git(root, "init", "-q", str(path))
    git(path, "config", "user.email", OWNER)
    git(path, "config", "coop.fsync", "false")
    git(path, "remote", "add", "origin", url)
    if key is not None:
        git(path, "config", "user.signingKey", str(key))
    return path


def todos(repo: Path, count: int) -> list[str]:
    found = []
    for n in range(count):
        done = subprocess.run(
            ["git", "coop", "add", "todo", f"t{n}", "--json"],
            cwd=repo,
            env=environment(),
            capture_output=True,
            text=True,
            check=True,
        )
        found.append(json.loads(done.stdout)["id"])
    return found


def takes(root: Path, url: str, key: Path, runs: int) -> dict[str, tuple[float, float]]:
    """Median wall time of a `take` process: unsigned, signed, signed under the policy;
    taken in turns, so the load of a shared machine falls on all three alike."""
    plain = make_clone(root, "takes", url, key)
    coop(plain, "init")
    policed = make_clone(root, "takes-policy", url, key)
    git(policed, "config", "coop.sign", "true")
    coop(policed, "init")
    coop(policed, "keys", "add", OWNER, str(key) + ".pub")
    coop(policed, "config", "require_signed", "true")
    items, policed_items = todos(plain, 2 * runs), todos(policed, runs)
    found: dict[str, list[tuple[float, float]]] = {
        "unsigned": [],
        "signed": [],
        "signed, require_signed": [],
    }

    def timed(repo: Path, item: str) -> tuple[float, float]:
        cpu = children_cpu()
        wall = coop(repo, "take", item)
        return wall, children_cpu() - cpu

    for n in range(runs):
        git(plain, "config", "coop.sign", "false")
        found["unsigned"].append(timed(plain, items[2 * n]))
        git(plain, "config", "coop.sign", "true")
        found["signed"].append(timed(plain, items[2 * n + 1]))
        found["signed, require_signed"].append(timed(policed, policed_items[n]))
    return {
        name: (statistics.median(w for w, _ in times), statistics.median(c for _, c in times))
        for name, times in found.items()
    }


def signing_alone(repo_path: Path, runs: int) -> float:
    """Median seconds of one signature (ssh-keygen -Y sign) of a ledger commit."""
    from gitcoop.store.git.commit_signing import signer

    repo = open_repo(str(repo_path))
    tip = repo.tip()
    assert tip is not None
    payload = repo.raw[tip].read_raw()
    sign = signer(repo)
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        sign.sign(payload)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def syncs(root: Path, key: Path, commits: int) -> list[tuple[str, float, float]]:
    rows = []
    for signed in (False, True):
        remote = root / f"remote-{signed}.git"
        git(root, "init", "-q", "--bare", str(remote))
        url = remote.as_uri()
        reader = make_clone(root, f"reader-{signed}", url, key if signed else None)
        writer = make_clone(root, f"writer-{signed}", url, key if signed else None)
        git(writer, "config", "coop.sign", "true" if signed else "false")
        coop(writer, "init")
        if signed:
            coop(writer, "keys", "add", OWNER, str(key) + ".pub")
            coop(writer, "config", "require_signed", "true")
        coop(writer, "sync")
        coop(reader, "sync")  # the reader holds the ledger up to where the policy began
        ctx = Context(path=str(writer), actor=OWNER)
        made = time.perf_counter()
        for n in range(commits):
            service.add(ctx, "todo", f"work {n}")
        made = time.perf_counter() - made
        coop(writer, "sync")
        git(reader, "fetch", "-q", "origin")  # the transfer is not what is measured
        cpu = children_cpu()
        wall = coop(reader, "pull")
        rows.append(
            (
                f"`pull` of {commits} {'signed' if signed else 'unsigned'} commits "
                f"(written in {made:.1f} s)",
                wall,
                children_cpu() - cpu,
            )
        )
        if signed:
            rows += checks(reader)
    return rows


def checks(repo_path: Path) -> list[tuple[str, float, float]]:
    repo = open_repo(str(repo_path))
    tip = repo.tip()
    assert tip is not None
    found = [c.oid for c in repo.commits_since(tip, None) if len(c.parents) == 1]
    keys = Snapshot(repo, tip).ledger_state().keys.every_key()
    cpu = children_cpu()
    started = time.perf_counter()
    verdicts = signatures.check(repo, found, keys)
    wall = time.perf_counter() - started
    covered = [oid for oid in found if verdicts[oid].status == signatures.GOOD]
    assert len(covered) >= len(found) - 3
    rows = [(f"the check alone: {len(covered)} commits", wall, children_cpu() - cpu)]
    sample = covered[:100]
    allowed = repo_path.parent / "allowed"
    allowed.write_text(
        subprocess.run(
            ["git", "coop", "keys", "export"],
            cwd=repo_path,
            env=environment(),
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    )
    cpu = children_cpu()
    started = time.perf_counter()
    for oid in sample:
        git(repo_path, "-c", f"gpg.ssh.allowedSignersFile={allowed}", "verify-commit", oid)
    scale = len(covered) / len(sample)
    rows.append(
        (
            f"one `git verify-commit` per commit ({len(sample)} timed, scaled)",
            (time.perf_counter() - started) * scale,
            (children_cpu() - cpu) * scale,
        )
    )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--commits", type=int, default=1000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="coop-sign-bench-") as folder:
        root = Path(folder)
        key = root / "key"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
        remote = root / "takes.git"
        git(root, "init", "-q", "--bare", str(remote))
        print(f"| `git coop take` process, median of {options.runs} | wall | CPU |")
        print("|---|---|---|")
        for name, (wall, cpu) in takes(root, remote.as_uri(), key, options.runs).items():
            print(f"| {name} | {wall * 1000:.0f} ms | {cpu * 1000:.0f} ms |")
        alone = signing_alone(root / "takes", options.runs)
        print(f"| the signature alone (ssh-keygen -Y sign), wall | {alone * 1000:.0f} ms | |")
        print()
        print("| case | wall | CPU of child processes |")
        print("|---|---|---|")
        for name, wall, cpu in syncs(root, key, options.commits):
            print(f"| {name} | {wall:.2f} s | {cpu:.2f} s |")


if __name__ == "__main__":
    main()
