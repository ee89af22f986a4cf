"""What kqctl lists from a live cluster for Kueue (``snapshot save``, ``--from-cluster``)."""

from __future__ import annotations

from kqctl.kueue.kinds import GROUP
from kqctl.load.cluster import ReadPlan, Resource

QUEUE_NAME_LABEL = "kueue.x-k8s.io/queue-name"

READ_PLAN = ReadPlan(
    scheduler="kueue",
    product="Kueue",
    group=GROUP,
    # v1beta2 first: it is kqctl's hub version, so the API server does the conversion, not kqctl.
    versions=("v1beta2", "v1beta1"),
    oldest_release="Kueue 0.3",
    resources=(
        Resource("", "namespaces", "Namespace", "v1"),
        Resource("scheduling.k8s.io", "priorityclasses", "PriorityClass", "v1"),
        Resource("", "limitranges", "LimitRange", "v1"),
        Resource(GROUP, "resourceflavors", "ResourceFlavor"),
        Resource(GROUP, "topologies", "Topology", required=False),
        Resource(GROUP, "admissionchecks", "AdmissionCheck", required=False),
        Resource(GROUP, "workloadpriorityclasses", "WorkloadPriorityClass", required=False),
        Resource(GROUP, "cohorts", "Cohort", required=False),
        Resource(GROUP, "clusterqueues", "ClusterQueue"),
        Resource(GROUP, "localqueues", "LocalQueue"),
        Resource(GROUP, "workloads", "Workload"),
        # Only the Jobs and Pods submitted to Kueue: a label selector, so other workloads never leave the cluster.
        Resource("batch", "jobs", "Job", "v1", label_selector=QUEUE_NAME_LABEL),
        Resource("", "pods", "Pod", "v1", label_selector=QUEUE_NAME_LABEL),
    ),
)
