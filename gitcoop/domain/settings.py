"""The ledger's settings: a fixed table of bounded values that owners change by events.

Settings travel with the ledger, so they are data from every clone that
shares it: each is a number within bounds, or one short line of text, checked
whenever coop.yaml is read. Nothing here names a command to run, a time cap
for one, or a local path; those come from local git config only (a ledger
may suggest a verifier, and `verify` only prints the suggestion).

A change is a `config` event on the ledger's own id, like a role change, so a
merge replays the union of both sides' changes and every clone derives the
same settings (`rulebook.fold_ledger`). Only owners change them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gitcoop.domain.bounds import has_unsafe
from gitcoop.domain.record_type import record_type

TEXT_MAX = 500
FLAG_WORDS = {"true": True, "yes": True, "on": True, "false": False, "no": False, "off": False}


class SettingError(ValueError):
    """A value a setting does not take; the message names the setting."""


@record_type
class Setting:
    name: str
    help: str
    default: bool | int | str | None
    low: int = 0  # numbers: the bounds, both included
    high: int = 0

    @property
    def is_flag(self) -> bool:
        return isinstance(self.default, bool)

    @property
    def is_text(self) -> bool:
        return not isinstance(self.default, int)

    def check(self, value: Any) -> bool | int | str | None:
        """The value, or SettingError saying what this setting takes."""
        if self.is_flag:
            if isinstance(value, bool):
                return value
            raise SettingError(f"settings.{self.name} must be true or false, not {value!r}")
        if self.is_text:
            if value is None or (isinstance(value, str) and _text_ok(value)):
                return value
            raise SettingError(
                f"settings.{self.name} must be one line of at most {TEXT_MAX} characters"
            )
        number = isinstance(value, int) and not isinstance(value, bool)
        if number and self.low <= value <= self.high:
            return int(value)
        raise SettingError(
            f"settings.{self.name} must be a whole number from {self.low} to {self.high}, "
            f"not {value!r}"
        )


SETTINGS: dict[str, Setting] = {
    s.name: s
    for s in (
        Setting("max_same_shape", "findings of one shape a scan keeps", 3, 1, 1000),
        Setting(
            "topup_threshold",
            "the queue asks for a top-up when fewer live items than this remain",
            5,
            0,
            100_000,
        ),
        Setting("topup_size", "how many findings a top-up asks for", 10, 1, 10_000),
        Setting(
            "require_signed",
            "every ledger commit must be signed by a key the ledger registers to its author",
            False,
        ),
        Setting(
            "verifier",
            "a verifier command this ledger suggests; never run (git config coop.verifier runs)",
            None,
        ),
    )
}


def _text_ok(value: str) -> bool:
    return len(value) <= TEXT_MAX and not has_unsafe(value)


def checked(settings: Any) -> dict[str, Any]:
    """coop.yaml's settings, every value checked; SettingError names the first bad one.

    A key this gitcoop does not know (a newer one's) is kept only as a short
    scalar, and means nothing here.
    """
    if settings is None:
        return {}
    if not isinstance(settings, Mapping):
        raise SettingError("settings must be a mapping")
    found: dict[str, Any] = {}
    for key, value in settings.items():
        if key in SETTINGS:
            found[key] = SETTINGS[key].check(value)
        elif not (isinstance(key, str) and _text_ok(key) and _scalar(value)):
            raise SettingError(f"settings.{key!s:.40}: an unknown setting must be a short scalar")
        else:
            found[key] = value
    return found


def _scalar(value: Any) -> bool:
    if isinstance(value, str):
        return _text_ok(value)
    if isinstance(value, bool) or value is None:
        return True
    return isinstance(value, int) and -(2**53) <= value <= 2**53


def parse(name: str, text: str) -> bool | int | str:
    """A value typed on the command line for setting `name`, checked; SettingError if not."""
    setting = SETTINGS.get(name)
    if setting is None:
        raise SettingError(f"unknown setting {name!r}: the settings are {', '.join(SETTINGS)}")
    given: Any = text
    if setting.is_flag:
        given = FLAG_WORDS.get(text.strip().lower(), text)
    elif not setting.is_text:
        stripped = text.strip()
        digits = stripped[1:] if stripped[:1] in "+-" else stripped
        given = int(stripped) if digits.isdigit() and len(digits) <= 12 else text
    checked_value = setting.check(given)
    assert checked_value is not None
    return checked_value


def value(settings: Mapping[str, Any], name: str) -> Any:
    """A setting's value, or its default when the ledger has none."""
    return settings.get(name, SETTINGS[name].default)
