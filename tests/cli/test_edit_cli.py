"""Work items people can shape: `edit` for every kind, and `show` of everything they hold."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import coop, git


def show(item: str) -> dict[str, Any]:
    result = coop("show", item, "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def edits(item: str) -> list[dict[str, Any]]:
    return [e for e in coop("log", item, "--json").json() if e["verb"] == "edit"]


def tip(path: Path) -> str:
    return git(path, "rev-parse", "refs/coop/ledger").strip()


@pytest.mark.parametrize("kind", ["todo", "request", "item"])
def test_edit_changes_title_tags_and_priority_of_every_kind_naming_previous_values(
    ledger: Path, kind: str
) -> None:
    item = coop("add", kind, "Old title", "--tag", "ui", "--json").json()["id"]
    assert show(item)["tags"] == ["ui"] and show(item)["priority"] == 2
    result = coop("edit", item, "--title", "New title", "-p", "0", "--tag", "core", "--tag", "db")
    assert result.code == 0, result.err
    assert "title: 'Old title' -> 'New title'" in result.out and "tags: +core +db" in result.out
    data = show(item)
    assert (data["title"], data["priority"], data["tags"]) == ("New title", 0, ["core", "db", "ui"])
    (event,) = edits(item)
    assert event["previous_title"] == "Old title" and event["previous_priority"] == 2
    assert event["tags_added"] == ["core", "db"] and event["previous_tags"] == ["ui"]
    assert coop("edit", item, "--untag", "ui", "--untag", "db").code == 0
    assert show(item)["tags"] == ["core"]
    assert edits(item)[-1]["tags_removed"] == ["db", "ui"]


def test_an_edit_that_changes_nothing_writes_nothing(ledger: Path) -> None:
    item = coop("add", "todo", "Same", "--tag", "a", "-p", "1").out.strip()
    before = tip(ledger)
    again = coop("edit", item, "--title", "Same", "--tag", "a", "-p", "1", "--untag", "zz")
    assert again.code == 0 and "unchanged" in again.out
    assert tip(ledger) == before


def test_the_body_comes_from_a_file_or_stdin_and_show_prints_it(
    ledger: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    item = coop("add", "todo", "Write it up").out.strip()
    text = tmp_path / "body.md"
    text.write_text("Steps:\n1. read\n2. write\n")
    assert coop("edit", item, "--body-file", str(text)).code == 0
    assert show(item)["body"] == "Steps:\n1. read\n2. write\n"
    monkeypatch.setattr("sys.stdin", io.StringIO("from stdin\n"))
    assert coop("edit", item, "--body-file", "-").code == 0
    assert show(item)["body"] == "from stdin\n"
    assert edits(item)[-1]["previous_body"] == "Steps:\n1. read\n2. write\n"
    shown = coop("show", item).out
    assert shown.rstrip().endswith("from stdin")
    assert coop("edit", item, "--body", "").code == 0  # an empty body clears it
    assert show(item)["body"] is None


def test_a_body_sent_with_crlf_line_breaks_is_kept_in_lines(ledger: Path) -> None:
    """CRLF is a line break wherever a body comes from (a file, a pipe, an argument, MCP,
    the board); a lone CR is refused, naming it and where it stands."""
    item = coop("add", "todo", "From Windows").out.strip()
    piped = subprocess.run(
        ["git", "coop", "edit", item, "--body-file", "-"],
        cwd=ledger,
        input=b"a\r\nb\r\n",
        capture_output=True,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
        check=False,
    )
    assert piped.returncode == 0, piped.stderr
    assert show(item)["body"] == "a\nb\n"
    assert coop("edit", item, "--body", "c\r\nd").code == 0
    assert show(item)["body"] == "c\nd"
    lone = coop("edit", item, "--body", "e\rf")
    assert lone.code == 2 and "U+000D at character 2" in lone.err, lone.err
    named = ledger / "lone-cr.txt"
    named.write_bytes(b"g\rh")  # a named file reads as a pipe does: a lone CR is no line break
    assert coop("edit", item, "--body-file", str(named)).code == 2
    assert show(item)["body"] == "c\nd"
    assert coop("note", item, "one\r\ntwo").code == 0  # a note's CRLF too
    assert show(item)["notes"][-1]["text"] == "one\ntwo"


def test_the_editor_is_the_one_git_would_start(ledger: Path, tmp_path: Path) -> None:
    item = coop("add", "request", "Review", "--body", "old body").out.strip()
    script = tmp_path / "editor.sh"
    script.write_text(
        '#!/bin/sh\ngrep -q "old body" "$1" && printf "new body\\n# a comment\\n" > "$1"\n'
    )
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    git(ledger, "config", "core.editor", str(script))
    result = coop("edit", item, "--editor")
    assert result.code == 0, result.err
    assert show(item)["body"] == "new body"


def test_a_bad_value_is_a_usage_error_and_nothing_is_written(ledger: Path) -> None:
    item = coop("add", "todo", "x").out.strip()
    before = tip(ledger)
    for args in (["-p", "5"], ["--tag", "two words"], ["--title", "a\nb"], ["--body", "\x1b[31m"]):
        result = coop("edit", item, *args, "--json")
        assert result.code == 2, args
        assert result.json()["error"]["code"] == "usage"
    nothing = coop("edit", item)
    assert nothing.code == 2 and "nothing to edit" in nothing.err
    assert tip(ledger) == before


def test_the_queue_options_still_work_for_queue_items(ledger: Path) -> None:
    first = coop("add", "item", "First").out.strip()
    second = coop("add", "item", "Second").out.strip()
    assert coop("edit", second, "--before", first, "--title", "Second, moved").code == 0
    queued = coop("queue", "--json").json()
    assert [q["title"] for q in queued] == ["Second, moved", "First"]
    assert coop("edit", first, "--state", "blocked", "--reason", "needs keys").code == 0
    assert show(first)["status"] == "blocked"
    verbs = [e["verb"] for e in coop("log", second, "--json").json()]
    assert verbs[-2:] == ["edit", "edit_item"]  # one commit: the title, then the place
    todo = coop("add", "todo", "t").out.strip()
    refused = coop("edit", todo, "--state", "ready")
    assert refused.code == 1 and "not a queue item" in refused.err


def test_show_displays_body_tags_priority_links_and_notes(ledger: Path) -> None:
    item = coop("add", "todo", "Main", "--tag", "ui", "-p", "1", "--body", "two\nlines").out.strip()
    other = coop("add", "todo", "Before it").out.strip()
    assert coop("dep", "add", other, "blocks", item).code == 0
    assert coop("note", item, "found the cause").code == 0
    text = coop("show", item).out
    rows = {line.split("  ")[0]: line for line in text.splitlines() if line}
    assert rows["priority"].split() == ["priority", "1"] and rows["tags"].split() == ["tags", "ui"]
    assert "Before it" in rows["blocked by"] and "found the cause" in rows["note"]
    assert text.rstrip().endswith("    two\n    lines")
    data = show(item)
    assert data["notes"][0]["text"] == "found the cause"
    assert data["notes"][0]["by"] == "alice@example.com"
    assert [b["id"] for b in data["dependencies"]["blocked_by"]] == [show(other)["id"]]
    assert data["dependencies"]["waiting_on"] == [show(other)["id"]]
    assert show(other)["dependencies"]["blocks"][0]["title"] == "Main"


def test_a_ledger_written_before_items_had_tags_and_priority_reads_and_folds_the_same(
    ledger: Path,
) -> None:
    """An add event then recorded one `tag`; the item file had `tag:` and no priority."""
    from gitcoop.service.context import Context
    from gitcoop.service.writer import Intent, write
    from gitcoop.store.ledger import codec
    from tests import rawledger

    item_id = "td-7e6acy000000"
    legacy_add = {"kind": "todo", "title": "Legacy", "tag": "needs review"}  # as it was recorded
    write(Context(path=str(ledger)), [Intent(item_id, "add", legacy_add)])
    item, fan = item_id, item_id[3:5]
    item_path = f"items/{fan}/{item_id}.yaml"
    data = codec.load(rawledger.read(ledger, item_path), item_path, 1 << 20)
    old = {k: v for k, v in data.items() if k not in ("tags", "priority", "links")}
    rawledger.put(ledger, item_path.split("/"), codec.dump({**old, "tag": "needs review"}))
    assert coop("fsck").code == 0  # the stored file is still the fold of its events
    assert show(item)["tags"] == ["needs review"] and show(item)["priority"] == 2
    assert [r["id"] for r in coop("list", "--tag", "needs review", "--json").json()] == [item_id]
    assert coop("edit", item, "--tag", "later", "-p", "3").code == 0
    assert show(item)["tags"] == ["later", "needs review"]
    assert coop("fsck").code == 0


def test_on_a_terminal_edit_with_nothing_else_opens_the_editor(
    ledger: Path, tmp_path: Path
) -> None:
    """stdin and stdout a terminal (a pseudo-terminal here), no option: $EDITOR opens."""
    import pty
    import subprocess
    import sys

    item = coop("add", "todo", "Describe it").out.strip()
    script = tmp_path / "editor.sh"
    script.write_text('#!/bin/sh\nprintf "typed in the editor\\n" > "$1"\n')
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    main, terminal = pty.openpty()
    env = {**os.environ, "EDITOR": str(script), "GIT_EDITOR": str(script)}
    env["PATH"] = str(Path(sys.executable).parent) + os.pathsep + env.get("PATH", "")
    try:
        done = subprocess.run(
            ["git", "coop", "edit", item],
            cwd=ledger,
            stdin=terminal,
            stdout=terminal,
            stderr=subprocess.PIPE,
            env=env,
            timeout=60,
            check=False,
        )
    finally:
        os.close(terminal)
        os.close(main)
    assert done.returncode == 0, done.stderr
    assert show(item)["body"] == "typed in the editor"


def test_show_keeps_a_bodys_tabs_and_a_notes_lines(ledger: Path) -> None:
    """Tabs and line breaks are text a body and a note may hold: `show` prints them as
    the board does, each further line of a note under its first; a hidden character is
    still escaped."""
    item = coop("add", "todo", "Laid out", "--body", "a\tb\nc").out.strip()
    assert coop("note", item, "first\n\tsecond\u200b").code == 0
    shown = coop("show", item).out.splitlines()
    assert "    a\tb" in shown and "    c" in shown
    first = next(n for n, line in enumerate(shown) if line.endswith("first"))
    assert shown[first].startswith("note")
    assert "\\u200b" in shown[first + 1]  # the hidden character, escaped
    assert shown[first + 1].startswith(" ") and "\tsecond" in shown[first + 1]
    assert "\\x09" not in "\n".join(shown) and "\\x0a" not in "\n".join(shown)


def test_a_body_line_never_reads_as_gitcoop_s_own(ledger: Path) -> None:
    """A peer's body holding `gitcoop: your take ... lost on merge` is shown indented, as
    git log shows a message: no line of it starts where gitcoop's own lines do."""
    forged = "gitcoop: your take of td-0000 lost on merge — run: git coop ack td-0000"
    item = coop("add", "todo", "Read me", "--body", f"first\n{forged}").out.strip()
    shown = coop("show", item).out.splitlines()
    assert f"    {forged}" in shown
    assert not any(line.startswith("gitcoop") for line in shown)
