"""What YuniKorn accepts but will not do what was meant (spec §4 V22-V26, §3 R4/R5).

* V22 a property value that does not parse (replaced by its default, silently);
* V23 a property key YuniKorn does not know (ignored);
* V24 a resource named as kubectl names it (``cpu``, ``requests.cpu``, ``limits.memory``) or nearly ``vcore`` or
  ``memory`` (``Memory``): pods reach YuniKorn as ``vcore``, ``memory``, ``pods`` and their extended resources, and
  YuniKorn accepts any name, so such a limit limits nothing (a warning: the configuration is valid);
* V25 a guaranteed or max with only zero values (dropped: the queue is unlimited, R5);
* V26 a child template whose guaranteed exceeds its max (not checked; both applied to dynamic leaves).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from dataclasses import dataclass

from kqctl.origin import FieldPath
from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.config import ChildTemplateConf, LimitConf, MapConf, PartitionConf, QueueConf
from kqctl.yunikorn.api.resources import QuantityError
from kqctl.yunikorn.engine import properties as props


@dataclass(frozen=True)
class Lint:
    rule: str
    severity: str  # "error" or "warning"
    message: str
    hint: str
    path: FieldPath
    line: int


def lint_partition(partition: PartitionConf) -> Iterator[Lint]:
    for queue in _queues(partition.queues or []):
        yield from _lint_queue(queue)


def _queues(queues: list[QueueConf]) -> Iterator[QueueConf]:
    for queue in queues:
        yield queue
        yield from _queues(queue.children)


def _lint_queue(queue: QueueConf) -> Iterator[Lint]:
    for label, conf in (("guaranteed", queue.resources.guaranteed), ("max", queue.resources.max)):
        yield from _resource_names(conf, f"{label} of queue {queue.name}", _EFFECTS[label].format(
            queue=f"queue {queue.name}", meant="{meant}"))
        yield from _zero_only(conf, f"{label} of queue {queue.name}", label)
    yield from _properties(queue.properties, queue.name)
    yield from _template(queue.childtemplate, queue.name)
    for limit in queue.limits or []:
        yield from _limit(limit, queue.name)


def _resource_names(conf: MapConf | None, what: str, effect: str) -> Iterator[Lint]:
    """V24: names no pod asks for, kubectl's (cpu, requests.memory) or near misses of vcore and memory. YuniKorn
    accepts them (any resource name is valid), so a warning that says what the limit then does: nothing.
    ``effect`` says it for the place, with ``{meant}`` for the resource the limit was meant for."""
    for name in (conf.values if conf else {}):
        assert conf is not None
        meant = res.kubectl_name(name) or res.near_miss(name)
        if meant is None:
            continue
        consequence = effect.format(meant=meant)
        if res.kubectl_name(name) is not None:
            why = ("pods reach YuniKorn as vcore (cpu in millicores), memory, pods and their other resources by name, "
                   f"so {name!r} matches nothing a pod asks for")
        else:
            unit = " (and its value is read as a plain number, not in cores)" if meant == res.VCORE else ""
            why = (f"YuniKorn keeps {name!r} as a resource of its own{unit}, but names are case-sensitive and pods "
                   f"reach YuniKorn as {meant}, so it matches nothing a pod asks for")
        yield Lint("YK-V24", "warning", f"resource {name!r} in {what}: YuniKorn accepts any resource name; {why}: "
                   f"{consequence}", f"write {meant!r} instead of {name!r}", conf.loc.at(name), conf.loc.line_of(name))


def _zero_only(conf: MapConf | None, what: str, label: str) -> Iterator[Lint]:
    """V25 (R5): a map with no value above zero is dropped as a whole."""
    if conf is None or not conf.values:
        return
    try:
        parsed = res.resource_from_conf(conf.values)
    except QuantityError:
        return
    if not res.strictly_greater_than_zero(parsed):
        effect = "the queue has no max at all (unlimited), not a max of zero" if label == "max" else \
            "the queue has no guaranteed resources"
        yield Lint("YK-V25", "warning", f"{what} has only zero values: YuniKorn ignores it, {effect}",
                   "to block a resource, give it 0 next to another resource above 0 (e.g. vcore: 0 with memory: 1)",
                   conf.loc.path, conf.loc.line)


def _properties(conf: MapConf | None, queue: str) -> Iterator[Lint]:
    """V22/V23 where the property is written; parsed as a leaf would (a parent's sort policy and delays are
    read by the leaves that inherit them)."""
    if conf is None:
        return
    settings = props.resolve(conf.values, True)
    for bad in settings.unparsed:
        yield Lint("YK-V22", "warning", f"queue {queue}: property {bad.key}: {bad.value!r} is {bad.reason}; YuniKorn "
                   f"silently uses {bad.used}", _property_hint(bad.key), conf.loc.at(bad.key),
                   conf.loc.line_of(bad.key))
    for key in settings.unknown:
        known = props.known_keys()
        close = difflib.get_close_matches(key, known, n=1)
        hint = f"did you mean {close[0]}?" if close else "YuniKorn's queue properties: " + ", ".join(known)
        yield Lint("YK-V23", "warning", f"queue {queue}: property {key} is not one YuniKorn knows: ignored", hint,
                   conf.loc.at(key), conf.loc.line_of(key))


def _property_hint(key: str) -> str:
    return {
        props.SORT_POLICY: "fifo or fair, lower-case",
        props.SORT_PRIORITY: "enabled or disabled",
        props.PRIORITY_OFFSET: "a whole number such as \"10\" or \"-5\"",
        props.PRIORITY_POLICY: "default or fence",
        props.PREEMPTION_POLICY: "default, fence or disabled",
    }.get(key, "a Go duration with a unit, such as 30s, 5m or 1h")


def _template(template: ChildTemplateConf, queue: str) -> Iterator[Lint]:
    resources = template.resources
    for label, conf in (("guaranteed", resources.guaranteed), ("max", resources.max)):
        yield from _resource_names(conf, f"childtemplate {label} of queue {queue}", _EFFECTS[label].format(
            queue=f"each dynamic leaf below {queue}", meant="{meant}"))
        yield from _zero_only(conf, f"childtemplate {label} of queue {queue}", label)
    yield from _properties(template.properties, f"{queue} (childtemplate)")
    try:
        guaranteed = res.resource_from_conf(resources.guaranteed.values if resources.guaranteed else None)
        maximum = res.resource_from_conf(resources.max.values if resources.max else None)
    except QuantityError:
        return  # V20
    if res.strictly_greater_than_zero(maximum) and not res.fit_in_max_undef(maximum, guaranteed):
        assert resources.guaranteed is not None
        yield Lint("YK-V26", "warning", f"childtemplate of queue {queue}: guaranteed {res.go_string(guaranteed)} is "
                   f"larger than max {res.go_string(maximum)}; YuniKorn does not check templates and gives both to "
                   "every dynamic leaf", "lower the template's guaranteed to at most its max",
                   resources.guaranteed.loc.path, resources.guaranteed.loc.line)


def _limit(limit: LimitConf, queue: str) -> Iterator[Lint]:
    name = limit.limit or "(unnamed)"
    yield from _resource_names(limit.maxresources, f"limit {name} of queue {queue}",
                               f"the limit {name} does not limit {{meant}} for its users and groups at all")


_EFFECTS = {
    "max": "{queue} has no {meant} max: its pods may use as much {meant} as the queues above it allow",
    "guaranteed": "{queue} is guaranteed no {meant}: preemption never frees {meant} for it and its fair share "
                  "is not measured against it",
}
