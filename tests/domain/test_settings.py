"""The ledger's settings: bounded values, checked when read, changed by owners' events."""

from __future__ import annotations

import pytest

from gitcoop.domain import settings
from gitcoop.domain.records import LedgerConfig, RecordError
from gitcoop.domain.rulebook import fold_ledger
from gitcoop.domain.settings import SettingError
from tests.domain.builders import ALICE, BOB, event

LEDGER = "cf-000000000000"


def owner(who: str = ALICE, actor: str = ALICE) -> object:
    return event("roles", actor=actor, item=LEDGER, action="add", role="owner", who=who)


def config(key: str, value: object, actor: str = ALICE) -> object:
    return event("config", actor=actor, item=LEDGER, key=key, value=value)


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("max_same_shape", 0),
        ("max_same_shape", 1001),
        ("max_same_shape", True),
        ("max_same_shape", "3"),
        ("topup_threshold", -1),
        ("topup_size", 10**20),
        ("verifier", "rm -rf ~\nCoop-Close: td-x"),
        ("verifier", "x" * 501),
        ("verifier", "echo \x1b]52;c;aGk=\x07"),
    ],
)
def test_a_setting_outside_its_bounds_is_refused(name: str, value: object) -> None:
    with pytest.raises(SettingError, match=f"settings.{name}"):
        settings.SETTINGS[name].check(value)


def test_defaults_are_the_queue_rules() -> None:
    assert settings.value({}, "max_same_shape") == 3
    assert settings.value({}, "topup_threshold") == 5
    assert settings.value({}, "topup_size") == 10
    assert settings.value({"topup_size": 4}, "topup_size") == 4


def test_coop_yaml_with_a_bad_setting_does_not_load() -> None:
    data = {"format": 1, "roles": {"owners": [ALICE]}, "clock": 3}
    with pytest.raises(RecordError, match=r"settings\.max_same_shape"):
        LedgerConfig.from_data({**data, "settings": {"max_same_shape": 10**20}})
    with pytest.raises(RecordError, match="unknown setting must be a short scalar"):
        LedgerConfig.from_data({**data, "settings": {"later": {"nested": [1]}}})
    kept = LedgerConfig.from_data({**data, "settings": {"later": "ok", "topup_size": 7}})
    assert dict(kept.settings) == {"later": "ok", "topup_size": 7}


def test_owners_change_settings_by_events_replayed_in_order() -> None:
    events = [owner(), config("topup_size", 20), config("topup_size", 30, actor=BOB)]
    state, refused = fold_ledger(list(reversed(events)))
    assert dict(state.settings) == {"topup_size": 20}
    assert [(e.id, "only owners" in why) for e, why in refused] == [(events[2].id, True)]


def test_a_config_event_of_an_unknown_setting_or_value_is_refused() -> None:
    state, refused = fold_ledger([owner(), config("verifier_timeout", 10**20)])
    assert dict(state.settings) == {}
    assert "unknown setting 'verifier_timeout'" in refused[0][1]
    state, refused = fold_ledger([owner(), config("max_same_shape", 0)])
    assert "from 1 to 1000" in refused[0][1]


def test_none_resets_a_setting_to_its_default() -> None:
    state, _ = fold_ledger([owner(), config("topup_size", 20), config("topup_size", None)])
    assert dict(state.settings) == {}
