"""User and group limits (spec §8 G2; yunikorn-core ``pkg/scheduler/ugm``).

Limits come from the ``limits`` of each queue (partition limits are root's). A user is limited at a queue by
the limit naming them there, else by the wildcard user limit there; an application's usage also counts
against one group: the first of the user's groups that a limit names at the leaf or the nearest ancestor
with group limits (or the wildcard group there). Headroom at a queue is ``maxresources - usage`` for the types
limited; running applications count against ``maxapplications``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.config import QueueConf
from kqctl.yunikorn.api.names import DOT, WILDCARD
from kqctl.yunikorn.api.resources import QuantityError, Resource


@dataclass(frozen=True)
class Limit:
    max_resources: Resource | None  # None or zero-only: no resource limit
    max_applications: int  # 0: unlimited
    name: str  # the limit's description


@dataclass(frozen=True)
class Binding:
    """A user or group limit that applies on the path: who, where, the limit's name, its max and the usage."""

    kind: str  # "user" or "group"
    name: str
    queue: str
    limit: str
    max_resources: Resource
    used: Resource

    @property
    def left(self) -> Resource:
        return res.sub_only_existing(self.max_resources, self.used) or {}


@dataclass
class Usage:
    resource: Resource = field(default_factory=dict)
    apps: set[str] = field(default_factory=set)


@dataclass
class UserGroupLimits:
    users: dict[str, dict[str, Limit]] = field(default_factory=dict)  # queue path -> user -> limit
    groups: dict[str, dict[str, Limit]] = field(default_factory=dict)  # queue path -> group -> limit
    user_usage: dict[tuple[str, str], Usage] = field(default_factory=dict)  # (user, queue path)
    group_usage: dict[tuple[str, str], Usage] = field(default_factory=dict)

    @property
    def empty(self) -> bool:
        return not self.users and not self.groups

    def group_for(self, leaf: str, groups: tuple[str, ...]) -> str:
        """``ensureGroupInternal``: the group the application's usage is tracked under ("" for none)."""
        path = leaf
        while path:
            configured = self.groups.get(path, {})
            for name in configured:
                if name != WILDCARD and name in groups:
                    return name
            if WILDCARD in configured:
                return WILDCARD
            path = path[:path.rindex(DOT)] if DOT in path else ""
        return ""

    def _limit(self, path: str, user: str, group: str) -> tuple[Limit | None, Limit | None]:
        users = self.users.get(path, {})
        user_limit = users.get(user) or users.get(WILDCARD)
        group_limit = self.groups.get(path, {}).get(group) if group else None
        return user_limit, group_limit

    def headroom(self, leaf: str, user: str, group: str) -> tuple[Resource | None, list[Binding]]:
        """The user's (and group's) headroom along the path; nil is unlimited. Also which limits bound it."""
        headroom: Resource | None = None
        binding: list[Binding] = []
        if self.empty:
            return headroom, binding  # no limits anywhere: nothing bounds anyone (the common case, asked per ask)
        for path in _paths(leaf):
            user_limit, group_limit = self._limit(path, user, group)
            for kind, who, limit, usage in (("user", user, user_limit, self.user_usage.get((user, path))),
                                            ("group", group, group_limit, self.group_usage.get((group, path)))):
                if limit is None or limit.max_resources is None or res.is_zero(limit.max_resources):
                    continue
                left = res.sub_only_existing(limit.max_resources, usage.resource if usage else None)
                headroom = res.component_wise_min(left, headroom)
                binding.append(Binding(kind, who, path, limit.name, dict(limit.max_resources),
                                       dict(usage.resource) if usage else {}))
        return headroom, binding

    def app_blockers(self, leaf: str, user: str, group: str, app_id: str) -> list[tuple[str, str, str, str, int, int]]:
        """The limits whose maxapplications keep the application from starting: (kind, who, queue path, the
        limit's description, its maxapplications, the applications running under it)."""
        found: list[tuple[str, str, str, str, int, int]] = []
        if self.empty:
            return found
        for path in _paths(leaf):
            user_limit, group_limit = self._limit(path, user, group)
            for kind, who, limit, usage in (("user", user, user_limit, self.user_usage.get((user, path))),
                                            ("group", group, group_limit, self.group_usage.get((group, path)))):
                if limit is None or limit.max_applications == 0:
                    continue
                apps = usage.apps if usage else set()
                if app_id not in apps and len(apps) + 1 > limit.max_applications:
                    found.append((kind, who, path, limit.name, limit.max_applications, len(apps)))
        return found

    def can_run_app(self, leaf: str, user: str, group: str, app_id: str) -> str:
        """"" when the application may start; else which limit stops it."""
        if self.empty:
            return ""
        for path in _paths(leaf):
            user_limit, group_limit = self._limit(path, user, group)
            for who, limit, usage in ((f"user {user}", user_limit, self.user_usage.get((user, path))),
                                      (f"group {group}", group_limit, self.group_usage.get((group, path)))):
                if limit is None or limit.max_applications == 0:
                    continue
                apps = usage.apps if usage else set()
                if app_id not in apps and len(apps) + 1 > limit.max_applications:
                    return (f"{who} runs {len(apps)} applications at {path}, its limit is "
                            f"{limit.max_applications}")
        return ""

    def track(self, leaf: str, user: str, group: str, app_id: str, delta: Resource) -> None:
        """``IncreaseTrackedResource`` / decrease with a negative delta, along the path. Without any limit the
        usage is never read (limits come from the configuration only), so it is not kept."""
        if self.empty:
            return
        for path in _paths(leaf):
            for key, table in (((user, path), self.user_usage), ((group, path), self.group_usage)):
                if key[0] == "" and table is self.group_usage:
                    continue
                usage = table.setdefault(key, Usage())
                usage.resource = res.add(usage.resource, delta)
                if res.is_zero(usage.resource):
                    usage.apps.discard(app_id)
                else:
                    usage.apps.add(app_id)


@functools.lru_cache(maxsize=4096)
def _paths(leaf: str) -> tuple[str, ...]:
    """root, ..., the leaf's path (asked for on every allocation: kept per leaf)."""
    parts = leaf.split(DOT)
    return tuple(DOT.join(parts[: i + 1]) for i in range(len(parts)))


def from_config(root: QueueConf) -> UserGroupLimits:
    """``UpdateConfig``: the limits of every queue, by queue path."""
    limits = UserGroupLimits()
    _collect(root, root.name.lower(), limits)
    return limits


def _collect(queue: QueueConf, path: str, limits: UserGroupLimits) -> None:
    for conf in queue.limits or []:
        try:
            maximum = res.resource_from_conf(conf.maxresources.values if conf.maxresources else None)
        except QuantityError:
            continue
        limit = Limit(maximum if res.strictly_greater_than_zero(maximum) else None, conf.maxapplications, conf.limit)
        for user in conf.users or []:
            if user:
                limits.users.setdefault(path, {})[user] = limit
        for group in conf.groups or []:
            if group:
                limits.groups.setdefault(path, {})[group] = limit
    for child in queue.children:
        _collect(child, f"{path}{DOT}{child.name.lower()}", limits)
