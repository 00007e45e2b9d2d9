"""The board over HTTP, through Starlette's test client, on a real repository.

Every action is checked against the CLI: the same write, or the same sentence
when it is refused. The token, Host and CSRF checks refuse before anything runs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("jinja2")
pytest.importorskip("httpx")

from starlette.testclient import TestClient

from gitcoop.cli.invocation import make_context
from gitcoop.web.app import Settings, build
from tests.conftest import Clones, coop, coop_in, git

BASE = "http://127.0.0.1:8765"
HOSTILE = "<script>alert('owned')</script> & <img src=x onerror=alert(1)>"


@pytest.fixture
def settings(ledger: Path) -> Settings:
    return Settings(lambda expect: make_context(None, None, expect), cookie="coop-board-8765")


@pytest.fixture
def client(settings: Settings) -> Iterator[TestClient]:
    with TestClient(build(settings), base_url=BASE) as opened:
        answer = opened.get(f"/?token={settings.token}", follow_redirects=False)
        assert answer.status_code == 303
        yield opened


def added(*args: str) -> str:
    result = coop("add", *args)
    assert result.code == 0, result.err
    return result.out.strip()


def shown(ref: str) -> dict[str, Any]:
    result = coop("show", ref, "--json")
    assert result.code == 0, result.err
    data: dict[str, Any] = result.json()
    return data


def act(client: TestClient, settings: Settings, verb: str, **form: Any) -> dict[str, Any]:
    answer = client.post(
        f"/act/{verb}",
        data={"csrf": settings.csrf, **{k: str(v) for k, v in form.items()}},
        headers={"X-Board": "fetch", "Origin": BASE},
    )
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def escaped(text: str) -> str:
    """As Jinja2's autoescaping writes it."""
    from markupsafe import escape

    return str(escape(text))


def cli_sentence(*args: str) -> str:
    result = coop(*args)
    assert result.code != 0
    line = result.err.strip().splitlines()[0]
    return line.removeprefix("gitcoop: ")


# -- the guard ---------------------------------------------------------------------


def test_a_request_without_the_token_is_refused(settings: Settings) -> None:
    with TestClient(build(settings), base_url=BASE) as bare:
        for path in ("/", "/item/x", "/owed", "/events", "/static/board.js"):
            answer = bare.get(path)
            assert answer.status_code == 403, path
            assert "needs its token" in answer.text
        assert bare.get("/?token=wrong").status_code == 403
        posted = bare.post("/act/add", data={"csrf": settings.csrf, "title": "sneaky"})
        assert posted.status_code == 403
    assert "sneaky" not in coop("list").out


def test_the_token_in_the_address_becomes_a_cookie_and_leaves_the_address(
    settings: Settings,
) -> None:
    with TestClient(build(settings), base_url=BASE) as opened:
        answer = opened.get(f"/?token={settings.token}&kind=todo", follow_redirects=False)
        assert answer.status_code == 303
        assert answer.headers["location"] == "/?kind=todo"
        cookie = answer.headers["set-cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert opened.get("/").status_code == 200


def test_a_host_that_is_not_this_machine_is_refused(settings: Settings) -> None:
    """DNS rebinding: a name the attacker's DNS points at 127.0.0.1 is not this board's."""
    with TestClient(build(settings), base_url="http://attacker.example:8765") as far:
        assert far.get(f"/?token={settings.token}").status_code == 421
    for host in ("localhost:8765", "127.0.0.1:8765", "[::1]:8765"):
        with TestClient(build(settings), base_url=f"http://{host}") as near:
            assert near.get(f"/?token={settings.token}").status_code == 200, host


def test_every_answer_carries_the_policy_and_no_cors(client: TestClient) -> None:
    for path in ("/", "/owed", "/queue", "/graph", "/activity", "/static/board.js"):
        answer = client.get(path, headers={"Origin": "http://attacker.example"})
        assert answer.status_code == 200, path
        policy = answer.headers["content-security-policy"]
        assert "script-src 'self'" in policy and "unsafe-inline" not in policy
        assert answer.headers["referrer-policy"] == "same-origin"
        assert not any(h.lower().startswith("access-control") for h in answer.headers)


def test_a_page_has_no_inline_script(client: TestClient) -> None:
    added("todo", "anything")
    page = client.get("/").text
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page, re.S)
    assert scripts == [""]  # only <script src="/static/board.js">
    assert not re.search(r"<[^>]+\son[a-z]+=", page)


