"""The machine form of --json: `--fields` keeps the item fields named, `--compact` prints
one ASCII line; `list`/`ready` limited by -n say how many more there are."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import coop, git


def three(ledger: Path) -> list[str]:
    return [coop("add", "todo", f"Work {n}", "--json").json()["id"] for n in range(3)]


def test_fields_keep_only_the_named_fields_of_each_item(ledger: Path) -> None:
    ids = three(ledger)
    whole = coop("list", "--json").json()
    some = coop("list", "--fields", "id,title,status", "--json")
    assert some.code == 0
    assert some.json() == [{k: e[k] for k in ("id", "title", "status")} for e in whole]
    assert sorted(e["id"] for e in some.json()) == sorted(ids)  # one instant: by id
    shown = coop("--fields=id", "show", ids[0]).json()  # before the word; implies --json
    assert shown == {"id": ids[0]}
    repeated = coop("show", ids[0], "--fields", "id", "--fields", "notes", "--json").json()
    assert repeated == {"id": ids[0], "notes": []}


def test_compact_is_one_ascii_line_with_the_same_value(ledger: Path) -> None:
    coop("add", "todo", "Café ünïcode — dash", "-p", "1")
    pretty = coop("list", "--json")
    dense = coop("list", "--compact")
    assert dense.code == 0 and json.loads(dense.out) == pretty.json()
    assert dense.out.count("\n") == 1 and dense.out.isascii()
    assert '"title":"Caf\\u00e9' in dense.out and ": " not in dense.out
    assert len(dense.out) < len(pretty.out) * 0.8


def test_an_unknown_field_is_a_usage_error_before_anything_is_written(ledger: Path) -> None:
    (item, *_) = three(ledger)
    tip = git(ledger, "rev-parse", "refs/coop/ledger")
    refused = coop("take", item, "--fields", "id,titel", "--json")
    assert refused.code == 2
    error = refused.json()["error"]
    assert error["code"] == "usage" and "'titel'" in error["message"]
    assert "title" in error["message"]  # the fields it could have named
    assert git(ledger, "rev-parse", "refs/coop/ledger") == tip
    plain = coop("take", item, "--fields", "nope")  # --fields implies --json
    assert plain.code == 2 and plain.json()["error"]["code"] == "usage"


def test_fields_are_refused_where_no_item_is_printed(ledger: Path) -> None:
    refused = coop("log", "--fields", "id")
    assert refused.code == 2 and "--fields works with: list" in refused.err


def test_an_error_is_never_cut_by_fields(ledger: Path) -> None:
    missing = coop("show", "td-zzzz", "--fields", "id", "--compact")
    assert missing.code == 1
    assert missing.json() == coop("show", "td-zzzz", "--json").json()
    assert missing.out.count("\n") == 1


def test_list_and_ready_limited_say_how_many_more(ledger: Path) -> None:
    three(ledger)
    for word in ("list", "ready"):
        cut = coop(word, "-n", "1", "--json")
        assert len(cut.json()) == 1
        assert "gitcoop: 2 more not listed — raise -n to list them" in cut.err, word
        text = coop(word, "-n", "2")
        assert "1 more not listed" in text.out, word
        whole = coop(word, "-n", "3", "--json")
        assert "more not listed" not in whole.err, word
        assert "more not listed" not in coop(word, "--json").err, word


def test_bounds_are_declared_on_the_options(ledger: Path) -> None:
    for argv in (["list", "-n", "-1"], ["ready", "-n", "-1"], ["add", "todo", "x", "-p", "5"]):
        refused = coop(*argv, "--json")
        assert refused.code == 2 and refused.json()["error"]["code"] == "usage", argv
        assert "range" in refused.json()["error"]["message"], argv


def test_an_options_value_is_never_read_as_fields_or_compact(ledger: Path) -> None:
    for body in ("--compact", "--fields", "--fields=id", "--json"):
        added = coop("add", "todo", "T", "--body", body)
        assert added.code == 0 and added.out.strip().startswith("td-"), (body, added.out)
        item = added.out.split()[0]
        assert coop("show", item, "--json").json()["body"] == body
        assert coop("show", item, "--fields=body", "--json").json() == {"body": body}
    found = coop("list", "--grep", "--fields", "--json")
    assert found.code == 0
    assert sorted(e["body"] for e in found.json()) == ["--fields", "--fields=id"]
    text = coop("list", "--grep", "--compact")
    assert text.code == 0 and text.out.startswith("td-") and "T" in text.out  # text, not JSON
    titled = coop("add", "todo", "--json", "--", "--compact")  # after --: an argument
    assert titled.json()["title"] == "--compact" and "\n  " in titled.out  # JSON as it was


def test_fields_given_no_names_is_a_usage_error_saying_what_to_give(ledger: Path) -> None:
    (item, *_) = three(ledger)
    for argv in (["show", item, "--fields", ""], ["show", item, "--fields=,", "--json"]):
        refused = coop(*argv)
        assert refused.code == 2, argv
        assert refused.json()["error"]["code"] == "usage", argv
        assert "--fields needs names: --fields id,title,status" in refused.err, argv
    missing = coop("show", item, "--fields")
    assert missing.code == 2 and "--fields" in missing.err and "requires" in missing.err


def test_every_write_that_prints_its_item_takes_fields(ledger: Path) -> None:
    """As docs/agents.md says: `pick` and `dep` print an item, and keep only its named
    fields (pick's own keys, such as `picked`, are kept only when named)."""
    from tests.service.queue_fixtures import CONFIRM, install

    first, second, _ = three(ledger)
    linked = coop("dep", "add", first, "blocks", second, "--fields", "id")
    assert linked.code == 0 and linked.json() == {"id": second}, (linked.out, linked.err)
    code = install(ledger)
    assert coop("add", "item", "Fix the toast", "--evidence", "src/app.py:3").code == 0
    code.plan(toast=CONFIRM)
    assert coop("verify").code == 0
    picked = coop("pick", "--fields", "id,status", "--session", "s1")
    assert picked.code == 0, picked.err
    assert set(picked.json()) == {"id", "status"} and picked.json()["status"] == "in_progress"


def test_a_field_only_another_command_prints_is_refused(ledger: Path) -> None:
    """`list --fields id,dependencies` printed items without it, saying nothing."""
    three(ledger)
    refused = coop("list", "--fields", "id,dependencies")
    assert refused.code == 2
    message = refused.json()["error"]["message"]
    assert "'dependencies'" in message and "git coop show" in message
    assert coop("show", three(ledger)[0], "--fields", "id,dependencies").code == 0
