"""The rules of DESIGN.md §1 for todos and requests, without git."""

from __future__ import annotations

import pytest

from gitcoop.domain import lifecycle, remarks, rulebook
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Item
from gitcoop.errors import Refused
from tests.domain.builders import (
    ALICE,
    BOB,
    CAROL,
    REQUEST,
    ROLES,
    T0,
    TODO,
    added,
    event,
    request,
    run,
)


def test_add_makes_an_open_todo_at_version_one() -> None:
    item = added()
    assert (item.status, item.version, item.created_by, item.title) == ("open", 1, ALICE, "Fix it")


def test_add_refuses_a_kind_that_does_not_match_the_id() -> None:
    with pytest.raises(Refused, match="add needs a kind matching the id"):
        rulebook.apply(None, event("add", item=TODO, kind="request", title="x"), ROLES)


def test_take_binds_the_taker_and_counts_a_version() -> None:
    item = run(added(), event("take", actor=BOB, minutes=5))
    assert (item.status, item.taken_by, item.version) == ("taken", BOB, 2)
    assert item.obligation is not None and item.obligation.pending


def test_take_of_someone_elses_row_refuses_naming_the_holder_and_since() -> None:
    item = run(added(), event("take", actor=BOB, minutes=2))
    with pytest.raises(Refused) as refusal:
        rulebook.apply(item, event("take", actor=CAROL), ROLES)
    assert "already taken by bob@example.com (since 2026-11-29 10:02 UTC)" in refusal.value.message
    assert "--force" in refusal.value.message


def test_forced_take_is_recorded_as_takeover_with_the_previous_holder() -> None:
    item = run(added(), event("take", actor=BOB))
    planned = lifecycle.plan(item, "take", {"force": True}, CAROL, ROLES)
    assert planned is not None
    verb, args = planned
    assert verb == "takeover"
    assert args["previous_holder"] == BOB
    assert args["previous_taken_at"] == "2026-11-29T10:00:00Z"
    after = run(item, event(verb, actor=CAROL, **args))
    assert after.taken_by == CAROL
    assert after.obligation is not None and after.obligation.holder == CAROL


def test_retake_by_the_holder_refreshes_taken_at_only() -> None:
    item = run(added(), event("take", actor=BOB, minutes=1))
    again = run(item, event("take", actor=BOB, minutes=90))
    assert again.taken_at is not None and item.taken_at is not None
    assert (again.taken_at - item.taken_at).total_seconds() == 89 * 60
    assert again.obligation == item.obligation


@pytest.mark.parametrize(
    ("verb", "refusal"),
    [
        ("take", "is done — terminal rows are never re-taken"),
        ("done", "is already done by alice@example.com — the first close is the record"),
        ("abandon", "is already done by alice@example.com — cannot abandon it"),
        ("release", "is done, not taken — nothing to release"),
    ],
)
def test_terminal_rows_are_never_retaken_or_reopened(verb: str, refusal: str) -> None:
    done = run(added(), event("done"))
    with pytest.raises(Refused, match=refusal):
        rulebook.apply(done, event(verb, actor=BOB, reason="r", force=True), ROLES)


def test_fast_path_open_to_done_in_one_event() -> None:
    item = run(added(), event("done", actor=BOB, summary="fixed", commit="1a2b3c4"))
    assert (item.status, item.taken_by, item.closed_by) == ("done", BOB, BOB)
    assert (item.result_summary, item.commit_sha) == ("fixed", "1a2b3c4")
    assert item.obligation is not None
    assert (item.obligation.status, item.obligation.disposition) == ("resolved", "done")


def test_fast_path_request_open_to_closed() -> None:
    item = run(added(REQUEST, "request"), event("close", item=REQUEST, summary="ok"))
    assert item.status == "closed"