def test_a_write_without_the_csrf_token_or_from_elsewhere_is_refused(
    client: TestClient, settings: Settings
) -> None:
    todo = added("todo", "guarded")
    bare = client.post("/act/take", data={"item": todo}, headers={"X-Board": "fetch"})
    assert bare.status_code == 403
    wrong = client.post(
        "/act/take", data={"item": todo, "csrf": "nope"}, headers={"X-Board": "fetch"}
    )
    assert wrong.status_code == 403
    elsewhere = client.post(
        "/act/take",
        data={"item": todo, "csrf": settings.csrf},
        headers={"X-Board": "fetch", "Origin": "http://attacker.example"},
    )
    assert elsewhere.status_code == 403
    assert shown(todo)["status"] == "open"


# -- the views ----------------------------------------------------------------------


def test_the_board_shows_cards_in_their_columns(client: TestClient) -> None:
    ready = added("todo", "ready work", "--tag", "ui", "-p", "1")
    held = added("todo", "held work")
    assert coop("take", held, "--as", "bob@example.com").code == 0
    waiting = added("todo", "waiting work")
    assert coop("dep", "add", held, "blocks", waiting).code == 0
    done = added("todo", "finished work")
    assert coop("done", done).code == 0
    page = client.get("/").text
    columns = dict(re.findall(r'data-column="(\w+)">(.*?)</section>', page, re.S))
    assert "ready work" in columns["ready"] and "ui" in columns["ready"]
    assert "held work" in columns["progress"] and "bob@example.com" in columns["progress"]
    assert "waiting work" in columns["blocked"] and "waits on" in columns["blocked"]
    assert "finished work" not in page  # settled work is counted, not listed
    assert "1 done" in columns["done"]
    assert ready and shown(ready)["status"] == "open"


def test_the_board_filters(client: TestClient) -> None:
    added("todo", "alpha thing", "--tag", "ui")
    added("request", "beta thing")
    mine = added("todo", "gamma thing")
    assert coop("take", mine).code == 0
    assert "beta" not in client.get("/?tag=ui").text
    assert "alpha" not in client.get("/?kind=request").text
    only_mine = client.get("/?mine=1").text
    assert "gamma" in only_mine and "alpha" not in only_mine
    searched = client.get("/?q=BETA").text
    assert "beta thing" in searched and "alpha thing" not in searched
    assert "gamma" in client.get("/?holder=alice").text


def card_of(page: str, label: str) -> str:
    cards = [c for c in page.split("<article ")[1:] if f">{label}</a>" in c.split("</article>")[0]]
    assert len(cards) == 1, label
    return cards[0].split("</article>")[0]


