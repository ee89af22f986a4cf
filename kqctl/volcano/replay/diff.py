"""What a Volcano configuration change does: both sides' sessions to a steady state (simulate's), each PodGroup's
phase and placement compared, the Queues' and the scheduler configuration's fields that differ, and with replays
the waits per Queue and priority (:mod:`kqctl.replay.diffs`). Pure: snapshots in, a frozen report out."""

from __future__ import annotations

from kqctl.replay.diffs import FieldChange, Outcome, SchedulerDiff, diff_outcomes, field_changes
from kqctl.volcano.api.config import argument_text
from kqctl.volcano.api.models import Queue
from kqctl.volcano.api.resource import to_quantity
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.simulation import GroupOutcome, SimulationResult, simulate
from kqctl.volcano.replay.report import WORDS, VolcanoReplayOptions, replay_snapshot

RUNNING_PHASES = ("Running", "Completed")


def diff_snapshots(before: Snapshot, after: Snapshot, replay: VolcanoReplayOptions | None = None) -> SchedulerDiff:
    old, new = simulate(before), simulate(after)
    replays = (replay_snapshot(before, replay), replay_snapshot(after, replay)) if replay is not None else (None, None)
    return diff_outcomes(WORDS, outcomes(old), outcomes(new), configuration_changes(before, after), *replays)


def outcomes(result: SimulationResult) -> dict[str, Outcome]:
    group_of = {pod: key for key, group in result.groups.items() for pod in group.pods}
    victims: dict[str, set[str]] = {}
    for eviction in result.evictions:
        owner = group_of.get(eviction.by)
        if owner is not None:
            victims.setdefault(owner, set()).add(eviction.pod)
    return {key: outcome(group, tuple(sorted(victims.get(key, ())))) for key, group in result.groups.items()}


def outcome(group: GroupOutcome, victims: tuple[str, ...] = ()) -> Outcome:
    """A PodGroup runs when its phase says so (minMember pods scheduled); its placement is how many pods are bound
    and where."""
    state = "PodGroupMissing" if group.absent else "QueueMissing" if group.ignored else group.phase
    bound = [node for node in group.pods.values() if node]
    running = not group.ignored and group.phase in RUNNING_PHASES
    placement = f"{len(bound)}/{len(group.pods)} pods on {', '.join(sorted(set(bound)))}" if bound else ""
    message = group.reason[1] if group.reason is not None else ""
    return Outcome(state, group.queue, running, placement, victims, bool(group.evicted), message)


def configuration_changes(before: Snapshot, after: Snapshot) -> list[FieldChange]:
    changes = field_changes("Queue", {n: _queue_fields(q) for n, q in before.queues.items() if not q.implicit},
                            {n: _queue_fields(q) for n, q in after.queues.items() if not q.implicit})
    old, new = _conf_fields(before), _conf_fields(after)
    changes += field_changes("SchedulerConfiguration", {"volcano-scheduler.conf": old},
                             {"volcano-scheduler.conf": new})
    return changes


def _queue_fields(queue: Queue) -> dict[str, str]:
    fields = {"weight": str(queue.weight), "reclaimable": str(queue.reclaimable).lower(),
              "priority": str(queue.priority), "parent": queue.parent_name or "-", "state": queue.state}
    for label, values in (("capability", queue.capability), ("deserved", queue.deserved),
                          ("guarantee", queue.guarantee)):
        for name, value in sorted((values or {}).items()):
            fields[f"{label}.{name}"] = to_quantity(name, value)
    return fields


def _conf_fields(snapshot: Snapshot) -> dict[str, str]:
    conf = snapshot.conf
    fields = {"actions": ", ".join(conf.actions)}
    for index, tier in enumerate(conf.tiers):
        fields[f"tiers[{index}]"] = ", ".join(p.name for p in tier)
        for plugin in tier:
            for flag, value in sorted(plugin.flags.items()):
                fields[f"{plugin.name}.{flag}"] = str(value).lower()
            for key, value in sorted(plugin.arguments.items()):
                fields[f"{plugin.name}.arguments.{key}"] = argument_text(value)
    return fields
