"""An interrupted `verify` gives back what it holds: a real process, a real signal.

The verifier says it started on one pipe and then blocks reading another that
the test never writes: the item is `verifying`, under a lease, for as long as
the test wants, and no test sleeps.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import coop, git

NOW = "2026-11-29T10:00:00Z"


def started_verify(repo: Path, fifos: Path) -> subprocess.Popen[str]:
    """`git-coop verify` in its own process, returned once its verifier runs."""
    up, hold = fifos / "up", fifos / "hold"
    os.mkfifo(up)
    os.mkfifo(hold)
    git(repo, "config", "coop.verifier", f"cat >/dev/null; printf 'up\\n' > {up}; read x < {hold}")
    env = {**os.environ, "COOP_NOW": NOW}
    command = [str(Path(sys.executable).parent / "git-coop"), "verify"]
    verifying = subprocess.Popen(
        command, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    with open(up) as said:  # blocks until the verifier has started
        assert said.readline() == "up\n"
    return verifying


def release(fifos: Path) -> None:
    """Unblock a verifier still reading the pipe (only if the test failed before it ended)."""
    with contextlib.suppress(OSError):
        os.close(os.open(fifos / "hold", os.O_WRONLY | os.O_NONBLOCK))


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupted_verify_puts_the_item_back_to_draft(
    ledger: Path, tmp_path: Path, sig: signal.Signals, code: int
) -> None:
    item = coop("add", "item", "Fix the toast", "--json").json()["id"]
    verifying = started_verify(ledger, tmp_path)
    try:
        held = coop("show", item, env={"COOP_NOW": NOW})
        assert "lease" in held.out and "verifying by system" in held.out, held.out
        again = coop("verify", env={"COOP_NOW": NOW})
        assert again.code == 0 and "is being verified by system" in again.out, again.out
        assert "no drafts wait" not in again.out
        verifying.send_signal(sig)
        out, err = verifying.communicate(timeout=120)
    finally:
        if verifying.poll() is None:
            verifying.kill()
            verifying.wait()
        release(tmp_path)
    assert verifying.returncode == code, (out, err)
    assert "is back in draft" in err and "Traceback" not in err, err
    after = coop("show", item, "--json", env={"COOP_NOW": NOW}).json()
    assert after["status"] == "draft" and after["lease"] is None, after
    last = coop("log", item, "--json").json()[-1]
    assert last["verb"] == "verdict" and last["verdict"] == "unclear"
    assert f"interrupted ({sig.name})" in last["reason"]
    assert "lease" not in coop("show", item, env={"COOP_NOW": NOW}).out


def test_a_verify_with_nothing_leased_says_no_drafts_wait(ledger: Path) -> None:
    git(ledger, "config", "coop.verifier", "true")
    said = coop("verify")
    assert said.code == 0 and "no drafts wait" in said.out
