"""Mutation testing of the modules that hold the rules and the trust boundary.

    .venv/bin/pip install -e '.[test,mutation]'
    nice -n 10 .venv/bin/python tests/mutation/run.py [SCOPE ...] [--out DIR]

Each scope mutates one module (or the named functions of it) with cosmic-ray
and runs, for every mutant, only the test files that exercise that module
(`SCOPES` below), stopping at the first failure. Nothing is mutated in place:
the working tree as it is (tracked and untracked files, .gitignore honoured)
is copied to DIR/<scope>/tree, and every test process, the `git coop`
processes the tests start included, imports gitcoop from that copy
(PYTHONPATH). DIR defaults to a fresh temporary folder; it keeps each scope's
cosmic-ray session (`cr-report DIR/<scope>/session.sqlite`) and a text
report of the surviving mutants with their diffs (DIR/<scope>/survivors.txt).
With `--survivors-of EARLIER_DIR` only the mutants that survived that run are
tried again (on the tests as they are now): the quick way to check new tests.
`--at REV` mutates a commit's tree instead (the figures "before" in
docs/testing.md are `--at` the commit before the tests that killed them).

A run ends with one line per scope: mutants, killed, survived, score, time.
docs/testing.md has the figures and says why each mutant left is harmless.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TIMEOUT = 120.0  # seconds per mutant: ten times the slowest scope's tests

# Replacing + by <<, ** or % mostly raises a TypeError at once: killed, and
# uninformative. One arithmetic swap per operator (+ <-> -) is kept. Of the
# seven replacements of each comparison, the negation and the off-by-one are
# kept (== -> !=, < -> <= and >=, is -> is not); `==` -> `<` on strings and
# `is None` -> `== None` teach nothing or are equivalent.
EXCLUDED_OPERATORS = (
    r"core/ReplaceComparisonOperator_Eq_(?!NotEq$)",
    r"core/ReplaceComparisonOperator_NotEq_(?!Eq$)",
    r"core/ReplaceComparisonOperator_Lt_(?!(LtE|GtE)$)",
    r"core/ReplaceComparisonOperator_LtE_(?!(Lt|Gt)$)",
    r"core/ReplaceComparisonOperator_Gt_(?!(GtE|LtE)$)",
    r"core/ReplaceComparisonOperator_GtE_(?!(Gt|Lt)$)",
    r"core/ReplaceComparisonOperator_Is_(?!IsNot$)",
    r"core/ReplaceComparisonOperator_IsNot_(?!Is$)",
    r"core/ReplaceBinaryOperator_.*_(Pow|RShift|LShift|BitOr|BitAnd|BitXor|FloorDiv|Mod|Mul)$",
    r"core/ReplaceBinaryOperator_(Pow|RShift|LShift|BitOr|BitAnd|BitXor|FloorDiv|Mod)_",
    r"core/ReplaceBinaryOperator_(Add|Sub)_Div$",
    r"core/ReplaceUnaryOperator_.*_(Invert|UAdd)$",
    r"core/RemoveDecorator$",  # @dataclass(frozen=True), @classmethod: fails on import
)


@dataclass(frozen=True)
class Scope:
    module: str
    tests: tuple[str, ...]
    functions: tuple[str, ...] = ()  # qualified names; empty: the whole module


SCOPES = {
    "lifecycle": Scope(
        "gitcoop/domain/lifecycle.py",
        ("tests/domain/test_lifecycle.py", "tests/domain/test_resolution.py"),
    ),
    "obligations": Scope("gitcoop/domain/obligations.py", ("tests/domain/test_obligations.py",)),
    "merge": Scope(
        "gitcoop/store/ledger/merge.py",
        (
            "tests/store/ledger/test_merge.py",
            "tests/service/test_sync.py",
            "tests/service/test_offline_order.py",
        ),
        ("merge", "plan", "_merge_commit"),
    ),
    "boundary-history": Scope(
        "gitcoop/store/boundary/history.py",
        (
            "tests/store/boundary/test_boundary.py",
            "tests/hostile/test_clock.py",
            "tests/hostile/test_push_bounds.py",
            "tests/store/ledger/test_merge.py",
        ),
        ("History._check", "_check_event", "check_one_root", "added_files"),
    ),
    "boundary-joining": Scope(
        "gitcoop/store/boundary/joining.py",
        (
            "tests/hostile/test_roles.py",
            "tests/hostile/test_signatures.py",
            "tests/hostile/test_shared_order.py",
            "tests/store/boundary/test_boundary.py",
        ),
        ("join", "_unsigned", "_problem", "holds_state", "as_state"),
    ),
    "boundary-remembered": Scope(
        "gitcoop/store/boundary/remembered.py",
        ("tests/hostile/test_shared_order.py",),
        ("keeps", "check"),
    ),
    "transaction": Scope(
        "gitcoop/store/ledger/transaction.py",
        ("tests/store/ledger/test_transaction.py", "tests/store/git/test_ref_safety.py"),
    ),
    "ref-swap": Scope(
        "gitcoop/store/git/refs.py",
        ("tests/store/ledger/test_transaction.py", "tests/store/git/test_ref_safety.py"),
        (
            "Refs.tip",
            "Refs._ref_on_disk",
            "Refs.swap",
            "Refs.ref_lock_age",
            "Refs.remove_ref_lock",
            "Refs.ensure_reflog",
            "Backoff.pauses",
        ),
    ),
    "fsync": Scope(
        "gitcoop/store/git/writes.py",
        ("tests/store/ledger/test_transaction.py", "tests/store/git/test_ref_safety.py"),
        ("enable_fsync",),
    ),
    "evidence-cache": Scope(
        "gitcoop/domain/queue.py",
        ("tests/domain/test_queue_order.py", "tests/domain/test_queue_verbs.py"),
        ("lookup", "cached_at", "invalidated"),
    ),
    "evidence-history": Scope(
        "gitcoop/store/git/ancestry.py",
        ("tests/store/git/test_queue_history.py",),
        ("exists", "is_ancestor", "count_touching", "_entry"),
    ),
    "evidence-pick": Scope(
        "gitcoop/service/pick.py", ("tests/service/test_queue_pick.py",), ("check",)
    ),
}


def copy_tree(dest: Path, at: str | None = None) -> None:
    """The working tree as it is (tracked and untracked files, ignored ones left out),
    or with `at`, the tree of that commit."""
    if at is not None:
        archive = subprocess.run(["git", "archive", at], cwd=ROOT, capture_output=True, check=True)
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive.stdout, check=True)
        return
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout
    for name in filter(None, listed.decode().split("\0")):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def line_ranges(path: Path, functions: tuple[str, ...]) -> list[range]:
    """The lines of each named function (`Class.method` or `function`)."""
    tree = ast.parse(path.read_text())
    found: dict[str, range] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                name = prefix + node.name
                found[name] = range(node.lineno, (node.end_lineno or node.lineno) + 1)
                if isinstance(node, ast.ClassDef):
                    visit(node.body, name + ".")

    visit(tree.body, "")
    missing = [f for f in functions if f not in found]
    if missing:
        raise SystemExit(f"{path}: no function named {', '.join(missing)}")
    return [found[f] for f in functions]


def test_command(scope: Scope) -> str:
    files = " ".join(scope.tests)
    return f"{sys.executable} -m pytest -x -q -p no:cacheprovider -m 'not long' {files}"


def write_config(where: Path, scope: Scope) -> Path:
    config = where / "config.toml"
    excluded = ", ".join(f"'{pattern}'" for pattern in EXCLUDED_OPERATORS)
    config.write_text(
        "[cosmic-ray]\n"
        f'module-path = "{scope.module}"\n'
        f"timeout = {TIMEOUT}\n"
        "excluded-modules = []\n"
        f'test-command = "{test_command(scope)}"\n'
        "[cosmic-ray.distributor]\n"
        'name = "local"\n'
        "[cosmic-ray.filters.operators-filter]\n"
        f"exclude-operators = [{excluded}]\n"
    )
    return config


def skip_outside(session: Path, tree: Path, scope: Scope) -> None:
    """Mark as skipped every mutant outside the scope's functions."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    if not scope.functions:
        return
    ranges = line_ranges(tree / scope.module, scope.functions)
    skipped = WorkResult(
        output="outside the scope's functions", worker_outcome=WorkerOutcome.SKIPPED
    )
    with use_db(str(session), WorkDB.Mode.open) as db:
        outside = [
            item.job_id
            for item in db.pending_work_items
            if not any(m.start_pos[0] in r for m in item.mutations for r in ranges)
        ]
        db.set_multiple_results(outside, skipped)


