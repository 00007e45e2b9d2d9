"""The ledger's settings as a command: show them with their defaults, set one, reset one.

A change is a `config` event on the ledger's own id (owners only), written
through `service.ledger.change_setting`; values are checked against the
settings table before anything is written.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitcoop.domain import settings
from gitcoop.domain.record_type import record_type
from gitcoop.domain.settings import SETTINGS, SettingError
from gitcoop.errors import UsageError
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.ledger import change_setting


@record_type
class Shown:
    """One setting: its value here, its default, and whether the ledger sets it."""

    key: str
    value: Any
    default: Any
    is_set: bool
    help: str

    def to_data(self) -> dict[str, Any]:
        return {
            "key": self.key,
            "value": self.value,
            "default": self.default,
            "set": self.is_set,
            "help": self.help,
        }


def show(ctx: Context, key: str | None = None) -> list[Shown]:
    """Every setting (or the one named), as the ledger holds it now."""
    if key is not None:
        known(key)
    return rows(read_ledger(ctx).config.settings, key)


def rows(current: Mapping[str, Any], key: str | None = None) -> list[Shown]:
    return [
        Shown(name, settings.value(current, name), s.default, name in current, s.help)
        for name, s in SETTINGS.items()
        if key is None or name == key
    ]


def known(key: str) -> None:
    if key not in SETTINGS:
        raise UsageError(f"unknown setting {key!r}: the settings are {', '.join(SETTINGS)}")


def set_value(ctx: Context, key: str, text: str | None) -> tuple[Shown, bool]:
    """Set `key` from its text (None: back to its default); whether anything changed."""
    known(key)
    given: int | str | None = None
    if text is not None:
        try:
            given = settings.parse(key, text)
        except SettingError as bad:
            raise UsageError(str(bad)) from None
    before = read_ledger(ctx).config.settings
    after = change_setting(ctx, key, given)
    return rows(after, key)[0], dict(after) != dict(before)
