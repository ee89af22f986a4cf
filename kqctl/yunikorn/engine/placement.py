"""Which queue an application goes to (spec §9; yunikorn-core ``pkg/scheduler/placement``).

The configured rules run in order (none configured: one ``provided`` rule without create), then the implicit
``recovery`` rule; when the last rule gives nothing and ``root.default`` exists the application goes there.
A rule's result must be a leaf the user may submit to (or a queue that can be created below a parent the
user may submit to), else the next rule is tried. Nothing matched: the application is rejected.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from kqctl.yunikorn.api.config import FilterConf, RuleConf
from kqctl.yunikorn.api.names import (
    DEFAULT_PLACEMENT_QUEUE,
    DOT,
    DOT_REPLACE,
    GROUP_NAME,
    QUEUE_NAME_MESSAGE,
    ROOT,
    SPECIAL,
    USER_NAME,
    go_regexp_compiles,
    is_queue_name_valid,
)
from kqctl.yunikorn.engine.queue import Queue

REJECTED = "application rejected: no placement rule matched"
PARENT_QUEUE = "parent"  # a rule named a parent queue: only a leaf takes applications
NO_ACCESS = "acl"  # the user may not submit to the queue (or, for one to create, to its nearest existing parent)
TAG_NAMESPACE = "namespace"
TAG_PARENT_QUEUE = "namespace.parentqueue"


@dataclass(frozen=True)
class Submitter:
    """What placement knows of an application: the queue it asked for, its user, groups and tags."""

    queue: str
    user: str
    groups: tuple[str, ...]
    tags: dict[str, str] = field(hash=False, default_factory=dict)


@dataclass(frozen=True)
class Step:
    """One rule's part in the decision, for ``explain``."""

    rule: str
    result: str  # the queue it named ("" for none)
    outcome: str  # why it was taken or passed over
    refused: str = ""  # why its queue was passed over: PARENT_QUEUE, NO_ACCESS ("" when taken or none named)


@dataclass(frozen=True)
class Placement:
    queue: str  # "" when rejected
    rule: str  # the rule that placed it
    steps: tuple[Step, ...]
    error: str = ""  # the rejection message


class PlacementError(Exception):
    """A rule failed hard (an invalid queue name, a parent rule naming a leaf): the application is rejected."""


@dataclass(frozen=True)
class Filter:
    """``newFilter``: allow or deny lists (a single entry with a regexp character is a regexp)."""

    allow: bool
    empty: bool
    users: frozenset[str]
    groups: frozenset[str]
    user_pattern: re.Pattern[str] | None
    group_pattern: re.Pattern[str] | None

    def allows(self, user: str, groups: tuple[str, ...]) -> bool:
        if self.empty:
            return self.allow
        if self._user(user) or any(self._group(g) for g in groups):
            return self.allow
        return not self.allow

    def _user(self, user: str) -> bool:
        return bool(self.user_pattern.search(user)) if self.user_pattern else user in self.users

    def _group(self, group: str) -> bool:
        return bool(self.group_pattern.search(group)) if self.group_pattern else group in self.groups


def new_filter(conf: FilterConf) -> Filter:
    users, user_pattern, empty_users = _names(conf.users, USER_NAME)
    groups, group_pattern, empty_groups = _names(conf.groups, GROUP_NAME)
    return Filter(conf.type != "deny", empty_users and empty_groups, users, groups, user_pattern, group_pattern)


def _names(values: list[str] | None, pattern: re.Pattern[str]) -> tuple[frozenset[str], re.Pattern[str] | None,
                                                                          bool]:
    entries = values or []
    if len(entries) == 1:
        entry = entries[0]
        if SPECIAL.search(entry):
            compiled = None
            if go_regexp_compiles(entry):
                try:
                    compiled = re.compile(entry)
                except re.error:
                    compiled = None
            return frozenset(), compiled, False
        return (frozenset({entry}) if pattern.match(entry) else frozenset()), None, False
    if len(entries) >= 2:
        return frozenset(e for e in entries if pattern.match(e)), None, False
    return frozenset(), None, True


QueueLookup = Callable[[str], Queue | None]


