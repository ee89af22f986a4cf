"""What would let a waiting YuniKorn pod run: changes to a copy of the inputs, each kept only when a new simulation
lets the pod run, and each the smallest that does.

A change with an amount (a max, a user or group limit, a namespace quota, maxapplications, a priority offset) is
searched: the amount where the pod's blocker just opens is tried first (what is in use plus what it asks); when the
pods ahead of it would take that room first, the amount is bisected between there and an upper bound that is
known to be enough if anything is (the cluster's size, every application, every priority), in steps that lose
nothing (resources: the greatest common divisor of the pods' requests, memory in whole Mi; counts: one), and
every answer is one a simulation confirmed. A change the
validator would refuse (YuniKorn's ``validate-conf``) is never offered: it fails the verification.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.config import LimitConf, MapConf, QueueConf, SchedulerConf
from kqctl.yunikorn.api.configvalidator import ConfigValidator
from kqctl.yunikorn.api.names import WILDCARD
from kqctl.yunikorn.api.snapshot import NodeInfo, Snapshot
from kqctl.yunikorn.engine import ugm
from kqctl.yunikorn.engine.allocation import Scheduler
from kqctl.yunikorn.engine.partition import PartitionError, build_partition
from kqctl.yunikorn.engine.simulation import ALLOCATED_STATE, RUNNING, result_of

MAX_SUGGESTIONS = 6
MAX_SIMULATIONS = 48  # each try costs a whole simulation: the budget of one explanation
MEBI = 1 << 20

Change = Callable[[Snapshot], None]
Amounts = dict[Any, int]  # what is searched, by a key of the candidate's own (a queue and a resource, ...)


@dataclass(frozen=True)
class Suggestion:
    change: str
    verified: bool
    outcome: str  # the pod's state when the change is made


@dataclass(frozen=True)
class Fixed:
    """A change without an amount (remove a fence, add a node, name another queue)."""

    text: str
    change: Change


@dataclass(frozen=True)
class Search:
    """A change with amounts: ``low`` is the least that could open the blocker, ``high`` enough if anything is;
    ``units`` the step of each amount a person can write."""

    describe: Callable[[Amounts], str]
    change: Callable[[Amounts], Change]
    low: Amounts
    high: Amounts
    units: Mapping[Any, int]
    # Try ``high`` before ``low``: for changes that mostly do not help at all (a priority offset), one simulation
    # then rules them out.
    high_first: bool = False


Candidate = Fixed | Search


class _Verifier:
    """Simulates the pod's outcome with a change, within the explanation's budget of simulations."""

    def __init__(self, snapshot: Snapshot, key: str) -> None:
        self.snapshot = snapshot
        self.key = key
        self.left = MAX_SIMULATIONS

    def outcome(self, change: Change) -> str:
        """The pod's state once ``change`` is made ("" when the change cannot be made or YuniKorn refuses it)."""
        self.left -= 1
        changed = copy.deepcopy(self.snapshot)
        try:
            change(changed)
            config = changed.config.parsed.config
            if config is not None and not changed.config.builtin:
                validator = ConfigValidator()
                validator.validate(copy.deepcopy(config))
                if validator.violations:
                    return ""
            partition = build_partition(changed)
        except (PartitionError, KeyError, ValueError):
            return ""
        results = Scheduler(partition).run()
        found = next((p for p in result_of(changed, partition, results).pods if p.key == self.key), None)
        return found.state if found is not None else ""


def _runs(state: str) -> bool:
    return state in (ALLOCATED_STATE, RUNNING)


def verify(snapshot: Snapshot, key: str, candidates: list[Candidate]) -> list[Suggestion]:
    """The candidates that let the pod run, each with its smallest amount, in the order given."""
    verifier = _Verifier(snapshot, key)
    found: list[Suggestion] = []
    for candidate in candidates:
        if len(found) >= MAX_SUGGESTIONS or verifier.left <= 0:
            break
        if isinstance(candidate, Fixed):
            state = verifier.outcome(candidate.change)
            if _runs(state):
                found.append(Suggestion(candidate.text, True, state))
            continue
        answer = smallest(candidate, verifier)
        if answer is not None:
            amounts, state = answer
            found.append(Suggestion(candidate.describe(amounts), True, state))
    return found


