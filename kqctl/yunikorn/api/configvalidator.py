"""YuniKorn's config validator, V1-V19 (spec §4; yunikorn-core ``pkg/common/configs/configvalidator.go``).

YuniKorn stops at the first error and returns it as plain text: that is what its admission webhook answers.
kqctl walks the same checks in the same order, so the first :class:`Violation` here is that answer, word for
word, and keeps going (with the values that did parse) to find what YuniKorn would say once it is fixed.

Each method is named after the Go function it mirrors; they can be called alone on a fragment, as
YuniKorn's own unit tests do (the conformance data records both).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kqctl.origin import FieldPath
from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.config import (
    FilterConf,
    LimitConf,
    Located,
    MapConf,
    PartitionConf,
    QueueConf,
    RuleConf,
    SchedulerConf,
)
from kqctl.yunikorn.api.names import (
    DEFAULT_PARTITION,
    DOT,
    GROUP_NAME,
    QUEUE_NAME_MESSAGE,
    ROOT,
    RULE_NAME,
    SPECIAL,
    USER_NAME,
    WILDCARD,
    go_list,
    go_regexp_compiles,
    is_queue_name_valid,
)
from kqctl.yunikorn.api.resources import QuantityError, Resource


@dataclass(frozen=True)
class Violation:
    """One error of YuniKorn's validator: rule ID (V1-V19), YuniKorn's message, where it was written."""

    rule: str
    message: str
    path: FieldPath
    line: int
    detail: str = ""  # a short human hint kqctl adds after YuniKorn's words (``vcore 8 > 4``)


@dataclass(frozen=True)
class StaticPath:
    """``placementStaticPath``: the longest run of ``fixed`` rules at the head of a rule chain (V16)."""

    path: str
    rule_chain: str
    create: bool
    has_dynamic_part: bool
    rule_no: int
    loc: Located


PLACEMENT_OK = "placementOK"
NON_EXISTING_QUEUE = "errNonExistingQueue"
QUEUE_NOT_LEAF = "errQueueNotLeaf"
LAST_QUEUE_LEAF = "errLastQueueLeaf"


@dataclass
class ConfigValidator:
    """Collects violations in YuniKorn's order; ``violations[0]`` is YuniKorn's one answer."""

    violations: list[Violation] = field(default_factory=list)
    _seen: set[Violation] = field(default_factory=set)

    def fail(self, rule: str, message: str, loc: Located, key: str | int | None = None, detail: str = "") -> None:
        path = loc.path if key is None else loc.at(key)
        line = loc.line if key is None else (loc.line_of(key) if isinstance(key, str) else loc.line)
        violation = Violation(rule, message, path, line, detail)
        if violation not in self._seen:  # a later check that meets the same problem again (a limit's quantity)
            self._seen.add(violation)
            self.violations.append(violation)

    @property
    def first(self) -> Violation | None:
        return self.violations[0] if self.violations else None

    # --- Validate ---------------------------------------------------------------------------------------

    def validate(self, config: SchedulerConf) -> None:
        """``Validate``: per partition, in this order (spec §4). Normalises the config as YuniKorn does: ""
        or any case of "default" becomes "default" and a root queue is inserted where missing (V3)."""
        seen: set[str] = set()
        for partition in config.partitions or []:
            if partition.name == "" or partition.name.lower() == DEFAULT_PARTITION:
                partition.name = DEFAULT_PARTITION
            if partition.name.lower() in seen:  # V1
                self.fail("YK-V1", f"duplicate partition name found with name {partition.name}", partition.loc, "name")
            seen.add(partition.name.lower())
            self.validate_partition(partition)

    def validate_partition(self, partition: PartitionConf) -> None:
        if not self.check_queues_structure(partition):
            return  # V2: without queues nothing else of the partition can be checked
        self.check_limits_structure(partition)
        root = partition.root
        self.check_queues(root, 1)
        self.check_queue_resource(root, None)
        self.check_placement_rules(partition)
        self.check_node_sorting_policy(partition)
        self.check_queue_max_applications(root)
        self.check_limit_resource(root, {}, {})
        self.check_limit_max_applications(root, {}, {})

    # --- queue structure (V2-V5) ----------------------------------------------------------------------------

    def check_queues_structure(self, partition: PartitionConf) -> bool:
        """``checkQueuesStructure``: V2 queues present; V3 a single ``root`` on top (inserted otherwise, always
        a parent); V4 root without resources."""
        if partition.queues is None:
            self.fail("YK-V2", "queue config is not set", partition.loc)
            return False
        queues = partition.queues
        if len(queues) != 1 or queues[0].name.lower() != ROOT:
            root = QueueConf(name=ROOT, parent=True, queues=queues, inserted=True,
                             loc=Located(partition.loc.at("queues"), partition.loc.line_of("queues")))
            partition.queues = [root]
        else:
            queues[0].parent = True
        root = partition.queues[0]
        if root.resources.guaranteed is not None or root.resources.max is not None:  # V4
            self.fail("YK-V4", "root queue must not have resource limits set", root.loc, "resources")
        return True

    def check_limits_structure(self, partition: PartitionConf) -> None:
        """``checkLimitsStructure``: V5 partition limits equal root limits when both are set; else copied."""
        root = partition.root
        if root.name.lower() != ROOT:
            self.fail("YK-V3", f"top queue name is {root.name} not root", root.loc, "name")
            return
        partition_limits, root_limits = partition.limits or [], root.limits or []
        if partition_limits and root_limits and \
                [limit.deep_key() for limit in partition_limits] != [limit.deep_key() for limit in root_limits]:
            self.fail("YK-V5", "partition limits and root queue limits are not equivalent", partition.loc, "limits")
        if partition_limits and not root_limits:
            root.limits = partition.limits

    # --- names, ACLs, limits (V6-V8, V19) --------------------------------------------------------------------

    def check_acl(self, acl: str, loc: Located, key: str) -> None:
        """``checkACL`` (V6): at most two blank-separated fields; ``*`` and "" are special."""
        trimmed = acl.strip()
        if not trimmed or trimmed == WILDCARD:
            return
        if len(trimmed.split()) > 2:
            self.fail("YK-V6", f"multiple spaces found in ACL: '{trimmed}'", loc, key)

    def check_queues(self, queue: QueueConf, level: int) -> None:
        """``checkQueues``: ACLs, limits, then the names of the children (V7, V8), then each child."""
        self.check_acl(queue.adminacl, queue.loc, "adminacl")
        self.check_acl(queue.submitacl, queue.loc, "submitacl")
        self.check_limits(queue.limits or [], queue.name, queue)
        names: set[str] = set()
        for child in queue.children:
            if not is_queue_name_valid(child.name):  # V7
                self.fail("YK-V7", QUEUE_NAME_MESSAGE, child.loc, "name")
            if child.name.lower() in names:  # V8
                self.fail("YK-V8", f"duplicate child name found with name '{child.name}', level {level}",
                          child.loc, "name")
            names.add(child.name.lower())
        for child in queue.children:
            self.check_queues(child, level + 1)

    def check_limits(self, limits: list[LimitConf], obj: str, queue: QueueConf) -> None:
        """``checkLimits``: each limit of one queue, sharing the names seen so far."""
        users: dict[str, bool] = {}
        groups: dict[str, bool] = {}
        for limit in limits:
            self.check_limit(limit, users, groups, queue)

    def check_limit(self, limit: LimitConf, users: dict[str, bool], groups: dict[str, bool],
                    queue: QueueConf) -> None:
        """``checkLimit`` (V19): names, duplicates, wildcard order, resources and counts of one limit."""
        loc = limit.loc
        if not limit.users and not limit.groups:
            self.fail("YK-V19", f"empty user and group lists defined in limit '{limit.go_value()}'", loc)
        for i, name in enumerate(limit.users or []):
            where = Located(loc.at("users", i), loc.line_of("users"))
            if name != WILDCARD and not USER_NAME.match(name):
                self.fail("YK-V19", f"invalid limit user name '{name}' in limit definition", where)
            if users.get(name):
                self.fail("YK-V19", f"duplicated user name '{name}', already exists", where)
            users[name] = True
            if users.get(WILDCARD) and name != WILDCARD:
                self.fail("YK-V19", f"should not set no wildcard user {name} after wildcard user limit", where)
        for i, name in enumerate(limit.groups or []):
            where = Located(loc.at("groups", i), loc.line_of("groups"))
            if name != WILDCARD and not GROUP_NAME.match(name):
                self.fail("YK-V19", f"invalid limit group name '{name}' in limit definition", where)
            if groups.get(name):
                self.fail("YK-V19", f"duplicated group name '{name}'", where)
            groups[name] = True
            if groups.get(WILDCARD) and name != WILDCARD:
                self.fail("YK-V19", f"should not set no wildcard group {name} after wildcard group limit", where)
        if groups.get(WILDCARD) and len(groups) == 1:
            self.fail("YK-V19", "should not specify only one group limit that is using the wildcard. There must be "
                             "at least one limit with a group name defined ", loc, "groups")
        limit_resource: Resource = {}
        if limit.maxresources is not None and limit.maxresources.values:
            parsed = self.parse_map(limit.maxresources)
            if parsed is not None:
                limit_resource = parsed
                if not res.strictly_greater_than_zero(parsed):
                    self.fail("YK-V19", f"MaxResources should be greater than zero in '{limit.limit}' limit",
                              loc, "maxresources")
        if limit.maxapplications == 0 and (limit.maxresources is None or not limit.maxresources.values):
            self.fail("YK-V19", f"invalid resource combination for limit {limit.limit} all resource limits are null",
                      loc)
        if queue.maxapplications != 0 and queue.maxapplications < limit.maxapplications:
            self.fail("YK-V19", f"invalid MaxApplications settings for limit {limit.limit} exceed current the queue "
                             "MaxApplications", loc, "maxapplications",
                      detail=f"{limit.maxapplications} > {queue.maxapplications}")
        if queue.name != ROOT:
            try:
                queue_max = res.resource_from_conf(_values(queue.resources.max))
            except QuantityError as exc:
                self.fail("YK-V9", f"parse queue {queue.name} max resource failed: {exc}", *_entry(queue.resources.max,
                                                                                                 queue.loc))
                return
            if not res.fit_in_max_undef(queue_max, limit_resource):
                self.fail("YK-V19", f"invalid MaxResources settings for limit {limit.limit} exeecd current the queue "
                                 "MaxResources", loc, "maxresources", detail=res.exceeding(limit_resource, queue_max))

    def parse_map(self, conf: MapConf | None) -> Resource | None:
        """``NewResourceFromConf`` with V9 reported at the offending entry; None when an entry fails."""
        if conf is None:
            return {}
        result: Resource = {}
        for name in sorted(conf.values):
            try:
                result[name] = res.parse_config_value(name, conf.values[name])
            except QuantityError as exc:
                self.fail("YK-V9", str(exc), conf.loc, name)
                return None
        return result

    # --- queue resources (V9-V13) ------------------------------------------------------------------------

    def check_resource_config(self, queue: QueueConf) -> tuple[Resource | None, Resource | None]:
        """``checkResourceConfig``: V9 parse guaranteed then max; V10 guaranteed <= max."""
        guaranteed = self.parse_map(queue.resources.guaranteed)
        maximum = self.parse_map(queue.resources.max)
        if guaranteed is not None and maximum is not None and not res.fit_in_max_undef(maximum, guaranteed):
            self.fail("YK-V10", f"guaranteed resource {res.go_string(guaranteed)} is larger than maximum resource "
                             f"{res.go_string(maximum)} for queue {queue.name}", *_entry(queue.resources.guaranteed,
                                                                                          queue.loc),
                      detail=res.exceeding(guaranteed, maximum))
        return guaranteed, maximum

    def check_queue_resource(self, queue: QueueConf, parent_max: Resource | None) -> Resource:
        """``checkQueueResource``: V11 own max within the ancestors' effective max; V12/V13 children's
        guaranteed within own guaranteed and effective max. Returns the queue's effective guaranteed."""
        guaranteed, maximum = self.check_resource_config(queue)
        own_max = maximum or {}
        if maximum is not None and not res.fit_in_max_undef(parent_max, maximum):
            self.fail("YK-V11", f"max resource of parent {res.go_string(parent_max)} is smaller than maximum resource "
                             f"{res.go_string(maximum)} for queue {queue.name}", *_entry(queue.resources.max,
                                                                                          queue.loc),
                      detail=res.exceeding(maximum, parent_max))
        effective_max = res.component_wise_min(own_max, parent_max) or {}
        children_sum: Resource = {}
        for child in queue.children:
            children_sum = res.add(children_sum, self.check_queue_resource(child, effective_max))
        own_guaranteed = guaranteed or {}
        if guaranteed is not None and not res.fit_in_max_undef(own_guaranteed, children_sum):
            self.fail("YK-V12", f"guaranteed resource of parent {res.go_string(own_guaranteed)} is smaller than sum of "
                             f"guaranteed resources {res.go_string(children_sum)} of the children for queue "
                             f"{queue.name}", *_entry(queue.resources.guaranteed, queue.loc),
                      detail=res.exceeding(children_sum, own_guaranteed))
        if not res.fit_in_max_undef(effective_max, children_sum):
            self.fail("YK-V13", f"max resource {res.go_string(effective_max)} is smaller than sum of guaranteed "
                             f"resources {res.go_string(children_sum)} of the children for queue {queue.name}",
                      *_entry(queue.resources.max, queue.loc), detail=res.exceeding(children_sum, effective_max))
        return children_sum if res.is_zero(own_guaranteed) else own_guaranteed

    # --- placement rules (V14-V16) -----------------------------------------------------------------------

    def check_placement_rules(self, partition: PartitionConf) -> None:
        """``checkPlacementRules``: syntax of every rule, then the static queue paths against the tree."""
        rules = partition.placementrules or []
        for rule in rules:
            self.check_placement_rule(rule)
        paths = self.get_longest_placement_paths(rules)
        for static in paths:
            parts = static.path.lower().split(DOT)
            result, last_queue = check_queue_hierarchy_for_placement(
                parts, static.create, static.has_dynamic_part, partition.queues or [], None)
            prefix = f"placement rule no. #{static.rule_no} ({static.rule_chain}) references"
            if result == QUEUE_NOT_LEAF:
                self.fail("YK-V16", f"{prefix} a queue ({static.path}) which is not a leaf", static.loc)
            elif result == NON_EXISTING_QUEUE:
                self.fail("YK-V16", f"{prefix} non-existing queues ({static.path}) and create is 'false'", static.loc)
            elif result == LAST_QUEUE_LEAF:
                self.fail("YK-V16", f"{prefix} non-existing queues ({static.path}) which cannot be created because the "
                                 f"last queue ({last_queue}) in the hierarchy is a leaf", static.loc)

    def check_placement_rule(self, rule: RuleConf) -> None:
        """``checkPlacementRule``: V14 name syntax (the parent first), V15 the filter."""
        if not RULE_NAME.match(rule.name):
            self.fail("YK-V14", f"invalid rule name {rule.name}, a name must be a valid identifier", rule.loc, "name")
        if rule.parent is not None:
            self.check_placement_rule(rule.parent)
        self.check_placement_filter(rule.filter)

    def check_placement_filter(self, filter_conf: FilterConf) -> None:
        """``checkPlacementFilter`` (V15): type, and a single-entry list is a name or a real regexp."""
        loc = filter_conf.loc
        kind = filter_conf.type
        if kind != "" and kind.lower() not in ("allow", "deny"):
            self.fail("YK-V15", f"invalid rule filter type {kind}, filter type  must be either '', allow or deny",
                      loc, "type")
        for key, values, pattern in (("users", filter_conf.users, USER_NAME),
                                     ("groups", filter_conf.groups, GROUP_NAME)):
            if values is not None and len(values) == 1 and not pattern.match(values[0]) and not (
                    go_regexp_compiles(values[0]) and SPECIAL.search(values[0])):
                what = "user" if key == "users" else "group"
                self.fail("YK-V15", f"invalid rule filter {what} list is not a proper list or regexp: "
                                    f"{go_list(values)}", loc, key)

    def get_longest_placement_paths(self, rules: list[RuleConf]) -> list[StaticPath]:
        """``getLongestPlacementPaths``: the static path of each rule chain that starts with ``root``."""
        paths: list[StaticPath] = []
        for number, rule in enumerate(rules):
            static, chain, dynamic, bad = longest_static_path(rule)
            if bad is not None:
                self.fail("YK-V16", f"illegal fully qualified 'fixed' rule with value {bad.value}", bad.loc, "value")
                continue
            if not static.startswith(ROOT):
                continue
            paths.append(StaticPath(static, chain, rule.create, dynamic, number, rule.loc))
        return paths

    # --- node sorting, max applications (V17, V18) ------------------------------------------------------------

    def check_node_sorting_policy(self, partition: PartitionConf) -> None:
        """``checkNodeSortingPolicy`` (V17): fair, binpacking or "" (case-sensitive); no negative weight."""
        policy = partition.nodesortpolicy
        if policy.type not in ("", "fair", "binpacking"):
            self.fail("YK-V17", f"undefined policy: {policy.type}", policy.loc, "type")
        for name, weight in (policy.resourceweights or {}).items():
            if weight < 0:
                self.fail("YK-V17", f"negative resource weight for {name} is not allowed",
                          Located(policy.loc.at("resourceweights", name), policy.weight_lines.get(name,
                                                                                                 policy.loc.line)))

    def check_queue_max_applications(self, queue: QueueConf) -> None:
        """``checkQueueMaxApplications`` (V18): a parent's non-zero limit binds every child to one no larger."""
        for child in queue.children:
            if queue.maxapplications != 0 and queue.maxapplications < child.maxapplications:
                self.fail("YK-V18", "parent maxApplications must be larger than child maxApplications",
                          child.loc, "maxapplications")
            if queue.maxapplications != 0 and child.maxapplications == 0:
                self.fail("YK-V18", "maxApplications is either undefined or zero, which is not allowed when parent "
                                 "queue's maxApplications is defined", child.loc)
            self.check_queue_max_applications(child)

    # --- user and group limits down the tree (V19) ------------------------------------------------------------

    def check_limit_resource(self, queue: QueueConf, parent_users: dict[str, Resource],
                             parent_groups: dict[str, Resource]) -> None:
        """``checkLimitResource``: a user's or group's max may not exceed the same name's (or the wildcard's)
        above it."""
        users, groups = dict(parent_users), dict(parent_groups)
        for limit in queue.limits or []:
            limit_max = self.parse_map(limit.maxresources)
            if limit_max is None:
                continue
            for kind, names, parent, current in (("user", limit.users, parent_users, users),
                                                 ("group", limit.groups, parent_groups, groups)):
                for name in names or []:
                    self._limit_resource_within(kind, name, limit, limit_max, queue, parent, current)
        for child in queue.children:
            self.check_limit_resource(child, users, groups)

    def _limit_resource_within(self, kind: str, name: str, limit: LimitConf, limit_max: Resource,
                               queue: QueueConf, parent: dict[str, Resource], current: dict[str, Resource]) -> None:
        if name in parent:
            existing = parent[name]
            if not res.fit_in_max_undef(existing, limit_max):
                self.fail("YK-V19", f"{kind} {name} max resource {res.go_string(limit_max)} of queue {queue.name} is "
                                 "greater than immediate or ancestor parent maximum resource "
                                 f"{res.go_string(existing)}", limit.loc, "maxresources",
                          detail=res.exceeding(limit_max, existing))
            current[name] = res.component_wise_min(limit_max, existing) or {}
        elif name != WILDCARD and WILDCARD in parent:
            existing = parent[WILDCARD]
            if not res.fit_in_max_undef(existing, limit_max):
                self.fail("YK-V19", f"{kind} {name} max resource {res.go_string(limit_max)} of queue {queue.name} is "
                                 f"greater than wildcard maximum resource {res.go_string(existing)} of immediate or "
                                 "ancestor parent queue", limit.loc, "maxresources",
                          detail=res.exceeding(limit_max, existing))
            current[name] = limit_max
        else:
            current[name] = limit_max

    def check_limit_max_applications(self, queue: QueueConf, parent_users: dict[str, int],
                                     parent_groups: dict[str, int]) -> None:
        """``checkLimitMaxApplications``: the same for max applications (0 = unlimited)."""
        users, groups = dict(parent_users), dict(parent_groups)
        for limit in queue.limits or []:
            for kind, names, parent, current in (("user", limit.users, parent_users, users),
                                                 ("group", limit.groups, parent_groups, groups)):
                for name in names or []:
                    self._limit_apps_within(kind, name, limit, queue, parent, current)
        for child in queue.children:
            self.check_limit_max_applications(child, users, groups)

    def _limit_apps_within(self, kind: str, name: str, limit: LimitConf, queue: QueueConf,
                           parent: dict[str, int], current: dict[str, int]) -> None:
        apps = limit.maxapplications
        if name in parent:
            existing = parent[name]
            if existing != 0 and (existing < apps or apps == 0):
                self.fail("YK-V19", f"{kind} {name} max applications {apps} of queue {queue.name} is greater than "
                                 f"immediate or ancestor parent max applications {existing}", limit.loc,
                          "maxapplications")
        elif name != WILDCARD and WILDCARD in parent:
            existing = parent[WILDCARD]
            if existing != 0 and (existing < apps or apps == 0):
                self.fail("YK-V19", f"{kind} {name} max applications {apps} of queue {queue.name} is greater than "
                                 f"wildcard max applications {existing} of immediate or ancestor parent queue",
                          limit.loc, "maxapplications")
        current[name] = apps


