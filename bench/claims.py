"""Claims through a remote: N clones in pick loops against one `git daemon`.

For each N (default 1, 2, 4, 8, 16) a fresh bare remote is served by
`git daemon` on 127.0.0.1 with CLAIMS verified, ready queue items (default
96); N clones (each `git clone`d, claims on: coop.claims=origin) each run
CLAIMS / N picks in their own process, released together by one line on
their stdin, so every N makes the same number of claims. A pick is
timed in its process (`main(["pick", "--json"])`, so interpreter start-up is
left out), and the claim loop's attempts are counted (retries = attempts - 1,
summed over the pick).

Reported per N: claims per second (all clones, from the release to the last
pick), p50/p99 claim latency, retries per claim, and double claims (an item
with two picks on the remote, or any conflict: must be 0). The floor is this
machine's raw round trip: a `git fetch` of the ledger plus a `git push` of a
new commit (to refs/coop/bench), as git itself does them, plus a local pick
(`pick --offline`, in-process) in the same clone.

Run: python bench/claims.py [--clones 1,2,4,8,16] [--claims 96] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from gitcoop.store.repository import open_repo
from gitcoop.store.snapshot import Snapshot

VERDICT = {
    "verdict": "confirmed",
    "reason": "the line says so",
    "evidence": [{"path": "src/app.py", "line": 1, "quote": "line"}],
}

WORKER = """
import contextlib, io, json, sys, time
import gitcoop.service.claims as claims
from gitcoop.cli.main import main

attempts = []
real = claims.claim
def counted(*args, **kwargs):
    n = real(*args, **kwargs)
    attempts.append(n)
    return n
claims.claim = counted

