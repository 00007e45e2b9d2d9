"""A model of the rules, stepped beside a real ledger: they must agree after every step.

Steps are the verbs (take in and out of sessions, ack, release, done, close,
abandon, report, review) by an owner, a worker and a chief, merges of offline
work from a second clone, and crashes (a writer killed after writing objects
and git's ref lock but before moving the ref). The model is deliberately
small: who holds what, the status, the version, whether an outcome is owed
and since when (a re-take never resets it), parked and blocked, the
takeovers waiting to be acknowledged, and who may amend a close.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from gitcoop.domain import obligations
from gitcoop.domain.records import Event
from gitcoop.errors import Refused
from gitcoop.service import ledger
from gitcoop.service.context import Context
from gitcoop.service.fsck import fsck
from gitcoop.service.queries import list_items, log
from gitcoop.service.sync import pull

OWNER = "alice@example.com"
CHIEF = "carol@example.com"
ACTORS = (OWNER, "bob@example.com", CHIEF)
TERMINAL = ("done", "closed", "abandoned")
START = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


@dataclass
class Model:
    kind: str
    status: str = "open"
    taken_by: str | None = None
    session: str | None = None
    version: int = 1
    since: datetime | None = None  # when the pending obligation was bound
    blocked: bool = False  # the holder's latest report says blocked
    parked_until: datetime | None = None  # a park holds until then
    notices: list[str] = field(default_factory=list)  # previous holders, not acknowledged
    lost: set[str] = field(default_factory=set)  # whose events lost on a merge, not acknowledged
    summary: str | None = None
    closed_by: str | None = None
    held_at_close: str | None = None

    @property
    def owes(self) -> bool:
        return self.status == "taken"

    def bind(self, actor: str, session: str | None, at: datetime) -> None:
        self.status, self.taken_by, self.session, self.since = "taken", actor, session, at
        self.blocked, self.parked_until = False, None

    def close(self, status: str, actor: str, summary: str | None) -> None:
        self.held_at_close = self.taken_by if self.status == "taken" else actor
        if self.status == "abandoned":  # done after all: an implicit take by the closer
            self.held_at_close = actor
        self.status, self.closed_by, self.summary = status, actor, summary

    def may_amend(self, actor: str, force: bool) -> bool:
        return force or actor == OWNER or actor in (self.closed_by, self.held_at_close)


def finish_status(kind: str) -> str:
    return "done" if kind == "todo" else "closed"


def _accepts(m: Model, actor: str, verb: str) -> bool:
    """Whether a take, or a done/close of the item's kind, is accepted (no --force)."""
    return m.status == "open" or (m.status == "taken" and m.taken_by == actor)


