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
pick), p50/p90/p99 claim latency, retries per claim, CPU per claim (the
workers' own CPU with the git processes they ran, plus the daemon's with the
upload-packs and receive-packs it served, over the claims made), exit 7s, and
double claims (an item with two picks on the remote, or any conflict: must
be 0). The floor is this
machine's raw round trip: a `git fetch` of the ledger plus a `git push` of a
new commit (to refs/coop/bench), as git itself does them, plus a local pick
(`pick --offline`, in-process) in the same clone.

Shapes: `--clones 1x1,1x4,16x4` runs CLONES clones of WORKERS processes each (each
its own actor), the same CLAIMS in all; a plain N is Nx1. The last line compares
the largest shape's claim rate with one clone's of the same workers.

Run: python bench/claims.py [--clones 1,2,4,8,16] [--claims 96] [--workdir DIR]

Fleet mode (`--fleet CLONESxWORKERS`, e.g. 16x4): confirmed claims overruled.
A fresh remote holds --items open todos (default 40). CLONES clones (claims
on) each run WORKERS processes, each with its own actor (COOP_ACTOR=
wC-K@fleet), and ONE more clone runs one process as offline@fleet; all are
released together by one line on their stdin. Each fleet worker walks every
item in its own shuffled order with `take ID --json` (through the remote: an
exit 0 is a confirmed claim); the offline worker walks them too with
`take ID --offline --json`, then runs `git coop sync`. In the backdated
variant the offline takes run with COOP_NOW=1970-01-02T00:00:00Z. Then every
clone runs `git coop sync`, and a fresh clone reads the final ledger
(`list --json --all`): a confirmed claim is overruled when the item's final
holder (`taken_by`, or `closed_by` once closed) is not the actor that got the
exit 0. Double claims: items whose take got exit 0 for two or more fleet
actors, or whose remote ledger carries takes by two or more fleet actors.

Run: python bench/claims.py --fleet 16x4 [--items 40] [--variants plain,backdated]
     [--seed S] [--max-connections N] [--timeout S] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import gitcoop
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import open_repo

VERDICT = {
    "verdict": "confirmed",
    "reason": "the line says so",
    "evidence": [{"path": "src/app.py", "line": 1, "quote": "line"}],
}

WORKER = """
import contextlib, io, json, os, sys, time
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
    start, before = time.perf_counter(), sum(os.times()[:4])
    code, out, err = coop("pick", "--json", *(["--offline"] if mode == "offline" else []))
    took, cpu = time.perf_counter() - start, sum(os.times()[:4]) - before
    item = json.loads(out)["id"] if code == 0 else None
    print(json.dumps({"code": code, "item": item, "seconds": took, "cpu": cpu,
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


SERVING = [0]  # the pid of the `git daemon` serving now


def cpu_seconds(pid: int) -> float:
    """A process's CPU seconds with those of the children it has reaped (/proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")


@contextmanager
def daemon(base: Path, max_connections: int | None = None) -> Iterator[str]:
    """`git daemon` serving `base/remote.git`; ready when its log says so (no polling).
    `max_connections`: git daemon's --max-connections (git's default 32; 0: no limit)."""
    git(base, "init", "-q", "--bare", "remote.git")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = subprocess.Popen(
        [
            "git", "daemon", "--verbose", "--reuseaddr", "--export-all",
            "--enable=receive-pack", "--listen=127.0.0.1", f"--port={port}",
            f"--base-path={base}",
            *([] if max_connections is None else [f"--max-connections={max_connections}"]),
            str(base),
        ],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert server.stderr is not None
    for line in server.stderr:
        if "Ready to rumble" in line:
            break
    threading.Thread(target=server.stderr.read, daemon=True).start()
    SERVING[0] = server.pid
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
    workers: int = 1
    remote_cpu: float = 0.0  # seconds, the daemon's share of the round (seeding included)

    @property
    def claimed(self) -> list[dict[str, object]]:
        return [p for p in self.picks if p["code"] == 0]


def release(workers: Sequence[subprocess.Popen[str]], ready: str = "ready\n") -> float:
    """Wait until every worker says `ready` (imports and caches warm), then let them all go
    at once, by one line on each one's stdin; the instant they were let go."""
    for worker in workers:
        assert worker.stdout is not None
        if worker.stdout.readline() != ready:
            raise SystemExit(f"a worker failed to start: {worker.communicate()[1]}")
    start = time.perf_counter()
    for worker in workers:
        assert worker.stdin is not None
        worker.stdin.write("go\n")
        worker.stdin.flush()
    return start


def race(
    paths: list[Path], picks: int, mode: str = "remote", each: int = 1
) -> tuple[list[dict[str, object]], float]:
    """`each` processes in every clone, each its own actor, making `picks` picks."""
    workers = [
        subprocess.Popen(
            [sys.executable, "-c", WORKER, str(picks), mode],
            cwd=path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**os.environ, **({"COOP_ACTOR": f"w{n}-{k}@bench"} if each > 1 else {})},
        )
        for n, path in enumerate(paths)
        for k in range(each)
    ]
    start = release(workers)
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


