"""Who holds which signing key: SSH public keys registered to people, changed by events.

A key is recorded as git's allowed-signers file writes one, `TYPE BASE64`
(a comment is dropped: it is free text and proves nothing). Keys change by
`keys` events on the ledger's own id, folded like role changes
(`rulebook.fold_ledger`), so every clone derives the same registry:

    add KEY for WHO     by an owner: registered (an approval, when WHO proposed it)
                        by WHO:      proposed, registered once an owner adds it
    remove KEY of WHO   by an owner, or by WHO (a lost or retired key)

One key belongs to one person, so a signature names one person. Everything
here is pure: parsing and fingerprinting a key, and reading the signer's key
out of an SSH signature (PROTOCOL.sshsig) are byte arithmetic, no crypto;
git and ssh-keygen check the signatures themselves.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import struct
from collections.abc import Mapping
from dataclasses import field, replace

from gitcoop.domain.ids import identity_problem
from gitcoop.domain.patterns import pattern
from gitcoop.domain.record_type import record_type
from gitcoop.domain.records import Event, Roles
from gitcoop.errors import Refused

KEY_TYPES = (
    "ssh-ed25519",
    "ssh-rsa",
    "ecdsa-sha2-nistp256",
    "ecdsa-sha2-nistp384",
    "ecdsa-sha2-nistp521",
    "sk-ssh-ed25519@openssh.com",
    "sk-ecdsa-sha2-nistp256@openssh.com",
)
KEY_MAX = 2000  # base64 characters: an 8192-bit RSA key holds about 1,400
KEY_RE = pattern(r"^(?P<type>[a-z0-9@.-]{1,40}) (?P<blob>[A-Za-z0-9+/]{16,2000}={0,2})\Z")
ACTIONS = ("add", "remove")
SIGNATURE_BEGIN = "-----BEGIN SSH SIGNATURE-----"
SIGNATURE_END = "-----END SSH SIGNATURE-----"


class NotAKey(ValueError):
    """Text that is not an SSH public key; the message says what one looks like."""


def parse_key(text: str) -> str:
    """`TYPE BASE64` of the SSH public key in `text` (a line of a .pub file); NotAKey if none."""
    words = text.strip().split()
    if len(words) < 2:
        raise NotAKey(_expected(text))
    key = f"{words[0]} {words[1]}"
    problem = key_problem(key)
    if problem:
        raise NotAKey(problem)
    return key


def key_problem(key: object) -> str | None:
    """Why `key` is not a recorded public key (`TYPE BASE64`), or None when it is."""
    if not isinstance(key, str):
        return "a key must be text"
    found = KEY_RE.match(key)
    if found is None or found["type"] not in KEY_TYPES:
        return _expected(key)
    blob = _decoded(found["blob"])
    if blob is None or _first_string(blob) != found["type"].encode():
        return f"{key[:40]!r}…: the key's data is not a {found['type']} key"
    return None


def _expected(text: str) -> str:
    return (
        f"{text.strip()[:40]!r} is not an SSH public key — give one line of a .pub file, "
        f"such as 'ssh-ed25519 AAAAC3Nza…' (types: {', '.join(KEY_TYPES[:5])}, …)"
    )


def _decoded(text: str) -> bytes | None:
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _first_string(blob: bytes) -> bytes | None:
    """The first length-prefixed string of an SSH wire blob, or None."""
    strings = _strings(blob, 1)
    return strings[0] if strings else None


def _strings(blob: bytes, count: int, at: int = 0) -> list[bytes] | None:
    """`count` length-prefixed strings from `at`; None when the blob is shorter."""
    found = []
    for _ in range(count):
        if at + 4 > len(blob):
            return None
        (size,) = struct.unpack(">I", blob[at : at + 4])
        at += 4
        if at + size > len(blob):
            return None
        found.append(blob[at : at + size])
        at += size
    return found


def fingerprint(key: str) -> str:
    """`SHA256:…`, as ssh-keygen -l and git's %GK print it."""
    blob = base64.b64decode(key.split(" ", 1)[1])
    digest = base64.b64encode(hashlib.sha256(blob).digest()).decode()
    return "SHA256:" + digest.rstrip("=")