def test_an_items_own_due_date_is_on_its_card_and_page(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    late = added("todo", "pay the invoice", "--due", "2026-12-24")
    later = added("todo", "renew the domain", "--due", "2027-01-31")
    undated = added("todo", "tidy the docs")
    closed = added("todo", "settled before it was due", "--due", "2026-12-01")
    assert coop("done", closed).code == 0
    monkeypatch.setenv("COOP_NOW", "2026-12-26T12:00:00Z")  # a day and a half after
    listed = coop("list").out
    assert "[overdue 1d 12h]" in listed and "[due in 36d]" in listed  # the words are list's
    page = client.get("/").text
    assert re.search(r'class="deadline overdue"[^>]*>overdue 1d 12h<', card_of(page, late))
    assert re.search(r'class="deadline"[^>]*>due in 36d<', card_of(page, later))
    assert "deadline" not in card_of(page, undated)
    assert "settled before" not in page
    item = client.get(f"/item/{late}").text
    assert re.search(r'class="deadline overdue">2026-12-24T23:59:59Z \(overdue 1d 12h\)', item)
    assert "deadline overdue" not in client.get(f"/item/{closed}").text  # never overdue
    only = client.get("/?overdue=1").text
    assert "pay the invoice" in only and "renew the domain" not in only
    assert "tidy the docs" not in only


def test_hostile_text_is_shown_as_text_everywhere(client: TestClient) -> None:
    todo = added(
        "todo", HOSTILE, "--tag", "x", "--body", HOSTILE + "\n\n[click](javascript:alert(1))"
    )
    assert coop("note", todo, HOSTILE).code == 0
    assert coop("take", todo).code == 0
    for path in ("/", f"/item/{todo}", "/owed?x=1", "/activity", "/graph"):
        page = client.get(path).text
        assert "<script>alert" not in page, path
        assert "<img src=x" not in page, path
    item = client.get(f"/item/{todo}").text
    assert "&lt;script&gt;alert(&#39;owned&#39;)&lt;/script&gt;" in item
    assert 'href="javascript' not in item.lower()


def test_the_body_is_markdown_without_raw_html(client: TestClient) -> None:
    body = "# Plan\n\n*soon* <b>bold</b> [site](https://example.org) [x](data:text/html,hi)"
    todo = added("todo", "with a body", "--body", body)
    page = client.get(f"/item/{todo}").text
    assert "<h1>Plan</h1>" in page and "<em>soon</em>" in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">site</a>' in page
    assert 'href="data:' not in page


def test_the_item_view_shows_everything_about_it(client: TestClient) -> None:
    first = added("todo", "first part")
    second = added("todo", "second part")
    assert coop("dep", "add", first, "blocks", second).code == 0
    assert coop("take", first, "--session", "s1").code == 0
    took = git(Path.cwd(), "rev-parse", "refs/coop/ledger").strip()
    assert coop("note", first, "found the cause").code == 0
    page = client.get(f"/item/{first}").text
    take_line = re.search(r"alice@example.com</b> take.*?</li>", page, re.S)
    assert take_line is not None and f'title="{took}"' in take_line.group(0)  # its commit
    assert "first part" in page and "found the cause" in page
    assert "second part" in page  # the link, from this end
    assert "outcome" in page and "due" in page  # what the take owes
    assert re.search(r"alice@example.com</b> take", page)  # the history
    other = client.get(f"/item/{second}").text
    assert "first part" in other  # and from the other end
    missing = client.get("/item/td-nothing")
    assert missing.status_code == 404
    assert escaped(cli_sentence("show", "td-nothing")) in missing.text


def test_the_queue_item_shows_its_evidence_from_git(client: TestClient, ledger: Path) -> None:
    (ledger / "app.py").write_text("one\ntwo\nthree = 3\nfour\nfive\n")
    git(ledger, "add", "app.py")
    git(ledger, "commit", "-q", "-m", "app")
    item = added("item", "three is wrong", "--evidence", "app.py:3")
    (ledger / "app.py").write_text("changed in the work tree\n")
    page = client.get(f"/item/{item}").text
    assert "app.py:3" in page
    assert "three = 3" in page and "changed in the work tree" not in page


def test_the_other_views(client: TestClient) -> None:
    todo = added("todo", "owing work")
    assert coop("take", todo, "--session", "s1").code == 0
    later = {"COOP_NOW": "2026-11-29T14:00:00Z"}
    import os

    os.environ.update(later)
    try:
        owed = client.get("/owed").text
    finally:
        os.environ["COOP_NOW"] = "2026-11-29T10:00:00Z"
    assert "owing work" in owed and "pressing" in owed and "decide" in owed
    os.environ.update({**later, "COOP_ACTOR": "bob@example.com"})  # not an owner nor a chief
    try:
        seen_by_bob = client.get("/owed").text
    finally:
        os.environ["COOP_NOW"] = "2026-11-29T10:00:00Z"
        del os.environ["COOP_ACTOR"]
    assert "Reviews are for owners and chiefs" in seen_by_bob and "decide" not in seen_by_bob
    added("item", "a finding")
    queue = client.get("/queue").text
    assert "a finding" in queue
    activity = client.get("/activity").text
    assert "alice@example.com" in activity and activity.count("<li") >= 3
    graph = client.get("/graph").text
    assert "no open work waits" in graph


def test_the_graph_marks_a_cycle_a_merge_made(
    clones: Clones, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.service.test_sync import add, sync, two

    a, b = two(clones)
    first, second = add(a, "first half"), add(a, "second half")
    sync(a)
    sync(b)
    assert coop_in(a, "dep", "add", first, "blocks", second).code == 0  # offline, each
    assert coop_in(b, "dep", "add", second, "blocks", first).code == 0
    sync(a)
    sync(b)
    sync(a)
    monkeypatch.chdir(a)
    settings = Settings(lambda expect: make_context(None, None, expect))
    with TestClient(build(settings), base_url=BASE) as opened:
        graph = opened.get(f"/graph?token={settings.token}").text
    assert graph.count('class="cycle"') == 1
    assert graph.count('class="on-cycle"') == 2  # both links are on it
    assert "remove a link to break it" in graph


def test_a_fragment_is_the_view_alone(client: TestClient) -> None:
    added("todo", "in the fragment")
    fragment = client.get("/?fragment=1").text
    assert fragment.startswith('<div class="view" data-tip="')
    assert "<html" not in fragment and "in the fragment" in fragment
    tip = re.search(r'data-tip="([0-9a-f]+)"', fragment)
    assert tip is not None
    assert added("todo", "moves the tip")
    assert re.search(r'data-tip="([0-9a-f]+)"', client.get("/?fragment=1").text) != tip.group(1)


def test_the_script_is_the_projects_own_static_file(client: TestClient) -> None:
    script = client.get("/static/board.js")
    assert script.headers["content-type"].startswith("text/javascript")
    assert "EventSource" in script.text and len(script.text.splitlines()) < 400
    assert client.get("/static/../app.py").status_code == 404
    assert client.get("/static/other.js").status_code == 404


# -- the actions ----------------------------------------------------------------------


def test_take_done_through_the_board_is_what_the_cli_records(
    client: TestClient, settings: Settings
) -> None:
    todo = added("todo", "board work")
    took = act(client, settings, "take", item=todo, version=shown(todo)["version"])
    assert took["ok"] and took["message"].startswith("took ")
    data = shown(todo)
    assert (data["status"], data["taken_by"]) == ("taken", "alice@example.com")
    finished = act(client, settings, "done", item=todo, version=data["version"], summary="ok")
    assert finished["ok"]
    assert (shown(todo)["status"], shown(todo)["result_summary"]) == ("done", "ok")


def test_a_change_that_arrived_in_between_is_refused_with_the_clis_sentence(
    client: TestClient, settings: Settings
) -> None:
    todo = added("todo", "contested")
    seen = shown(todo)["version"]
    assert coop("take", todo, "--as", "bob@example.com").code == 0
    refused = act(client, settings, "take", item=todo, version=seen)
    assert not refused["ok"]
    assert refused["message"] == cli_sentence("take", todo, "--expect-version", str(seen))
    assert shown(todo)["taken_by"] == "bob@example.com"


def test_refusals_are_the_clis_own_sentences(client: TestClient, settings: Settings) -> None:
    todo = added("todo", "held by bob")
    assert coop("take", todo, "--as", "bob@example.com").code == 0
    taking = act(client, settings, "take", item=todo)
    assert taking["message"] == cli_sentence("take", todo)
    released = act(client, settings, "release", item=todo)
    assert released["message"] == cli_sentence("release", todo, "--reason", " ")
    noted = act(client, settings, "note", item=todo, text="  ")
    assert noted["message"] == cli_sentence("note", todo, " ")
    unknown = act(client, settings, "done", item="td-nothing")
    assert unknown["message"] == cli_sentence("done", "td-nothing")
    cycle_a, cycle_b = added("todo", "a"), added("todo", "b")
    assert act(client, settings, "dep", item=cycle_a, link="blocks", other=cycle_b)["ok"]
    loop = act(client, settings, "dep", item=cycle_b, link="blocks", other=cycle_a)
    assert loop["message"] == cli_sentence("dep", "add", cycle_b, "blocks", cycle_a)


def test_add_note_release_edit_and_links(client: TestClient, settings: Settings) -> None:
    made = act(client, settings, "add", kind="todo", title="from the board", tags="ui, web")
    assert made["ok"]
    item = made["item"]
    data = shown(item)
    assert (data["title"], data["tags"]) == ("from the board", ["ui", "web"])
    assert act(client, settings, "note", item=item, text="a note")["ok"]
    assert coop("show", item).out.count("a note") == 1
    assert act(client, settings, "take", item=item)["ok"]
    assert act(client, settings, "release", item=item, reason="not now")["ok"]
    assert shown(item)["status"] == "open"
    edited = act(client, settings, "edit", item=item, title="renamed", priority="0", untag="ui")
    assert edited["ok"], edited
    data = shown(item)
    assert (data["title"], data["priority"], data["tags"]) == ("renamed", 0, ["web"])
    other = added("todo", "other")
    assert act(client, settings, "dep", item=item, link="blocks", other=other)["ok"]
    assert shown(other)["dependencies"]["blocked_by"][0]["id"] == item
    removed = act(client, settings, "dep", item=item, action="remove", link="blocks", other=other)
    assert removed["ok"]
    assert shown(other)["dependencies"]["blocked_by"] == []
    assert act(client, settings, "abandon", item=other, reason="dropped")["ok"]
    assert shown(other)["status"] == "abandoned"
    request = act(client, settings, "add", kind="request", title="a request")["item"]
    assert act(client, settings, "close", item=request, summary="answered")["ok"]
    assert shown(request)["status"] == "closed"


def test_report_review_and_ack(client: TestClient, settings: Settings) -> None:
    todo = added("todo", "reported")
    assert act(client, settings, "take", item=todo)["ok"]
    blocked = act(client, settings, "report", item=todo, status="blocked", reason="waiting on ci")
    assert blocked["ok"], blocked
    assert shown(todo)["obligation"]["latest_report"]["status"] == "blocked"
    bad = act(client, settings, "report", item=todo, status="released")
    assert bad["message"] == cli_sentence("report", todo, "released")
    reviewed = act(client, settings, "review", item=todo, decision="defer", after="30m")
    assert reviewed["ok"], reviewed
    nothing = act(client, settings, "ack", item=todo)
    assert nothing["ok"] and nothing["message"] == coop("ack", todo).out.strip()
    resolved = act(
        client, settings, "resolve", item=todo, event="ev-none", decision="dismiss", reason="x"
    )
    assert not resolved["ok"]
    assert resolved["message"] == cli_sentence(
        "resolve", todo, "ev-none", "--dismiss", "--reason", "x"
    )


def test_a_form_without_the_script_writes_and_comes_back(
    client: TestClient, settings: Settings
) -> None:
    todo = added("todo", "plain form")
    answer = client.post(
        "/act/take",
        data={"csrf": settings.csrf, "item": todo, "back": "/?kind=todo"},
        follow_redirects=False,
    )
    assert answer.status_code == 303 and answer.headers["location"] == "/?kind=todo"
    assert shown(todo)["status"] == "taken"
    away = client.post(
        "/act/note",
        data={"csrf": settings.csrf, "item": todo, "text": "x", "back": "//evil.example/"},
        follow_redirects=False,
    )
    assert away.headers["location"] == "/"
    refused = client.post("/act/take", data={"csrf": settings.csrf, "item": "td-nothing"})
    assert refused.status_code == 404
    assert escaped(cli_sentence("take", "td-nothing")) in refused.text


# -- serve itself ---------------------------------------------------------------------


def test_serve_without_the_web_extra_says_what_to_install(
    ledger: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in [n for n in sys.modules if n.startswith("gitcoop.web")]:
        monkeypatch.delitem(sys.modules, name)
    for name in ["starlette", *(n for n in sys.modules if n.startswith("starlette."))]:
        monkeypatch.setitem(sys.modules, name, None)  # as if the extra were not installed
    result = coop("serve", "--port", "0")
    assert result.code == 9  # this machine lacks it, as mcp's extra
    assert result.err.startswith("gitcoop: the board needs the web extra — pip install")


def test_the_live_stream_sends_the_ledgers_commit_each_time_it_moves(
    settings: Settings,
) -> None:
    """/events: the commit refs/coop/ledger is at, then again whenever a write moves it."""
    import anyio

    app = build(settings)
    seen: list[str] = []
    moved = anyio.Event()

    async def receive() -> dict[str, Any]:
        await moved.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] != "http.response.body":
            return
        tips = re.findall(r"event: ledger\ndata: ([0-9a-f]+)\n\n", message["body"].decode())
        seen.extend(tips)
        if tips and len(seen) == 1:  # a write from elsewhere, while the stream is open
            await anyio.to_thread.run_sync(lambda: coop("add", "todo", "moves the ledger"))
        elif len(seen) >= 2:
            moved.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0", "spec_version": "2.3"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": "/events",
        "raw_path": b"/events",
        "query_string": b"",
        "root_path": "",
        "headers": [
            (b"host", b"127.0.0.1:8765"),
            (b"cookie", f"{settings.cookie}={settings.token}".encode()),
        ],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8765),
    }

    async def run() -> None:
        with anyio.fail_after(30):  # a bound on a hang, not a measure of speed
            await app(scope, receive, send)

    anyio.run(run)
    assert len(seen) >= 2 and seen[0] != seen[1]  # each commit is sent once

    assert seen[-1] == git(Path.cwd(), "rev-parse", "refs/coop/ledger").strip()


