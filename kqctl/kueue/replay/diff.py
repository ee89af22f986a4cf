"""What a configuration change does: two snapshots simulated (and optionally replayed) and compared.

Per workload: its decision in the steady state (Kueue's SIM loop), the flavors it gets, whether it is
admitted by borrowing and how much (Q-7, kqctl's share of its ClusterQueue's borrowing), whom it preempts and
who preempts it.
A *regression* is a workload admitted before that is not admitted after. With replays, the time to
admission percentiles per ClusterQueue and priority, before and after. Pure: snapshots in, a frozen
:class:`DiffReport` out.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from kqctl.kueue.api.models import ClusterQueue, Cohort
from kqctl.kueue.api.snapshot import Snapshot
from kqctl.kueue.engine import outcomes
from kqctl.kueue.engine.results import SimulationResult, WorkloadResult
from kqctl.kueue.engine.simulation import SimulationOptions, simulate
from kqctl.kueue.replay.report import KueueReplayOptions, ReplayReport, replay_snapshot
from kqctl.replay.statistics import Sample
from kqctl.replay.summary import GroupStats

HOLDS_QUOTA = (outcomes.ADMITTED, outcomes.RESERVED, outcomes.HELD_INACTIVE)

DECISION, FLAVOR, BORROWING, VICTIMS, PREEMPTED, ADDED, REMOVED = (
    "decision", "flavor", "borrowing", "victims", "preempted", "added", "removed")


@dataclass(frozen=True)
class WorkloadView:
    """One workload at the end of a simulation, in the terms a diff compares."""

    decision: str  # outcomes' words: Admitted, Pending, Inadmissible, Preempted (...), ...
    cluster_queue: str | None
    flavors: tuple[tuple[str, str, str], ...]  # (pod set, resource, flavor)
    borrowed: tuple[tuple[str, str, int], ...]  # (flavor, resource, amount above nominal it holds), sorted
    victims: tuple[str, ...]
    preempted_by: str | None
    message: str

    @property
    def holds_quota(self) -> bool:
        return self.decision.startswith(HOLDS_QUOTA)

    @property
    def flavor_text(self) -> str:
        by_flavor: dict[str, list[str]] = {}
        for _, resource, flavor in self.flavors:
            by_flavor.setdefault(flavor, []).append(resource)
        if len(by_flavor) == 1:
            return next(iter(by_flavor))
        return ", ".join(f"{flavor} ({', '.join(resources)})" for flavor, resources in sorted(by_flavor.items())) or "-"


@dataclass(frozen=True)
class WorkloadChange:
    key: str
    before: WorkloadView | None
    after: WorkloadView | None
    kinds: tuple[str, ...]

    @property
    def regression(self) -> bool:
        """Admitted before, not admitted after (a workload that no longer exists is not a regression)."""
        return self.before is not None and self.after is not None and self.before.holds_quota \
            and not self.after.holds_quota


@dataclass(frozen=True)
class QuotaChange:
    """A change of the configuration: a quota, a limit or a policy of one ClusterQueue or Cohort."""

    kind: str  # ClusterQueue | Cohort
    name: str
    field: str  # e.g. default-flavor/cpu nominalQuota, preemption.withinClusterQueue, (added), (removed)
    before: str
    after: str


@dataclass(frozen=True)
class PercentileShift:
    group: str  # ClusterQueue name or priority
    by: str  # clusterQueue | priority
    before: Sample | None
    after: Sample | None

    @property
    def moved(self) -> bool:
        """Whether P50, P95 or P99 differ (or the group exists on one side only)."""
        if self.before is None or self.after is None:
            return self.before is not self.after
        return any(self.before.at(p) != self.after.at(p) for p in (50, 95, 99))


@dataclass(frozen=True)
class DiffReport:
    changes: tuple[WorkloadChange, ...]
    compared: int  # workloads on either side
    before_counts: tuple[tuple[str, int], ...]
    after_counts: tuple[tuple[str, int], ...]
    configuration: tuple[QuotaChange, ...]
    percentiles: tuple[PercentileShift, ...] | None  # None without --replay
    before_replay: ReplayReport | None = None
    after_replay: ReplayReport | None = None
    # With --replay: workloads admitted in BEFORE's replay that are still waiting at the end of AFTER's, by key
    replay_regressions: tuple[str, ...] = ()

    @property
    def regressions(self) -> tuple[WorkloadChange, ...]:
        """Steady-state regressions: admitted before, not admitted after."""
        return tuple(c for c in self.changes if c.regression)

    @property
    def regression_keys(self) -> tuple[str, ...]:
        """Every workload the change keeps out: in the steady state, or (with --replay) in the replay; what the
        headline counts and --fail-on regression fails on."""
        return tuple(sorted({c.key for c in self.regressions} | set(self.replay_regressions)))


def diff_snapshots(before: Snapshot, after: Snapshot, options: SimulationOptions | None = None,
                   replay: KueueReplayOptions | None = None) -> DiffReport:
    """Simulate both sides to a steady state (and replay both with ``replay``) and compare them."""
    options = options or SimulationOptions()
    old, new = simulate(before, options), simulate(after, options)
    views_before, views_after = views(old), views(new)
    keys = sorted(set(views_before) | set(views_after))
    changes = tuple(change for key in keys
                    if (change := compare(key, views_before.get(key), views_after.get(key))) is not None)
    if replay is None:
        return DiffReport(changes, len(keys), _counts(views_before), _counts(views_after),
                          configuration_changes(before, after), None)
    old_replay, new_replay = replay_snapshot(before, replay), replay_snapshot(after, replay)
    return DiffReport(changes, len(keys), _counts(views_before), _counts(views_after),
                      configuration_changes(before, after), percentile_shifts(old_replay, new_replay), old_replay,
                      new_replay, never_after(old_replay, new_replay))


def never_after(before: ReplayReport, after: ReplayReport) -> tuple[str, ...]:
    """Workloads that get in during BEFORE's replay and are still waiting for admission at the end of AFTER's."""
    got_in = {w.key for w in before.workloads if not w.waiting}
    return tuple(sorted(w.key for w in after.workloads if w.waiting and w.key in got_in))


def views(result: SimulationResult) -> dict[str, WorkloadView]:
    return {key: view(workload) for key, workload in result.workloads.items()}


def view(workload: WorkloadResult) -> WorkloadView:
    flavors: tuple[tuple[str, str, str], ...] = ()
    if workload.admission is not None:
        flavors = tuple(sorted((ps.name, resource, flavor) for ps in workload.admission.pod_sets
                               for resource, flavor in ps.flavors.items()))
    borrowed = tuple(sorted((fr[0], fr[1], amount) for fr, amount in workload.borrowed.items() if amount > 0))
    message = workload.message or workload.last_message or ""
    return WorkloadView(workload.state, workload.cluster_queue, flavors, borrowed, workload.victims,
                        workload.preempted_by, message)


def compare(key: str, before: WorkloadView | None, after: WorkloadView | None) -> WorkloadChange | None:
    if before is None or after is None:
        return WorkloadChange(key, before, after, (ADDED,) if before is None else (REMOVED,))
    kinds = []
    if before.decision != after.decision:
        kinds.append(DECISION)
    if before.flavors != after.flavors and before.holds_quota and after.holds_quota:
        kinds.append(FLAVOR)
    if before.borrowed != after.borrowed and before.holds_quota and after.holds_quota:
        kinds.append(BORROWING)
    if before.victims != after.victims:
        kinds.append(VICTIMS)
    if before.preempted_by != after.preempted_by and DECISION not in kinds:
        kinds.append(PREEMPTED)
    return WorkloadChange(key, before, after, tuple(kinds)) if kinds else None


def _counts(views: Mapping[str, WorkloadView]) -> tuple[tuple[str, int], ...]:
    counts: dict[str, int] = {}
    for item in views.values():
        state = item.decision.split(" (")[0]
        counts[state] = counts.get(state, 0) + 1
    return tuple(sorted(counts.items()))


# --- configuration ------------------------------------------------------------------------------------


def configuration_changes(before: Snapshot, after: Snapshot) -> tuple[QuotaChange, ...]:
    """Quotas, limits and policies that differ between the two sides, per ClusterQueue and Cohort."""
    changes: list[QuotaChange] = []
    changes += _object_changes("ClusterQueue", before.cluster_queues, after.cluster_queues)
    changes += _object_changes("Cohort", before.cohorts, after.cohorts)
    return tuple(changes)


def _object_changes(kind: str, before: Mapping[str, ClusterQueue | Cohort],
                    after: Mapping[str, ClusterQueue | Cohort]) -> Iterable[QuotaChange]:
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name), after.get(name)
        if old is None or new is None:
            yield QuotaChange(kind, name, "(object)", "exists" if old is not None else "-",
                              "exists" if new is not None else "-")
            continue
        old_fields, new_fields = _fields(old), _fields(new)
        for field in sorted(set(old_fields) | set(new_fields)):
            if old_fields.get(field, "-") != new_fields.get(field, "-"):
                yield QuotaChange(kind, name, field, old_fields.get(field, "-"), new_fields.get(field, "-"))


def _fields(obj: ClusterQueue | Cohort) -> dict[str, str]:
    from kqctl.k8s.quantity import format_resource_value

    fields: dict[str, str] = {}
    for (flavor, resource), quota in obj.quotas.items():
        prefix = f"{flavor}/{resource} "
        fields[prefix + "nominalQuota"] = format_resource_value(resource, quota.nominal, quota_side=True)
        for label, value in (("borrowingLimit", quota.borrowing_limit), ("lendingLimit", quota.lending_limit)):
            if value is not None:
                fields[prefix + label] = format_resource_value(resource, value, quota_side=True)
    if isinstance(obj, ClusterQueue):
        fields["cohortName"] = obj.cohort or "-"
        fields["queueingStrategy"] = obj.queueing_strategy or "-"
        fields["preemption.withinClusterQueue"] = obj.preemption.within_cluster_queue or "-"
        fields["preemption.reclaimWithinCohort"] = obj.preemption.reclaim_within_cohort or "-"
        fields["stopPolicy"] = obj.stop_policy
    else:
        fields["parentName"] = obj.parent or "-"
    return fields


# --- replays ------------------------------------------------------------------------------------------


def percentile_shifts(before: ReplayReport, after: ReplayReport) -> tuple[PercentileShift, ...]:
    shifts: list[PercentileShift] = []
    for by, old, new in (("clusterQueue", before.by_cluster_queue, after.by_cluster_queue),
                         ("priority", before.by_priority, after.by_priority)):
        old_groups, new_groups = _by_name(old), _by_name(new)
        for name in sorted(set(old_groups) | set(new_groups), key=lambda n: (by == "priority" and _int(n), n)):
            shifts.append(PercentileShift(name, by, _sample(old_groups.get(name)), _sample(new_groups.get(name))))
    return tuple(shifts)


def _by_name(groups: Iterable[GroupStats]) -> dict[str, GroupStats]:
    return {g.name: g for g in groups}


def _sample(group: GroupStats | None) -> Sample | None:
    return group.time_to_admission if group is not None else None


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0