def _apply(m: Model, actor: str, verb: str, at: datetime) -> None:
    m.version += 1
    if verb == "take" and m.status == "taken":
        return  # the holder again, outside a session: taken_at moves, the debt stays
    if verb == "take":
        m.bind(actor, None, at)
    else:
        m.close(finish_status(m.kind), actor, "s")


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
        ledger.change_roles(self.ctx(OWNER), "add", "chief", CHIEF)
        for kind in ("todo", "todo", "request"):
            shown = ledger.add(self.ctx(OWNER), kind, f"a {kind}")
            self.items[shown.item.id] = Model(kind)
        self.ids = sorted(self.items)

    def teardown(self) -> None:
        try:
            assert fsck(Context(str(self.path)), full=True).breaches == []
        finally:
            shutil.rmtree(self.home, ignore_errors=True)

    def tick(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now

    def ctx(self, actor: str, session: str | None = None) -> Context:
        return Context(str(self.path), actor=actor, now=self.tick(), session=session)

    def attempt(
        self, actor: str, index: int, verb: str, args: dict[str, object], session: str | None = None
    ) -> str:
        """Run the verb on the ledger at the next minute: written, unchanged or refused."""
        try:
            shown = ledger.act(self.ctx(actor, session), self.ids[index], verb, args)
        except Refused:
            return "refused"
        return "written" if shown.wrote else "unchanged"

    # -- the verbs, each with the model's prediction --------------------------------

    @rule(
        actor=st.sampled_from(ACTORS),
        index=st.integers(0, 2),
        force=st.booleans(),
        session=st.sampled_from([None, "s1", "s2"]),
    )
    def take(self, actor: str, index: int, force: bool, session: str | None) -> None:
        m = self.items[self.ids[index]]
        at = self.now + timedelta(minutes=1)
        mine = m.status == "taken" and m.taken_by == actor
        if mine:
            expect = "written"  # a re-take refreshes taken_at, in any session
        elif m.status == "open" or (m.status == "taken" and force):
            expect = "written"
        else:
            expect = "refused"
        assert self.attempt(actor, index, "take", {"force": force}, session) == expect
        if expect != "written":
            return
        m.version += 1
        if mine:  # a re-take: taken_at moves, a new session is recorded, the debt stays
            m.session = session or m.session
            return
        if m.status == "taken" and m.taken_by is not None:
            m.notices.append(m.taken_by)
        m.bind(actor, session, at)

    @rule(actor=st.sampled_from(ACTORS), index=st.integers(0, 2))
    def ack(self, actor: str, index: int) -> None:
        m = self.items[self.ids[index]]
        expect = "written" if actor in m.notices or actor in m.lost else "unchanged"
        assert self.attempt(actor, index, "ack", {}) == expect
        if expect == "written":
            m.version += 1
            m.notices = [holder for holder in m.notices if holder != actor]
            m.lost.discard(actor)

    @rule(actor=st.sampled_from(ACTORS), index=st.integers(0, 2), force=st.booleans())
    def release(self, actor: str, index: int, force: bool) -> None:
        m = self.items[self.ids[index]]
        reviewer = actor in (OWNER, CHIEF)
        ok = m.status == "taken" and (m.taken_by == actor or (force and reviewer))
        expect = "written" if ok else "refused"
        assert self.attempt(actor, index, "release", {"force": force, "reason": "r"}) == expect
        if ok:
            m.status, m.taken_by, m.version = "open", None, m.version + 1

    def _amend(
        self, m: Model, actor: str, index: int, verb: str, args: dict[str, object], force: bool
    ) -> None:
        """A second close of a closed item: nothing when identical, else an edit by the
        closer, the holder at the close, an owner, or --force."""
        if m.summary == "s":
            expect = "unchanged"
        else:
            expect = "written" if m.may_amend(actor, force) else "refused"
        assert self.attempt(actor, index, verb, args) == expect
        if expect == "written":
            m.summary, m.version = "s", m.version + 1

    def _finish(self, actor: str, index: int, verb: str, force: bool) -> None:
        m = self.items[self.ids[index]]
        right_verb = verb == ("done" if m.kind == "todo" else "close")
        args: dict[str, object] = {"force": force, "summary": "s"}
        if m.status in ("done", "closed") and right_verb:
            self._amend(m, actor, index, verb, args, force)
            return
        ok = right_verb and (
            m.status == "open"
            or (m.status == "taken" and (m.taken_by == actor or force))
            or (m.status == "abandoned" and force and actor == OWNER)
        )
        assert self.attempt(actor, index, verb, args) == ("written" if ok else "refused")
        if ok:
            m.close(finish_status(m.kind), actor, "s")
            m.version += 1

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
        expect = "written" if ok else "refused"
        assert self.attempt(actor, index, "abandon", {"force": force, "reason": "r"}) == expect
        if ok:
            m.status, m.closed_by, m.version = "abandoned", actor, m.version + 1

    @rule(
        actor=st.sampled_from(ACTORS),
        index=st.integers(0, 2),
        status=st.sampled_from(["blocked", "unblocked", "done", "released"]),
        force=st.booleans(),
    )
    def report(self, actor: str, index: int, status: str, force: bool) -> None:
        m = self.items[self.ids[index]]
        args = {"status": status, "reason": "r", "summary": "s", "force": force}
        if status == "done" and m.status in ("done", "closed"):
            self._amend(m, actor, index, "report", args, force=False)  # a report's --force: none
            return
        if m.status != "taken" or m.taken_by != actor:  # the holder's alone, --force or not
            expect = "refused"
        elif status == "unblocked" and not m.blocked:
            expect = "unchanged"
        else:
            expect = "written"
        assert self.attempt(actor, index, "report", args) == expect
        if expect != "written":
            return
        m.version += 1
        if status == "blocked":
            m.blocked, m.parked_until = True, None
        elif status == "unblocked":
            m.blocked = False
        elif status == "done":
            m.close(finish_status(m.kind), actor, "s")
        else:
            m.status, m.taken_by = "open", None

    @rule(
        actor=st.sampled_from(ACTORS),
        index=st.integers(0, 2),
        decision=st.sampled_from(
            ["defer", "escalate", "park", "failed", "close", "release", "abandon"]
        ),
    )
    def review(self, actor: str, index: int, decision: str) -> None:
        """Owners and the chief review; a park holding is left to the owners (and the holder)."""
        m = self.items[self.ids[index]]
        at = self.now + timedelta(minutes=1)
        park_holds = m.parked_until is not None and at < m.parked_until
        ok = (
            actor in (OWNER, CHIEF)
            and m.owes
            and not (park_holds and actor != OWNER)
            and not (decision == "abandon" and m.kind != "todo")
        )
        expect = "written" if ok else "refused"
        assert self.attempt(actor, index, "review", {"decision": decision, "reason": "r"}) == expect
        if not ok:
            return
        m.version += 1
        if decision == "park":
            m.parked_until = at + (timedelta(hours=6) if m.blocked else timedelta(days=30))
        elif decision in ("defer", "escalate"):
            m.parked_until = None
        elif decision == "close":
            m.close(finish_status(m.kind), actor, None)
        elif decision == "release":
            m.status, m.taken_by = "open", None
        elif decision == "abandon":
            m.status, m.closed_by = "abandoned", actor

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
        # in the store, loose or (a repack rolls loose objects up) packed
        assert subprocess.run(["git", "cat-file", "-e", blob], cwd=self.path).returncode == 0
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

        The model replays the accepted events in the ledger's order: the pulled
        ledger's first, as the merge's first parent, then this clone's own on top
        (H1), though this clone wrote first; an event the rules refuse on replay
        becomes a conflict that changes nothing.
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
            if m.status in ("done", "closed", "abandoned"):
                continue  # a second close is the amendment rules' business, stepped above
            real = verb if verb == "take" else ("done" if m.kind == "todo" else "close")
            ok = _accepts(m, actor, verb)
            ctx = Context(str(path), actor=actor, now=self.tick())
            try:
                shown = ledger.act(ctx, item_id, real, {"summary": "s"} if verb != "take" else {})
            except Refused:
                assert not ok, (verb, m)
                continue
            assert ok, (verb, m)
            if not shown.wrote:  # the holder's repeated take outside a session: nothing
                assert verb == "take" and m.taken_by == actor and m.session is None, m
                continue
            event = list_log(path, item_id)[-1]
            written.append((event.order, item_id, actor, verb))
        pull(Context(str(self.path), actor=OWNER, now=self.tick()), "other")
        for order, item_id, actor, verb in reversed(written):  # the other clone's first
            m = self.items[item_id]
            if _accepts(m, actor, verb):
                _apply(m, actor, verb, order[1])
            else:  # a conflict: the loser sees it until they acknowledge it
                m.lost.add(actor)

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
            assert [t.holder for t in item.takeovers] == model.notices, item_id
            if model.status in ("done", "closed"):
                assert item.result_summary == model.summary, item_id
            if model.status != "taken":
                continue
            ob = item.obligation
            assert ob is not None and item.taken_by == model.taken_by, item_id
            assert (ob.since, item.session) == (model.since, model.session), item_id
            assert ob.parked == (model.parked_until is not None), item_id
            assert obligations.is_blocked(ob) == model.blocked, item_id


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
