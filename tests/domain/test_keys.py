"""Signing keys: parsed and fingerprinted as ssh-keygen does, changed by events like roles."""

from __future__ import annotations

import base64
import hashlib
import struct

import pytest

from gitcoop.domain import admission, settings
from gitcoop.domain.keys import (
    Keys,
    NotAKey,
    apply_keys,
    fingerprint,
    key_problem,
    parse_key,
    signature_key,
)
from gitcoop.domain.records import Roles
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.rulebook import fold_ledger
from gitcoop.errors import Refused
from tests.domain.builders import ALICE, BOB, CAROL, event


def wire(*parts: bytes) -> bytes:
    return b"".join(struct.pack(">I", len(p)) + p for p in parts)


def ed25519(seed: int) -> str:
    blob = wire(b"ssh-ed25519", bytes([seed]) * 32)
    return "ssh-ed25519 " + base64.b64encode(blob).decode()


KEY_A, KEY_B, KEY_C = ed25519(1), ed25519(2), ed25519(3)
ROLES = Roles(owners=(ALICE,))


def keys_event(actor: str, action: str, who: str, key: str) -> object:
    return event("keys", actor=actor, item=LEDGER_ID, action=action, who=who, public_key=key)


def test_a_pub_file_line_is_kept_as_type_and_key_without_its_comment() -> None:
    assert parse_key(f"{KEY_A} alice@laptop\n") == KEY_A
    assert parse_key(f"  {KEY_A}  ") == KEY_A


@pytest.mark.parametrize(
    "text",
    [
        "",
        "ssh-ed25519",
        "ssh-dss AAAAB3NzaC1kc3MAAACBAP",  # a type git no longer signs with
        "ssh-ed25519 not-base64!!",
        "ssh-rsa " + ed25519(4).split()[1],  # the data says ed25519
        "ssh-ed25519 " + base64.b64encode(b"\x00\x00").decode() * 8,
    ],
)
def test_what_is_not_a_public_key_is_refused_with_what_one_looks_like(text: str) -> None:
    with pytest.raises(NotAKey, match=r"SSH public key|not a ssh-"):
        parse_key(text)
    assert key_problem(text) is not None


def test_the_fingerprint_is_sha256_of_the_key_data_unpadded() -> None:
    digest = hashlib.sha256(base64.b64decode(KEY_A.split()[1])).digest()
    assert fingerprint(KEY_A) == "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


def test_the_signers_key_is_read_out_of_an_ssh_signature() -> None:
    blob = b"SSHSIG" + struct.pack(">I", 1) + wire(base64.b64decode(KEY_A.split()[1]))
    blob += wire(b"git", b"", b"sha512", b"sig")
    body = base64.b64encode(blob).decode()
    lines = "\n".join(body[i : i + 70] for i in range(0, len(body), 70))
    armoured = f"-----BEGIN SSH SIGNATURE-----\n{lines}\n-----END SSH SIGNATURE-----\n"
    assert signature_key(armoured) == KEY_A
    assert signature_key("-----BEGIN PGP SIGNATURE-----\nx\n-----END PGP SIGNATURE-----") is None
    assert signature_key(armoured.replace(body[:20], "A" * 20)) is None


def test_an_owner_registers_a_key_for_anyone() -> None:
    keys = apply_keys(Keys(), ROLES, keys_event(ALICE, "add", BOB, KEY_B))
    assert keys.of(BOB) == (KEY_B,) and keys.proposed == {}
    assert fingerprint(KEY_B) in keys.fingerprints(BOB)


def test_a_person_proposes_their_own_key_and_an_owners_add_approves_it() -> None:
    keys = apply_keys(Keys(), ROLES, keys_event(BOB, "add", BOB, KEY_B))
    assert keys.of(BOB) == () and keys.proposed == {BOB: (KEY_B,)}
    keys = apply_keys(keys, ROLES, keys_event(ALICE, "add", BOB, KEY_B))
    assert keys.of(BOB) == (KEY_B,) and keys.proposed == {}


