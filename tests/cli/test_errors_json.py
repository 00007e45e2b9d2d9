"""Errors agents can read: under --json every failure is `{"error": {...}}` on stdout,
with the one-line message on stderr, and repeats are safe."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gitcoop import errors
from gitcoop.errors import CoopError
from gitcoop.service import fsck
from gitcoop.store.ledger import transport
from tests.conftest import Clones, coop, coop_in, git

BOB = {"COOP_ACTOR": "bob@example.com"}

ALL_CLASSES = [
    *(c for c in vars(errors).values() if isinstance(c, type) and issubclass(c, CoopError)),
    fsck.BreachesFound,
    transport.TransportFailed,
]
CODES = {
    "CoopError": ("refused", 1),
    "Refused": ("refused", 1),
    "NotFound": ("not_found", 1),
    "Ambiguous": ("ambiguous", 1),
    "UsageError": ("usage", 2),
    "ChangedUnderWrite": ("changed", 3),
    "NoLedger": ("no_ledger", 4),
    "BadLedger": ("bad_ledger", 4),
    "UnsupportedRepository": ("unsupported_repository", 4),
    "FetchedLedgerRefused": ("fetched_ledger_refused", 4),
    "NothingToDo": ("nothing_to_do", 5),
    "SomethingDue": ("something_due", 6),
    "RemoteUnreachable": ("remote_unreachable", 7),
    "RemoteRewritten": ("remote_rewritten", 10),
    "LostOnMerge": ("lost_on_merge", 8),
    "EnvironmentFailed": ("environment", 9),
    "BreachesFound": ("breaches", 1),
    "TransportFailed": ("remote_unreachable", 7),
    "RemoteRefused": ("remote_refused", 11),
    "Interrupted": ("interrupted", 130),  # 143 for SIGTERM: 128 + the signal's number
}


def error_of(result: object) -> dict[str, object]:
    data = json.loads(result.out)  # type: ignore[attr-defined]
    assert set(data) == {"error"}, data
    error: dict[str, object] = data["error"]
    return error


def test_every_error_class_has_its_own_code_and_exit() -> None:
    assert {c.__name__ for c in ALL_CLASSES} == set(CODES)
    for cls in ALL_CLASSES:
        assert (cls.code, cls.exit_code) == CODES[cls.__name__], cls


@pytest.mark.parametrize("cls", ALL_CLASSES, ids=lambda c: c.__name__)
def test_the_boundary_prints_each_class_as_json_and_its_sentence_on_stderr(
    ledger: Path, monkeypatch: pytest.MonkeyPatch, cls: type[CoopError]
) -> None:
    from gitcoop.service import queries

    def fail(*args: object) -> None:
        raise cls("it went wrong — do this", holder="carol@example.com", details={"extra": [1]})

    monkeypatch.setattr(queries, "detail", fail)
    result = coop("show", "td-x", "--json")
    code, exit_code = CODES[cls.__name__]
    assert result.code == exit_code
    assert error_of(result) == {
        "code": code,
        "exit": exit_code,
        "message": "it went wrong — do this",
        "holder": "carol@example.com",
        "extra": [1],
    }
    assert result.err.startswith("gitcoop: it went wrong — do this")  # (BadLedger adds a hint)
    assert len(result.err.strip().splitlines()) == 1
    assert coop("show", "td-x").out == ""  # without --json nothing goes to stdout


def test_a_refused_take_names_the_holder_as_data(ledger: Path) -> None:
    item = coop("add", "todo", "Fix it").out.strip()
    assert coop("take", item, env=BOB).code == 0
    result = coop("take", item, "--json")
    assert result.code == 1
    error = error_of(result)
    assert error["code"] == "refused" and error["holder"] == "bob@example.com"
    assert "taken by bob@example.com" in str(error["message"])
    assert "already taken by bob@example.com" in result.err


@pytest.mark.parametrize(
    ("argv", "code", "exit_code"),
    [
        (["show", "td-zzzz", "--json"], "not_found", 1),
        (["list", "--kind", "bogus", "--json"], "usage", 2),
        (["list", "--no-such-option", "--json"], "usage", 2),  # click's own usage errors
        (["take", "--json"], "usage", 2),  # a missing argument
        (["review", "td-zzzz", "maybe", "--json"], "usage", 2),
    ],
)
def test_usage_errors_and_misses_are_json_too(
    ledger: Path, argv: list[str], code: str, exit_code: int
) -> None:
    result = coop(*argv)
    assert result.code == exit_code
    error = error_of(result)
    assert (error["code"], error["exit"]) == (code, exit_code)
    assert error["message"] and result.err


def test_an_ambiguous_prefix_and_a_stale_version_have_their_codes(ledger: Path) -> None:
    first = coop("add", "todo", "a", "--json", env={"COOP_SEED": "1"}).json()["id"]
    coop("add", "request", "b", env={"COOP_SEED": "1"})  # the same random part: td- and rq-
    assert error_of(coop("show", first[3:10], "--json"))["code"] == "ambiguous"
    stale = coop("take", first, "--expect-version", "7", "--json")
    assert stale.code == 3 and error_of(stale)["code"] == "changed"


def test_no_ledger_is_json(repo: Path) -> None:
    result = coop("list", "--json")
    assert result.code == 4 and error_of(result)["code"] == "no_ledger"


def test_an_argument_that_looks_like_json_after_a_double_dash_is_text(ledger: Path) -> None:
    item = coop("add", "todo", "x").out.strip()
    result = coop("note", item, "--", "--json")
    assert result.code == 0 and result.out.startswith("noted")


def test_pick_with_nothing_to_pick_is_an_error_object_carrying_what_it_checked(
    ledger: Path,
) -> None:
    result = coop("pick", "--json")
    assert result.code == 5
    error = error_of(result)  # one document, the error's, with the pick's details inside
    assert (error["code"], error["exit"]) == ("nothing_to_do", 5)
    assert error["checks"] == [] and error["verified"] == []
    assert str(error["message"]) in result.err


def test_owed_check_with_something_due_is_something_due_carrying_the_listing(
    ledger: Path,
) -> None:
    item = coop("add", "todo", "x").out.strip()
    coop("take", item, env=BOB)
    later = {"COOP_NOW": "2026-11-30T10:00:00Z"}
    listing = coop("owed", "--all", "--json", env=later)
    result = coop("owed", "--all", "--check", "--json", env=later)
    assert result.code == 6 and listing.code == 0
    error = error_of(result)
    assert (error["code"], error["exit"]) == ("something_due", 6)
    assert error["owed"] == listing.json() and len(listing.json()) == 1
    assert "attention now" in str(error["message"])
    quiet = coop("owed", "--check", "--json")  # nothing due yet: the listing, exit 0
    assert quiet.code == 0 and isinstance(quiet.json(), list)


def test_fsck_with_breaches_is_an_error_object_carrying_the_report(ledger: Path) -> None:
    from tests.rawledger import put

    put(ledger, ["junk"], b"hello")
    result = coop("fsck", "--json")
    assert result.code == 1
    error = error_of(result)
    assert (error["code"], error["exit"], error["ok"]) == ("breaches", 1, False)
    assert error["breaches"] and "notes" in error


def tip(path: Path) -> str:
    return git(path, "rev-parse", "refs/coop/ledger").strip()


def test_repeats_are_safe_a_retake_refreshes_taken_at_and_exits_0(ledger: Path) -> None:
    item = coop("add", "todo", "x").out.strip()
    session = {**BOB, "COOP_SESSION": "s-1"}
    taken = coop("take", item, "--json", env=session).json()
    again = coop("take", item, "--json", env={**session, "COOP_NOW": "2026-11-29T11:00:00Z"})
    assert again.code == 0 and again.json()["taken_by"] == "bob@example.com"
    assert again.json()["taken_at"] == "2026-11-29T11:00:00Z"  # seed 000: refreshed
    assert again.json()["obligation"]["due"] == taken["obligation"]["due"]


def test_an_identical_finish_under_json_writes_nothing_and_exits_0(ledger: Path) -> None:
    from tests.cli.test_queue_rules import ready
    from tests.service.queue_fixtures import install

    item_id = ready(install(ledger))
    assert coop("pick").code == 0
    finish = ["finish", item_id, "done", "--commit", "HEAD", "--json"]
    assert coop(*finish).code == 0
    before = tip(ledger)
    again = coop(*finish)
    assert again.code == 0 and again.json()["status"] == "done"
    assert tip(ledger) == before


def test_a_sync_that_lost_your_own_event_is_an_error_object_carrying_the_report(
    clones: Clones,
) -> None:
    from tests.service.test_sync import two

    a, b = two(clones)
    todo = coop_in(a, "list", "--json").json()[0]["id"]
    assert coop_in(a, "take", todo).code == 0 and coop_in(b, "take", todo).code == 0
    assert coop_in(a, "sync").code == 0
    lost = coop_in(b, "sync", "--json")
    assert lost.code == 8, lost.err
    error = error_of(lost)
    assert (error["code"], error["exit"]) == ("lost_on_merge", 8)
    assert [entry["item"] for entry in error["lost"]] == [todo]  # the report, inside
    assert error["remote"] == "origin" and "pushed" in error


def test_an_error_echoes_long_input_cut_short_with_an_ellipsis(ledger: Path) -> None:
    huge = "td-" + "a" * 100_000
    for argv in (
        ["show", huge, "--json"],
        ["list", "--since", huge, "--json"],
        [huge, "--json"],  # an unknown command word
        ["list", "--" + "x" * 100_000, "--json"],  # click's own usage error
    ):
        result = coop(*argv)
        assert result.code in (1, 2), argv[:1]
        message = str(error_of(result)["message"])
        assert len(message) < 400 and "…" in message, (argv[0][:20], message[:500])
        assert len(result.err) < 800 and "…" in result.err, argv[0][:20]
