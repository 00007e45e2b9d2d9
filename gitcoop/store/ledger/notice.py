"""A one-line notice on stderr, for what the store does beside a command's own output.

A write that removes a stale lock, and a claim whose merge refused a peer's
events, say so on stderr while the command runs. Such a notice may quote a
fetched identity, so it is escaped as everything shown is (docs/hardening.md,
H8); the CLI's own output goes through `cli/terminal.py` instead.
"""

from __future__ import annotations

import sys

from gitcoop.domain.bounds import printable


def stderr_notice(message: str) -> None:
    print(f"gitcoop: {printable(message)}", file=sys.stderr)
