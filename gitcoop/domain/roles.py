"""Who may review and settle: owners and chiefs, changed only by owners.

Role changes are events like any other, kept under the ledger's own id, so a
merge replays them like item events and every clone derives the same roles.
"""

from __future__ import annotations

from gitcoop.domain.ids import ItemId, identity_problem
from gitcoop.domain.records import Event, Roles, replace
from gitcoop.errors import Refused

LEDGER_ID = ItemId("cf-000000000000")  # the ledger itself: where role events live
ROLE_FIELDS = {"owner": "owners", "chief": "chiefs"}


def apply_roles(roles: Roles, event: Event) -> Roles:
    """The roles after one `roles` event, or Refused."""
    action, role, who = event.arg("action"), event.arg("role"), event.arg("who")
    if role not in ROLE_FIELDS or action not in ("add", "remove") or not isinstance(who, str):
        raise Refused("a roles change is: add|remove owner|chief EMAIL")
    problem = identity_problem(who)
    if problem:
        raise Refused(problem)
    if roles.owners and not roles.is_owner(event.actor):
        raise Refused(
            f"{event.actor} is not an owner — only owners ({', '.join(roles.owners)}) change roles"
        )
    name = ROLE_FIELDS[role]
    members: tuple[str, ...] = getattr(roles, name)
    if action == "add":
        return roles if who in members else replace(roles, **{name: (*members, who)})
    if who not in members:
        return roles
    remaining = tuple(m for m in members if m != who)
    if name == "owners" and not remaining:
        raise Refused("the ledger must keep at least one owner — add another owner first")
    return replace(roles, **{name: remaining})
