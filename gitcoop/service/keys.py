"""The ledger's signing keys as a command: add (or propose), remove, list, export.

A change is a `keys` event on the ledger's own id, written through the one
writer; who may make it is the domain's rule (`domain/keys.py`). A key is
given as the key itself (`ssh-ed25519 AAAA…`, or git's `key::` form) or as
the path of a `.pub` file holding it; removing one may also name it by its
fingerprint (`SHA256:…`).
"""

from __future__ import annotations

import os
from typing import Any

from gitcoop.domain import ids
from gitcoop.domain.keys import Keys, NotAKey, fingerprint, parse_key
from gitcoop.domain.record_type import record_type
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.errors import NotFound, UsageError
from gitcoop.service.context import Context, read_ledger
from gitcoop.service.writer import Intent, write
from gitcoop.store.ledger.snapshot import Snapshot

LITERAL_PREFIX = "key::"
PUB_MAX_BYTES = 16 * 1024


@record_type
class KeyRow:
    """One key of one person: registered, or proposed and waiting for an owner."""

    who: str
    key: str
    status: str  # registered | proposed

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key)

    @property
    def kind(self) -> str:
        return self.key.split(" ", 1)[0]

    def to_data(self) -> dict[str, Any]:
        return {
            "who": self.who,
            "key": self.key,
            "fingerprint": self.fingerprint,
            "status": self.status,
        }


def read_key(text: str) -> str:
    """`TYPE BASE64` from the key itself or from the .pub file `text` names (UsageError)."""
    given = text.strip()
    if given.startswith(LITERAL_PREFIX):
        given = given[len(LITERAL_PREFIX) :]
    path = os.path.expanduser(given)
    if os.path.isfile(path):
        try:
            with open(path, "rb") as handle:
                data = handle.read(PUB_MAX_BYTES)
        except OSError as exc:
            raise UsageError(f"cannot read {given}: {exc.strerror}") from None
        if b"PRIVATE KEY" in data:
            raise UsageError(
                f"{given} is a private key — give its .pub file (never share this one)"
            )
        given = data.decode("utf-8", "replace")
    try:
        return parse_key(given)
    except NotAKey as bad:
        raise UsageError(str(bad)) from None


def current(ctx: Context) -> Keys:
    """The keys the ledger registers now: the fold of its own events."""
    ledger = read_ledger(ctx)
    return ledger.ledger_state().keys


def rows(keys: Keys, who: str | None = None) -> list[KeyRow]:
    found = [
        KeyRow(person, key, status)
        for status, table in (("registered", keys.registered), ("proposed", keys.proposed))
        for person, held in table.items()
        for key in held
    ]
    return sorted(
        (r for r in found if who is None or r.who == who), key=lambda r: (r.who, r.status, r.key)
    )


def add(ctx: Context, who: str, text: str, force: bool = False) -> KeyRow:
    """Register `who`'s key (owners), or propose one's own; the key's row afterwards. A
    holder the ledger does not know yet must look like no one it knows (unless `force`)."""
    from gitcoop.service.ledger import newcomer, refuse_look_alike

    who = newcomer(who)
    key = _checked(who, text)

    def plan(snapshot: Snapshot) -> list[Intent]:
        if not force:
            refuse_look_alike(snapshot, who, "keys add")
        return [Intent(LEDGER_ID, "keys", {"action": "add", "who": who, "public_key": key})]

    write(ctx, plan)
    keys = current(ctx)
    status = "registered" if key in keys.of(who) else "proposed"
    return KeyRow(who, key, status)


def remove(ctx: Context, who: str, text: str) -> KeyRow:
    """Remove one of `who`'s keys, registered or proposed (owners, or `who` themselves)."""
    problem = ids.identity_problem(who)
    if problem:
        raise UsageError(problem)
    key = _named(current(ctx), who, text)
    _written(ctx, "remove", who, key)
    return KeyRow(who, key, "removed")


def export(ctx: Context) -> str:
    """An allowed-signers file of every registered key, for `gpg.ssh.allowedSignersFile`."""
    lines = [
        f'{_principal(row.who)} namespaces="git" {row.key}'
        for row in rows(current(ctx))
        if row.status == "registered"
    ]
    return "".join(f"{line}\n" for line in lines)


def _principal(who: str) -> str:
    """A person as an allowed-signers principal: quoted when it holds a space."""
    return f'"{who}"' if any(c.isspace() for c in who) else who


def _checked(who: str, text: str) -> str:
    problem = ids.identity_problem(who)
    if problem:
        raise UsageError(problem)
    if '"' in who or "," in who:
        raise UsageError(f"{who!r}: a key's holder cannot hold a quote or a comma")
    return read_key(text)


def _named(keys: Keys, who: str, text: str) -> str:
    """The key of `who` that `text` names: the key, its .pub file, or its fingerprint."""
    held = (*keys.of(who), *keys.proposed.get(who, ()))
    wanted = text.strip()
    if wanted.startswith("SHA256:"):
        found = [k for k in held if fingerprint(k) == wanted]
        if not found:
            raise NotFound(f"{who} has no key {wanted} — git coop keys list {who}")
        return found[0]
    key = read_key(wanted)
    if key not in held:
        raise NotFound(f"{who} has no key {fingerprint(key)} — git coop keys list {who}")
    return key


def _written(ctx: Context, action: str, who: str, key: str) -> Keys:
    args = {"action": action, "who": who, "public_key": key}
    write(ctx, [Intent(LEDGER_ID, "keys", args)])
    return current(ctx)
