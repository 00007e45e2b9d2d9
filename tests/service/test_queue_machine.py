"""A model of the queue, stepped beside a real ledger and a real code history.

Steps: items are added, the fake verifier (a real process) is told what to
answer for each (confirmed, unclear, or a duplicate of another item), the
code moves (a commit touching the evidence or not, HEAD reset backwards, a
checkout of a side branch, a rebase), verify passes, picks and finishes, and
two items called duplicates of each other offline, one in this clone and one
in a peer's, then synced through a bare remote.
The model predicts every item's state and where its evidence is cached,
and what the pick's first cache check decides, with `git merge-base
--is-ancestor` as the oracle of ancestry. Invariants: the ledger agrees
with the model, a picked item's evidence is cached at the HEAD it was
picked at, no two items are duplicates of each other (no cycle of
duplicates at all), and after a sync both clones hold the same ledger.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from gitcoop.domain.ids import ItemId
from gitcoop.domain.queue import SHOWN_TO_VERIFIER
from gitcoop.domain.records import Item
from gitcoop.service import ledger, queue, sync
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.fsck import fsck
from gitcoop.service.pick import check, pick
from gitcoop.service.verify import verify, verify_item
from gitcoop.store.repository import open_repo
from tests.service.queue_fixtures import CONFIRM, Code, install

OWNER = "alice@example.com"
PEER = "bob@example.com"
START = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)
SETTLED = ("done", "closed", "stale", "duplicate")
MAX_ITEMS = 4


@dataclass
class Model:
    keyword: str
    status: str = "draft"
    cached: str | None = None  # the HEAD its evidence is cached at
    answer: str = "unclear"  # what the verifier says: confirmed, unclear, or an item id
    duplicate_of: str | None = None


def run_git(path: Path, *args: str, check: bool = True) -> str:
    done = subprocess.run(["git", *args], cwd=path, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout.strip()


class QueueMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.home = Path(tempfile.mkdtemp(prefix="coop-queue-machine-"))
        self.path = self.home / "repo"
        self.path.mkdir()
        for args in (
            ["init", "-q", "-b", "main"],
            ["config", "user.email", OWNER],
            ["config", "user.name", "alice"],
            ["config", "coop.fsync", "false"],
        ):
            run_git(self.path, *args)
        self.code: Code = install(self.path)
        self.now = START
        ledger.init(self.ctx())
        self.items: dict[str, Model] = {}
        self.order: list[str] = []  # queue order: the order items were added
        self.branches = 0
        self.commits = 0
        self.peer: Code | None = None  # a second clone, made when first needed

    def teardown(self) -> None:
        try:
            assert fsck(Context(str(self.path)), full=True).breaches == []
            if self.peer is not None:
                assert fsck(Context(str(self.peer.path)), full=True).breaches == []
        finally:
            shutil.rmtree(self.home, ignore_errors=True)

    def ctx(self) -> Context:
        self.now += timedelta(minutes=1)
        return Context(str(self.path), actor=OWNER, session="loop", now=self.now)

    @property
    def head(self) -> str:
        return run_git(self.path, "rev-parse", "HEAD")

    def ancestor(self, old: str, new: str) -> bool:
        done = subprocess.run(
            ["git", "merge-base", "--is-ancestor", old, new], cwd=self.path, capture_output=True
        )
        return done.returncode == 0

    def replan(self) -> None:
        plan: dict[str, object] = {"default": {"verdict": "unclear", "reason": "cannot tell"}}
        for m in self.items.values():
            if m.answer == "confirmed":
                plan[m.keyword] = CONFIRM
            elif m.answer != "unclear":
                plan[m.keyword] = {
                    "verdict": "duplicate",
                    "duplicate_of": m.answer,
                    "reason": "same",
                }
        self.code.plan(**plan)  # type: ignore[arg-type]

    # -- the model's verification, exactly as the rules say ------------------------------

    def judge(self, item_id: str) -> None:
        m = self.items[item_id]
        if m.answer == "confirmed":
            m.status, m.cached, m.duplicate_of = "ready", self.head, None
        elif m.answer != "unclear" and self.items[m.answer].status in SHOWN_TO_VERIFIER:
            m.status, m.cached, m.duplicate_of = "duplicate", None, m.answer
        elif m.answer != "unclear":  # seed 004: only ready or draft items are shown to it
            event("a duplicate of an item not ready or draft (or a mutual duplicate) is unclear")
            m.status, m.cached, m.duplicate_of = "draft", None, None
        else:  # unclear, or a duplicate of an item that is settled (mutual duplicates too)
            m.status, m.cached, m.duplicate_of = "draft", None, None

    def first_check(self, item_id: str) -> str:
        cached = self.items[item_id].cached
        if cached is None:
            return "verify"
        if cached == self.head:
            return "use"
        return "reuse" if self.ancestor(cached, self.head) else "verify"

    # -- steps -------------------------------------------------------------------------------

    @precondition(lambda self: len(self.items) < MAX_ITEMS)
    @rule(answer=st.sampled_from(["confirmed", "confirmed", "unclear"]))
    def add_item(self, answer: str) -> None:
        keyword = f"k{len(self.items)}"
        evidence = (queue.parse_evidence("src/app.py:3"),)
        shown = queue.add_item(self.ctx(), f"Item {keyword}", (), evidence)
        self.items[shown.item.id] = Model(keyword, answer=answer)
        self.order.append(shown.item.id)
        self.replan()

    @initialize()
    def start(self) -> None:
        self.commit(touching=True)
        self.add_item("confirmed")
        self.add_item("confirmed")

    @rule(
        index=st.integers(0, MAX_ITEMS - 1),
        answer=st.sampled_from(["confirmed", "unclear", "duplicate"]),
        other=st.integers(1, MAX_ITEMS - 1),
    )
    def answer(self, index: int, answer: str, other: int) -> None:
        """What the verifier will say: confirmed, unclear, or a duplicate of another item."""
        me = self.order[index % len(self.order)]
        them = self.order[(index + other) % len(self.order)]
        self.items[me].answer = them if answer == "duplicate" and me != them else answer
        if self.items[me].answer == "duplicate":
            self.items[me].answer = "unclear"
        self.replan()

    @precondition(lambda self: len(self.items) >= 2)
    @rule(index=st.integers(0, MAX_ITEMS - 1), other=st.integers(1, MAX_ITEMS - 1))
    def answer_mutually(self, index: int, other: int) -> None:
        """The verifier calls two items duplicates of each other."""
        me = self.order[index % len(self.order)]
        them = self.order[(index + other) % len(self.order)]
        if me != them:
            self.items[me].answer, self.items[them].answer = them, me
            self.replan()

    @precondition(lambda self: len(self.verifiable()) >= 2)
    @rule(
        index=st.integers(0, MAX_ITEMS - 1),
        other=st.integers(1, MAX_ITEMS - 1),
        here_first=st.booleans(),
    )
    def answer_mutually_offline(self, index: int, other: int, here_first: bool) -> None:
        """This clone calls one item a duplicate of another, and a peer's clone, offline,
        calls that other item a duplicate of the first; then both sync, this clone
        first. The verdict that reached the remote first stands, whichever was made
        first (H1); the other is unclear."""
        open_now = self.verifiable()
        me = open_now[index % len(open_now)]
        them = open_now[(index + other) % len(open_now)]
        if me == them:
            return
        peer = self.peer_clone()
        self.sync(self.path)
        self.sync(peer.path)  # the peer holds this clone's ledger
        self.items[me].answer, self.items[them].answer = them, me
        self.replan()
        peer.plan(**{self.items[them].keyword: self.duplicate(me)})
        start = self.now + timedelta(minutes=1)
        self.now = start + timedelta(minutes=2)
        here, there = (start, start + timedelta(seconds=30))[:: 1 if here_first else -1]
        mine = verify_item(Context(str(self.path), actor=OWNER, now=here), ItemId(me))
        theirs = verify_item(Context(str(peer.path), actor=PEER, now=there), ItemId(them))
        assert (mine.status, theirs.status) == ("duplicate", "duplicate")  # each legal there
        for path in (self.path, peer.path, self.path):
            self.sync(path)
        winner, loser = me, them  # this clone's sync reached the remote first
        event("mutual duplicates across clones")
        self.items[winner].status, self.items[winner].duplicate_of = "duplicate", loser
        self.items[loser].status, self.items[loser].duplicate_of = "draft", None
        self.items[winner].cached = self.items[loser].cached = None
        lost = self.ledger_items()[loser]
        assert lost.reason is not None and winner in lost.reason, lost
        assert self.trees(self.path) == self.trees(peer.path)

    def verifiable(self) -> list[str]:
        return [i for i in self.order if self.items[i].status in ("draft", "ready")]

    @staticmethod
    def duplicate(of: str) -> dict[str, str]:
        return {"verdict": "duplicate", "duplicate_of": of, "reason": "same"}

    def peer_clone(self) -> Code:
        """A bare remote this clone syncs with, and a peer's clone of it with its own code."""
        if self.peer is None:
            remote = self.home / "remote.git"
            run_git(self.home, "init", "-q", "--bare", str(remote))
            run_git(self.path, "remote", "add", "origin", remote.as_uri())
            path = self.home / "peer"
            path.mkdir()
            for args in (
                ["init", "-q", "-b", "main"],
                ["config", "user.email", PEER],
                ["config", "user.name", "bob"],
                ["config", "coop.fsync", "false"],
                ["remote", "add", "origin", remote.as_uri()],
            ):
                run_git(path, *args)
            self.peer = install(path)
        return self.peer

    def sync(self, path: Path) -> None:
        actor = OWNER if path == self.path else PEER
        sync.sync(Context(str(path), actor=actor, now=self.now), "origin")

    @staticmethod
    def trees(path: Path) -> tuple[str, str]:
        return (
            run_git(path, "rev-parse", "refs/coop/ledger:items"),
            run_git(path, "rev-parse", "refs/coop/ledger:events"),
        )

    @rule(touching=st.booleans())
    def commit(self, touching: bool) -> None:
        self.commits += 1
        if touching:
            self.code.commit("src/app.py", f"line {self.commits}\n" * 50)
        else:
            self.code.commit("docs/notes.md", f"note {self.commits}\n")

    @precondition(lambda self: run_git(self.path, "rev-list", "--count", "HEAD") != "1")
    @rule(how=st.sampled_from(["backwards", "sideways", "rebase"]))
    def move_head(self, how: str) -> None:
        """HEAD moves so that the commits before it may no longer be its ancestors."""
        if how == "backwards":
            run_git(self.path, "reset", "-q", "--hard", "HEAD~1")
        elif how == "sideways":
            self.branches += 1
            run_git(self.path, "checkout", "-q", "-b", f"side-{self.branches}", "HEAD~1")
            self.code.commit(f"docs/side-{self.branches}.md", "side\n")
        else:
            self.rebase()

    def rebase(self) -> None:
        """HEAD's last commit replayed onto a new base: the old HEAD leaves the history."""
        self.branches += 1
        branch = run_git(self.path, "rev-parse", "--abbrev-ref", "HEAD")
        base = run_git(self.path, "rev-parse", "HEAD~1")
        run_git(self.path, "checkout", "-q", "-b", f"base-{self.branches}", base)
        self.code.commit(f"docs/base-{self.branches}.md", "base\n")
        onto = self.head
        run_git(self.path, "checkout", "-q", branch)
        run_git(self.path, "rebase", "-q", "--onto", onto, base)

    @rule()
    def verify_pass(self) -> None:
        verify(self.ctx())
        for item_id in self.order:
            if self.items[item_id].status == "draft":
                self.judge(item_id)

    @rule()
    def pick_one(self) -> None:
        expected_first = None
        ready = [i for i in self.order if self.items[i].status == "ready"]
        if ready:
            expected_first = self.first_check(ready[0])
        head = self.head
        result = pick(self.ctx())
        if expected_first is not None:
            assert result.checks[0].action == expected_first, (result.checks, expected_first)
            event(f"first check: {expected_first}")
        picked = self.model_pick()
        got = result.shown.item.id if result.shown else None
        assert got == picked, (got, picked, result)
        if result.shown is not None:
            assert {e.head for e in result.shown.item.evidence} == {head}

    def model_pick(self) -> str | None:
        """The pick, run on the model: verify what needs it (at most 5 calls), then take."""
        asked: set[str] = set()
        budget = 5
        while True:
            ready = [i for i in self.order if self.items[i].status == "ready"]
            if not ready:
                drafts = [i for i in self.order if self.items[i].status == "draft"]
                drafts = [i for i in drafts if i not in asked]
                if not drafts or budget == 0:
                    return None
                asked.add(drafts[0])
                budget -= 1
                self.judge(drafts[0])
                continue
            top = ready[0]
            if self.first_check(top) == "verify" and top not in asked:
                if budget == 0:
                    return None
                asked.add(top)
                budget -= 1
                self.judge(top)
                continue
            self.items[top].status, self.items[top].cached = "in_progress", self.head
            return top

    @precondition(lambda self: any(m.status == "in_progress" for m in self.items.values()))
    @rule()
    def finish(self) -> None:
        item_id = next(i for i in self.order if self.items[i].status == "in_progress")
        queue.finish(self.ctx(), item_id, "done", commit=self.head)
        self.items[item_id].status = "done"

    # -- agreement ------------------------------------------------------------------------------

    def ledger_items(self) -> dict[str, Item]:
        return {i.id: i for i in read_ledger(Context(str(self.path))).items() if i.kind == "item"}

    @invariant()
    def the_ledger_equals_the_model(self) -> None:
        found = self.ledger_items()
        assert set(found) == set(self.items)
        for item_id, m in self.items.items():
            item = found[item_id]
            heads = {e.head for e in item.evidence}
            assert (item.status, item.duplicate_of) == (m.status, m.duplicate_of), (item, m)
            if m.status in ("ready", "in_progress"):
                assert heads == {m.cached}, (item, m)
            assert item.lease is None and item.blocked_reason is None

    @invariant()
    def the_pick_would_reuse_evidence_only_from_an_ancestor_of_head(self) -> None:
        """Every ready item's cache check, as the pick would make it now, against the oracle."""
        repo = open_repo(str(self.path))
        head = self.head
        for item in self.ledger_items().values():
            if item.status == "ready":
                found = check(repo, item, head, item.id)
                expected = self.first_check(item.id)
                assert found.action == expected, (found, expected)
                event(f"a ready item's check: {expected}")

    @invariant()
    def no_item_is_a_duplicate_of_a_duplicate_of_itself(self) -> None:
        found = self.ledger_items()
        for start in found:
            seen = {start}
            current = found[start].duplicate_of
            while current is not None:
                assert current not in seen, f"a cycle of duplicates through {start}"
                seen.add(current)
                current = found[current].duplicate_of if current in found else None


TestQueueMachine = QueueMachine.TestCase
TestQueueMachine.settings = settings(
    max_examples=10,
    stateful_step_count=14,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)


class LongQueueMachine(QueueMachine):
    pass


TestLongQueueMachine = pytest.mark.long(LongQueueMachine.TestCase)
TestLongQueueMachine.settings = settings(
    max_examples=60,
    stateful_step_count=30,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
