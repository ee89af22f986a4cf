"""Kueue's condition and event texts that are built from several objects (CYC-18, PRE-12)."""

from __future__ import annotations

from kqctl.kueue.engine.cache import ClusterQueueState, QuotaCache
from kqctl.kueue.engine.preemption import HUMAN_REASONS, Target
from kqctl.kueue.engine.workloads import WorkloadInfo

JOB_UID_LABEL = "kueue.x-k8s.io/job-uid"


def preemption_message(cache: QuotaCache, preemptor: WorkloadInfo, preemptor_cq: ClusterQueueState,
                       target: Target) -> str:
    """PRE-12: the Evicted/Preempted condition message of a victim."""
    uid = preemptor.uid or "UNKNOWN"
    job_uid = preemptor.model.labels.get(JOB_UID_LABEL) or "UNKNOWN"
    return (f"Preempted to accommodate a workload (UID: {uid}, JobUID: {job_uid}) due to "
            f"{HUMAN_REASONS.get(target.reason, 'UNKNOWN')}; preemptor path: {cache.path(preemptor_cq)}; "
            f"preemptee path: {cache.path(target.cluster_queue)}")