def longest_static_path(rule: RuleConf) -> tuple[str, str, bool, RuleConf | None]:
    """``getLongestStaticPath``: (static path, rule chain text, whether a dynamic rule follows, the fixed rule
    that is fully qualified but not first, if any)."""
    static, chain, dynamic = "", "", False
    for link in rule.chain():
        chain = link.name if not chain else f"{chain}->{link.name}"
        if dynamic:
            continue
        if link.name != "fixed":
            static = static or "<dynamic>"
            dynamic = True
            continue
        if link.value.startswith(ROOT):
            if static:
                return static, chain, dynamic, link
            static = link.value
            continue
        static = (static or ROOT) + DOT + link.value
    return static, chain, dynamic, None


def check_queue_hierarchy_for_placement(path: list[str], create: bool, has_dynamic_part: bool,
                                        queues: list[QueueConf], parent: QueueConf | None) -> tuple[str, str]:
    """``checkQueueHierarchyForPlacement``: walk ``path`` down the configured tree (names compared exactly)."""
    name = path[0]
    if not queues:
        assert parent is not None
        if not parent.parent:
            return LAST_QUEUE_LEAF, parent.name
        return (PLACEMENT_OK if create else NON_EXISTING_QUEUE), ""
    found = next((queue for queue in queues if queue.name == name), None)
    if found is None:
        return (PLACEMENT_OK if create else NON_EXISTING_QUEUE), ""
    if len(path) == 1:
        if has_dynamic_part:
            return (PLACEMENT_OK if found.parent else QUEUE_NOT_LEAF), ""
        return (QUEUE_NOT_LEAF if found.parent else PLACEMENT_OK), ""
    return check_queue_hierarchy_for_placement(path[1:], create, has_dynamic_part, found.queues or [], found)


def _values(conf: MapConf | None) -> dict[str, str] | None:
    return None if conf is None else conf.values


def _entry(conf: MapConf | None, fallback: Located) -> tuple[Located, str | None]:
    """Where a resource map was written (the queue, when it has none)."""
    return (conf.loc, None) if conf is not None else (fallback, None)
