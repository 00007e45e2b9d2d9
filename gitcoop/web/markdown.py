"""An item's body as HTML: Markdown without raw HTML, links only to the web and mail."""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

SAFE_SCHEMES = ("http:", "https:", "mailto:")


def _safe_link(url: str) -> bool:
    """Only http, https and mailto links; anything with another scheme is shown as text.
    A relative link (no scheme) would point into the board itself: text as well."""
    folded = "".join(url.split()).lower()
    return folded.startswith(SAFE_SCHEMES)


def _renderer() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.validateLink = _safe_link  # type: ignore[method-assign]

    def link_open(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        token = tokens[idx]
        token.attrSet("rel", "noopener noreferrer nofollow")
        rendered: str = renderer.renderToken(tokens, idx, options, env)
        return rendered

    def image(renderer: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
        # the board loads nothing from elsewhere (its CSP says so): an image is a link to it
        token = tokens[idx]
        src = escapeHtml(str(token.attrGet("src") or ""))
        alt = escapeHtml(token.content) or src
        return f'<a href="{src}" rel="noopener noreferrer nofollow">[image: {alt}]</a>'

    md.add_render_rule("link_open", link_open)
    md.add_render_rule("image", image)
    return md


_MD: MarkdownIt | None = None


def render(text: str) -> str:
    """Safe HTML for `text`: every tag in it is escaped, every unsafe link left as text."""
    global _MD
    if _MD is None:
        _MD = _renderer()
    rendered: str = _MD.render(text)
    return rendered