def bin_of(tool: str) -> str:
    return str(Path(sys.executable).parent / tool)


def reopen_survivors(session: Path) -> None:
    """Make the mutants that survived a run pending again, to try them on today's tests."""
    with sqlite3.connect(session) as db:
        db.execute("DELETE FROM work_results WHERE test_outcome = 'SURVIVED'")


def run_scope(
    name: str, scope: Scope, out: Path, previous: Path | None = None, at: str | None = None
) -> tuple[int, int, int, float]:
    where = out / name
    tree = where / "tree"
    tree.mkdir(parents=True)
    copy_tree(tree, at)
    config = write_config(where, scope)
    session = where / "session.sqlite"
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONDONTWRITEBYTECODE": "1"}

    def run(*command: str) -> None:
        subprocess.run(command, cwd=tree, env=env, check=True)

    started = time.monotonic()
    baseline = subprocess.run(test_command(scope), shell=True, cwd=tree, env=env, check=False)
    if baseline.returncode != 0:
        print(f"{name}: its tests fail without any mutant; fix them first", flush=True)
        return 0, 0, 0, time.monotonic() - started
    if previous is None:
        run(bin_of("cosmic-ray"), "init", str(config), str(session))
        run(bin_of("cr-filter-operators"), str(session), str(config))
        skip_outside(session, tree, scope)
    else:  # the same mutants as that run; only its survivors are tried again
        shutil.copy(previous / name / "session.sqlite", session)
        reopen_survivors(session)
    run(bin_of("cosmic-ray"), "exec", str(config), str(session))
    elapsed = time.monotonic() - started
    return (*report(session, where / "survivors.txt"), elapsed)


