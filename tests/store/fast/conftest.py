"""What the fast paths' tests share."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from gitcoop.store import fast


@pytest.fixture
def by_reference(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """COOP_REFERENCE=1 for the test: every fast path takes the path it shadows."""
    monkeypatch.setenv(fast.REFERENCE, "1")
    fast.forget()
    yield
    monkeypatch.undo()
    fast.forget()