def coop(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()

coop("list")  # imports and caches warm before the race
mode = sys.argv[2]
print("ready", flush=True)
sys.stdin.readline()  # the barrier
for _ in range(int(sys.argv[1])):
    attempts.clear()
    start = time.perf_counter()
    code, out, err = coop("pick", "--json", *(["--offline"] if mode == "offline" else []))
    took = time.perf_counter() - start
    item = json.loads(out)["id"] if code == 0 else None
    print(json.dumps({"code": code, "item": item, "seconds": took,
                      "retries": max(sum(attempts) - 1, 0), "err": err[-300:]}), flush=True)
"""


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed in {cwd}: {done.stderr}")
    return done.stdout


def coop(cwd: Path, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", "from gitcoop.cli.main import run; run()", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"git coop {' '.join(args)} failed in {cwd}: {done.stderr}")
    return done.stdout


@contextmanager
def daemon(base: Path) -> Iterator[str]:
    """`git daemon` serving `base/remote.git`; ready when its log says so (no polling)."""
    git(base, "init", "-q", "--bare", "remote.git")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            "git", "daemon", "--verbose", "--reuseaddr", "--export-all",
            "--enable=receive-pack", "--listen=127.0.0.1", f"--port={port}",
            f"--base-path={base}", str(base),
        ],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stderr is not None
    for line in server.stderr:
        if "Ready to rumble" in line:
            break
    threading.Thread(target=server.stderr.read, daemon=True).start()
    try:
        yield f"git://127.0.0.1:{port}/remote.git"
    finally:
        server.terminate()
        server.wait(timeout=10)


def seed(root: Path, url: str, items: int) -> None:
    """Code and a ledger of `items` verified, ready queue items on the remote."""
    path = root / "seed"
    git(root, "init", "-q", "-b", "main", str(path))
    git(path, "config", "user.email", "owner@example.com")
    git(path, "config", "coop.fsync", "false")
    (path / "src").mkdir()
    (path / "src" / "app.py").write_text("line\n" * 20)
    git(path, "add", "src/app.py")
    git(path, "commit", "-q", "-m", "code")
    git(path, "remote", "add", "origin", url)
    verifier = path / ".git" / "verifier.sh"
    verifier.write_text(f"cat >/dev/null\necho {shlex.quote(json.dumps(VERDICT))}\n")
    git(path, "config", "coop.verifier", f"sh {shlex.quote(str(verifier))}")
    coop(path, "init")
    script = (
        "import sys\nfrom gitcoop.cli.main import main\n"
        "for n in range(int(sys.argv[1])):\n"
        "    assert main(['add', 'item', f'finding {n}', '--evidence', 'src/app.py:1']) == 0\n"
        "assert main(['verify']) == 0\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(items)], cwd=path, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"seeding the queue failed: {done.stderr}")
    git(path, "push", "-q", "origin", "main")
    coop(path, "sync")


def clone(root: Path, url: str, n: int) -> Path:
    path = root / f"clone{n}"
    git(root, "clone", "-q", "-b", "main", url, str(path))
    git(path, "config", "user.email", f"agent{n}@example.com")
    git(path, "config", "coop.fsync", "false")
    coop(path, "remote", "setup", "origin", "--claims")
    coop(path, "sync")
    return path


@dataclass
class Round:
    clones: int
    picks: list[dict[str, object]]
    wall: float
    double: int

    @property
    def claimed(self) -> list[dict[str, object]]:
        return [p for p in self.picks if p["code"] == 0]


def race(
    paths: list[Path], picks: int, mode: str = "remote"
) -> tuple[list[dict[str, object]], float]:
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(picks), mode],
            cwd=path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for path in paths
    ]
    for worker in workers:  # each says so once its imports and caches are warm
        assert worker.stdout is not None
        if worker.stdout.readline() != "ready\n":
            raise SystemExit(f"a worker failed to start: {worker.communicate()[1]}")
    start = time.perf_counter()
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    results: list[dict[str, object]] = []
    for worker in workers:
        out, err = worker.communicate(timeout=1800)
        if worker.returncode != 0:
            raise SystemExit(f"a worker failed: {err}")
        results += [json.loads(line) for line in out.splitlines()]
    return results, time.perf_counter() - start


def doubles(bare: Path) -> int:
    """Items with more than one pick on the remote, plus items with any conflict."""
    repo = open_repo(str(bare))
    snapshot = Snapshot(repo, repo.tip())
    bad = 0
    for item_id in snapshot.item_ids():
        item = snapshot.item(item_id)
        picks = [e for e in snapshot.events(item_id) if e.verb == "pick"]
        bad += len(picks) > 1 or bool(item and item.conflicts)
    return bad


def one_round(root: Path, clones: int, picks: int) -> Round:
    base = root / f"n{clones}"
    base.mkdir()
    with daemon(base) as url:
        seed(base, url, clones * picks)
        paths = [clone(base, url, n) for n in range(clones)]
        results, wall = race(paths, picks)
        return Round(clones, results, wall, doubles(base / "remote.git"))


def floor(root: Path, samples: int, items: int) -> dict[str, float]:
    """Raw git fetch and push round trips, and a local pick, in one clone of a served remote
    whose ledger is as large as a round's."""
    base = root / "floor"
    base.mkdir()
    with daemon(base) as url:
        seed(base, url, items)
        path = clone(base, url, 0)
        fetches, pushes = [], []
        tip = git(path, "rev-parse", "refs/coop/ledger").strip()
        for n in range(samples):
            start = time.perf_counter()
            git(path, "fetch", "-q", "--no-tags", "origin", "+refs/coop/ledger:refs/coop/floor")
            fetches.append(time.perf_counter() - start)
            tree = git(path, "rev-parse", f"{tip}^{{tree}}").strip()
            commit = git(path, "commit-tree", tree, "-p", tip, "-m", f"floor {n}").strip()
            start = time.perf_counter()
            git(path, "push", "-q", "origin", f"{commit}:refs/coop/bench")
            pushes.append(time.perf_counter() - start)
            tip = commit
        local, _ = race([path], samples, mode="offline")
        return {
            "fetch": statistics.median(fetches),
            "push": statistics.median(pushes),
            "local": statistics.median(float(str(p["seconds"])) for p in local),
        }


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def report(rounds: list[Round], base: dict[str, float]) -> None:
    total = base["fetch"] + base["push"] + base["local"]
    print(
        f"floor: git fetch {base['fetch'] * 1000:.0f} ms + git push {base['push'] * 1000:.0f} ms"
        f" + local pick {base['local'] * 1000:.0f} ms = {total * 1000:.0f} ms\n"
    )
    print(
        "| clones | claims | claims/s | p50 latency | p99 latency | p50 / floor "
        "| retries per claim | max retries | double claims |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rounds:
        claimed = r.claimed
        lat = [float(str(p["seconds"])) for p in claimed] or [float("nan")]
        retries = [int(str(p["retries"])) for p in claimed] or [0]
        print(
            f"| {r.clones} | {len(claimed)}/{len(r.picks)} | {len(claimed) / r.wall:.1f} "
            f"| {percentile(lat, 0.5) * 1000:.0f} ms | {percentile(lat, 0.99) * 1000:.0f} ms "
            f"| {percentile(lat, 0.5) / total:.2f}x | {statistics.mean(retries):.2f} "
            f"| {max(retries)} | {r.double} |"
        )
    for failed in [p for r in rounds for p in r.picks if p["code"] != 0][:5]:
        print(f"a pick failed: exit {failed['code']}: {failed['err']}")
    one = next((r for r in rounds if r.clones == 1), None)
    most = max(rounds, key=lambda r: r.clones)
    if one is not None and most.clones > 1:
        share = (len(most.claimed) / most.wall) / (len(one.claimed) / one.wall)
        print(f"\n{most.clones} clones' claim rate is {share:.0%} of one clone's")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", default="1,2,4,8,16")
    parser.add_argument("--claims", type=int, default=96, help="claims per round (all clones)")
    parser.add_argument("--workdir", default=None)
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", "gitcoop"], check=False)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        root = Path(tmp)
        os.environ.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=str(root / "gitconfig"))
        base = floor(root, 15, args.claims)
        counts = [int(n) for n in args.clones.split(",")]
        rounds = [one_round(root, n, max(1, args.claims // n)) for n in counts]
        print(
            f"Machine: {os.cpu_count()} cores; {sys.version.split()[0]}; "
            f"{git(root, 'version').strip()}\n"
        )
        report(rounds, base)


if __name__ == "__main__":
    main()