def test_serve_on_a_port_in_use_says_so_in_one_line(ledger: Path) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        result = coop("serve", "--port", str(port))
    assert result.code == 2
    assert result.err.startswith(f"gitcoop: cannot listen on 127.0.0.1:{port} (")
    assert result.err.endswith("— choose another --port\n") and result.err.count("\n") == 1


def test_serve_on_an_address_this_machine_lacks_names_the_host(ledger: Path) -> None:
    result = coop("serve", "--host", "192.0.2.1", "--port", "0")  # TEST-NET-1: no one's
    assert result.code == 2
    assert result.err.rstrip().endswith("— choose a --host this machine has (127.0.0.1)")


def test_serve_outside_a_ledger_says_what_to_do(repo: Path) -> None:
    result = coop("serve", "--port", "0")
    assert result.code != 0
    assert result.err == "gitcoop: no ledger in this repository yet — run: git coop init\n"


def test_an_edit_on_the_board_keeps_a_bodys_tabs_and_lines(
    client: TestClient, settings: Settings
) -> None:
    """The edit form sends back the body it shows: a page escapes what draws nothing, not
    a body's tabs and line breaks, or any edit (a tag added) rewrote them as `\\x09`."""
    import html

    todo = added("todo", "tabbed", "--body", "def f():\n\treturn 1")
    page = client.get(f"/item/{todo}").text
    found = re.search(r'<textarea name="body"[^>]*>(.*?)</textarea>', page, re.S)
    assert found is not None
    body = html.unescape(found.group(1)).strip("\n")
    assert body == "def f():\n\treturn 1", body
    version = shown(todo)["version"]
    edited = act(
        client, settings, "edit", item=todo, version=version, title="tabbed", tags="x", body=body
    )
    assert edited["ok"], edited
    assert shown(todo)["body"] == "def f():\n\treturn 1"


