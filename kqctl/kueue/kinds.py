"""The kinds Kueue's API groups serve, and the versions of each that kqctl reads."""

from __future__ import annotations

from kqctl.k8s.kinds import KindInfo

GROUP = "kueue.x-k8s.io"
CONFIG_GROUP = "config.kueue.x-k8s.io"


def _kueue(kind: str, namespaced: bool, versions: tuple[str, ...] = ("v1beta2", "v1beta1")) -> KindInfo:
    return KindInfo(GROUP, kind, namespaced, versions, "kueue")


# LEG-1/LEG-2: alpha versions exist only in old manifests; they are read and converted.
_LEGACY = ("v1beta2", "v1beta1", "v1alpha2", "v1alpha1")

KINDS: tuple[KindInfo, ...] = (
    _kueue("ResourceFlavor", False, _LEGACY),
    _kueue("ClusterQueue", False, _LEGACY),
    _kueue("LocalQueue", True, ("v1beta2", "v1beta1", "v1alpha2")),
    _kueue("Queue", True, ("v1alpha1",)),  # LEG-1: the Kueue 0.1 name of LocalQueue
    _kueue("Cohort", False, ("v1beta2", "v1beta1", "v1alpha1")),
    _kueue("Workload", True, _LEGACY),
    _kueue("WorkloadPriorityClass", False),
    _kueue("AdmissionCheck", False),
    _kueue("Topology", False),
    # Served by Kueue and validated, not read by the admission engine (MultiKueue, provisioning).
    _kueue("MultiKueueCluster", False),
    _kueue("MultiKueueConfig", False),
    _kueue("ProvisioningRequestConfig", False),
    KindInfo(CONFIG_GROUP, "Configuration", False, ("v1beta2", "v1beta1"), "kueue"),
)

#: Kinds served in v1beta1 and v1beta2 (§1.1): every kind of the group but the v1alpha1-only Queue.
KUEUE_KINDS = frozenset(info.kind for info in KINDS if info.group == GROUP and "v1beta2" in info.versions)
