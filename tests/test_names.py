"""A module's name says one thing: a name used in two places is one concern at two layers."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "gitcoop"

# the rule in the domain and its use-case in the service; git's repository and the
# ledger's, which is git's with the ledger's ref and caps
SAME_CONCERN = {
    "dependencies.py": {"domain", "service"},
    "keys.py": {"domain", "service"},
    "queue.py": {"domain", "service"},
    "resolution.py": {"domain", "service"},
    "settings.py": {"domain", "service"},
    "repo.py": {"store/git", "store/ledger"},
}


def test_no_module_name_means_two_things() -> None:
    places: dict[str, set[str]] = defaultdict(set)
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            places[path.name].add(path.parent.relative_to(PACKAGE).as_posix())
    repeated = {name: where for name, where in places.items() if len(where) > 1}
    assert repeated == SAME_CONCERN