def test_nobody_but_an_owner_adds_or_removes_someone_elses_key() -> None:
    with pytest.raises(Refused, match="only owners"):
        apply_keys(Keys(), ROLES, keys_event(BOB, "add", CAROL, KEY_C))
    keys = Keys(registered={CAROL: (KEY_C,)})
    with pytest.raises(Refused, match="only owners"):
        apply_keys(keys, ROLES, keys_event(BOB, "remove", CAROL, KEY_C))


def test_a_person_removes_their_own_key_and_an_owner_anyones() -> None:
    keys = Keys(registered={BOB: (KEY_B, KEY_C)})
    keys = apply_keys(keys, ROLES, keys_event(BOB, "remove", BOB, KEY_B))
    assert keys.of(BOB) == (KEY_C,)
    keys = apply_keys(keys, ROLES, keys_event(ALICE, "remove", BOB, KEY_C))
    assert keys.registered == {}


def test_one_key_belongs_to_one_person() -> None:
    keys = Keys(registered={ALICE: (KEY_A,)})
    with pytest.raises(Refused, match="registered to alice"):
        apply_keys(keys, ROLES, keys_event(ALICE, "add", BOB, KEY_A))
    with pytest.raises(Refused, match="registered to alice"):
        apply_keys(keys, ROLES, keys_event(BOB, "add", BOB, KEY_A))


def test_keys_fold_with_roles_and_refused_changes_are_listed() -> None:
    events = [
        event("roles", actor=ALICE, item=LEDGER_ID, action="add", role="owner", who=ALICE),
        keys_event(ALICE, "add", ALICE, KEY_A),
        keys_event(BOB, "add", CAROL, KEY_C),  # refused: not an owner
        keys_event(BOB, "add", BOB, KEY_B),  # a proposal
        keys_event(ALICE, "remove", ALICE, KEY_A),  # rotated out ...
        keys_event(ALICE, "add", ALICE, KEY_C),  # ... and in
    ]
    state, refused = fold_ledger(events)  # type: ignore[arg-type]
    assert state.keys.registered == {ALICE: (KEY_C,)}
    assert state.keys.proposed == {BOB: (KEY_B,)}
    assert [e.actor for e, _ in refused] == [BOB]


def test_a_key_argument_is_bounded_like_every_other_argument() -> None:
    good = keys_event(ALICE, "add", BOB, KEY_B)
    assert admission.event_problem(good) is None  # type: ignore[arg-type]
    bad = keys_event(ALICE, "add", BOB, KEY_B + "\x1b[2J")
    assert "SSH public key" in str(admission.event_problem(bad))  # type: ignore[arg-type]
    on_an_item = event("keys", actor=ALICE, action="add", who=BOB, public_key=KEY_B)
    assert "is not one" in str(admission.event_problem(on_an_item))


def test_require_signed_is_an_owners_flag_setting() -> None:
    assert settings.parse("require_signed", "true") is True
    assert settings.parse("require_signed", "off") is False
    with pytest.raises(settings.SettingError, match="true or false"):
        settings.parse("require_signed", "maybe")
    with pytest.raises(settings.SettingError, match="true or false"):
        settings.checked({"require_signed": 1})
    assert settings.value({}, "require_signed") is False
    turned_on = event("config", actor=BOB, item=LEDGER_ID, key="require_signed", value=True)
    state, refused = fold_ledger([turned_on])
    assert state.requires_signing  # no owners yet: as for roles, the first change is open
    owned = [
        event("roles", actor=ALICE, item=LEDGER_ID, action="add", role="owner", who=ALICE),
        event("config", actor=BOB, item=LEDGER_ID, key="require_signed", value=True),
    ]
    state, refused = fold_ledger(owned)
    assert not state.requires_signing and len(refused) == 1


# -- events kept out of the fold (unsigned under the policy) -------------------------------