def signature_key(armored: str) -> str | None:
    """The public key inside an SSH signature (`-----BEGIN SSH SIGNATURE-----`), or None.

    Only read, never trusted: the signature is checked by ssh-keygen.
    """
    text = armored.strip()
    if not (text.startswith(SIGNATURE_BEGIN) and text.endswith(SIGNATURE_END)):
        return None
    body = "".join(text[len(SIGNATURE_BEGIN) : -len(SIGNATURE_END)].split())
    blob = _decoded(body)
    if blob is None or not blob.startswith(b"SSHSIG") or len(blob) < 10:
        return None
    strings = _strings(blob, 1, at=10)  # magic (6 bytes), version (4), then the public key
    if not strings:
        return None
    kind = _first_string(strings[0])
    if kind is None:
        return None
    key = f"{kind.decode('ascii', 'replace')} {base64.b64encode(strings[0]).decode()}"
    return key if key_problem(key) is None else None


# -- the registry -------------------------------------------------------------------------


@record_type
class Keys:
    """Registered keys per person, and keys people proposed for themselves."""

    registered: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    proposed: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def of(self, who: str) -> tuple[str, ...]:
        return self.registered.get(who, ())

    def holder(self, key: str) -> str | None:
        """Whom `key` is registered to, if anyone."""
        return next((who for who, keys in self.registered.items() if key in keys), None)

    def signer(self, print_: str) -> str | None:
        """Whom the key with fingerprint `print_` is registered to, if anyone."""
        return next((who for who in self.registered if print_ in self.fingerprints(who)), None)

    def fingerprints(self, who: str) -> frozenset[str]:
        return frozenset(fingerprint(k) for k in self.of(who))

    def every_key(self) -> frozenset[str]:
        """Every registered key, whoever holds it."""
        return frozenset(k for keys in self.registered.values() for k in keys)


def apply_keys(keys: Keys, roles: Roles, event: Event) -> Keys:
    """The keys after one `keys` event, or Refused naming the rule."""
    action, who, key = event.arg("action"), event.arg("who"), event.arg("public_key")
    if action not in ACTIONS or not isinstance(who, str) or key_problem(key):
        raise Refused("a keys change is: add|remove EMAIL KEY (an SSH public key)")
    assert isinstance(key, str)
    problem = identity_problem(who)
    if problem:
        raise Refused(problem)
    owner = roles.is_owner(event.actor)
    if not owner and event.actor != who:
        raise Refused(
            f"{event.actor} is not an owner — only owners ({', '.join(roles.owners)}) "
            f"{action} keys for others; a person may propose or remove their own"
        )
    if action == "remove":
        return Keys(_without(keys.registered, who, key), _without(keys.proposed, who, key))
    holder = keys.holder(key)
    if holder is not None and holder != who:
        raise Refused(f"that key is registered to {holder} — one key belongs to one person")
    if key in keys.of(who):
        return keys
    if not owner:
        return replace(keys, proposed=_with(keys.proposed, who, key))
    return Keys(_with(keys.registered, who, key), _without(keys.proposed, who, key))


def _with(table: Mapping[str, tuple[str, ...]], who: str, key: str) -> dict[str, tuple[str, ...]]:
    found = dict(table)
    if key not in found.get(who, ()):
        found[who] = (*found.get(who, ()), key)
    return {k: found[k] for k in sorted(found)}


def _without(
    table: Mapping[str, tuple[str, ...]], who: str, key: str
) -> dict[str, tuple[str, ...]]:
    found = {k: v for k, v in table.items() if k != who}
    rest = tuple(k for k in table.get(who, ()) if k != key)
    if rest:
        found[who] = rest
    return {k: found[k] for k in sorted(found)}
