"""`git coop demo` runs the walkthrough end to end in a throwaway repository."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import coop_process


def test_demo_walks_through_and_cleans_up(tmp_path: Path) -> None:
    result = coop_process(tmp_path, "demo")
    assert result.code == 0, result.err
    out = result.out
    for step in (
        "git coop init",
        "git coop take",
        "already taken by bob@example.com",
        "git coop log",
    ):
        assert step in out
    assert "summary=retry on EAGAIN" in out
    assert "(exit 1: refused, as it should be)" in out
    assert "unchanged — it already records that" in out
    assert "now removed; git coop demo --keep keeps it" in out.splitlines()[-1]
    assert "refs/coop/ledger" not in out.splitlines()[-1].split("removed")[1]
    assert "git log --oneline" not in out  # no repository left to suggest it in
    assert list(tmp_path.iterdir()) == []  # nothing left where it was run


def test_demo_keep_leaves_a_real_ledger(tmp_path: Path) -> None:
    result = coop_process(tmp_path, "demo", "--keep")
    assert result.code == 0
    last = result.out.strip().splitlines()[-1]
    assert last.endswith("&& git log --oneline refs/coop/ledger")
    kept = Path(last.split("cd ", 1)[1].split(" && ")[0])
    try:
        listed = coop_process(kept, "list", "--all", "--json")
        assert listed.code == 0 and '"status": "done"' in listed.out
    finally:
        import shutil

        shutil.rmtree(kept)


def test_demo_json_lists_every_step_with_its_exit_code(tmp_path: Path) -> None:
    import json

    result = coop_process(tmp_path, "demo", "--json")
    assert result.code == 0
    steps = json.loads(result.out)["steps"]
    assert [s["command"][2] for s in steps][:5] == ["init", "add", "add", "take", "take"]
    assert [s["exit"] for s in steps].count(1) == 1
    assert "already taken" in steps[4]["stderr"]