def one_round(root: Path, clones: int, picks: int, workers: int = 1) -> Round:
    base = root / f"n{clones}x{workers}"
    base.mkdir()
    with daemon(base, 0 if clones * workers > 32 else None) as url:
        seed(base, url, clones * workers * picks)
        paths = [clone(base, url, n) for n in range(clones)]
        before = cpu_seconds(SERVING[0])
        results, wall = race(paths, picks, each=workers)
        remote = cpu_seconds(SERVING[0]) - before
        return Round(clones, results, wall, doubles(base / "remote.git"), workers, remote)


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
        "| clones x workers | claims | claims/s | p50 latency | p90 latency | p99 latency "
        "| p50 / floor | retries per claim | max retries | CPU per claim | exit 7 "
        "| double claims |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rounds:
        claimed = r.claimed
        lat = [float(str(p["seconds"])) for p in claimed] or [float("nan")]
        retries = [int(str(p["retries"])) for p in claimed] or [0]
        unreachable = sum(p["code"] == 7 for p in r.picks)
        cpu = (sum(float(str(p["cpu"])) for p in r.picks) + r.remote_cpu) / max(len(claimed), 1)
        print(
            f"| {r.clones}x{r.workers} | {len(claimed)}/{len(r.picks)} "
            f"| {len(claimed) / r.wall:.2f} | {percentile(lat, 0.5) * 1000:.0f} ms "
            f"| {percentile(lat, 0.9) * 1000:.0f} ms | {percentile(lat, 0.99) * 1000:.0f} ms "
            f"| {percentile(lat, 0.5) / total:.2f}x | {statistics.mean(retries):.2f} "
            f"| {max(retries)} | {cpu * 1000:.0f} ms | {unreachable} | {r.double} |"
        )
    for failed in [p for r in rounds for p in r.picks if p["code"] != 0][:5]:
        print(f"a pick failed: exit {failed['code']}: {failed['err']}")
    most = max(rounds, key=lambda r: (r.clones * r.workers, r.clones))
    one = next((r for r in rounds if r.clones == 1 and r.workers == most.workers), None)
    if one is not None and most.clones > 1 and one.claimed:
        share = (len(most.claimed) / most.wall) / (len(one.claimed) / one.wall)
        print(f"\n{most.clones}x{most.workers}'s claim rate is {share:.0%} of 1x{one.workers}'s")


# --- fleet mode: confirmed claims overruled ---------------------------------------------------

BACKDATED = "1970-01-02T00:00:00Z"
OFFLINE_ACTOR = "offline@fleet"

FLEET_WORKER = """
import contextlib, io, json, os, random, sys, time
import gitcoop
from gitcoop.cli.main import main

def coop(*args):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(args))
    return code, out.getvalue(), err.getvalue()

ids, mode, seed, now = json.loads(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
coop("list")  # imports and caches warm before the race
print("ready", flush=True)
print(os.path.dirname(os.path.dirname(os.path.realpath(gitcoop.__file__))), flush=True)
sys.stdin.readline()  # the barrier
order = list(ids)
random.Random(seed).shuffle(order)
if now:
    os.environ["COOP_NOW"] = now  # the takes only: the sync below runs at the real time
for item in order:
    start = time.perf_counter()
    code, out, err = coop("take", item, "--json", *(["--offline"] if mode == "offline" else []))
    took = time.perf_counter() - start
    print(json.dumps({"item": item, "code": code, "seconds": took,
                      "err": "" if code == 0 else err.strip()[:500]}), flush=True)
os.environ.pop("COOP_NOW", None)
if mode == "offline":
    start = time.perf_counter()
    code, out, err = coop("sync")
    print(json.dumps({"sync": code, "seconds": time.perf_counter() - start,
                      "err": err.strip()[-300:]}), flush=True)
"""


