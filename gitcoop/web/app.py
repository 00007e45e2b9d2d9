"""The board's pages, its live stream and its actions (docs/board.md).

Pages are rendered on the server (Jinja2, autoescaping on); `?fragment=1` gives
only a page's view, which the page's script fetches again when the ledger
moves. Every action is a POST carrying the CSRF token and the version of the
item the page showed; it calls the same service function as the CLI command of
the same name, as the server's actor, and a refusal answers with the CLI's own
sentence.
"""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import datetime
from importlib import resources
from typing import Any

import anyio
from jinja2 import Environment, PackageLoader
from markupsafe import Markup
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from starlette.routing import Route

from gitcoop.domain import obligations, readiness
from gitcoop.domain.bounds import printable
from gitcoop.domain.timefmt import format_instant
from gitcoop.errors import CoopError
from gitcoop.service import board as boards
from gitcoop.service.context import Context
from gitcoop.service.queries import ListFilter
from gitcoop.web import actions
from gitcoop.web.markdown import render as markdown
from gitcoop.web.security import Guard, same

MakeContext = Callable[[int | None], Context]
POLL_SECONDS = 0.25  # how often the server reads refs/coop/ledger for the live stream
KEEPALIVE_SECONDS = 15.0
STATIC = {"board.js": "text/javascript", "board.css": "text/css"}


@dataclass
class Settings:
    """What one server holds: how to make a Context, and its secrets. Nothing of the ledger."""

    context: MakeContext
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    cookie: str = "coop-board"
    bound: str = "127.0.0.1"
    poll: float = POLL_SECONDS
    stopping: Callable[[], bool] = lambda: False  # the server is shutting down: streams end


def ago(now: datetime, then: datetime | None) -> str:
    """How long ago `then` was, as a card says it: 40s, 12m, 3h, 2d."""
    if then is None:
        return ""
    seconds = int((now - then).total_seconds())
    future = seconds < 0
    seconds = abs(seconds)
    for size, unit in ((86400, "d"), (3600, "h"), (60, "m")):
        if seconds >= size:
            text = f"{seconds // size}{unit}"
            break
    else:
        text = f"{seconds}s"
    return f"in {text}" if future else f"{text} ago"


