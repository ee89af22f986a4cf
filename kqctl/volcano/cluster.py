"""What kqctl lists from a live cluster for Volcano (``snapshot save``, ``--from-cluster``).

Every Pod and Node is read (paginated): pods of any scheduler use the nodes' resources, and Volcano's
cache counts them all. Of ConfigMaps only ``volcano-scheduler-configmap`` is asked for (a field selector),
for the scheduler configuration.
"""

from __future__ import annotations

from kqctl.load.cluster import ReadPlan, Resource
from kqctl.volcano.kinds import BATCH_GROUP, BATCH_VERSION, GROUP, SCHEDULER_CONFIGMAP, VERSION

READ_PLAN = ReadPlan(
    scheduler="volcano",
    product="Volcano",
    group=GROUP,
    versions=(VERSION,),
    oldest_release="Volcano 1.0",
    resources=(
        Resource("", "namespaces", "Namespace", "v1"),
        Resource("scheduling.k8s.io", "priorityclasses", "PriorityClass", "v1"),
        Resource("", "limitranges", "LimitRange", "v1"),
        Resource("", "configmaps", "ConfigMap", "v1", field_selector=f"metadata.name={SCHEDULER_CONFIGMAP}"),
        Resource("", "nodes", "Node", "v1"),
        Resource(GROUP, "queues", "Queue"),
        Resource(GROUP, "podgroups", "PodGroup"),
        Resource(BATCH_GROUP, "jobs", "Job", BATCH_VERSION),
        Resource("", "pods", "Pod", "v1"),
    ),
)