def seed_todos(root: Path, url: str, items: int) -> list[str]:
    """A remote whose ledger holds `items` open todos (takeable by id); their ids."""
    path = root / "seed"
    git(root, "init", "-q", "-b", "main", str(path))
    git(path, "config", "user.email", "owner@example.com")
    git(path, "config", "coop.fsync", "false")
    git(path, "commit", "-q", "--allow-empty", "-m", "code")
    git(path, "remote", "add", "origin", url)
    coop(path, "init")
    script = (
        "import sys\nfrom gitcoop.cli.main import main\n"
        "for n in range(int(sys.argv[1])):\n"
        "    assert main(['add', 'todo', f'fleet task {n}']) == 0\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(items)], cwd=path, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"seeding the todos failed: {done.stderr}")
    git(path, "push", "-q", "origin", "main")
    coop(path, "sync")
    return sorted(i["id"] for i in json.loads(coop(path, "list", "--json", "--all")))


@dataclass
class Fleet:
    variant: str
    clones: int
    workers: int
    items: int
    takes: list[dict[str, object]]  # every fleet take: actor, item, code, seconds, err
    offline: list[dict[str, object]]  # the offline clone's takes
    offline_sync: dict[str, object]
    final: dict[str, dict[str, object]]  # item id -> its final state on the remote
    remote_takers: dict[str, set[str]]  # item id -> actors with a take event there
    final_syncs: Counter[int]  # exit code of each clone's last `git coop sync`
    told: int  # the offline person's lost takes `owed --mine` lists at the end
    wall: float  # release to the last worker done (the offline sync included)
    settle: float  # every clone's final sync, and the read of the final ledger
    total: float  # the variant end to end, set-up included

    @property
    def confirmed(self) -> list[dict[str, object]]:
        return [t for t in self.takes if t["code"] == 0]

    def holder(self, item: str) -> str | None:
        state = self.final.get(item, {})
        return str(state.get("closed_by") or state.get("taken_by") or "") or None

    @property
    def overruled(self) -> list[dict[str, object]]:
        return [t for t in self.confirmed if self.holder(str(t["item"])) != t["actor"]]

    @property
    def double(self) -> int:
        confirmed: dict[str, set[str]] = {}
        for t in self.confirmed:
            confirmed.setdefault(str(t["item"]), set()).add(str(t["actor"]))
        fleet = {i: a - {OFFLINE_ACTOR} for i, a in self.remote_takers.items()}
        return sum(
            len(confirmed.get(i, set())) > 1 or len(fleet.get(i, set())) > 1
            for i in set(confirmed) | set(fleet)
        )


def remote_takers(bare: Path) -> dict[str, set[str]]:
    """Per item, the actors with a take event (take, takeover, pick) on the remote."""
    repo = open_repo(str(bare))
    snapshot = Snapshot(repo, repo.tip())
    takers: dict[str, set[str]] = {}
    for item_id in snapshot.item_ids():
        actors = {
            e.actor for e in snapshot.events(item_id) if e.verb in ("take", "takeover", "pick")
        }
        takers[str(item_id)] = actors
    return takers


def collect(workers: list[subprocess.Popen[str]], timeout: float) -> list[tuple[int, str, str]]:
    """Every worker's exit code, stdout and stderr, read side by side (no pipe fills up)."""
    done: list[tuple[int, str, str] | None] = [None] * len(workers)

    def read(n: int) -> None:
        try:
            out, err = workers[n].communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            workers[n].kill()
            out, err = workers[n].communicate()
            err += f"\n(killed after {timeout:.0f} s)"
        done[n] = (workers[n].returncode, out, err)

    threads = [threading.Thread(target=read, args=(n,)) for n in range(len(workers))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return [d for d in done if d is not None]


def fleet_round(
    root: Path,
    variant: str,
    clones: int,
    workers: int,
    items: int,
    seed: str,
    timeout: float,
    max_connections: int | None = None,
) -> Fleet:
    began = time.perf_counter()
    base = root / f"fleet-{variant}-{clones}x{workers}"
    base.mkdir()
    now = BACKDATED if variant == "backdated" else ""
    with daemon(base, max_connections) as url:
        ids = seed_todos(base, url, items)
        paths = [clone(base, url, n) for n in range(clones)]
        offline_path = clone(base, url, clones)  # claims on too: its takes say --offline
        here = str(Path(gitcoop.__file__).resolve().parent.parent)
        plan: list[tuple[str, Path, str]] = [
            (f"w{c}-{k}@fleet", paths[c], "remote") for c in range(clones) for k in range(workers)
        ]
        plan.append((OFFLINE_ACTOR, offline_path, "offline"))
        procs = [
            subprocess.Popen(
                [
                    sys.executable,
                    "-c",
                    FLEET_WORKER,
                    json.dumps(ids),
                    mode,
                    f"{seed}/{variant}/{actor}",
                    now if mode == "offline" else "",
                ],
                cwd=path,
                env={**os.environ, "COOP_ACTOR": actor},
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for actor, path, mode in plan
        ]
        start = release(procs)
        for proc in procs:  # each names the gitcoop it imported, after `ready`
            assert proc.stdout is not None
            where = proc.stdout.readline().strip()
            if where != here:
                raise SystemExit(f"a worker imported gitcoop from {where}, not {here}")
        finished = collect(procs, timeout)
        wall = time.perf_counter() - start
        takes: list[dict[str, object]] = []
        offline: list[dict[str, object]] = []
        offline_sync: dict[str, object] = {}
        for (actor, _, mode), (code, out, err) in zip(plan, finished, strict=True):
            if code != 0:
                raise SystemExit(f"worker {actor} failed (exit {code}): {err[-2000:]}")
            for line in out.splitlines():
                row = {**json.loads(line), "actor": actor}
                if "sync" in row:
                    offline_sync = row
                else:
                    (offline if mode == "offline" else takes).append(row)
        settled = time.perf_counter()
        final_syncs: Counter[int] = Counter()
        offline_env = {**os.environ, "COOP_ACTOR": OFFLINE_ACTOR}
        for path in [*paths, offline_path]:  # every clone syncs at the end, as its own actor
            done = subprocess.run(
                [sys.executable, "-c", "from gitcoop.cli.main import run; run()", "sync"],
                cwd=path, capture_output=True, text=True,
                env=offline_env if path == offline_path else None,
            )  # fmt: skip
            final_syncs[done.returncode] += 1
        owed = subprocess.run(  # what the offline clone's person is shown as lost
            [sys.executable, "-c", "from gitcoop.cli.main import run; run()", "owed", "--mine",
             "--json"], cwd=offline_path, capture_output=True, text=True, env=offline_env,
        )  # fmt: skip
        told = sum(o.get("kind") == "lost" for o in json.loads(owed.stdout or "[]"))
        reader = base / "reader"
        git(base, "clone", "-q", "-b", "main", url, str(reader))
        git(reader, "config", "user.email", "reader@example.com")
        coop(reader, "remote", "setup", "origin")
        coop(reader, "sync")
        final = {str(i["id"]): i for i in json.loads(coop(reader, "list", "--json", "--all"))}
        takers = remote_takers(base / "remote.git")
        settle = time.perf_counter() - settled
    return Fleet(
        variant, clones, workers, items, takes, offline, offline_sync, final, takers,
        final_syncs, told, wall, settle, time.perf_counter() - began,
    )  # fmt: skip


def shape(message: str) -> str:
    """A message with its shas, ids and instants blanked, to group alike ones."""
    message = re.sub(r"\b[0-9a-f]{7,40}\b", "SHA", message)
    message = re.sub(r"\b[a-z]{2}-[0-9a-z]{4,}\b", "ID", message)
    return re.sub(r"\d{4}-\d\d-\d\d[ T][\d:]+( UTC|Z)?", "TIME", message)[:160]


def fleet_report(rounds: list[Fleet]) -> None:
    print(
        "| variant | clones | workers | items | offline takes | confirmed claims | overruled "
        "| double claims | wall time |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rounds:
        offline_ok = sum(t["code"] == 0 for t in r.offline)
        print(
            f"| {r.variant} | {r.clones} | {r.clones * r.workers} | {r.items} "
            f"| {offline_ok}/{len(r.offline)} | {len(r.confirmed)} | {len(r.overruled)} "
            f"| {r.double} | {r.wall:.1f} s |"
        )
    print()
    for r in rounds:
        codes = Counter(int(str(t["code"])) for t in r.takes)
        lat = [float(str(t["seconds"])) for t in r.confirmed] or [float("nan")]
        held = Counter(r.holder(i) == OFFLINE_ACTOR for i in r.final)
        conflicts = sum(bool(s.get("conflicts")) for s in r.final.values())
        landed = sum(OFFLINE_ACTOR in a for a in r.remote_takers.values())
        absent = sum(  # an exit 0 the remote never saw: a claim confirmed falsely
            str(t["actor"]) not in r.remote_takers.get(str(t["item"]), set()) for t in r.confirmed
        )
        unconfirmed = sum(
            1
            for i in r.final
            if r.holder(i) not in {None, OFFLINE_ACTOR}
            and not any(t["item"] == i and t["code"] == 0 for t in r.confirmed)
        )
        print(
            f"{r.variant}: fleet take exits {dict(sorted(codes.items()))}; confirmed take "
            f"p50 {percentile(lat, 0.5) * 1000:.0f} ms, p99 {percentile(lat, 0.99) * 1000:.0f} ms; "
            f"offline sync exit {r.offline_sync.get('sync')} "
            f"({float(str(r.offline_sync.get('seconds', 0))):.1f} s); final syncs "
            f"{dict(sorted(r.final_syncs.items()))} ({r.settle:.1f} s with the read); "
            f"final holders: offline {held[True]}, fleet {held[False]} "
            f"(not confirmed to their holder: {unconfirmed}); offline takes on the remote "
            f"{landed}; confirmed takes absent from the remote {absent}; "
            f"items with conflicts {conflicts}, the offline person told of {r.told}; "
            f"end to end {r.total:.0f} s"
        )
        odd = [t for t in r.takes if t["code"] not in (0, 1)]
        odd += [t for t in r.offline if t["code"] != 0]
        kinds: dict[tuple[object, str], list[dict[str, object]]] = {}
        for t in odd:  # grouped by exit and message, with the ids and shas left out
            kinds.setdefault((t["code"], shape(str(t["err"]))), []).append(t)
        for (code, _), alike in sorted(kinds.items(), key=lambda k: -len(k[1])):
            t = alike[0]
            print(
                f"  odd: {len(alike)} x exit {code}, e.g. {t['actor']} take {t['item']}: {t['err']}"
            )
        if r.offline_sync.get("sync") not in (0, None):
            print(f"  offline sync said: {r.offline_sync.get('err')}")
        for t in r.overruled[:3]:
            print(
                f"  overruled: {t['actor']} took {t['item']} (exit 0); final holder "
                f"{r.holder(str(t['item']))}"
            )


def fleet_main(args: argparse.Namespace, root: Path) -> None:
    clones, _, workers = args.fleet.partition("x")
    if not (clones.isdigit() and workers.isdigit()) or int(clones) < 1 or int(workers) < 1:
        raise SystemExit(f"--fleet wants CLONESxWORKERS, e.g. 16x4 (not {args.fleet!r})")
    seed = args.seed if args.seed is not None else os.urandom(4).hex()
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not variants or set(variants) - {"plain", "backdated"}:
        raise SystemExit("--variants takes plain, backdated or both")
    rounds = [
        fleet_round(
            root,
            v,
            int(clones),
            int(workers),
            args.items,
            seed,
            args.timeout,
            args.max_connections,
        )
        for v in variants
    ]
    print(
        f"Machine: {os.cpu_count()} cores; {sys.version.split()[0]}; "
        f"{git(root, 'version').strip()}; gitcoop from "
        f"{Path(gitcoop.__file__).resolve().parent}; seed {seed}; git daemon "
        f"--max-connections={32 if args.max_connections is None else args.max_connections}\n"
    )
    fleet_report(rounds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clones", default="1,2,4,8,16")
    parser.add_argument("--claims", type=int, default=96, help="claims per round (all clones)")
    parser.add_argument("--workdir", default=None)
    parser.add_argument(
        "--fleet",
        default=None,
        metavar="CLONESxWORKERS",
        help="fleet mode: confirmed claims overruled, e.g. 16x4",
    )
    parser.add_argument("--items", type=int, default=40, help="fleet mode: todos to take")
    parser.add_argument(
        "--variants",
        default="plain,backdated",
        help="fleet mode: plain, backdated (offline takes at COOP_NOW=1970-01-02)",
    )
    parser.add_argument("--seed", default=None, help="fleet mode: the shuffles' seed")
    parser.add_argument("--timeout", type=float, default=1800, help="fleet mode: per worker, s")
    parser.add_argument(
        "--max-connections",
        type=int,
        default=None,
        help="fleet mode: git daemon --max-connections (git's default 32; 0: none)",
    )
    args = parser.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", "gitcoop"], check=False)
    with tempfile.TemporaryDirectory(dir=args.workdir) as tmp:
        root = Path(tmp)
        os.environ.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=str(root / "gitconfig"))
        if args.fleet:
            for name in ("COOP_ACTOR", "COOP_NOW", "COOP_SESSION"):  # set per worker only
                os.environ.pop(name, None)
            fleet_main(args, root)
            return
        base = floor(root, 15, args.claims)
        shapes = [tuple(int(v) for v in (f"{s}x1" if "x" not in s else s).split("x"))
                  for s in args.clones.split(",")]  # fmt: skip
        rounds = [one_round(root, c, max(1, args.claims // (c * w)), w) for c, w in shapes]
        print(
            f"Machine: {os.cpu_count()} cores; {sys.version.split()[0]}; "
            f"{git(root, 'version').strip()}\n"
        )
        report(rounds, base)


if __name__ == "__main__":
    main()
