"""What kqctl reads from a live cluster for YuniKorn (``snapshot save``, ``--from-cluster``), read-only.

YuniKorn has no API group: its configuration is the two ConfigMaps ``yunikorn-defaults`` and
``yunikorn-configs`` in its namespace (``--yunikorn-namespace``, default ``yunikorn``), read by name only
(``get`` on those two names: no other ConfigMap is ever read). Nodes give the partition's size; every pod still
running or waiting is read, because pods of other schedulers occupy the nodes YuniKorn places on.
"""

from __future__ import annotations

from kqctl.load.cluster import ReadPlan, Resource
from kqctl.yunikorn.kinds import CONFIG_MAP_NAMES, DEFAULT_NAMESPACE

READ_PLAN = ReadPlan(
    scheduler="yunikorn",
    product="YuniKorn",
    group="",  # no API group of its own: nothing to discover
    versions=(),
    resources=(
        Resource("", "configmaps", "ConfigMap", "v1", names=CONFIG_MAP_NAMES, namespace=DEFAULT_NAMESPACE),
        Resource("", "namespaces", "Namespace", "v1"),
        Resource("scheduling.k8s.io", "priorityclasses", "PriorityClass", "v1"),
        Resource("", "limitranges", "LimitRange", "v1"),
        Resource("", "nodes", "Node", "v1"),
        Resource("", "pods", "Pod", "v1", field_selector="status.phase!=Succeeded,status.phase!=Failed"),
    ),
)
