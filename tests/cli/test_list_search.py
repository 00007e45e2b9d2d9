"""`list --grep`, `--since`, `--sort`, `-n` and a holder's prefix, from the read cache."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from gitcoop.store.fast import activity
from tests.conftest import coop, git

AT = "2026-11-29T{}:00Z"


SECONDS = itertools.count()


def add(title: str, *extra: str, at: str | None = None) -> str:
    """A todo added at `at`, or each a second after the last (so they list in this order)."""
    n = next(SECONDS)
    when = AT.format(at) if at else f"2026-11-29T08:{n // 60 % 60:02d}:{n % 60:02d}Z"
    result = coop("add", "todo", title, "--json", *extra, env={"COOP_NOW": when})
    assert result.code == 0, result.err
    return str(result.json()["id"])


def listed(*args: str, at: str = "10:00") -> list[str]:
    result = coop("list", "--json", *args, env={"COOP_NOW": AT.format(at)})
    assert result.code == 0, result.err
    return [entry["id"] for entry in result.json()]


def test_grep_finds_the_title_the_body_and_the_notes_in_any_case(ledger: Path) -> None:
    titled = add("Flaky queue test")
    bodied = add("Something else", "--body", "the QUEUE writer retries on EAGAIN")
    noted = add("A third thing")
    other = add("Unrelated")
    assert coop("note", noted, "found it in the Queue's retry loop").code == 0
    assert listed("--grep", "queue") == [titled, bodied, noted]
    assert listed("--grep", "EAGAIN") == [bodied]
    assert listed("--grep", "retry loop") == [noted]
    assert listed("--grep", "nowhere") == []
    assert other not in listed("--grep", "thing")  # "Something", "A third thing"
    assert listed("--grep", 'say "hi"') == []  # JSON's escapes never reach the match
    quoted = add('Say "hi" to the \\ world')
    assert listed("--grep", 'say "HI" to the \\') == [quoted]


def test_grep_keeps_the_other_filters_and_searches_settled_work_when_asked(
    ledger: Path,
) -> None:
    open_one = add("queue work", "--tag", "ci")
    add("queue work without the tag")
    settled = add("queue work done", "--tag", "ci")
    assert coop("done", settled).code == 0
    assert listed("--grep", "QUEUE", "--tag", "ci") == [open_one]
    assert listed("--grep", "queue", "--tag", "ci", "--all") == [open_one, settled]
    assert listed("--grep", "queue", "--status", "done") == [settled]
    text = coop("list", "--grep", "queue", "--tag", "ci").out
    assert "settled:" not in text  # not searched, so not counted
    assert "settled work was not searched — git coop list --all --grep" in text
    assert "not searched" not in coop("list", "--grep", "queue", "--all").out
    assert "not searched" not in coop("list", "--tag", "ci").out


@pytest.mark.fast_only
def test_a_plain_grep_reads_only_the_open_part_of_the_index(ledger: Path) -> None:
    """The text index is split as the open index is: a plain search never opens the
    settled part, and both parts answer as one index after items change parts."""
    items = [add(f"needle {n}") for n in range(5)]
    for item in items[:3]:
        assert coop("done", item).code == 0
    assert listed("--grep", "needle", "--all") == items
    root = ledger / ".git/coop-cache"
    settled = sorted(root.rglob("act-*.settled"))
    assert settled and sorted(root.rglob("act-*.open"))
    for path in settled:
        path.write_bytes(b"damaged")
    assert listed("--grep", "needle") == items[3:]
    assert all(path.read_bytes() == b"damaged" for path in settled)  # never opened
    assert coop("note", items[4], "a second needle").code == 0
    assert coop("note", items[0], "a settled haystack").code == 0
    assert listed("--grep", "second needle") == [items[4]]
    assert listed("--grep", "needle", "--all") == items
    assert listed("--grep", "needle 1", "--all") == [items[1]]
    assert listed("--grep", "haystack") == []
    assert listed("--grep", "haystack", "--all") == [items[0]]


def test_since_takes_a_duration_or_a_date(ledger: Path) -> None:
    old = add("old work", at="06:00")
    touched = add("old but noted", at="06:01")
    new = add("new work", at="09:30")
    coop("note", touched, "still alive", env={"COOP_NOW": AT.format("09:45")})
    assert listed("--since", "1h") == [touched, new]
    assert listed("--since", "5h") == [old, touched, new]
    assert listed("--since", "2026-11-29T09:40:00Z") == [touched]
    assert listed("--since", "2026-11-30") == []
    wrong = coop("list", "--since", "last tuesday")
    assert wrong.code == 2 and "neither a duration nor a date" in wrong.err
    assert listed("--since", "20261129") == [old, touched, new]  # a day, not seconds
    bare = coop("list", "--since", "90")
    assert bare.code == 2 and "needs its unit" in bare.err


def test_sort_and_limit(ledger: Path) -> None:
    first = add("first", "-p", "3", at="06:00")
    second = add("second", "-p", "0", at="07:00")
    third = add("third", "-p", "1", at="08:00")
    coop("note", first, "moved last", env={"COOP_NOW": AT.format("09:00")})
    assert coop("take", third, "--session", "s1", env={"COOP_NOW": AT.format("08:30")}).code == 0
    assert coop("take", second, env={"COOP_NOW": AT.format("08:10")}).code == 0
    assert listed() == [first, second, third]  # created, oldest first
    assert listed("--sort", "created") == [first, second, third]
    assert listed("--sort", "updated") == [first, third, second]  # latest change first
    assert listed("--sort", "priority") == [second, third, first]
    assert listed("--sort", "due") == [second, third, first]  # 11:10, 11:30, nothing due
    assert listed("--sort", "priority", "-n", "2") == [second, third]
    assert listed("-n", "0") == []
    assert coop("list", "-n", "-1").code == 2


def test_holder_matches_a_prefix_of_the_identity(ledger: Path) -> None:
    bobs = add("bob's")
    barbaras = add("barbara's")
    assert coop("take", bobs, "--as", "bob@example.com").code == 0
    assert coop("take", barbaras, "--as", "barbara@example.com").code == 0
    assert listed("--holder", "bob") == [bobs]
    assert listed("--holder", "B") == [bobs, barbaras]
    assert listed("--holder", "barbara@example.com") == [barbaras]
    assert listed("--holder", "carol") == []


def test_an_unknown_status_lists_the_valid_ones(ledger: Path) -> None:
    result = coop("list", "--status", "doing")
    assert result.code == 2
    for status in ("open", "taken", "in_progress", "abandoned", "split"):
        assert f"'{status}'" in result.err


@pytest.mark.fast_only
def test_the_index_is_kept_by_object_ids_and_sees_a_moved_ref(ledger: Path) -> None:
    noted = add("a todo")
    before = git(ledger, "rev-parse", "refs/coop/ledger").strip()
    assert listed("--grep", "needle") == []
    assert coop("note", noted, "a needle here").code == 0
    after = git(ledger, "rev-parse", "refs/coop/ledger").strip()
    assert listed("--grep", "needle") == [noted]
    git(ledger, "update-ref", "refs/coop/ledger", before)  # another writer moves the ref back
    assert listed("--grep", "needle") == []
    git(ledger, "update-ref", "refs/coop/ledger", after)
    assert listed("--grep", "needle") == [noted]
    shards = sorted(p.name for p in (ledger / ".git/coop-cache").rglob("act-*.open"))
    assert shards, "the index is kept between commands"


@pytest.mark.fast_only
def test_the_index_reads_only_the_folders_that_changed(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = [add(f"todo {n}") for n in range(6)]
    assert listed("--grep", "todo") == items
    made: list[str] = []
    original = activity._Index._entry

    def counting(self: activity._Index, item_id: str, folder_id: str) -> activity.Entry:
        made.append(item_id)
        return original(self, item_id, folder_id)  # type: ignore[arg-type]

    monkeypatch.setattr(activity._Index, "_entry", counting)
    assert listed("--grep", "todo") == items
    assert made == []  # warm: nothing read again
    assert coop("note", items[2], "one more").code == 0
    assert listed("--grep", "one more") == [items[2]]
    assert made == [items[2]]


def test_an_edited_title_is_found_by_its_new_words(ledger: Path) -> None:
    todo = add("old words")
    assert listed("--grep", "old words") == [todo]
    assert coop("edit", todo, "--title", "new words").code == 0
    assert listed("--grep", "old words") == []
    assert listed("--grep", "NEW WORDS") == [todo]