def test_done_on_a_request_and_close_on_a_todo_point_at_the_right_verb() -> None:
    with pytest.raises(Refused, match="git coop close"):
        run(added(REQUEST, "request"), event("done", item=REQUEST))
    with pytest.raises(Refused, match="git coop done"):
        run(added(), event("close"))


@pytest.mark.parametrize("verb", ["done", "abandon", "release"])
def test_finishing_someone_elses_take_refuses_without_force(verb: str) -> None:
    item = run(added(), event("take", actor=BOB))
    with pytest.raises(Refused, match=r"bob@example\.com"):
        rulebook.apply(item, event(verb, actor=CAROL, reason="r"), ROLES)


def test_done_with_force_by_another_records_them_as_closer() -> None:
    item = run(added(), event("take", actor=BOB), event("done", actor=CAROL, force=True))
    assert (item.status, item.closed_by) == ("done", CAROL)


def test_release_needs_a_reason_and_reopens() -> None:
    item = run(added(), event("take", actor=BOB))
    with pytest.raises(Refused, match="reason"):
        rulebook.apply(item, event("release", actor=BOB), ROLES)
    released = run(item, event("release", actor=BOB, reason="blocked on creds"))
    assert (released.status, released.taken_by, released.reason) == (
        "open",
        None,
        "blocked on creds",
    )
    assert released.obligation is not None
    assert released.obligation.disposition == "released"


def test_releasing_anothers_take_needs_force_and_a_role() -> None:
    item = run(added(), event("take", actor=BOB))
    stranger = "dave@example.com"
    with pytest.raises(Refused, match="owner or chief"):
        rulebook.apply(item, event("release", actor=stranger, reason="r", force=True), ROLES)
    with pytest.raises(Refused, match="owner or chief"):
        rulebook.apply(item, event("release", actor=CAROL, reason="r"), ROLES)
    assert run(item, event("release", actor=CAROL, reason="r", force=True)).status == "open"


def test_abandon_is_terminal_and_needs_a_reason() -> None:
    item = run(added(), event("abandon", reason="obsolete"))
    assert item.status == "abandoned"
    with pytest.raises(Refused, match="is abandoned — terminal rows are never re-taken"):
        rulebook.apply(item, event("take"), ROLES)


def test_abandoned_todo_is_done_only_by_an_owner_with_force() -> None:
    item = run(added(), event("abandon", actor=BOB, reason="obsolete"))
    with pytest.raises(Refused, match="only an owner"):
        request(item, "done", actor=BOB, force=True)
    with pytest.raises(Refused, match="only an owner"):
        request(item, "done", actor=ALICE)
    after = request(item, "done", actor=ALICE, force=True)
    assert after is not None and after.status == "done"


def test_plan_marks_done_after_abandon_with_previous_status() -> None:
    item = run(added(), event("abandon", reason="obsolete"))
    planned = lifecycle.plan(item, "done", {"force": True}, ALICE, ROLES)
    assert planned == ("done", {"force": True, "previous_status": "abandoned"})


def test_first_close_is_the_record_a_second_only_amends() -> None:
    item = run(added(), event("take", actor=BOB), event("done", actor=BOB, summary="a"))
    planned = lifecycle.plan(item, "done", {"summary": "b", "commit": "abc"}, BOB, ROLES)
    assert planned == (
        "edit",
        {"summary": "b", "commit": "abc", "previous_summary": "a", "previous_commit": None},
    )
    amended = run(item, event(*planned[:1], actor=BOB, **planned[1]))
    assert (amended.closed_by, amended.closed_at, amended.status) == (
        item.closed_by,
        item.closed_at,
        "done",
    )
    assert (amended.result_summary, amended.commit_sha) == ("b", "abc")


def test_identical_repeat_close_plans_nothing() -> None:
    item = run(added(), event("done", summary="a", commit="abc"))
    assert lifecycle.plan(item, "done", {"summary": "a", "commit": "abc"}, ALICE, ROLES) is None
    assert lifecycle.plan(item, "done", {}, ALICE, ROLES) is None


