"""The kinds Volcano's API groups serve, and the versions of each that kqctl reads."""

from __future__ import annotations

from kqctl.k8s.kinds import KindInfo

GROUP = "scheduling.volcano.sh"  # Queue, PodGroup
BATCH_GROUP = "batch.volcano.sh"  # Job (a "vcjob")
VERSION = "v1beta1"
BATCH_VERSION = "v1alpha1"

# The scheduler's configuration lives in a ConfigMap (key volcano-scheduler.conf); kqctl reads only the
# one the Helm chart names, wherever it is found (a core kind: it belongs to no scheduler's API group).
SCHEDULER_CONFIGMAP = "volcano-scheduler-configmap"
SCHEDULER_CONF_KEY = "volcano-scheduler.conf"

KINDS: tuple[KindInfo, ...] = (
    KindInfo(GROUP, "Queue", False, (VERSION,), "volcano"),
    KindInfo(GROUP, "PodGroup", True, (VERSION,), "volcano"),
    KindInfo(BATCH_GROUP, "Job", True, (BATCH_VERSION,), "volcano"),
    KindInfo("", "ConfigMap", True, ("v1",), names=(SCHEDULER_CONFIGMAP,)),
)
