"""Whether a ledger commit is signed, and with what: local git config and the owners' policy.

A commit is signed when local git config asks for it (`coop.sign true`, or
git's own `commit.gpgSign true` with `gpg.format ssh`), or when the ledger's
owners require it (`git coop config require_signed true`). Under the policy
the key that signed must be one the ledger registers to the one acting (the
keys as of the commit's parent, as every clone checks it on sync), or the
write is refused: a commit peers would refuse is never made.

A write loads this module only when it may sign (`service/context.py`
decides that from config alone), so an unsigned write never imports it; a
merge asks it how a merge commit would be signed (`merge_sign`), and the
signer itself (store/git/commit_signing.py) is loaded only when a commit is
signed. This module sits above the context and nothing beneath it calls back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from gitcoop.errors import Refused, UsageError
from gitcoop.service.context import SIGN_KEY, sign_setting, signing_wanted
from gitcoop.store.ledger.snapshot import Snapshot
from gitcoop.store.repository import Repo, Sign

if TYPE_CHECKING:
    from gitcoop.domain.keys import Keys


def merge_sign(repo: Repo, actor: str) -> Sign | None:
    """How a merge commit `actor` writes is signed: as for any write (`signing_wanted`, or
    the ledger's require_signed). The signer is looked up only when a merge commit is
    written, so a fast-forward needs no key."""
    tip = repo.tip()
    ledger = Snapshot(repo, tip)
    required = tip is not None and ledger.config.settings.get("require_signed") is True
    if not (signing_wanted(repo) or required):
        return None

    def sign(payload: bytes) -> str:
        return commit_signer(repo, actor, ledger, required)(payload)

    return sign


def commit_signer(repo: Repo, actor: str, ledger: Snapshot | None, required: bool) -> Sign:
    """A `Sign` for `actor`'s commit on top of `ledger`; under the policy (`required`), its key
    must be registered to `actor` there. Errors name what to set; nothing is written."""
    if required and sign_setting(repo) is False:
        raise Refused(
            f"this ledger requires signed commits (require_signed), and git config {SIGN_KEY} "
            f"is false — run: git config {SIGN_KEY} true"
        )
    from gitcoop.domain.keys import fingerprint
    from gitcoop.store.git import commit_signing  # its processes: only a commit that signs

    try:
        signer = commit_signing.signer(repo)
    except UsageError as missing:
        if not required:
            raise
        raise Refused(
            "this ledger requires signed commits (require_signed): "
            f"{missing.message.removesuffix(' — nothing was written')}, and an owner "
            "registers its public key: git coop keys add EMAIL KEY"
        ) from None
    keys = keys_at(ledger) if required and ledger is not None else None

    def sign(payload: bytes) -> str:
        signed = signer.sign(payload)
        if keys is not None and signed.key not in keys.of(actor):
            raise Refused(
                f"the key that signs ({fingerprint(signed.key)}) is not registered to {actor} — "
                f"an owner registers it: git coop keys add {actor} KEY (nothing was written)"
            )
        return signed.signature

    return sign


def keys_at(ledger: Snapshot) -> Keys:
    """The keys the ledger registers at `ledger`: the fold of its own events."""
    if ledger.commit is None:
        from gitcoop.domain.keys import Keys

        return Keys()
    return ledger.ledger_state().keys