def _shown(value: Any) -> Any:
    """Every value a page shows, as every output shows it: the characters that draw
    nothing and the controls escaped (`printable`, docs/hardening.md H8), then HTML's
    own (autoescape). Tabs and line breaks stay as they are: a body is text of lines, and
    the edit form sends back what it shows. Markup the board made itself is left alone."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return _text(value)
    return value


def _text(value: str) -> str:
    """A text as the board shows it: escaped, its tabs and line breaks kept."""
    return printable(value, lines=True, tabs=True)


def _environment() -> Environment:
    env = Environment(
        loader=PackageLoader("gitcoop.web", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        finalize=_shown,
    )
    env.filters["instant"] = lambda at: format_instant(at) if at is not None else ""
    env.filters["markdown"] = lambda text: Markup(markdown(_text(text or "")))
    env.filters["short"] = lambda sha: (sha or "")[:12]
    env.filters["obligation"] = obligations.worded  # a kind in words, as `show` says it
    env.globals["due_words"] = readiness.due_words  # `list`'s words for an item's own due date
    return env


def build(settings: Settings) -> Any:
    """The board as an ASGI application, behind its guard."""
    env = _environment()
    tip = _TipWatch(settings)

    def page(request: Request, name: str, view: dict[str, Any], status: int = 200) -> Response:
        ctx = settings.context(None)
        values = {
            **view,
            "now": ctx.now,
            "ago": lambda then: ago(ctx.now, then),
            "csrf": settings.csrf,
            "path": request.url.path,
            "query": request.url.query,
            "decisions": obligations.DECISIONS,
        }
        fragment = env.get_template(f"{name}.html").render(values)
        if request.query_params.get("fragment"):
            return HTMLResponse(fragment, status)
        whole = env.get_template("page.html").render({**values, "fragment": Markup(fragment)})
        return HTMLResponse(whole, status)

    def refused(request: Request, error: CoopError) -> Response:
        view = {"message": error.message, "tip": "", "title": "refused"}
        return page(request, "refused", view, 404 if error.code == "not_found" else 400)

    def board_view(request: Request) -> Response:
        q = request.query_params
        where = ListFilter(
            kind=q.get("kind") or None,
            tag=q.get("tag") or None,
            holder=q.get("holder") or None,
            mine=bool(q.get("mine")),
            grep=q.get("q") or None,
            overdue=bool(q.get("overdue")),
        )
        ctx = settings.context(None)
        try:
            found = boards.board(ctx, where)
        except CoopError as error:
            return refused(request, error)
        view = {
            "board": found,
            "tip": found.tip or "",
            "names": boards.COLUMN_NAMES,
            "filters": {k: q.get(k, "") for k in ("kind", "tag", "holder", "mine", "overdue", "q")},
            "title": "board",
        }
        return page(request, "board", view)

    def item_view(request: Request) -> Response:
        from gitcoop.service import queries

        ref = request.path_params["ref"]
        ctx = settings.context(None)
        try:
            now_tip = _tip(ctx)
            found = queries.detail(ctx, ref)
            entries = queries.log(ctx, found.shown.item.id)
            cited = boards.evidence(ctx, list(found.shown.item.evidence))
            commits = boards.event_commits(ctx, found.shown.item.id, {e.event.id for e in entries})
        except CoopError as error:
            return refused(request, error)
        view = {
            "detail": found,
            "item": found.shown.item,
            "label": found.shown.label,
            "entries": entries,
            "cited": cited,
            "commits": commits,
            "viewer": boards.viewer(ctx),
            "tip": now_tip,
            "title": found.shown.label,
        }
        return page(request, "item", view)

    def owed_view(request: Request) -> Response:
        from gitcoop.service import owed

        ctx = settings.context(None)
        try:
            now_tip = _tip(ctx)
            found = owed.owed(ctx, include_not_due=True)
        except CoopError as error:
            return refused(request, error)
        view = {
            "owed": found,
            "tip": now_tip,
            "title": "owed",
            "reviewer": boards.may_review(ctx),
        }
        return page(request, "owed", view)

    def listing(name: str, key: str, read: Callable[[Context], Any]) -> Any:
        """A view that shows what one service function reads, under `key`."""

        def view(request: Request) -> Response:
            ctx = settings.context(None)
            try:
                now_tip = _tip(ctx)
                found = read(ctx)
            except CoopError as error:
                return refused(request, error)
            return page(request, name, {key: found, "tip": now_tip, "title": name})

        return view

    def queue_read(ctx: Context) -> Any:
        from gitcoop.service import queue

        return queue.view(ctx)

    queue_view = listing("queue", "queue", queue_read)
    graph_view = listing("graph", "graph", boards.graph)
    activity_view = listing("activity", "commits", boards.activity)

    async def act(request: Request) -> Response:
        form = await request.form()
        fields = {k: v for k, v in form.items() if isinstance(v, str)}
        wants_json = request.headers.get("x-board") == "fetch"
        token = request.headers.get("x-csrf-token") or fields.get("csrf")
        origin = request.headers.get("origin")
        if not same(token, settings.csrf) or (origin and not _same_origin(origin, request)):
            message = "this form is stale or came from elsewhere — reload the board and try again"
            if wants_json:
                return JSONResponse({"ok": False, "message": message}, 403)
            return _forbidden(message)
        verb = request.path_params["verb"]
        try:
            said = await anyio.to_thread.run_sync(
                lambda: actions.perform(settings.context, verb, fields)
            )
        except CoopError as error:
            if wants_json:
                message, code = _text(error.message), error.code
                return JSONResponse({"ok": False, "message": message, "code": code})
            return refused(request, error)
        if wants_json:
            return JSONResponse({"ok": True, "message": _text(said.message), "item": said.item})
        back = fields.get("back") or "/"
        if not back.startswith("/") or back.startswith("//"):
            back = "/"
        return RedirectResponse(back, 303)

    async def events(request: Request) -> Response:
        async def stream() -> AsyncIterator[str]:
            yield "retry: 1000\n\n"
            last: str | None = None
            quiet = 0.0
            while not settings.stopping():
                if await request.is_disconnected():
                    return
                now = tip.read()
                if now != last:
                    last = now
                    quiet = 0.0
                    yield f"event: ledger\ndata: {now or ''}\n\n"
                elif quiet >= KEEPALIVE_SECONDS:
                    quiet = 0.0
                    yield ": still here\n\n"
                await anyio.sleep(settings.poll)
                quiet += settings.poll

        return StreamingResponse(stream(), media_type="text/event-stream")

    def static(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in STATIC:
            return Response("not found\n", 404, media_type="text/plain")
        text = resources.files("gitcoop.web").joinpath("static", name).read_text("utf-8")
        return Response(text, media_type=STATIC[name])

    routes = [
        Route("/", board_view),
        Route("/item/{ref}", item_view),
        Route("/owed", owed_view),
        Route("/queue", queue_view),
        Route("/graph", graph_view),
        Route("/activity", activity_view),
        Route("/events", events),
        Route("/static/{name}", static),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/act/{verb}", act, methods=["POST"]),
    ]
    app = Starlette(routes=routes)
    return Guard(app, settings.token, settings.cookie, settings.bound)


def _forbidden(message: str) -> Response:
    return Response(f"gitcoop: {message}\n", 403, media_type="text/plain")


def _same_origin(origin: str, request: Request) -> bool:
    host = request.headers.get("host", "")
    return origin.rstrip("/").lower() in (f"http://{host}".lower(), f"https://{host}".lower())


class _TipWatch:
    """refs/coop/ledger's commit, for the live stream: the repository is opened once and
    only the ref is read again (in the event loop's thread, never in two at once)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.reader: Callable[[], str | None] | None = None

    def read(self) -> str | None:
        try:
            if self.reader is None:
                self.reader = boards.tip_reader(self.settings.context(None))
            return self.reader()
        except CoopError:
            self.reader = None
            return None


def _tip(ctx: Context) -> str:
    """The ledger's commit before a page reads it: if it moves while the page is made, the
    page is older than the stream's tip and fetches itself again."""
    try:
        return boards.tip_reader(ctx)() or ""
    except CoopError:
        return ""
