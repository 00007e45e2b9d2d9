"""Where things live in a ledger tree, and which names and modes are allowed."""

from __future__ import annotations

from gitcoop.domain.ids import fanout
from gitcoop.domain.patterns import pattern
from gitcoop.domain.records import Event

REF = "refs/coop/ledger"
# in the common git dir: the hooks install hint was given once (service/hooks.py)
HOOKS_HINTED = "coop-hooks-hinted"
COOP_FILE = "coop.yaml"
ITEMS = "items"
EVENTS = "events"
ROOT_NAMES = {COOP_FILE: "blob", ITEMS: "tree", EVENTS: "tree"}

MODE_BLOB = 0o100644
MODE_TREE = 0o040000

FANOUT_RE = pattern(r"^[0-9a-hjkmnp-tv-z]{2}\Z")
ITEM_FILE = r"((?:td|rq|it)-[0-9a-hjkmnp-tv-z]{12})\.yaml"  # the id, then its suffix
ITEM_FILE_RE = pattern(rf"^{ITEM_FILE}\Z")
ITEM_DIR_RE = pattern(r"^(td|rq|it|cf)-[0-9a-hjkmnp-tv-z]{12}\Z")
EVENT_FILE_RE = pattern(
    r"^([0-9]{12})-(ev-(?:[0-9a-hjkmnp-tv-z]{12}|[0-9a-hjkmnp-tv-z]{26}))\.yaml\Z"
)


def remote_ref(remote: str) -> str:
    return f"refs/coop/remotes/{remote}/ledger"


def taken_ref(remote: str) -> str:
    """The last tip of `remote`'s ledger this clone took in: what its history must keep on
    its first-parent chain (docs/hardening.md, H4). Outside refs/coop/remotes/, so no
    fetch refspec ever moves it."""
    return f"refs/coop/taken/{remote}"


CHECKED = "refs/coop/checked"
"""The ledger tip `fsck` last checked whole, so the next checks only what came after it.
This clone's own: no fetch refspec names it (`refs/coop/ledger*` does not match it) and
a push names only the ledger's ref."""


def item_path(item_id: str) -> str:
    return f"{ITEMS}/{fanout(item_id)}/{item_id}.yaml"


def event_dir(item_id: str) -> str:
    return f"{EVENTS}/{fanout(item_id)}/{item_id}"


def event_name(event: Event) -> str:
    return f"{event.clock:012d}-{event.id}.yaml"


def event_path(event: Event) -> str:
    return f"{event_dir(event.item)}/{event_name(event)}"


# The names and modes the layout allows, in one place: the snapshot and the boundary
# refuse what breaks them (strict), fsck's survey collects each breach (collecting).


def is_root_entry(name: str, mode: int) -> bool:
    """coop.yaml a file, items/ and events/ folders: nothing else at the root."""
    kind = ROOT_NAMES.get(name)
    return kind is not None and mode == (MODE_BLOB if kind == "blob" else MODE_TREE)


def is_fanout(name: str, mode: int) -> bool:
    """A fan-out folder of items/ or events/: two characters of an id's alphabet."""
    return mode == MODE_TREE and FANOUT_RE.match(name) is not None


def is_item_file(name: str, mode: int) -> bool:
    """`<id>.yaml` in a fan-out folder of items/."""
    return mode == MODE_BLOB and ITEM_FILE_RE.match(name) is not None


def is_event_folder(name: str, mode: int) -> bool:
    """`<id>/` in a fan-out folder of events/ (an item's, or the ledger's own `cf-`)."""
    return mode == MODE_TREE and ITEM_DIR_RE.match(name) is not None


def is_event_file(name: str, mode: int) -> bool:
    """`<clock>-<event id>.yaml` in an event folder."""
    return mode == MODE_BLOB and EVENT_FILE_RE.match(name) is not None
