"""The board in a real browser: Debian's Chromium, driven by Playwright, against a real
`git coop serve` on 127.0.0.1 in a real repository, with the CLI writing beside it.

Nothing here sleeps: each step waits on a condition of the page (Playwright's waits,
with a timeout). The screenshots of each view go to the test's own folder, so a run
leaves the repository as it was; COOP_BOARD_SCREENSHOTS=docs/board writes them where
docs/board.md shows them (a relative folder is taken from the repository's root).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import coop_process, make_repo, unavailable

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ROOT = Path(__file__).resolve().parents[2]
WAIT_MS = 10_000  # the longest any step waits for the page (live updates take < 1 s)
HOSTILE = "<script>window.owned = 1</script> parser drops the last line"
EARLY = {"COOP_NOW": "2026-11-29T06:00:00Z"}  # a take then is due before the server's now


def cli(repo: Path, *args: str, env: dict[str, str] | None = None) -> Any:
    result = coop_process(repo, *args, "--json", env=env)
    assert result.code == 0, result.err
    return json.loads(result.out)


@pytest.fixture
def playwright_api() -> Any:
    try:
        from playwright import sync_api
    except ImportError:
        unavailable("playwright is not installed (pip install playwright)")
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        unavailable("chromium is not installed (apt-get install chromium)")
    return sync_api


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Path, str, subprocess.Popen[str]]]:
    """A repository with some work in it, and `git coop serve --port 0` running there."""
    repo = make_repo(tmp_path / "repo")
    assert coop_process(repo, "init").code == 0
    seed(repo)
    env = {**os.environ, "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ["PATH"]}
    server = subprocess.Popen(
        ["git", "coop", "serve", "--port", "0", "--json"],
        cwd=repo,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # git runs git-coop as its child: the group is stopped
    )
    try:
        assert server.stdout is not None
        printed = ""  # the JSON object serve prints once its socket listens
        while not printed.endswith("}\n"):
            line = server.stdout.readline()
            assert line, server.stderr.read() if server.stderr else "serve printed nothing"
            printed += line
        url = json.loads(printed)["url"]
        assert url.startswith("http://127.0.0.1:")
        yield repo, url, server
    finally:
        stop(server)


def stop(server: subprocess.Popen[str]) -> None:
    """Kill `git coop serve` and the git-coop process git started for it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(server.pid, signal.SIGKILL)
    server.wait()


def seed(repo: Path) -> None:
    """Work a board shows: tags, priorities, a holder, a blocker, what is owed, a queue."""
    body = "Readers for **beads**, *taskwarrior* and Backlog.md; see [the notes](https://x.org/)."
    title = "Split the importer into readers"
    parser = cli(repo, "add", "todo", title, "--tag", "import", "--body", body)
    cli(repo, "add", "todo", "Document the board", "--tag", "docs", "-p", "1")
    held = cli(repo, "add", "request", "Review the sync retry policy", "--tag", "sync")
    cli(repo, "take", held["id"], "--as", "bob@example.com", "--session", "s1", env=EARLY)
    waits = cli(repo, "add", "todo", "Ship 0.2", "-p", "0", "--body", "Needs **both** parts.")
    cli(repo, "dep", "add", parser["id"], "blocks", waits["id"])
    cli(repo, "take", parser["id"], "--session", "s2")
    cli(repo, "note", parser["id"], "the reader for beads is half done")
    cli(repo, "add", "item", "Unchecked index in cache rebuild", "--tag", "bug")
    done = cli(repo, "add", "todo", "Pin typer below 0.25")
    cli(repo, "done", done["id"], "--summary", "pinned")


def screenshots(tmp_path: Path) -> Path:
    """Where the screenshots go: the test's folder, unless COOP_BOARD_SCREENSHOTS names one."""
    asked = os.environ.get("COOP_BOARD_SCREENSHOTS")
    folder = ROOT / asked if asked else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@contextlib.contextmanager