def report(session: Path, survivors: Path) -> tuple[int, int, int]:
    """(mutants run, killed, survived); the survivors' diffs written to `survivors`."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    with use_db(str(session), WorkDB.Mode.open) as db:
        done = [
            (item, result)
            for item, result in db.completed_work_items
            if result.worker_outcome != WorkerOutcome.SKIPPED
        ]
    alive = [(i, r) for i, r in done if r.test_outcome == TestOutcome.SURVIVED]
    alive.sort(key=lambda pair: pair[0].mutations[0].start_pos)
    with survivors.open("w") as text:
        for item, result in alive:
            spec = item.mutations[0]
            text.write(f"# {spec.module_path}:{spec.start_pos[0]} {spec.operator_name}\n")
            text.write((result.diff or "").strip() + "\n\n")
    # a mutant that breaks the import (incompetent) or times out is caught too
    return len(done), len(done) - len(alive), len(alive)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scopes", nargs="*", metavar="SCOPE", help=", ".join(SCOPES))
    parser.add_argument("--out", type=Path, help="where sessions and reports go")
    parser.add_argument("--at", metavar="REV", help="mutate this commit's tree, not the work tree")
    parser.add_argument(
        "--survivors-of",
        type=Path,
        metavar="DIR",
        help="an earlier run's --out: try only the mutants that survived it, on today's tests",
    )
    args = parser.parse_args()
    unknown = [name for name in args.scopes if name not in SCOPES]
    if unknown:
        parser.error(f"no scope named {', '.join(unknown)}; known: {', '.join(SCOPES)}")
    out = args.out or Path(tempfile.mkdtemp(prefix="gitcoop-mutation-"))
    rows = []
    for name in args.scopes or list(SCOPES):
        mutants, killed, survived, elapsed = run_scope(
            name, SCOPES[name], out, args.survivors_of, args.at
        )
        score = 100.0 * killed / mutants if mutants else 100.0
        rows.append(f"{name:18} {mutants:7} {killed:7} {survived:8} {score:6.1f}% {elapsed:7.0f}s")
        print(rows[-1], flush=True)
    print(f"\n{'scope':18} {'mutants':>7} {'killed':>7} {'survived':>8} {'score':>7} {'time':>8}")
    print("\n".join(rows))
    print(f"\nsessions and survivors: {out}")


if __name__ == "__main__":
    main()