def test_amending_anothers_close_refuses_without_force() -> None:
    item = run(added(), event("done", actor=BOB, summary="a"))
    with pytest.raises(Refused, match="first close is the record"):
        request(item, "done", actor=CAROL, summary="b")
    assert request(item, "done", actor=CAROL, summary="b", force=True) is not None


def test_replayed_second_first_close_is_a_conflict_not_an_overwrite() -> None:
    events = [
        event("add", kind="todo", title="x", clock=1),
        event("done", actor=BOB, summary="bob's", clock=2),
        event("done", actor=CAROL, summary="carol's", clock=3),
    ]
    item = rulebook.fold(events, ROLES)
    assert item is not None
    assert (item.closed_by, item.result_summary, item.version) == (BOB, "bob's", 2)
    assert [c.actor for c in item.conflicts] == [CAROL]
    assert "first close is the record" in item.conflicts[0].reason


def test_fold_orders_by_clock_then_event_id() -> None:
    add = event("add", kind="todo", title="x", clock=1)
    take_b = event("take", actor=BOB, clock=5)
    take_c = event("take", actor=CAROL, clock=5)
    item = rulebook.fold([take_c, take_b, add], ROLES)
    assert item is not None
    winner = min([take_b, take_c], key=lambda e: e.id)
    assert item.taken_by == winner.actor
    assert len(item.conflicts) == 1


def test_equal_clocks_go_to_the_take_made_first_by_wall_clock() -> None:
    add = event("add", kind="todo", title="x", clock=1)
    late = event("take", actor=BOB, clock=5, minutes=10)  # the smaller id, made later
    early = event("take", actor=CAROL, clock=5, minutes=3)
    assert late.id < early.id
    for events in ([add, late, early], [early, add, late]):
        item = rulebook.fold(events, ROLES)
        assert item is not None
        assert item.taken_by == CAROL
        assert [c.event for c in item.conflicts] == [late.id]
    assert early.order < late.order


def test_every_accepted_event_counts_one_version() -> None:
    item = run(
        added(),
        event("take", actor=BOB),
        event("note", actor=BOB, text="progress"),
        event("release", actor=BOB, reason="r"),
        event("done", actor=CAROL),
    )
    assert item.version == 5


def test_releasing_a_picked_queue_item_returns_it_ready_and_forgets_its_evidence_head() -> None:
    from dataclasses import replace

    from gitcoop.domain.ids import ItemId
    from gitcoop.domain.records import Evidence

    queue_item = ItemId("it-7k2m9x4q1c8v")
    drafted = rulebook.apply(
        None,
        event(
            "add",
            item=queue_item,
            kind="item",
            title="Handle EAGAIN",
            evidence=[{"path": "src/q.py", "line": 4, "quote": None, "head": None}],
        ),
        ROLES,
    )
    ready = replace(drafted, status="ready")
    picked = run(ready, event("pick", actor=BOB, item=queue_item, head="abc123"))
    assert picked.evidence == (Evidence("src/q.py", 4, None, "abc123"),)
    released = run(picked, event("release", actor=BOB, item=queue_item, reason="wrong repo"))
    assert (released.status, released.taken_by) == ("ready", None)
    assert released.evidence == (Evidence("src/q.py", 4, None, None),)


def test_the_other_kinds_verb_is_refused_on_a_closed_item_too() -> None:
    item = run(added(), event("done", summary="a"))
    with pytest.raises(Refused, match="git coop done"):
        lifecycle.plan(item, "close", {"summary": "b"}, ALICE, ROLES)


# -- the taker can backfill after a chief's close (#3) ------------------------------------


def chief_closed() -> Item:
    return run(
        added(),
        event("take", actor=BOB, session="s1"),
        event("review", actor=CAROL, minutes=200, decision="close"),
    )


