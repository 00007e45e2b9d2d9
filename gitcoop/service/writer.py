"""The one write path: every transition of the ledger is written here.

    intents -> resolve ids -> check --expect-version -> rulebook.plan
            -> rulebook.apply (the rules; a take binds its obligation)
            -> settle split parents -> one Change -> store/ledger/transaction
               (with coop.claims set, committed through service/claim_routing.py:
               a claim is decided by the remote, anything else is published)

The verbs, the hooks and the queue all call `write`; nothing else builds a
`Change`. An intent is what someone asked of one item (an id or prefix, a
verb, its arguments). A write either keeps every intent or none
(`Policy.ALL`, what a command does), or answers each intent on its own, with
the refusals reported and the rest written (`Policy.EACH`, what a commit's
trailers do). Either way, what is written is one commit.

A new rule goes in the domain (the verb's handler, or `rulebook.plan` when
it changes what is recorded), never here: this module only decides what to
ask the domain and in which order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import field, replace
from enum import Enum
from typing import TYPE_CHECKING, Any

from gitcoop.domain import admission, bounds, dependencies, ids, remarks, rulebook
from gitcoop.domain.ids import EventId, ItemId
from gitcoop.domain.queue import settled
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import FORMAT_VERSION, Event, Item, LedgerConfig
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.errors import Ambiguous, ChangedUnderWrite, NotFound, Refused, UsageError
from gitcoop.service.context import (
    Context,
    claims_remote,
    fsync_wanted,
    require_ledger,
    signing_wanted,
)
from gitcoop.store.ledger import transaction
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.ledger.transaction import Change
from gitcoop.store.repository import Repo, Sign

if TYPE_CHECKING:  # loaded only when coop.claims is set: docs/performance.md, start-up
    from gitcoop.service.claim_routing import Route

SYSTEM = "system"  # the actor of the queue loop's own writes: verification and its verdicts
# what EACH reports per intent
ANSWERED = (Refused, NotFound, Ambiguous, ChangedUnderWrite, UsageError)
REQUIRE_SIGNED = "require_signed"  # the owners' policy (domain/settings.py)
NAMED_IN_MESSAGE = 5  # events a commit message names before it counts the rest


class Policy(Enum):
    ALL = "all-or-nothing"  # one refusal refuses the whole write
    EACH = "each"  # every intent answered on its own; the accepted ones are written


@record_type
class Intent:
    """One thing asked of one item: the writer plans, checks and applies it."""

    target: str  # an id or unique prefix; for `add`, the new item's id
    verb: str
    args: Mapping[str, Any] = field(default_factory=dict)
    expect: int | None = None  # --expect-version: the version the item must still be at
    once: bool = False  # write nothing when the item already holds this exact event


@record_type
class Shown:
    """An item with the short id it is shown by, and whether this call wrote."""

    item: Item
    label: str
    wrote: bool = True
    verb: str | None = None  # the verb recorded (a second done records `edit`)
    notes: tuple[str, ...] = ()  # what the rules say beyond the transition (domain/remarks)


@record_type
class Answer:
    intent: Intent
    shown: Shown | None = None  # the item after the intent (wrote=False: nothing to do)
    refusal: str | None = None  # why it was not written (Policy.EACH only)


@record_type
class Written:
    """What one write did: an answer per intent, and every item its commit changed."""

    answers: list[Answer]
    items: dict[ItemId, Item]  # in the order first changed: the intents' items, then settles
    labels: dict[ItemId, str]
    config: LedgerConfig  # coop.yaml after the write
    snapshot: Snapshot  # the ledger after the write (as read, when nothing was written)
    wrote: bool  # whether a commit was made

    def shown(self, item_id: ItemId) -> Shown:
        return Shown(self.items[item_id], self.labels[item_id])

    def first(self) -> Shown:
        """The first intent's item: what a command that asked one thing prints."""
        shown = self.answers[0].shown
        assert shown is not None, "Policy.ALL answers every intent or raises"
        return shown


Plan = Callable[[Snapshot], list[Intent]]


