"""A ledger in a repository with code, and a fake verifier that is a real process."""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gitcoop.service.context import Context
from tests.conftest import git

FAKE = Path(__file__).with_name("fake_verifier.py")
NOW = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


@dataclass
class Code:
    """The repository under the ledger: commit code, steer the verifier, count its calls."""

    path: Path

    def commit(self, name: str, text: str) -> str:
        target = self.path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)
        git(self.path, "add", name)
        git(self.path, "commit", "-q", "-m", f"change {name}")
        return git(self.path, "rev-parse", "HEAD").strip()

    def plan(self, **entries: Any) -> None:
        """Verdicts by title keyword; `default` is the fallback."""
        data = {("*" if k == "default" else k.replace("_", " ")): v for k, v in entries.items()}
        (self.path / ".git" / "plan.json").write_text(json.dumps(data))

    def calls(self) -> list[str]:
        log = self.path / ".git" / "calls.log"
        return log.read_text().split() if log.exists() else []

    def prompt(self, item_id: str) -> str:
        return (self.path / ".git" / f"calls.log.{item_id}.prompt").read_text()

    def ctx(self, actor: str = "alice@example.com", session: str | None = "s1") -> Context:
        return Context(path=str(self.path), actor=actor, session=session, now=NOW)


def install(path: Path, timeout: str | None = None) -> Code:
    code = Code(path)
    code.commit("src/app.py", "line\n" * 50)
    gitdir = path / ".git"
    command = shlex.join(
        [sys.executable, str(FAKE), str(gitdir / "plan.json"), str(gitdir / "calls.log")]
    )
    git(path, "config", "coop.verifier", command)
    if timeout:
        git(path, "config", "coop.verifierTimeout", timeout)
    code.plan(default={"verdict": "unclear", "reason": "no plan"})
    return code


GIT_COOP = shlex.quote(str(Path(sys.executable).with_name("git-coop")))
CONFIRM = {
    "verdict": "confirmed",
    "reason": "the code shows it",
    "evidence": [{"path": "src/app.py", "line": 7, "quote": "line"}],
}