def place(rules: list[RuleConf] | None, app: Submitter, lookup: QueueLookup) -> Placement:
    """``PlaceApplication``."""
    configured = rules or [RuleConf(name="provided", create=False)]
    steps: list[Step] = []
    chain = [*configured, None]  # None: the implicit recovery rule (only forced applications use it)
    for remaining, rule in zip(range(len(chain) - 1, -1, -1), chain, strict=True):
        label = describe(rule) if rule is not None else "recovery"
        try:
            name = _apply(rule, app, lookup) if rule is not None else ""
        except PlacementError as exc:
            steps.append(Step(label, "", f"error: {exc}"))
            return Placement("", label, tuple(steps), str(exc))
        if remaining == 0 and name == "" and lookup(DEFAULT_PLACEMENT_QUEUE) is not None:
            name = DEFAULT_PLACEMENT_QUEUE
            label = "root.default (the last rule gave nothing)"
        if name == "":
            steps.append(Step(label, "", _why_nothing(rule, app)))
            continue
        refused, verdict = _usable(name, app, lookup)
        steps.append(Step(label, name, verdict or "placed", refused))
        if verdict:
            continue
        return Placement(name, label, tuple(steps))
    return Placement("", "", tuple(steps), REJECTED)


def _usable(name: str, app: Submitter, lookup: QueueLookup) -> tuple[str, str]:
    """("", "") when the application can go to ``name``; else why the next rule is tried (PARENT_QUEUE or NO_ACCESS,
    and the words)."""
    queue = lookup(name)
    if queue is None:
        current = name
        while queue is None and DOT in current:
            current = current[:current.rindex(DOT)]
            queue = lookup(current)
        if queue is None or not queue.can_submit(app.user, app.groups):
            return NO_ACCESS, f"the user {app.user} may not submit to {current} (submitacl/adminacl up the tree)"
        return "", ""
    if not queue.leaf:
        return PARENT_QUEUE, f"{queue.path} is a parent queue, not a leaf"
    if not queue.can_submit(app.user, app.groups):
        return NO_ACCESS, f"the user {app.user} may not submit to {queue.path} (submitacl/adminacl up the tree)"
    return "", ""


def _why_nothing(rule: RuleConf | None, app: Submitter) -> str:
    if rule is None:
        return "only applications the shim forces (recovered ones) use the recovery queue"
    name = rule.name.lower()
    if name == "provided" and not app.queue:
        return "the pod names no queue (label or annotation yunikorn.apache.org/queue, or label queue)"
    if name == "tag" and not app.tags.get(rule.value.lower()):
        return f"the application has no tag {rule.value.lower()}"
    return "the filter does not allow the user, or the queue does not exist and create is false"


def describe(rule: RuleConf) -> str:
    parts = []
    for link in rule.chain():
        arguments = [a for a in (link.value, "create" if link.create else "") if a]
        parts.append(f"{link.name.lower()}({', '.join(arguments)})" if arguments else link.name.lower())
    return " > ".join(parts)


def _apply(rule: RuleConf, app: Submitter, lookup: QueueLookup) -> str:
    """One rule's ``placeApplication``: the queue it names, "" for none; raises on a hard error."""
    name = rule.name.lower()
    filter_ = new_filter(rule.filter)
    if name == "provided":
        if not app.queue or not filter_.allows(app.user, app.groups):
            return ""
        return _qualified(app.queue, rule, app, lookup, check_parts=True)
    if name == "user":
        if not filter_.allows(app.user, app.groups):
            return ""
        child = app.user.replace(DOT, DOT_REPLACE)
        if not is_queue_name_valid(child):
            raise PlacementError(QUEUE_NAME_MESSAGE)
        return _under_parent(child, rule, app, lookup)
    if name == "tag":
        value = app.tags.get(rule.value.lower(), "")
        if not value or not filter_.allows(app.user, app.groups):
            return ""
        return _qualified(value, rule, app, lookup, check_parts=True)
    if name == "fixed":
        if not filter_.allows(app.user, app.groups):
            return ""
        queue = rule.value.lower()
        if queue.startswith(ROOT):
            return queue if (rule.create or lookup(queue) is not None) else ""
        return _under_parent(queue, rule, app, lookup, escape=False)
    return ""  # the test rule, or a rule that cannot be built (V21)


def _qualified(value: str, rule: RuleConf, app: Submitter, lookup: QueueLookup, check_parts: bool) -> str:
    if value.startswith(ROOT + DOT):
        if check_parts and any(not is_queue_name_valid(part) for part in value.split(DOT)):
            raise PlacementError(QUEUE_NAME_MESSAGE)
        return value if (rule.create or lookup(value) is not None) else ""
    child = value.replace(DOT, DOT_REPLACE)
    if not is_queue_name_valid(child):
        raise PlacementError(QUEUE_NAME_MESSAGE)
    return _under_parent(child, rule, app, lookup)


