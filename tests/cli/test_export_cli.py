"""git coop export: every item (and its events) as JSON, JSON lines, CSV or Markdown."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import coop

FIXTURES = Path(__file__).parent.parent / "fixtures" / "import"
NOW = {"COOP_NOW": "2026-12-02T12:00:00Z"}


def _filled() -> None:
    assert coop("import", "github", str(FIXTURES / "github.json"), env=NOW).code == 0
    added = coop("add", "todo", '=HYPERLINK("http://x")', "--body", "# not a heading", env=NOW)
    assert added.code == 0, added.err


def _titled(items: list[dict[str, Any]], title: str) -> dict[str, Any]:
    return next(i for i in items if i["title"] == title)


def _export(*args: str) -> str:
    result = coop("export", *args, env=NOW)
    assert result.code == 0, result.err
    return result.out


def test_json_holds_every_item_as_the_ledger_does(ledger: Path) -> None:
    _filled()
    items = json.loads(_export())
    assert sorted(i["title"] for i in items) == [
        '=HYPERLINK("http://x")',
        "Blank page on Safari",
        "Typo in the footer",
    ]
    listed = json.loads(coop("list", "--all", "--json").out)
    assert {i["id"] for i in items} == {i["id"] for i in listed}
    for item in items:
        shown = json.loads(coop("show", item["id"], "--json").out)
        assert {k: v for k, v in item.items() if k != "short_id"} == {
            k: shown[k] for k in item if k != "short_id"
        }
    assert _titled(items, "Blank page on Safari")["aliases"] == ["gh#42"]
    assert json.loads(_export("--json")) == items
    assert "events" not in items[0]


def test_events_come_with_their_items_oldest_first(ledger: Path) -> None:
    _filled()
    items = json.loads(_export("--events"))
    for item in items:
        log = json.loads(coop("log", item["id"], "--json").out)
        assert [e["id"] for e in item["events"]] == [e["id"] for e in log]
    safari = _titled(items, "Blank page on Safari")
    assert [e["verb"] for e in safari["events"]] == ["add", "note", "note"]


def test_json_lines_are_one_item_each(ledger: Path) -> None:
    _filled()
    lines = _export("--format", "jsonl").splitlines()
    assert [json.loads(line)["title"] for line in lines] == [
        i["title"] for i in json.loads(_export())
    ]


def test_csv_guards_formulas_and_lists_events(ledger: Path) -> None:
    _filled()
    rows = list(csv.DictReader(io.StringIO(_export("--format", "csv"))))
    assert '\'=HYPERLINK("http://x")' in [r["title"] for r in rows]
    safari = next(r for r in rows if r["title"] == "Blank page on Safari")
    assert safari["aliases"] == "gh#42" and safari["tags"] == "bug good-first-issue"
    events = list(csv.DictReader(io.StringIO(_export("--format", "csv", "--events"))))
    assert len(events) == sum(len(i["events"]) for i in json.loads(_export("--events")))
    note = next(e for e in events if e["verb"] == "note")
    assert json.loads(note["args"])["text"].endswith("I see it too.")


def test_markdown_keeps_a_body_inside_its_item(ledger: Path) -> None:
    _filled()
    text = _export("--format", "markdown", "--events")
    assert text.startswith("# Ledger export\n")
    assert text.count("\n## ") == 3
    assert "\n> # not a heading" in text
    assert "### Events" in text and "`add`" in text


def test_json_and_another_format_is_a_usage_mistake(ledger: Path) -> None:
    result = coop("export", "--json", "--format", "csv")
    assert result.code == 2 and "--json is --format json" in result.err


def test_an_empty_ledger_exports_nothing_and_no_ledger_says_so(repo: Path) -> None:
    assert coop("export").code == 4
    assert coop("init").code == 0
    assert json.loads(_export()) == []


def test_an_item_s_own_due_date_is_exported_in_every_format(ledger: Path) -> None:
    assert coop("add", "todo", "Dated", "--due", "2026-12-24", env=NOW).code == 0
    assert coop("add", "todo", "Undated", env=NOW).code == 0
    items = json.loads(_export())
    assert _titled(items, "Dated")["due"] == "2026-12-24T23:59:59Z"
    assert "due" not in _titled(items, "Undated")  # as show --json: absent while unset
    rows = list(csv.DictReader(io.StringIO(_export("--format", "csv"))))
    assert {r["title"]: r["due"] for r in rows} == {"Dated": "2026-12-24T23:59:59Z", "Undated": ""}
    assert "- due: 2026-12-24T23:59:59Z\n" in _export("--format", "markdown")


def test_markdown_escapes_a_title_so_it_cannot_forge_structure(ledger: Path) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    forged = "x](https://evil.example) <img src=x onerror=alert(1)> **loud** `code` &amp; ##"
    assert coop("add", "todo", forged, "--tag", "a_b", env=NOW).code == 0
    text = _export("--format", "markdown", "--events")
    tokens = markdown_it.MarkdownIt("commonmark").parse(text)
    kinds = {t.type for t in tokens} | {c.type for t in tokens for c in t.children or ()}
    assert not kinds & {"link_open", "html_inline", "html_block", "strong_open", "em_open"}
    (heading,) = [
        tokens[i + 1] for i, t in enumerate(tokens) if t.type == "heading_open" and t.tag == "h2"
    ]
    assert heading.children is not None
    shown = "".join(c.content for c in heading.children)  # the text a reader sees
    assert shown.endswith(": " + forged), shown
    assert "- tags: a_b\n" not in text and "- tags: a\\_b\n" in text


HIDDEN = "".join(chr(0xE0000 + ord(c)) for c in "IGNORE") + "\u200b"


@pytest.mark.parametrize("form", ["json", "jsonl", "csv", "markdown"])
@pytest.mark.parametrize("events", [False, True])
def test_every_format_escapes_what_draws_nothing(ledger: Path, form: str, events: bool) -> None:
    """A fetched body or note may hold characters that draw nothing (tag characters, a
    zero-width space): an instruction hidden from a person and read by an agent. Every
    format shows them escaped, as every output does (H8); JSON's escapes read back as the
    same text."""
    todo = coop("add", "todo", "plain title", "--body", f"see {HIDDEN} here").out.strip()
    assert coop("note", todo, f"noted {HIDDEN}").code == 0
    out = coop("export", "--format", form, *(["--events"] if events else []))
    assert out.code == 0, out.err
    assert not set(HIDDEN) & set(out.out), ascii(out.out)
    if form == "jsonl":
        assert json.loads(out.out.splitlines()[0])["body"] == f"see {HIDDEN} here"


def test_markdown_shows_a_bodys_html_as_text(ledger: Path) -> None:
    """A stranger's body: `<script>` in a Markdown export would run where the renderer
    passes HTML through. Each `<` is escaped, so the tag is shown as its text."""
    assert (
        coop("add", "todo", "Look", "--body", "> <script>alert(1)</script>\n<img src=x>").code == 0
    )
    text = _export("--format", "markdown")
    assert re.search(r"(?<!\\)<", text) is None  # every < escaped
    assert "\\<script>alert(1)\\</script>" in text and "\\<img src=x>" in text
