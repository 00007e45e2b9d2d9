"""What every request to the board passes first: the Host, the token, and the headers.

An ASGI middleware, so the live stream (server-sent events) passes through it
as any page does. A request is refused unless:

- its `Host` names this machine: `localhost`, an IP literal, or the address the
  server was bound to (a name an attacker's DNS could point here is refused:
  DNS rebinding);
- it carries the server's token: in the URL (`?token=`, then a cookie is set and
  the browser is sent to the same address without it) or in that cookie.

Every answer carries a Content-Security-Policy that allows only the board's own
script and style, no framing, and no referrer (the token never leaves in one).
No CORS header is ever sent. The CSRF token of writes is checked by the write
endpoints (web/app.py), with the Origin.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any
from urllib.parse import parse_qsl, urlencode

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"same-origin"),  # a form's Origin is sent, never to others
    (b"x-frame-options", b"DENY"),
    (b"cache-control", b"no-store"),
]
LOCAL_NAMES = ("localhost",)


def host_allowed(host: str, bound: str) -> bool:
    """Whether a Host header names this server: localhost, an IP literal (no DNS answer
    can rebind it), or the name the server was bound to."""
    name = host.strip().lower()
    if name.startswith("["):  # [::1]:8080
        name = name[1 : name.find("]")] if "]" in name else name
    elif name.count(":") == 1:
        name = name.rsplit(":", 1)[0]
    if not name:
        return False
    if name in LOCAL_NAMES or name == bound.lower().strip("[]"):
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def same(given: str | None, expected: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(), expected.encode())


class Guard:
    """The ASGI middleware in front of the board."""

    def __init__(self, app: App, token: str, cookie: str, bound: str) -> None:
        self.app = app
        self.token = token
        self.cookie = cookie
        self.bound = bound

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        if not host_allowed(headers.get("host", ""), self.bound):
            await _plain(send, 421, "gitcoop: this board answers only at 127.0.0.1 or localhost")
            return
        query = parse_qsl(scope.get("query_string", b"").decode("latin-1"), True)
        given = dict(query).get("token")
        jar: SimpleCookie = SimpleCookie()
        try:
            jar.load(headers.get("cookie", ""))
        except Exception:  # a malformed cookie header carries no token
            jar = SimpleCookie()
        held = jar[self.cookie].value if self.cookie in jar else None
        if given is not None and same(given, self.token) and scope["method"] in ("GET", "HEAD"):
            rest = urlencode([(k, v) for k, v in query if k != "token"])
            where = scope.get("path", "/") + (f"?{rest}" if rest else "")
            await _redirect(send, where, self._cookie_header())
            return
        if not same(held, self.token):
            await _plain(
                send,
                403,
                "gitcoop: this board needs its token — open the address git coop serve printed",
            )
            return

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), *HEADERS]
            await send(message)

        await self.app(scope, receive, secured)

    def _cookie_header(self) -> bytes:
        return f"{self.cookie}={self.token}; Path=/; HttpOnly; SameSite=Strict".encode()


async def _plain(send: Send, status: int, text: str) -> None:
    body = (text + "\n").encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"text/plain; charset=utf-8"),
                (b"content-length", str(len(body)).encode()),
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


async def _redirect(send: Send, where: str, cookie: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 303,
            "headers": [
                (b"location", where.encode("latin-1", errors="replace")),
                (b"set-cookie", cookie),
                (b"content-length", b"0"),
                *HEADERS,
            ],
        }
    )
    await send({"type": "http.response.body", "body": b""})