def test_an_answer_keeps_the_line_between_it_and_its_note(
    client: TestClient, settings: Settings
) -> None:
    todo = added("todo", "u")
    assert coop("take", todo).code == 0
    assert coop("done", todo, "--summary", "s1").code == 0
    said = act(client, settings, "done", item=todo, summary="s2", version=shown(todo)["version"])
    assert "\\x0a" not in said["message"] and "\n" in said["message"], said


def test_the_history_shows_an_argument_whose_value_is_zero(client: TestClient) -> None:
    """`edit -p 0` says priority=0 on the item page, as `git coop log` does."""
    todo = added("todo", "Urgent after all", "-p", "3")
    assert coop("edit", todo, "-p", "0").code == 0
    page = client.get(f"/item/{todo}").text
    assert '<span class="arg">priority=0</span>' in page
    assert '<span class="arg">previous_priority=3</span>' in page


def test_the_owed_page_shows_what_is_due_apart_from_what_is_not_yet(
    client: TestClient,
) -> None:
    """What needs a review now is what `git coop owed` lists; what is owed later is apart,
    under its own heading, as `owed --all` adds it."""
    todo = added("todo", "Taken moments ago")
    assert coop("take", todo, "--session", "s1").code == 0
    assert "nothing owed is due" in coop("owed").out
    page = client.get("/owed").text
    assert "nothing owed is due" in page
    later = page.index("<h2>Not yet due</h2>")
    assert page.index("Taken moments ago") > later
    assert 'name="decision"' in page[later:]  # decided from here as well


