"""The kinds Volcano's API groups serve, and the versions of each that kqctl reads."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kqctl.k8s.kinds import KindInfo

GROUP = "scheduling.volcano.sh"  # Queue, PodGroup
BATCH_GROUP = "batch.volcano.sh"  # Job (a "vcjob")
VERSION = "v1beta1"
BATCH_VERSION = "v1alpha1"

# The scheduler's configuration lives in a ConfigMap (key volcano-scheduler.conf); kqctl reads only the
# one the Helm chart names, wherever it is found (a core kind: it belongs to no scheduler's API group).
SCHEDULER_CONFIGMAP = "volcano-scheduler-configmap"
SCHEDULER_CONF_KEY = "volcano-scheduler.conf"

# A bare volcano-scheduler.conf given to validate with --scheduler-conf: a document that is not an API object.
# Not among KINDS: only that option reads a file as one.
SCHEDULER_CONF_FILE = KindInfo(GROUP, "SchedulerConfiguration", False, ("",), "volcano", api_object=False)

KINDS: tuple[KindInfo, ...] = (
    KindInfo(GROUP, "Queue", False, (VERSION,), "volcano"),
    # The PodGroup CRD has no status subresource (subresources: {}): its status is stored, and checked, on create.
    KindInfo(GROUP, "PodGroup", True, (VERSION,), "volcano", status_subresource=False),
    KindInfo(BATCH_GROUP, "Job", True, (BATCH_VERSION,), "volcano"),
    KindInfo("", "ConfigMap", True, ("v1",), names=(SCHEDULER_CONFIGMAP,)),
)


def recognise_conf_file(body: Mapping[str, Any]) -> KindInfo | None:
    """The document of a --scheduler-conf file: any mapping without apiVersion and kind."""
    return SCHEDULER_CONF_FILE if "apiVersion" not in body and "kind" not in body else None


def claims(objects: Iterable[Any]) -> bool:
    """An input whose only scheduler object is the ConfigMap volcano-scheduler-configmap is Volcano's (a core kind,
    so it names no scheduler by its group). Weak: any scheduler object of another group decides instead."""
    objects = list(objects)
    if any(obj.info is not None and obj.info.scheduler for obj in objects):
        return False
    return any(obj.info is not None and obj.info.group == "" and obj.kind == "ConfigMap"
               and obj.name == SCHEDULER_CONFIGMAP for obj in objects)