def test_the_holder_at_the_close_amends_a_chiefs_close() -> None:
    item = chief_closed()
    assert (item.closed_by, item.taken_by) == (CAROL, BOB)
    after = request(item, "done", actor=BOB, summary="shipped", commit="abc1234")
    assert after is not None
    assert (after.closed_by, after.closed_at, after.status) == (CAROL, item.closed_at, "done")
    assert (after.result_summary, after.commit_sha) == ("shipped", "abc1234")


def test_someone_else_still_cannot_amend_a_close() -> None:
    with pytest.raises(Refused) as refusal:
        request(chief_closed(), "done", actor="dave@example.com", commit="abc1234")
    assert "carol@example.com" in refusal.value.message
    assert "bob@example.com" in refusal.value.message


def test_a_replayed_edit_by_a_stranger_is_refused_too() -> None:
    stranger = event("edit", actor="dave@example.com", commit="abc1234", previous_commit=None)
    with pytest.raises(Refused, match="first close is the record"):
        rulebook.apply(chief_closed(), stranger, ROLES)


# -- honest messages and a complete record (#9) -----------------------------------------------


def test_a_second_close_with_another_reason_says_the_reason_was_not_changed() -> None:
    closed = run(added(REQUEST, "request"), event("close", item=REQUEST, reason="duplicate"))
    args = {"reason": "obsolete"}
    assert lifecycle.plan(closed, "close", args, ALICE, ROLES) is None
    said = remarks.explain(closed, "close", args, None, closed)
    assert any("reason was not changed" in s and "first close is the record" in s for s in said)


def test_an_amendment_says_what_changed() -> None:
    item = run(added(), event("done", actor=BOB, summary="a"))
    planned = lifecycle.plan(item, "done", {"summary": "b", "commit": "abc1234"}, BOB, ROLES)
    assert planned is not None
    after = run(item, event(planned[0], actor=BOB, **planned[1]))
    said = remarks.explain(item, "done", {"summary": "b"}, planned, after)
    assert said == ("amended summary: 'a' -> 'b'", "amended commit: none -> abc1234")


def test_a_defer_capped_by_the_blocked_rule_says_so() -> None:
    item = run(
        added(),
        event("take", actor=BOB),
        event("report", actor=BOB, status="blocked", reason="creds"),
    )
    args = {"decision": "defer", "delay_seconds": 86400}
    planned = lifecycle.plan(item, "review", args, CAROL, ROLES)
    assert planned is not None
    after = run(item, event("review", actor=CAROL, **planned[1]))
    said = remarks.explain(item, "review", args, planned, after)
    assert any("capped to 6h" in s for s in said)
    short = {"decision": "defer", "delay_seconds": 600}
    assert remarks.explain(item, "review", short, ("review", short), after) == ()


def test_review_close_records_its_summary_and_commit() -> None:
    item = run(
        added(),
        event("take", actor=BOB),
        event("review", actor=CAROL, decision="close", summary="done by hand", commit="abc1234"),
    )
    assert (item.result_summary, item.commit_sha) == ("done by hand", "abc1234")


def test_a_repeated_report_done_plans_nothing_and_a_different_one_amends() -> None:
    item = run(
        added(),
        event("take", actor=BOB),
        event("report", actor=BOB, status="done", summary="shipped"),
    )
    same = {"status": "done", "summary": "shipped"}
    assert lifecycle.plan(item, "report", same, BOB, ROLES) is None
    other = {"status": "done", "summary": "shipped twice"}
    planned = lifecycle.plan(item, "report", other, BOB, ROLES)
    assert planned is not None and planned[0] == "edit"


# -- ties and clocks (#10) --------------------------------------------------------------------


def test_a_done_dated_before_its_take_is_recorded_at_the_takes_time_with_a_note() -> None:
    item = run(added(), event("take", actor=BOB, minutes=30), event("done", actor=BOB, minutes=20))
    assert item.taken_at is not None and item.closed_at is not None
    assert item.closed_at == item.taken_at
    assert item.closed_note is not None and "10:20" in item.closed_note
    said = remarks.explain(None, "done", {}, ("done", {}), item)
    assert said == (item.closed_note,)