def _under_parent(child: str, rule: RuleConf, app: Submitter, lookup: QueueLookup, escape: bool = True) -> str:
    parent = ""
    if rule.parent is not None:
        parent = _apply(rule.parent, app, lookup)
        if parent == "":
            return ""
        if not parent.startswith(ROOT + DOT):
            parent = f"{ROOT}{DOT}{parent}"
        found = lookup(parent)
        if found is not None and found.leaf:
            raise PlacementError(f"parent rule returned a leaf queue: {parent}")
    name = f"{parent or ROOT}{DOT}{child}"
    if not rule.create and lookup(name) is None:
        return ""
    return name


RULE_NAMES = ("provided", "user", "tag", "fixed")


@dataclass(frozen=True)
class MissingQueue:
    """The queue a pod names that does not exist, and the existing queues its name is close to (a typo)."""

    path: str
    close: tuple[str, ...]

    def describe(self) -> str:
        guess = f" (did you mean {' or '.join(self.close)}?)" if self.close else ""
        return f"queue {self.path} does not exist{guess}"


def requested_path(requested: str) -> str:
    """The queue a pod names as the provided rule qualifies it (lower-cased, under root, dots of an unqualified name
    escaped); "" when it names none."""
    if not requested:
        return ""
    name = requested.lower()
    return name if name.startswith(ROOT + DOT) or name == ROOT else f"{ROOT}{DOT}{name.replace(DOT, DOT_REPLACE)}"


@dataclass(frozen=True)
class QueueRefused:
    """Why placement did not put an application in the queue its pod names: the decision's own step for that
    queue (a parent queue, no submit access), or none (the queue does not exist and no rule makes it, or no rule
    takes the name)."""

    path: str
    refused: str  # PARENT_QUEUE, NO_ACCESS, or "" (no rule named the queue)
    outcome: str  # the step's words ("" when no rule named the queue)
    missing: MissingQueue | None  # the queue does not exist (with the names it is close to)


def queue_refused(requested: str, decision: Placement, lookup: QueueLookup,
                  paths: Sequence[str]) -> QueueRefused | None:
    """Why ``decision`` (the engine's own, :func:`place`) did not place the application in the queue its pod names;
    None when it did, or the pod names none."""
    path = requested_path(requested)
    if not path or decision.queue == path:
        return None
    step = next((s for s in decision.steps if s.result == path and s.refused), None)
    missing = missing_queue(requested, lookup, paths)
    if step is not None:
        return QueueRefused(path, step.refused, step.outcome, missing)
    return QueueRefused(path, "", "", missing)


def missing_queue(requested: str, lookup: QueueLookup, paths: Sequence[str]) -> MissingQueue | None:
    """The queue ``requested`` names as the provided rule qualifies it (:func:`requested_path`) when no such queue
    exists; None when it exists or nothing is named. The did-you-mean draws from ``paths`` (the leaves first: only a
    leaf takes applications)."""
    path = requested_path(requested)
    if not path:
        return None
    if lookup(path) is not None:
        return None
    unescaped = path.replace(DOT_REPLACE, DOT)  # "team.a" was probably meant as root.team.a
    close = difflib.get_close_matches(path, paths, n=2, cutoff=0.8) or \
        difflib.get_close_matches(unescaped, paths, n=2, cutoff=0.8)
    return MissingQueue(path, tuple(close))


def rule_error(rule: RuleConf) -> str | None:
    """``newRule`` and the rule's ``initialise`` (its parent rule built first-to-last as YuniKorn does)."""
    name = rule.name.lower()
    if name == "recovery":
        return "recovery rule cannot be part of the config, failing placement rule config"
    if name not in (*RULE_NAMES, "test"):
        return f"unknown rule name specified {rule.name}, failing placement rule config"
    if name == "tag" and rule.value == "":
        return "a tag queue rule must have a tag name set"
    if name == "fixed":
        value = rule.value.lower()
        if value == "":
            return "a fixed queue rule must have a queue name set"
        if any(not is_queue_name_valid(part) for part in value.split(DOT)):
            return QUEUE_NAME_MESSAGE
        if value.startswith(ROOT) and rule.parent is not None:
            return ("cannot have a fixed queue rule with qualified queue getName and a parent rule: "
                    f"{{{rule.name} {str(rule.create).lower()} ...}}")
    return rule_error(rule.parent) if rule.parent is not None else None
