"""What a YuniKorn queue-configuration change does (the queues.yaml or ConfigMap a YuniKorn administrator reviews):
both sides' cycles to the end (simulate's), each pod's state and node compared, the queues' and the partition's
fields that differ as written, and with replays the waits per queue and priority, per application
(:mod:`kqctl.replay.diffs`). Pure: snapshots in, a frozen report out."""

from __future__ import annotations

from kqctl.replay.diffs import FieldChange, Outcome, SchedulerDiff, diff_outcomes, field_changes
from kqctl.yunikorn.api.config import PartitionConf, QueueConf, RuleConf
from kqctl.yunikorn.api.names import DEFAULT_PARTITION
from kqctl.yunikorn.api.snapshot import Snapshot
from kqctl.yunikorn.engine.simulation import ALLOCATED_STATE, RUNNING, PodOutcome, SimulationResult, simulate
from kqctl.yunikorn.replay.report import WORDS, YuniKornReplayOptions, replay_snapshot

HOLDING = (RUNNING, ALLOCATED_STATE)


def diff_snapshots(before: Snapshot, after: Snapshot, replay: YuniKornReplayOptions | None = None) -> SchedulerDiff:
    old, new = simulate(before), simulate(after)
    replays = (replay_snapshot(before, replay), replay_snapshot(after, replay)) if replay is not None else (None, None)
    return diff_outcomes(WORDS, outcomes(old), outcomes(new), configuration_changes(before, after), *replays)


def outcomes(result: SimulationResult) -> dict[str, Outcome]:
    """Every pod's outcome but placeholders': the scheduler's own pods, made and replaced for the gangs (YK-GANG-1),
    whose changes the gangs' real pods show."""
    return {pod.key: outcome(pod) for pod in result.pods if not pod.placeholder}


def outcome(pod: PodOutcome) -> Outcome:
    running = pod.state in HOLDING
    return Outcome(pod.state, pod.queue, running, pod.node if running else "", pod.preempted,
                   pod.state == "Preempted", "" if running else pod.reason)


def configuration_changes(before: Snapshot, after: Snapshot) -> list[FieldChange]:
    old, new = _partition(before), _partition(after)
    changes = field_changes("queue", _queues(old), _queues(new))
    changes += field_changes("partition", {DEFAULT_PARTITION: _partition_fields(old)},
                             {DEFAULT_PARTITION: _partition_fields(new)})
    return changes


def _partition(snapshot: Snapshot) -> PartitionConf | None:
    config = snapshot.config.parsed.config
    partitions = config.partitions if config is not None else None
    return next((p for p in partitions or [] if p.name == DEFAULT_PARTITION), None)


def _queues(partition: PartitionConf | None) -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    if partition is None or not partition.queues:
        return found
    stack: list[tuple[str, QueueConf]] = [(q.name.lower(), q) for q in partition.queues]
    while stack:
        path, queue = stack.pop()
        found[path] = _queue_fields(queue)
        stack.extend((f"{path}.{child.name.lower()}", child) for child in queue.children)
    return found


def _queue_fields(queue: QueueConf) -> dict[str, str]:
    fields = {"parent": str(queue.parent or bool(queue.children)).lower()}
    if queue.maxapplications:
        fields["maxapplications"] = str(queue.maxapplications)
    for label, values in (("guaranteed", queue.resources.guaranteed), ("max", queue.resources.max)):
        for name, value in sorted((values.values if values is not None else {}).items()):
            fields[f"resources.{label}.{name}"] = str(value)
    for name, value in sorted((queue.properties.values if queue.properties is not None else {}).items()):
        fields[f"properties.{name}"] = str(value)
    for label, acl in (("submitacl", queue.submitacl), ("adminacl", queue.adminacl)):
        if acl:
            fields[label] = acl
    return fields


def _partition_fields(partition: PartitionConf | None) -> dict[str, str]:
    if partition is None:
        return {}
    enabled = partition.preemption.enabled
    return {"preemption.enabled": "true" if enabled is None or enabled else "false",
            "nodesortpolicy.type": partition.nodesortpolicy.type or "fair",
            "placementrules": "; ".join(_rule(r) for r in partition.placementrules or []) or "-"}


def _rule(rule: RuleConf) -> str:
    return " > ".join(f"{r.name}{'(create)' if r.create else ''}{'=' + r.value if r.value else ''}"
                      for r in rule.chain())