def test_whitespace_only_session_names_are_refused() -> None:
    from gitcoop.domain.ids import session_problem

    assert session_problem("s1") is None
    for blank in ("", " ", "\t\n"):
        problem = session_problem(blank)
        assert problem is not None and "session" in problem


# -- what plan records for a request (killed mutants: docs/testing.md) ----------------


def taken(actor: str = ALICE, session: str | None = None) -> Item:
    return run(added(), event("take", actor=actor, session=session))


def test_a_repeated_take_in_the_same_session_plans_a_take_and_a_new_session_is_recorded() -> None:
    item = taken(session="s1")
    assert lifecycle.plan(item, "take", {}, ALICE, ROLES, "s1") == ("take", {})
    assert lifecycle.plan(item, "take", {}, ALICE, ROLES, "s2") == ("take", {})
    assert run(item, event("take", session="s2")).session == "s2"


def test_the_holders_own_done_is_planned_as_asked() -> None:
    item = taken()
    assert lifecycle.plan(item, "done", {"summary": "s"}, ALICE, ROLES) == (
        "done",
        {"summary": "s"},
    )


def test_only_a_close_of_abandoned_work_carries_the_previous_status() -> None:
    abandoned = run(added(), event("abandon", reason="r"))
    assert lifecycle.plan(abandoned, "take", {}, BOB, ROLES) == ("take", {})
    assert lifecycle.plan(taken(), "done", {}, ALICE, ROLES) == ("done", {})


def two_lost_takes() -> Item:
    """Bob holds it; carol's and alice's offline takes on the same clock lost on replay."""
    events = [
        event("add", kind="todo", title="Fix it", clock=1),
        event("take", actor=BOB, clock=5),
        event("take", actor=CAROL, clock=5, minutes=1),
        event("take", actor=ALICE, clock=5, minutes=2),
    ]
    folded = rulebook.fold(events, ROLES)
    assert folded is not None and [c.actor for c in folded.conflicts] == [CAROL, ALICE]
    return folded


def test_an_ack_of_one_lost_event_waits_only_for_that_event() -> None:
    item = two_lost_takes()
    alices, carols = item.conflicts[1].event, item.conflicts[0].event
    assert lifecycle.plan(item, "ack", {"event": alices}, ALICE, ROLES) == (
        "ack",
        {"event": alices},
    )
    assert lifecycle.plan(item, "ack", {"event": "ev-nothere"}, ALICE, ROLES) is None
    acked = run(item, event("ack", event=alices))
    assert lifecycle.plan(acked, "ack", {"event": alices}, ALICE, ROLES) is None  # done already
    # someone else's lost event, acknowledged or not, is for the handler to refuse
    carol_acked = run(item, event("ack", actor=CAROL, event=carols))
    assert lifecycle.plan(carol_acked, "ack", {"event": carols}, BOB, ROLES) == (
        "ack",
        {"event": carols},
    )


def test_a_report_is_planned_as_a_report_unless_it_amends_a_close() -> None:
    item = taken()
    asked = {"status": "done"}
    assert lifecycle.plan(item, "report", asked, ALICE, ROLES) == ("report", asked)
    blocked = {"status": "blocked", "reason": "waits"}
    closed = run(item, event("done", summary="first"))
    assert lifecycle.plan(closed, "report", blocked, ALICE, ROLES) == ("report", blocked)


