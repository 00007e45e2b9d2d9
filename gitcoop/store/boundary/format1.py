"""A format-1 ledger's state, checked as format 1 checked it at a tip.

Format 1 (the previous release) folded every item's events in (clock, at, id)
order, less the events coop.yaml's `kept_out` list named, and coop.yaml's
roles and settings were the fold of the ledger's own events. Its history is
taken as its last commit says (docs/hardening.md, "What each rule does not
promise"); from the first format-2 commit on, `boundary/joining.py` decides.
"""

from __future__ import annotations

from gitcoop.domain import rulebook
from gitcoop.domain.ids import ItemId
from gitcoop.domain.records import Event, Item, LedgerConfig
from gitcoop.domain.roles import LEDGER_ID
from gitcoop.domain.settings import SETTINGS
from gitcoop.errors import BadLedger
from gitcoop.store.boundary.history import Reader
from gitcoop.store.boundary.joining import as_state
from gitcoop.store.boundary.tree import changed
from gitcoop.store.git.objects import Oid
from gitcoop.store.ledger.layout import event_dir, item_path
from gitcoop.store.ledger.snapshot import CheckedFiles, Snapshot


def check_tip(
    reader: Reader, base: Oid | None, tip: Oid, checked: CheckedFiles, where: str = ""
) -> None:
    """Each item changed since `base` (every item, when the roles changed or there is no
    base) is the fold of its events less those coop.yaml keeps out."""
    repo = reader.repo
    side = Snapshot(repo, tip)
    config = side.config
    _check_ledger_fold(reader, side, config)
    old = Snapshot(repo, base) if base else None
    if old is not None and not _same_roles(old.config, config):
        old = None  # other roles change every fold: check every item
    touched = sorted(changed(old, side, where) - {LEDGER_ID})

    def events_of(item_id: ItemId) -> list[Event]:
        return reader.item_events(side, item_id)

    folds: list[tuple[ItemId, Item | None]] = list(
        rulebook.fold_items(touched, events_of, config.roles, config.kept_out)
    )
    for item_id, folded in folds:
        blob = side.item_blob(item_id)
        if blob is None or folded is None:
            if (blob is None) != (folded is None):
                raise BadLedger(f"{item_path(item_id)}: is not the fold of its events")
            if rulebook.of_no_item(events_of(item_id), config.kept_out):
                raise BadLedger(
                    f"{event_dir(item_id)}: events of no item — an event folder needs its "
                    "item's file, unless its first event is an add kept out"
                )
            continue
        checked[item_id, str(blob)] = as_state(side, item_id, blob, folded.to_data())


def _check_ledger_fold(reader: Reader, side: Snapshot, config: LedgerConfig) -> None:
    """coop.yaml's roles and settings are what the ledger's own events fold to."""
    events = reader.item_events(side, LEDGER_ID)
    state, _refused = rulebook.fold_ledger(events, config.kept_out)
    if not _same_roles(LedgerConfig(roles=state.roles), config):
        raise BadLedger("coop.yaml: its roles are not the fold of the ledger's role events")
    known = {k: v for k, v in config.settings.items() if k in SETTINGS}
    if known != dict(state.settings):
        raise BadLedger("coop.yaml: its settings are not the fold of the ledger's config events")


def _same_roles(a: LedgerConfig, b: LedgerConfig) -> bool:
    return (set(a.roles.owners), set(a.roles.chiefs)) == (set(b.roles.owners), set(b.roles.chiefs))