def write(
    ctx: Context,
    intents: list[Intent] | Plan,
    policy: Policy = Policy.ALL,
    actor: str | None = None,
    lock_timeout: float | None = None,
    create: bool = False,
    shared: bool = True,
    claim: bool = False,
) -> Written:
    """Write the intents as one ledger commit; nothing when none changes anything.

    `intents` may be a function of the ledger as read under the lock (a queue
    position, a parent's evidence). `actor` defaults to who the context says
    is acting. With `create`, the write makes a new ledger and does nothing
    when one exists (`init`). With `git config coop.claims REMOTE`, a claim is
    decided by that remote and every other write is pushed to it after it is
    committed (service/claim_routing.py); `claim` says a plan claims whatever it
    finds (a pick), so the remote is asked first even when the local ledger
    shows nothing to claim; `shared=False` (the commit hooks) keeps a write
    local, for the next command or sync to push.
    """
    repo = ctx.repo()
    if not create and repo.tip() is None:  # refused before the lock: no lock file is left
        require_ledger(Snapshot(repo, None))
    who = actor or ctx.who(repo)
    fsync = fsync_wanted(repo)
    signs = signing_wanted(repo)
    route = _route(ctx, repo, who, fsync) if shared and not create else None
    runs: list[_Run | None] = []  # the last attempt's run; None when `create` found a ledger

    def decide(snapshot: Snapshot) -> Change | None:
        if create and snapshot.commit is not None:
            snapshot.config  # noqa: B018 — an existing ledger must at least be readable
            runs.append(None)
            return None
        if not create:
            require_ledger(snapshot)
        asked = intents(snapshot) if callable(intents) else intents
        if route is not None:
            route.defer_claims(asked, snapshot)  # a claim found here: the remote decides it
        run = _Run(ctx, snapshot, who, policy, signs)
        runs.append(run)
        for intent in asked:
            run.take(intent)
        run.settle_parents()
        if len(run.events) > bounds.MAX_EVENTS:  # a clone never writes what its peers refuse (H7)
            raise Refused(
                f"this write adds {len(run.events):,} events; one ledger commit adds at most "
                f"{bounds.MAX_EVENTS:,} (what every clone's sync accepts), and nothing was "
                "written — ask for less at once (an import: split its export into parts)"
            )
        return run.change(create)

    if route is None:
        outcome = transaction.write(repo, decide, fsync, lock_timeout)
    else:
        claiming = claim or (not callable(intents) and route.asks_claim(intents))
        outcome = route.commit(repo, decide, fsync, lock_timeout, claiming)
    run = runs[-1]
    if run is None:
        return Written([], {}, {}, outcome.snapshot.config, outcome.snapshot, False)
    return run.written(outcome.snapshot, outcome.change is not None)


def _route(ctx: Context, repo: Repo, who: str, fsync: bool) -> Route | None:
    """How this write is shared (service/claim_routing.py): None unless coop.claims names a
    remote, read from config alone so a write with claims off loads no sharing code."""
    if claims_remote(repo) is None:
        return None
    from gitcoop.service import claim_routing

    return claim_routing.route(ctx, repo, who, fsync)