def chromium(playwright_api: Any) -> Iterator[Any]:
    """Debian's Chromium, started by Playwright, closed when the block ends."""
    with playwright_api.sync_playwright() as play:
        try:
            browser = play.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        except Exception as exc:  # the browser cannot start here
            unavailable(f"chromium does not start: {str(exc).splitlines()[0]}")
        try:
            yield browser
        finally:
            browser.close()


def test_the_board_in_a_real_browser(
    playwright_api: Any, served: tuple[Path, str, subprocess.Popen[str]], tmp_path: Path
) -> None:
    repo, url, server = served
    expect = playwright_api.expect
    base = url.split("/?")[0]
    shots = screenshots(tmp_path)
    with chromium(playwright_api) as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 900})
        page.set_default_timeout(WAIT_MS)
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.goto(url)
        assert page.url == base + "/"  # the token went into a cookie, out of the address
        expect(page.locator("#live")).to_have_attribute("data-state", "live")
        page.evaluate("window.sameDocument = 'yes'")

        # a write from the CLI appears without a reload
        added = cli(repo, "add", "todo", HOSTILE, "--tag", "parser", "-p", "1")
        card = page.locator(f'.card[data-id="{added["id"]}"]')
        expect(card).to_be_visible()
        assert page.evaluate("window.sameDocument") == "yes"
        # a <script> title is text, and never ran
        expect(card.locator(".title")).to_have_text(HOSTILE)
        assert page.evaluate("typeof window.owned") == "undefined"
        page.screenshot(path=str(shots / "board.png"), full_page=True)

        # take it from the page: the CLI agrees
        card.locator("form[action='/act/take'] button").click()
        held = page.locator(f'[data-column="progress"] .card[data-id="{added["id"]}"]')
        expect(held).to_be_visible()
        data = cli(repo, "show", added["id"])
        assert (data["status"], data["taken_by"]) == ("taken", "alice@example.com")

        # finish it from the page
        held.locator("summary", has_text="done").click()
        held.locator("input[name=summary]").fill("fixed in the reader")
        held.locator("form[action='/act/done'] button").click()
        expect(page.locator(f'.card[data-id="{added["id"]}"]')).to_have_count(0)
        expect(page.locator('[data-column="done"]')).to_contain_text("2 done")
        data = cli(repo, "show", added["id"])
        assert (data["status"], data["result_summary"]) == ("done", "fixed in the reader")

        # bob's request shows who holds it, and offers no take
        bobs = page.locator(".card", has_text="Review the sync retry policy")
        expect(bobs).to_contain_text("bob@example.com")
        expect(bobs.locator("form[action='/act/take']")).to_have_count(0)
        assert errors == []

        # the item view; a refusal there shows the CLI's own sentence
        page.goto(base + f"/item/{added['id']}")
        expect(page.locator("h1.title")).to_have_text(HOSTILE)
        expect(page.locator(".timeline")).to_contain_text("done")
        page.goto(base + "/")
        page.locator(".card", has_text="Ship 0.2").locator("a.id").click()
        expect(page.locator("h1.title")).to_have_text("Ship 0.2")
        ship = page.url.rsplit("/", 1)[1]
        refused = coop_process(repo, "take", ship)
        assert refused.code != 0
        page.locator("form[action='/act/take'] button").click()
        expect(page.locator("#toast")).to_have_text(refused.err.strip().splitlines()[0])
        assert cli(repo, "show", ship)["status"] == "open"
        page.goto(base + "/")
        page.locator(".card", has_text="Split the importer").focus()
        page.keyboard.press("Enter")
        expect(page.locator("h1.title")).to_have_text("Split the importer into readers")
        expect(page.locator(".notes")).to_contain_text("the reader for beads is half done")
        expect(page.locator(".body strong")).to_have_text("beads")
        page.screenshot(path=str(shots / "item.png"), full_page=True)

        # the other views
        for view in ("owed", "queue", "graph", "activity"):
            page.goto(f"{base}/{view}")
            expect(page.locator("main h1")).to_have_text(view.capitalize())
            page.screenshot(path=str(shots / f"{view}.png"), full_page=True)
        expect(page.locator("main")).to_contain_text("alice@example.com")  # activity
        page.goto(base + "/owed")
        expect(page.locator("main")).to_contain_text("Review the sync retry policy")

        # at phone width the columns stack
        phone = browser.new_page(viewport={"width": 390, "height": 844})
        phone.goto(url)
        phone.wait_for_selector(".card")
        phone.screenshot(path=str(shots / "phone.png"), full_page=True)
        phone.close()

        # keys: j moves to the first card, t takes it
        page.goto(base + "/")
        first = page.locator('[data-column="ready"] .card').first
        first_id = first.get_attribute("data-id")
        page.keyboard.press("j")
        expect(first).to_be_focused()
        page.keyboard.press("t")
        expect(
            page.locator(f'[data-column="progress"] .card[data-id="{first_id}"]')
        ).to_be_visible()
        assert cli(repo, "show", first_id)["status"] == "taken"

        # a request without the token is refused
        stranger = browser.new_context().new_page()
        answer = stranger.goto(base + "/")
        assert answer is not None and answer.status == 403
        assert "needs its token" in stranger.content()

        # the page says when it lost the server
        page.goto(base + "/")
        expect(page.locator("#live")).to_have_attribute("data-state", "live")
        os.killpg(server.pid, signal.SIGINT)  # Ctrl-C, with the page's stream open
        # a bound on a hang: it ends its streams and stops; git reports the signal
        assert server.wait(timeout=30) == -signal.SIGINT
        assert server.stderr is not None
        said = server.stderr.read()
        assert "Traceback" not in said and "ERROR" not in said, said
        expect(page.locator("#live")).to_have_attribute("data-state", "lost")


