"""Queue ACLs (yunikorn-core ``pkg/common/security/acl.go``): who may submit to a queue.

The validator splits an ACL on any run of blanks after trimming (V6); the queue itself splits on single
spaces without trimming, so ``"alice  admins"`` passes validation and then fails queue creation: :func:`parse`
returns that runtime error.
"""

from __future__ import annotations

from dataclasses import dataclass

from kqctl.yunikorn.api.names import ACL_GROUP, ACL_USER, WILDCARD


@dataclass(frozen=True)
class ACL:
    users: frozenset[str] = frozenset()
    groups: frozenset[str] = frozenset()
    all_allowed: bool = False
    text: str = ""

    def allows(self, user: str, groups: tuple[str, ...]) -> bool:
        """``CheckAccess``."""
        return self.all_allowed or user in self.users or any(group in self.groups for group in groups)

    def describe(self) -> str:
        if self.all_allowed:
            return "everyone (*)"
        if not self.users and not self.groups:
            return "nobody"
        parts = []
        if self.users:
            parts.append("users " + ",".join(sorted(self.users)))
        if self.groups:
            parts.append("groups " + ",".join(sorted(self.groups)))
        return "; ".join(parts)


class ACLError(ValueError):
    """``NewACL``'s error (a runtime queue creation failure)."""


def parse(text: str) -> ACL:
    """``NewACL``: "" is nobody; ``*`` everyone; else ``users[ groups]``, comma-separated, invalid names
    ignored."""
    if text == "":
        return ACL()
    fields = text.split(" ")
    if len(fields) > 2:
        raise ACLError(f"multiple spaces found in ACL: '{text}'")
    all_allowed = text.strip() == WILDCARD
    user_list = fields[0].split(",")
    if len(user_list) == 1 and user_list[0] == WILDCARD:
        return ACL(all_allowed=True, text=text)
    users = frozenset(u for u in user_list if u and ACL_USER.match(u))
    groups: frozenset[str] = frozenset()
    if len(fields) == 2 and not all_allowed:
        group_list = fields[1].split(",")
        if len(group_list) == 1 and group_list[0] == WILDCARD:
            return ACL(all_allowed=True, text=text)
        groups = frozenset(g for g in group_list if g and ACL_GROUP.match(g))
    return ACL(users, groups, all_allowed, text)