def smallest(search: Search, verifier: _Verifier) -> tuple[Amounts, str] | None:
    """The smallest amounts (and the outcome there) that let the pod run, or None when even ``high`` does not.

    From ``high``, each amount in turn is bisected down in its units, the others held where they were found (one
    amount: a plain bisection)."""
    units = search.units
    low = {k: _round_up(v, units[k]) for k, v in search.low.items()}
    high = {k: max(_round_up(v, units[k]), low[k]) for k, v in search.high.items()}
    tried: dict[tuple[tuple[Any, int], ...], str] = {}

    def works(amounts: Amounts) -> bool:
        key = _key(amounts)
        if key not in tried:
            if verifier.left <= 0:
                return False
            tried[key] = verifier.outcome(search.change(amounts))
        return _runs(tried[key])

    if search.high_first and high != low and not works(high):
        return None
    if works(low):
        return low, tried[_key(low)]
    if high == low or not works(high):
        return None
    best = dict(high)
    for name in sorted(best, key=repr):
        steps = (best[name] - low[name]) // units[name]
        if steps <= 0:
            continue
        base = dict(best)

        def at(count: int, name: Any = name, base: Amounts = base) -> Amounts:
            return {**base, name: low[name] + count * units[name]}

        best = at(_bisect(lambda count: works(at(count)), -1, steps))
    return best, tried[_key(best)]


def _key(amounts: Amounts) -> tuple[tuple[Any, int], ...]:
    return tuple(sorted(amounts.items(), key=lambda kv: repr(kv[0])))


def _bisect(works: Callable[[int], bool], failing: int, working: int) -> int:
    """The smallest value in (failing, working] that works, ``working`` known to work and ``failing`` not (or
    below the range); assumes more is never worse."""
    while working - failing > 1:
        middle = (failing + working) // 2
        if works(middle):
            working = middle
        else:
            failing = middle
    return working


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit


def resource_unit(name: str, asks: Iterable[Mapping[str, int]]) -> int:
    """The step of a searched amount of ``name``: what is in use and what pods ask are sums of the pods' requests,
    so the smallest amount that works is a multiple of their greatest common divisor (searching in it loses
    nothing); memory at least in Mi, as a person writes it."""
    divisor = 0
    for ask in asks:
        divisor = math.gcd(divisor, ask.get(name, 0))
    divisor = divisor or 1
    if name == res.MEMORY and divisor % MEBI:
        return divisor * MEBI // math.gcd(divisor, MEBI)  # a multiple of both: whole Mi
    return divisor