def test_a_kept_out_event_is_a_conflict_an_owner_settles_and_never_applied() -> None:
    from gitcoop.domain import resolution
    from gitcoop.domain.rulebook import fold

    add = event("add", actor=ALICE, kind="todo", title="Fix it")
    take = event("take", actor=BOB, session="s")
    note = event("note", actor=CAROL, text="later, signed")
    item = fold([add, take, note], ROLES, kept_out={take.id})
    assert item is not None and item.status == "open" and item.taken_by is None
    (conflict,) = item.conflicts
    assert conflict.event == take.id and conflict.kept_out and "kept out" in conflict.reason
    assert resolution.unacknowledged(item, BOB) == ()  # not bob's lost event: forged in his name
    settle = event("resolve", actor=ALICE, **resolution.resolve_args(take, "apply", "it was bob's"))
    settled = fold([add, take, note, settle], ROLES, kept_out={take.id})
    assert settled is not None and settled.taken_by == BOB and settled.conflicts == ()
    assert fold([add, take], ROLES, kept_out={add.id}) is None  # a kept-out add makes no item


def test_kept_out_ledger_events_change_nothing_and_are_listed() -> None:
    owner = event("roles", actor=ALICE, item=LEDGER_ID, action="add", role="owner", who=ALICE)
    forged = keys_event(ALICE, "add", BOB, KEY_B)
    state, refused = fold_ledger([owner, forged], kept_out={forged.id})  # type: ignore[list-item]
    assert state.keys == Keys() and "kept out" in refused[0][1]


def test_format_1_coop_yaml_lists_what_it_keeps_out_and_format_2_keeps_no_list() -> None:
    """Format 1 kept out unsigned events by a ledger-wide list; format 2 judges each where it
    joins (docs/hardening.md, H2), so its coop.yaml holding such a list is refused."""
    from gitcoop.domain.records import LedgerConfig, RecordError

    old = LedgerConfig(format=1)
    assert "kept_out" not in old.to_data()
    data = {**old.to_data(), "kept_out": ["ev-aaaaaaaaaaaa", "ev-bbbbbbbbbbbb"]}
    assert LedgerConfig.from_data(data).to_data() == data
    for bad in (["ev-bbbbbbbbbbbb", "ev-aaaaaaaaaaaa"], ["not an id"], "ev-aaaaaaaaaaaa"):
        with pytest.raises(RecordError, match="kept_out"):
            LedgerConfig.from_data({**data, "kept_out": bad})
    current = LedgerConfig().to_data()
    assert current["format"] == 2 and "kept_out" not in current
    with pytest.raises(RecordError, match="format 2 keeps no such list"):
        LedgerConfig.from_data({**current, "kept_out": ["ev-aaaaaaaaaaaa"]})


def test_an_event_that_joins_unsigned_is_a_conflict_and_never_applied() -> None:
    """H2 in the domain: `join` refuses what its caller found unsigned, as a conflict an
    owner settles; the ledger's own unsigned events change nothing."""
    from gitcoop.domain import resolution
    from gitcoop.domain.rulebook import LedgerState, join

    add = event("add", actor=ALICE, kind="todo", title="Fix it")
    take = event("take", actor=BOB, session="s")
    forged = keys_event(ALICE, "add", BOB, KEY_B)
    state = LedgerState(roles=ROLES)
    why = {take.id: "refused where it joined: unsigned", forged.id: "unsigned"}
    joined = join(lambda _: None, state, [add, take, forged], why)  # type: ignore[list-item]
    item = joined.items[add.item]
    assert item is not None and item.status == "open" and item.taken_by is None
    (conflict,) = item.conflicts
    assert conflict.event == take.id and conflict.kept_out
    assert resolution.unacknowledged(item, BOB) == ()  # not bob's lost event: forged in his name
    assert joined.ledger.keys == Keys() and joined.refused[0][0] == forged
    settle = event("resolve", actor=ALICE, **resolution.resolve_args(take, "apply", "it was bob's"))
    settled = join(lambda _: item, joined.ledger, [settle]).items[add.item]
    assert settled is not None and settled.taken_by == BOB and settled.conflicts == ()
