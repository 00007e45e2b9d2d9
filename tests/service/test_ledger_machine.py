"""A model of the rules, stepped beside a real ledger: they must agree after every step.

Steps are the verbs (take, release, done, close, abandon, report, review) by
three people, merges of offline work from a second clone, and crashes (a
writer killed after writing objects and git's ref lock but before moving the
ref). The model is deliberately small: who
holds what, the status, whether an outcome is owed, and the version.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from gitcoop.domain.records import Event
from gitcoop.errors import Refused
from gitcoop.service import ledger
from gitcoop.service.context import Context
from gitcoop.service.fsck import fsck
from gitcoop.service.queries import list_items, log
from gitcoop.service.sync import pull

OWNER = "alice@example.com"
ACTORS = (OWNER, "bob@example.com", "carol@example.com")
TERMINAL = ("done", "closed", "abandoned")
START = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


@dataclass
class Model:
    kind: str
    status: str = "open"
    taken_by: str | None = None
    version: int = 1

    @property
    def owes(self) -> bool:
        return self.status == "taken"


def finish_status(kind: str) -> str:
    return "done" if kind == "todo" else "closed"


def _accepts(m: Model, actor: str, verb: str) -> bool:
    """Whether a take, or a done/close of the item's kind, is accepted (no --force)."""
    return m.status == "open" or (m.status == "taken" and m.taken_by == actor)


def _apply(m: Model, actor: str, verb: str) -> None:
    m.version += 1
    if verb == "take":
        m.status, m.taken_by = "taken", actor
    else:
        m.status, m.taken_by = finish_status(m.kind), None


def list_log(path: Path, item_id: str) -> list[Event]:
    return [entry.event for entry in log(Context(str(path)), item_id)]


class LedgerMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.home = Path(tempfile.mkdtemp(prefix="coop-machine-"))
        self.path = self.home / "repo"
        self.path.mkdir()
        for args in (
            ["init", "-q"],
            ["config", "user.email", OWNER],
            ["config", "coop.fsync", "false"],
        ):
            subprocess.run(["git", *args], cwd=self.path, check=True)
        self.now = START
        self.items: dict[str, Model] = {}
        ledger.init(self.ctx(OWNER))
        for kind in ("todo", "todo", "request"):
            shown = ledger.add(self.ctx(OWNER), kind, f"a {kind}")
            self.items[shown.item.id] = Model(kind)
        self.ids = sorted(self.items)

    def teardown(self) -> None:
        try:
            assert fsck(Context(str(self.path)), full=True).breaches == []
        finally:
            shutil.rmtree(self.home, ignore_errors=True)

    def ctx(self, actor: str, session: str | None = None) -> Context:
        self.now += timedelta(minutes=1)
        return Context(str(self.path), actor=actor, now=self.now, session=session)

    def attempt(self, actor: str, index: int, verb: str, args: dict[str, object]) -> bool:
        """Run the verb on the ledger; True if it was accepted."""
        try:
            ledger.act(self.ctx(actor), self.ids[index], verb, args)
        except Refused:
            return False
        return True

    # -- the verbs, each with the model's prediction --------------------------------

    @rule(actor=st.sampled_from(ACTORS), index=st.integers(0, 2), force=st.booleans())
    def take(self, actor: str, index: int, force: bool) -> None:
        m = self.items[self.ids[index]]
        ok = m.status == "open" or (m.status == "taken" and (m.taken_by == actor or force))
        assert self.attempt(actor, index, "take", {"force": force}) == ok
        if ok:
            m.status, m.taken_by, m.version = "taken", actor, m.version + 1

    @rule(actor=st.sampled_from(ACTORS), index=st.integers(0, 2), force=st.booleans())
    def release(self, actor: str, index: int, force: bool) -> None:
        m = self.items[self.ids[index]]
        ok = m.status == "taken" and (m.taken_by == actor or (force and actor == OWNER))
        assert self.attempt(actor, index, "release", {"force": force, "reason": "r"}) == ok
        if ok:
            m.status, m.taken_by, m.version = "open", None, m.version + 1

    def _finish(self, actor: str, index: int, verb: str, force: bool) -> None:
        m = self.items[self.ids[index]]
        right_verb = verb == ("done" if m.kind == "todo" else "close")
        if m.status in ("done", "closed"):
            # a repeat with the same summary writes nothing at all; the other kind's
            # closing verb is refused, as it is on an open item
            before = m.version
            accepted = self.attempt(actor, index, verb, {"force": force, "summary": "s"})
            assert accepted == right_verb
            assert self.version_of(index) == before
            return
        ok = right_verb and (
            m.status == "open"
            or (m.status == "taken" and (m.taken_by == actor or force))
            or (m.status == "abandoned" and force and actor == OWNER)
        )
        assert self.attempt(actor, index, verb, {"force": force, "summary": "s"}) == ok
        if ok:
            m.status, m.version = finish_status(m.kind), m.version + 1

    @rule(actor=st.sampled_from(ACTORS), index=st.integers(0, 2), force=st.booleans())
    def done(self, actor: str, index: int, force: bool) -> None:
        self._finish(actor, index, "done", force)

    @rule(actor=st.sampled_from(ACTORS), index=st.integers(0, 2), force=st.booleans())
    def close(self, actor: str, index: int, force: bool) -> None:
        self._finish(actor, index, "close", force)

    @rule(actor=st.sampled_from(ACTORS), index=st.integers(0, 2), force=st.booleans())
    def abandon(self, actor: str, index: int, force: bool) -> None:
        m = self.items[self.ids[index]]
        ok = (
            m.kind == "todo"
            and m.status not in TERMINAL
            and (m.status == "open" or m.taken_by == actor or force)
        )
        assert self.attempt(actor, index, "abandon", {"force": force, "reason": "r"}) == ok
        if ok:
            m.status, m.version = "abandoned", m.version + 1

    @rule(
        actor=st.sampled_from(ACTORS),
        index=st.integers(0, 2),
        status=st.sampled_from(["blocked", "done", "released"]),
    )
    def report(self, actor: str, index: int, status: str) -> None:
        m = self.items[self.ids[index]]
        ok = m.status == "taken" and m.taken_by == actor
        args = {"status": status, "reason": "r", "summary": "s"}
        assert self.attempt(actor, index, "report", args) == ok
        if ok:
            m.version += 1
            if status == "done":
                m.status = finish_status(m.kind)
            elif status == "released":
                m.status, m.taken_by = "open", None

    @rule(
        actor=st.sampled_from(ACTORS),
        index=st.integers(0, 2),
        decision=st.sampled_from(
            ["defer", "escalate", "park", "failed", "close", "release", "abandon"]
        ),
    )
    def review(self, actor: str, index: int, decision: str) -> None:
        m = self.items[self.ids[index]]
        ok = actor == OWNER and m.owes and not (decision == "abandon" and m.kind != "todo")
        assert self.attempt(actor, index, "review", {"decision": decision, "reason": "r"}) == ok
        if ok:
            m.version += 1
            if decision == "close":
                m.status = finish_status(m.kind)
            elif decision == "release":
                m.status, m.taken_by = "open", None
            elif decision == "abandon":
                m.status = "abandoned"

    @rule(leave_lock=st.booleans())
    def crash(self, leave_lock: bool) -> None:
        """A writer killed after writing its objects: the ref did not move, maybe a stale lock."""
        git_dir = self.path / ".git"
        blob = subprocess.run(
            ["git", "hash-object", "-w", "--stdin"],
            cwd=self.path,
            input="half a write\n",
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        assert (git_dir / "objects" / blob[:2] / blob[2:]).exists()
        if leave_lock:
            lock = git_dir / "refs" / "coop" / "ledger.lock"
            lock.write_text(blob + "\n")
            os.utime(lock, (1_000, 1_000))

    @rule(
        here=st.sampled_from(ACTORS),
        there=st.sampled_from(ACTORS),
        index_here=st.integers(0, 2),
        index_there=st.integers(0, 2),
        verb_here=st.sampled_from(["take", "finish"]),
        verb_there=st.sampled_from(["take", "finish"]),
    )
    def merge(
        self,
        here: str,
        there: str,
        index_here: int,
        index_there: int,
        verb_here: str,
        verb_there: str,
    ) -> None:
        """Two clones write from the same tip, offline; this one pulls the other.

        The model replays the accepted events in the ledger's order, (clock,
        event id): both carry the same clock, so the ids decide, and an event
        the rules refuse on replay becomes a conflict that changes nothing.
        """
        other = self.home / "other"
        if not other.exists():
            subprocess.run(["git", "init", "-q", str(other)], check=True)
            subprocess.run(["git", "config", "coop.fsync", "false"], cwd=other, check=True)
            subprocess.run(["git", "remote", "add", "other", str(other)], cwd=self.path, check=True)
        subprocess.run(
            ["git", "fetch", "-q", str(self.path), "+refs/coop/ledger:refs/coop/ledger"],
            cwd=other,
            check=True,
        )
        written = []
        for path, actor, index, verb in (
            (self.path, here, index_here, verb_here),
            (other, there, index_there, verb_there),
        ):
            item_id = self.ids[index]
            m = self.items[item_id]
            real = verb if verb == "take" else ("done" if m.kind == "todo" else "close")
            ok = _accepts(m, actor, verb)
            ctx = Context(str(path), actor=actor, now=self.ctx(actor).now)
            try:
                shown = ledger.act(ctx, item_id, real, {"summary": "s"} if verb != "take" else {})
            except Refused:
                assert not ok, (verb, m)
                continue
            if not shown.wrote:  # a repeat of the first close: nothing written
                assert m.status in ("done", "closed")
                continue
            assert ok, (verb, m)
            event = list_log(path, item_id)[-1]
            written.append((event.clock, event.id, item_id, actor, verb))
        pull(Context(str(self.path), actor=OWNER, now=self.ctx(OWNER).now), "other")
        for _, _, item_id, actor, verb in sorted(written):
            m = self.items[item_id]
            if _accepts(m, actor, verb):
                _apply(m, actor, verb)

    # -- agreement ---------------------------------------------------------------------

    def version_of(self, index: int) -> int:
        return next(
            s.item.version
            for s in list_items(Context(str(self.path)), True).shown
            if s.item.id == self.ids[index]
        )

    @invariant()
    def the_ledger_equals_the_model(self) -> None:
        shown = {s.item.id: s.item for s in list_items(Context(str(self.path)), True).shown}
        assert set(shown) == set(self.items)
        for item_id, model in self.items.items():
            item = shown[item_id]
            got = (item.status, item.version, item.owes)
            assert got == (model.status, model.version, model.owes), item_id
            if model.status == "taken":
                assert item.taken_by == model.taken_by, item_id


TestLedgerMachine = LedgerMachine.TestCase
TestLedgerMachine.settings = settings(
    max_examples=20,
    stateful_step_count=15,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


class LongLedgerMachine(LedgerMachine):
    pass


TestLongLedgerMachine = pytest.mark.long(LongLedgerMachine.TestCase)
TestLongLedgerMachine.settings = settings(
    max_examples=100,
    stateful_step_count=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
