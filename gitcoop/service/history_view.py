"""Keeping the ledger out of everyday history views, where git allows it (docs/hooks.md).

Every ledger transition is a commit on refs/coop/ledger, so `git log --all`,
`gitk --all` and `tig --all` show them among the code. git has no setting
that takes refs out of `--all`; what it does allow is set here, in the
repository's own config:

- `log.excludeDecoration refs/coop/*`: no ledger ref names in decorations;
- `alias.log-all`: `git log-all` is `git log --exclude=refs/coop/* --all`
  (set only when no alias of that name exists).

Each value this sets is noted in `coop.historyView`, so `show` (the undo)
removes exactly those and nothing the user set.
"""

from __future__ import annotations

from gitcoop.domain.record_type import record_type
from gitcoop.service.context import Context

EXCLUDE = "refs/coop/*"
SETTINGS = (
    ("log.excludeDecoration", EXCLUDE),
    ("alias.log-all", f"log --exclude={EXCLUDE} --all"),
)
SINGLE_VALUED = ("alias.log-all",)
MARK = "coop.historyView"  # one "key=value" per setting gitcoop made


@record_type
class ViewChange:
    key: str
    value: str
    action: str  # set | kept (already so) | skipped (the user's own value) | removed


def hide(ctx: Context) -> list[ViewChange]:
    """Set what keeps refs/coop/* out of history views; idempotent."""
    repo = ctx.repo()
    changes: list[ViewChange] = []
    for key, value in SETTINGS:
        present = repo.config_values(key)
        if value in present:
            changes.append(ViewChange(key, value, "kept"))
        elif key in SINGLE_VALUED and present:
            changes.append(ViewChange(key, present[-1], "skipped"))
        else:
            repo.add_config_value(key, value)
            repo.add_config_value(MARK, f"{key}={value}")
            changes.append(ViewChange(key, value, "set"))
    return changes


def show(ctx: Context) -> list[ViewChange]:
    """Undo `hide`: remove the values it set (and only those)."""
    repo = ctx.repo()
    changes: list[ViewChange] = []
    for mark in repo.config_values(MARK):
        key, _, value = mark.partition("=")
        if repo.remove_config_value(key, value):
            changes.append(ViewChange(key, value, "removed"))
        repo.remove_config_value(MARK, mark)
    return changes


def hidden(ctx: Context) -> bool:
    """Whether the ledger is kept out of the views this module sets up."""
    repo = ctx.repo()
    return all(value in repo.config_values(key) for key, value in SETTINGS[:1])
