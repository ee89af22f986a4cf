"""What YuniKorn will actually use of a config: every queue's settings after inheritance (spec §5, §9.4).

``kqctl validate -o yaml`` shows it under ``effective``. Resources are in YuniKorn's internal units (vcore in
millicores, memory in bytes); each property says where its value comes from: ``own`` (written on the queue),
``inherited`` (from the parent's effective map, filtered as YuniKorn filters it), ``default``, or
``default (ignored ...)`` when the written value did not parse.
"""

from __future__ import annotations

from typing import Any

from kqctl.yunikorn.api.config import PartitionConf, RuleConf, SchedulerConf
from kqctl.yunikorn.engine import properties as props
from kqctl.yunikorn.engine.queue import Queue, QueueCreationError, build_tree

_SETTING_KEYS = (
    (props.SORT_POLICY, "sort_policy"),
    (props.SORT_PRIORITY, "priority_sort_enabled"),
    (props.PRIORITY_POLICY, "priority_policy"),
    (props.PRIORITY_OFFSET, "priority_offset"),
    (props.PREEMPTION_POLICY, "preemption_policy"),
    (props.PREEMPTION_DELAY, "preemption_delay"),
    (props.QUOTA_PREEMPTION_DELAY, "quota_preemption_delay"),
    (props.BACKOFF, "unschedulable_asks_backoff"),
    (props.BACKOFF_DELAY, "backoff_delay"),
)
_LEAF_ONLY = (props.SORT_POLICY, props.PREEMPTION_DELAY)


def effective_config(config: SchedulerConf, empty: bool = False) -> dict[str, Any]:
    """The ``effective`` document of a config (``empty``: the built-in default stands in for it)."""
    return {
        "source": "built-in default (the text is empty)" if empty else "queues.yaml",
        "partitions": [effective_partition(p) for p in config.partitions or []],
    }


def effective_partition(partition: PartitionConf) -> dict[str, Any]:
    preemption = partition.preemption
    weights = partition.nodesortpolicy.resourceweights or {"vcore": 1.0, "memory": 1.0}
    out: dict[str, Any] = {
        "name": partition.name,
        "preemption": {"enabled": preemption.enabled is None or preemption.enabled,
                       "quotaPreemptionEnabled": bool(preemption.quotapreemptionenabled)},
        "nodeSortPolicy": {"type": partition.nodesortpolicy.type or "fair",
                           "resourceWeights": dict(sorted(weights.items()))},
        "placementRules": [describe_rule(rule) for rule in partition.placementrules or []] or
                          ["provided (create: false) - no rules configured"],
    }
    try:
        tree = build_tree(partition, exact_root=False)
    except QueueCreationError as exc:
        out["queues"] = None
        out["error"] = str(exc)
        return out
    out["queues"] = [effective_queue(queue) for queue in tree.queues()]
    return out


def describe_rule(rule: RuleConf) -> str:
    """``tag(namespace, create)`` under its parent rules, e.g. ``fixed(root.users) > user(create)``."""
    parts = []
    for link in rule.chain():
        arguments = [a for a in (link.value, "create" if link.create else "") if a]
        text = f"{link.name}({', '.join(arguments)})" if arguments else link.name
        if link.filter.type or link.filter.users or link.filter.groups:
            text += f" [filter {link.filter.type or 'allow'}]"
        parts.append(text)
    return " > ".join(parts)


def effective_queue(queue: Queue) -> dict[str, Any]:
    settings = queue.settings
    unparsed = {bad.key: bad for bad in settings.unparsed}
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key, attribute in _SETTING_KEYS:
        if key in _LEAF_ONLY and not queue.leaf:
            values[key] = props.FAIR if key == props.SORT_POLICY else None
            sources[key] = "parents always sort their children fair" if key == props.SORT_POLICY else \
                "read on leaves only"
            continue
        value = getattr(settings, attribute)
        values[key] = _shown(key, value)
        sources[key] = _source(queue, key, unparsed)
    out: dict[str, Any] = {
        "path": queue.path,
        "leaf": queue.leaf,
        "maxApplications": queue.max_running_apps,
        "guaranteed": dict(sorted(queue.guaranteed.items())) if queue.guaranteed else None,
        "max": dict(sorted(queue.max.items())) if queue.max else None,
        "submitACL": queue.submit_acl.describe(),
        "adminACL": queue.admin_acl.describe(),
        "submitAccess": submit_access(queue),
        "properties": values,
        "sources": sources,
    }
    if queue.template is not None:
        template = queue.template
        out["childTemplate"] = {
            "from": template_source(queue),
            "maxApplications": template.max_applications,
            "guaranteed": dict(sorted(template.guaranteed.items())) if template.guaranteed else None,
            "max": dict(sorted(template.max.items())) if template.max else None,
            "properties": dict(sorted(template.properties.items())),
        }
    ignored = sorted(settings.unknown)
    if ignored:
        out["ignoredProperties"] = ignored
    return out


def submit_access(queue: Queue) -> str:
    """Who may submit here: YuniKorn checks the submit and admin ACLs of the queue and of every ancestor."""
    parts = []
    current: Queue | None = queue
    while current is not None:
        for kind, acl in (("submitacl", current.submit_acl), ("adminacl", current.admin_acl)):
            if acl.all_allowed:
                return f"everyone ({kind} '*' on {current.path})"
            if acl.users or acl.groups:
                parts.append(f"{acl.describe()} ({kind} on {current.path})")
        current = current.parent
    return "; ".join(parts) or "nobody"


def template_source(queue: Queue) -> str:
    return "own" if queue.template_from == queue.path else f"inherited from {queue.template_from}"


def _source(queue: Queue, key: str, unparsed: dict[str, props.Unparsed]) -> str:
    if key in unparsed:
        return f"default (ignored {unparsed[key].value!r}: {unparsed[key].reason})"
    if key in queue.own_properties:
        return "own"
    if key in queue.properties:
        if not queue.managed:
            return f"child template of {queue.template_from}"
        return "inherited"
    return "default"


def _shown(key: str, value: Any) -> Any:
    if key == props.SORT_PRIORITY:
        return "enabled" if value else "disabled"
    if key in (props.PREEMPTION_DELAY, props.QUOTA_PREEMPTION_DELAY, props.BACKOFF_DELAY):
        return props.format_duration(value)
    return value