def config_value(name: str, value: int) -> str:
    """An amount as queues.yaml takes it: vcore in cores or millicores, memory in Mi where it divides."""
    if name == res.VCORE:
        return str(value // 1000) if value % 1000 == 0 else f"{value}m"
    if name == res.MEMORY and value % MEBI == 0:
        return f"{value // MEBI}Mi"
    return str(value)


def quantity(name: str, value: int) -> str:
    """A Kubernetes quantity for an annotation (vcore in millicores as cpu)."""
    if name == res.VCORE:
        return f"{value // 1000}" if value % 1000 == 0 else f"{value}m"
    for suffix, size in (("Ti", 2**40), ("Gi", 2**30), ("Mi", 2**20), ("Ki", 2**10)):
        if value and value % size == 0:
            return f"{value // size}{suffix}"
    return str(value)


# --- changes to a copy of the inputs --------------------------------------------------------------------------


def queue_conf(config: SchedulerConf, path: str) -> QueueConf:
    partition = next(p for p in config.partitions or [] if p.name == "default")
    parts = path.split(".")
    queue = partition.root
    for part in parts[1:]:
        found = next((q for q in queue.children if q.name.lower() == part), None)
        if found is None:
            raise KeyError(path)  # not in the configuration: a dynamic queue
        queue = found
    return queue


def _config(snapshot: Snapshot) -> SchedulerConf:
    config = snapshot.config.parsed.config
    assert config is not None
    return config


def set_max(values: Mapping[Any, int]) -> Change:
    """Every (queue path, resource) gets that max."""
    def change(snapshot: Snapshot) -> None:
        for (path, name), value in values.items():
            queue = queue_conf(_config(snapshot), path)
            if queue.resources.max is None:
                queue.resources.max = MapConf({}, queue.loc)
            queue.resources.max.values[name] = config_value(name, value)
    return change


def set_namespace_quota(name: str, values: Mapping[Any, int]) -> Change:
    def change(snapshot: Snapshot) -> None:
        namespace = snapshot.namespaces[name]
        snapshot.namespaces[name] = replace(namespace, quota={**(namespace.quota or {}), **values})
    return change


def set_namespace_max_apps(name: str, value: int) -> Change:
    def change(snapshot: Snapshot) -> None:
        snapshot.namespaces[name] = replace(snapshot.namespaces[name], max_apps=value)
    return change


def set_max_apps(path: str, value: int) -> Change:
    def change(snapshot: Snapshot) -> None:
        queue_conf(_config(snapshot), path).maxapplications = value
    return change


def set_property(path: str, key: str, value: str) -> Change:
    def change(snapshot: Snapshot) -> None:
        queue = queue_conf(_config(snapshot), path)
        if queue.properties is None:
            queue.properties = MapConf({}, queue.loc)
        queue.properties.values[key] = value
    return change


@dataclass(frozen=True)
class LimitRef:
    """One user or group limit entry of a queue: whom it names (the wildcard too) and the limit's description."""

    kind: str  # "user" or "group"
    name: str
    queue: str
    limit: str

    @staticmethod
    def of(binding: ugm.Binding) -> LimitRef:
        return LimitRef(binding.kind, binding.name, binding.queue, binding.limit)


def set_limits(resources: Mapping[Any, int], max_apps: Mapping[Any, int]) -> Change:
    """The limits get those maxresources and maxapplications."""
    def change(snapshot: Snapshot) -> None:
        for (ref, name), value in resources.items():
            for limit in _limit_confs(snapshot, ref):
                if limit.maxresources is None:
                    limit.maxresources = MapConf({}, limit.loc)
                limit.maxresources.values[name] = config_value(name, value)
        for ref, value in max_apps.items():
            for limit in _limit_confs(snapshot, ref):
                limit.maxapplications = value
    return change


def _limit_confs(snapshot: Snapshot, ref: LimitRef) -> list[LimitConf]:
    """The limit naming the user (or group, or the wildcard) on the queue; at root, the partition's copy too (V5
    wants the two equal when both are written)."""
    config = _config(snapshot)
    lists = [queue_conf(config, ref.queue).limits or []]
    if ref.queue == "root":
        partition = next(p for p in config.partitions or [] if p.name == "default")
        if partition.limits is not lists[0]:
            lists.append(partition.limits or [])
    found = []
    for limits in lists:
        for limit in limits:
            names = (limit.users if ref.kind == "user" else limit.groups) or []
            if ref.name in names or (WILDCARD in names and limit.limit == ref.limit):
                found.append(limit)
                break
    if not found:
        raise KeyError(ref.queue)
    return found


def set_app_queue(app_id: str, path: str) -> Change:
    def change(snapshot: Snapshot) -> None:
        snapshot.pods = [replace(pod, queue=path) if pod.app_id == app_id else pod for pod in snapshot.pods]
    return change


def set_root_acl(acl: str) -> Change:
    def change(snapshot: Snapshot) -> None:
        queue_conf(_config(snapshot), "root").submitacl = acl
    return change


def add_node(template: NodeInfo) -> Change:
    def change(snapshot: Snapshot) -> None:
        snapshot.nodes.append(NodeInfo(f"{template.name}-copy", dict(template.capacity), dict(template.labels),
                                       template.taints, False))
    return change