def test_a_commit_of_another_repository_is_recorded_from_the_board_as_the_cli_does(
    client: TestClient, settings: Settings
) -> None:
    """The done form has the CLI's --commit-elsewhere, which its refusal names."""
    todo = added("todo", "fixed upstream")
    sha = "ab" * 20
    refused = act(client, settings, "done", item=todo, version=shown(todo)["version"], commit=sha)
    assert not refused["ok"] and "--commit-elsewhere" in refused["message"]
    page = client.get(f"/item/{todo}").text
    assert 'name="commit_elsewhere"' in page
    done = act(
        client, settings, "done", item=todo, version=shown(todo)["version"], commit=sha,
        commit_elsewhere="1",
    )  # fmt: skip
    assert done["ok"], done
    assert shown(todo)["commit_sha"] == sha
    alone = act(client, settings, "close", item=added("request", "r"), commit_elsewhere="1")
    assert not alone["ok"] and "goes with --commit" in alone["message"]


def test_what_an_item_owes_is_worded_as_show_words_it(client: TestClient) -> None:
    todo = added("todo", "taken without a session")
    assert coop("take", todo).code == 0
    assert coop("done", todo).code == 0
    owes = next(line for line in coop("show", todo).out.splitlines() if line.startswith("owes"))
    page = client.get(f"/item/{todo}").text
    said = owes.split(None, 1)[1].split(",")[0]  # "review owed (taken without a session)"
    assert escaped(said) in page, said
    assert "legacy_binding" not in page