def test_unblocked_on_work_that_is_not_blocked_writes_nothing_but_ends_a_block() -> None:
    item = taken()
    unblocked = {"status": "unblocked"}
    assert lifecycle.plan(item, "report", unblocked, ALICE, ROLES) is None
    assert lifecycle.plan(item, "report", unblocked, BOB, ROLES) == ("report", unblocked)
    blocked = run(item, event("report", status="blocked", reason="waits"))
    assert lifecycle.plan(blocked, "report", unblocked, ALICE, ROLES) == ("report", unblocked)
    assert lifecycle.plan(added(), "report", unblocked, ALICE, ROLES) == ("report", unblocked)


# -- what the handlers do (killed mutants) ----------------------------------------------


@pytest.mark.parametrize(
    ("args", "refusal"),
    [
        ({"tags": ["no spaces"]}, "tag"),
        ({"priority": 9}, "a priority is 0 \\(highest\\) to 4 \\(lowest\\), not 9"),
    ],
)
def test_add_refuses_bad_tags_and_priorities(args: dict[str, object], refusal: str) -> None:
    with pytest.raises(Refused, match=refusal):
        rulebook.apply(None, event("add", kind="todo", title="x", **args), ROLES)


def test_add_defaults_the_priority_and_keeps_one_given() -> None:
    assert added().priority == 2
    given = rulebook.apply(None, event("add", kind="todo", title="x", priority=0), ROLES)
    assert given.priority == 0


def test_only_queue_items_keep_a_source_an_order_key_and_a_parent() -> None:
    queue_args = {"source": "scan", "order_key": "k", "parent_id": "it-bbbbbbbbbbbb"}
    todo = rulebook.apply(None, event("add", kind="todo", title="x", **queue_args), ROLES)
    assert (todo.source, todo.order_key, todo.parent_id) == (None, None, None)
    queued = rulebook.apply(
        None,
        event("add", item=ItemId("it-aaaaaaaaaaaa"), kind="item", title="x", **queue_args),
        ROLES,
    )
    assert (queued.source, queued.order_key, queued.parent_id) == ("scan", "k", "it-bbbbbbbbbbbb")


def test_a_legacy_empty_tag_is_no_tag() -> None:
    assert rulebook.apply(None, event("add", kind="todo", title="x", tag=""), ROLES).tags == ()


def test_done_after_a_release_binds_the_closer_and_keeps_the_released_obligation() -> None:
    released = run(taken(), event("release", reason="later"))
    done = run(released, event("done", actor=BOB, summary="s"))
    assert (done.status, done.taken_by, done.closed_by) == ("done", BOB, BOB)
    assert done.obligation is not None and done.obligation.disposition == "done"
    assert done.previous_obligation is not None
    assert done.previous_obligation.disposition == "released"


def test_a_picked_queue_item_is_closed_by_close_and_never_by_done() -> None:
    item_id = ItemId("it-aaaaaaaaaaaa")
    steps = [
        event("add", item=item_id, kind="item", title="x", evidence=[{"path": "a.py", "line": 1}]),
        event("verify", item=item_id, actor="system"),
        event(
            "verdict",
            item=item_id,
            actor="system",
            verdict="confirmed",
            evidence=[{"path": "a.py", "line": 1, "quote": "x"}],
            head="h1",
        ),
        event("pick", item=item_id, actor=BOB, session="s1"),
    ]
    picked = run(None, *steps)
    assert picked.status == "in_progress"
    with pytest.raises(Refused, match="is a queue item \\(in_progress\\)"):
        rulebook.apply(picked, event("done", item=item_id, actor=BOB), ROLES)
    closed = run(picked, event("close", item=item_id, actor=BOB, summary="s"))
    assert closed.status == "closed"


def test_a_done_at_the_very_instant_of_the_take_needs_no_closing_note() -> None:
    done = run(taken(), event("done", summary="s"))  # the same instant as the take
    assert (done.closed_at, done.closed_note) == (T0, None)


def test_a_legacy_tag_becomes_the_items_one_tag() -> None:
    assert rulebook.apply(None, event("add", kind="todo", title="x", tag="ui"), ROLES).tags == (
        "ui",
    )
