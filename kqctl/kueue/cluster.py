"""What kqctl lists from a live cluster for Kueue (``snapshot save``, ``--from-cluster``).

Kueue's manager Configuration (fair sharing, preemption strategies, feature gates) is read from the ConfigMap
``kueue-manager-config`` in ``kueue-system`` by name (``get`` on that one name: no other ConfigMap is read). A
missing one is skipped with a note (Kueue's defaults apply), and so is one RBAC forbids: a role granted before kqctl
read it keeps working, with ``--fair-sharing`` and ``--feature-gates`` standing in for the Configuration.
"""

from __future__ import annotations

from kqctl.kueue.kinds import GROUP, MANAGER_CONFIG_NAME, MANAGER_CONFIG_NAMESPACE
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
        Resource("", "configmaps", "ConfigMap", "v1", names=(MANAGER_CONFIG_NAME,), namespace=MANAGER_CONFIG_NAMESPACE,
                 forbidden_note="Kueue's manager Configuration not read (grant the Role `kqctl rbac --scheduler "
                                "kueue` prints); pass --fair-sharing and --feature-gates if it changes them"),
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