def test_an_edit_in_the_browser_keeps_a_body_of_lines(
    playwright_api: Any, served: tuple[Path, str, subprocess.Popen[str]]
) -> None:
    """A browser sends a textarea's line breaks as CRLF, and drops one line break right
    after `<textarea>`: saving the edit form unchanged keeps the body, every line and tab
    of it, and a body typed in lines is stored in lines."""
    repo, url, _ = served
    expect = playwright_api.expect
    base = url.split("/?")[0]
    body = "\n\tindented first\n\nlast line, then a break\n"
    item = cli(repo, "add", "todo", "A body of lines", "--body", body)["id"]
    with chromium(playwright_api) as browser:
        page = browser.new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(url)
        page.goto(f"{base}/item/{item}")
        page.locator("summary", has_text="edit").click()
        edit = page.locator("form[action='/act/edit']")
        assert edit.locator("textarea").input_value() == body
        edit.locator("button").click()
        expect(page.locator("#toast")).to_contain_text("unchanged")
        assert cli(repo, "show", item)["body"] == body

        page.goto(f"{base}/item/{item}")
        page.locator("summary", has_text="edit").click()
        edit.locator("textarea").fill("one\ntwo\n\tthree")
        edit.locator("button").click()
        expect(page.locator("#toast")).to_contain_text("edited")
        assert cli(repo, "show", item)["body"] == "one\ntwo\n\tthree"


def test_a_form_posts_without_the_script(
    playwright_api: Any, served: tuple[Path, str, subprocess.Popen[str]]
) -> None:
    """With JavaScript off a form posts as plain HTML: the browser's Origin is the board's
    (a referrer policy of no-referrer would make it `null`, which is refused), the write
    is made and the page comes back."""
    repo, url, _ = served
    expect = playwright_api.expect
    base = url.split("/?")[0]
    item = cli(repo, "add", "todo", "Taken without a script")["id"]
    with chromium(playwright_api) as browser:
        page = browser.new_context(java_script_enabled=False).new_page()
        page.set_default_timeout(WAIT_MS)
        page.goto(url)
        page.locator(f'.card[data-id="{item}"] form[action="/act/take"] button').click()
        expect(page.locator(f'[data-column="progress"] .card[data-id="{item}"]')).to_be_visible()
        assert page.url == base + "/"
    assert cli(repo, "show", item)["status"] == "taken"