class _Run:
    """One attempt at a write, on the ledger as read under the lock."""

    def __init__(
        self, ctx: Context, snapshot: Snapshot, actor: str, policy: Policy, signs: bool = False
    ) -> None:
        self.ctx = ctx
        self.snapshot = snapshot
        self.actor = actor
        self.policy = policy
        self.signs = signs  # local git config asks for signed commits
        self.config = snapshot.config if snapshot.commit is not None else LedgerConfig()
        self.ledger: rulebook.LedgerState | None = None  # the ledger's own state, once needed
        if self.config.format < FORMAT_VERSION:  # a format-1 ledger upgrades on its first write
            self.config = rulebook.config_of(self._ledger_state(), self.config.clock)
        self.items: dict[ItemId, Item] = {}
        self.events: list[Event] = []
        self.steps: list[tuple[Intent, ItemId | None, str | None]] = []  # id, or the refusal
        self.added: list[ItemId] = []
        self.labels: dict[ItemId, str] = {}  # short ids in the ledger after this write
        self.said: dict[ItemId, tuple[str | None, tuple[str, ...]]] = {}  # verb, remarks

    # -- one intent -------------------------------------------------------------

    def take(self, intent: Intent) -> None:
        try:
            item_id = self._target(intent)
            self._record(intent, item_id)
        except ANSWERED as answer:
            if self.policy is Policy.ALL:
                raise
            self.steps.append((intent, None, answer.message))
            return
        self.steps.append((intent, item_id, None))

    def _target(self, intent: Intent) -> ItemId:
        if intent.verb == "add" or intent.target == LEDGER_ID or intent.target in self.items:
            return ItemId(intent.target)  # new, the ledger's own, or written earlier in this write
        return self.snapshot.resolve(intent.target)

    def current(self, item_id: ItemId) -> Item | None:
        if item_id in self.items:
            return self.items[item_id]
        return self.snapshot.item(item_id) if self.snapshot.commit is not None else None

    def _record(self, intent: Intent, item_id: ItemId) -> None:
        if item_id == LEDGER_ID:
            self._record_ledger(intent)
            return
        item = self.current(item_id)
        if intent.expect is not None and (item is None or item.version != intent.expect):
            found = item.version if item is not None else "missing"
            raise ChangedUnderWrite(
                f"{self._label_before(item_id)} is at version {found}, not {intent.expect} — "
                "re-read it and retry"
            )
        roles, session = self.config.roles, self._session()
        try:
            planned = rulebook.plan(item, intent.verb, intent.args, self.actor, roles, session)
            if planned is None or (intent.once and self._holds(item_id, *planned)):
                notes = remarks.explain(item, intent.verb, intent.args, None, item)
                self.said[item_id] = (None, notes)
                return
            event = self._event(item_id, *planned)
            after = rulebook.apply(item, event, roles, self.current)
        except Refused as refusal:
            label = self._label_before(item_id)
            short = refusal.message.replace(item_id, label)
            if item is not None and dependencies.settled(item.status):  # seed 000: it stays
                short += remarks.way_forward(item, label)
            raise refusal.reworded(short) from None
        self._keep(event, after)
        notes = remarks.explain(item, intent.verb, intent.args, planned, after)
        self.said[item_id] = (planned[0], notes)
        if item is None:
            self.added.append(item_id)

    def _record_ledger(self, intent: Intent) -> None:
        """A change of the ledger's roles or settings: coop.yaml is their fold."""
        event = self._event(LEDGER_ID, intent.verb, intent.args)
        before = self._ledger_state()
        after = rulebook.apply_ledger(before, event)
        if after == before:
            return
        self.events.append(event)
        self.ledger = after
        # a role change judges only what joins after it (docs/hardening.md, H1): nothing
        # already decided is folded again
        self.config = rulebook.config_of(after, event.clock, self.config.conflicts)

    def _ledger_state(self) -> rulebook.LedgerState:
        """The ledger's own state: roles, settings and keys, as coop.yaml holds them (a
        format-1 ledger's keys are the fold of its events)."""
        if self.ledger is None:
            self.ledger = self.snapshot.ledger_state()
        return self.ledger

    def _holds(self, item_id: ItemId, verb: str, args: dict[str, Any]) -> bool:
        """Whether the item already has an event asking exactly this."""
        written = [*self.snapshot.events(item_id), *(e for e in self.events if e.item == item_id)]
        return any(e.verb == verb and dict(e.args) == args for e in written)

    def _event(self, item_id: ItemId, verb: str, args: Mapping[str, Any]) -> Event:
        """A fresh event, one past the largest clock the ledger holds when it is written.

        Every event of a commit is by the commit's author: the one acting. An
        event out of the bounds every clone checks (`domain/admission.py`) is a
        usage error here, before anything is written.
        """
        event = Event(
            id=EventId(ids.EVENT_PREFIX + "-" + "0" * ids.CONTENT_ID_LENGTH),
            item=item_id,
            clock=self.config.clock + 1,
            at=self.ctx.now,
            actor=self.actor,
            session=self._session(),
            verb=verb,
            args=dict(args),
        )
        event = event.named_by_content()  # format 2: one id names one event
        problem = admission.event_problem(event) or admission.written_problem(event)
        if problem:
            raise UsageError(f"{verb}: {problem} — nothing was written")
        return event

    def _session(self) -> str | None:
        return self.ctx.session if self.actor != SYSTEM else None

    def _keep(self, event: Event, after: Item) -> None:
        self.events.append(event)
        self.items[event.item] = after
        self.config = replace(self.config, clock=event.clock)

    # -- consequences -------------------------------------------------------------

    def settle_parents(self) -> None:
        """Close each split parent whose children this write settled, all of them, in it."""
        parents = {i.parent_id for i in self.items.values() if i.parent_id and settled(i)}
        for parent_id in sorted(p for p in parents if p):
            parent = self.current(ItemId(parent_id))
            if parent is None or parent.status != "split":
                continue
            # a child outside the open index is settled: only the unsettled ones are read
            children = {i.id: i for i in self.snapshot.open_items() if i.parent_id == parent_id}
            children.update({k: v for k, v in self.items.items() if v.parent_id == parent_id})
            if children and all(settled(c) for c in children.values()):
                args = {"reason": "all children settled"}
                event = self._event(ItemId(parent_id), "settle", args)
                self._keep(event, rulebook.apply(parent, event, self.config.roles, self.current))

    # -- the commit -------------------------------------------------------------

    def change(self, create: bool) -> Change | None:
        if not self.events:
            return None
        return Change(
            message=self._message(create),
            actor=self.actor,
            at=self.ctx.now,
            items=dict(self.items),
            events=list(self.events),
            config=self.config,
            sign=self._sign(),
        )

    def _sign(self) -> Sign | None:
        """How this commit is signed: as local git config asks, and always under the owners'
        policy (in force before this write, or turned on by it)."""
        before = self.snapshot.config.settings if self.snapshot.commit is not None else {}
        required = any(s.get(REQUIRE_SIGNED) is True for s in (before, self.config.settings))
        if not (self.signs or required):
            return None
        from gitcoop.service import signing  # loaded only by a write that signs

        return signing.commit_signer(self.snapshot.repo, self.actor, self.snapshot, required)

    def _message(self, create: bool) -> str:
        """One line: `take td-7k2m by alice@example.com`, every event of the commit named."""
        if create:
            return f"init by {self.actor}"
        labels = self._labels(self.items)
        done = []
        for event in self.events:
            if event.item == LEDGER_ID and event.verb == "roles":
                args = event.args
                done.append(f"roles {args['action']} {args['role']} {args['who']}")
            elif event.item == LEDGER_ID and event.verb == "keys":
                args = event.args
                from gitcoop.domain.keys import fingerprint

                print_ = fingerprint(str(args["public_key"]))
                done.append(f"keys {args['action']} {args['who']} {print_}")
            elif event.item == LEDGER_ID:
                done.append(f"config {event.arg('key')}")
            else:
                done.append(f"{event.verb} {labels[event.item]}")
        named = list(dict.fromkeys(done))
        more = len(named) - NAMED_IN_MESSAGE
        text = ", ".join(named[:NAMED_IN_MESSAGE]) + (f" and {more} more" if more > 0 else "")
        return f"{text} by {self.actor}"

    def _label_before(self, item_id: ItemId) -> str:
        if self.snapshot.commit is None or item_id == LEDGER_ID:
            return item_id
        return self.snapshot.label(item_id)

    def _labels(self, wanted: Mapping[ItemId, Any]) -> dict[ItemId, str]:
        """Each item's short id in the ledger after this write (new items counted)."""
        for item_id in wanted:
            if item_id == LEDGER_ID or item_id in self.labels:
                continue
            fan = ids.fanout(item_id)
            there = self.snapshot.item_ids(fan) if self.snapshot.commit is not None else []
            new = [i for i in self.added if ids.fanout(i) == fan]
            self.labels[item_id] = ids.shortest_unique(item_id, [*there, *new])
        return {i: self.labels[i] for i in wanted if i in self.labels}

    def written(self, after: Snapshot, committed: bool) -> Written:
        touched = [i for _, i, _ in self.steps if i is not None]
        labels = self._labels({**dict.fromkeys(touched), **self.items})
        answers = []
        for intent, item_id, refusal in self.steps:
            if item_id is None or item_id == LEDGER_ID:
                answers.append(Answer(intent, refusal=refusal))
                continue
            wrote = item_id in self.items
            item = self.items[item_id] if wrote else self.current(item_id)
            assert item is not None
            verb, notes = self.said.get(item_id, (None, ()))
            answers.append(Answer(intent, Shown(item, labels[item_id], wrote, verb, notes)))
        return Written(answers, dict(self.items), labels, self.config, after, committed)
