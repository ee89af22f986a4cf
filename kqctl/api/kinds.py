"""The kinds kqctl reads, and what it needs to know about each before parsing it."""

from __future__ import annotations

from dataclasses import dataclass

KUEUE_GROUP = "kueue.x-k8s.io"
KUEUE_CONFIG_GROUP = "config.kueue.x-k8s.io"


@dataclass(frozen=True)
class KindInfo:
    group: str
    kind: str
    namespaced: bool
    versions: tuple[str, ...]


def _kueue(kind: str, namespaced: bool, versions: tuple[str, ...] = ("v1beta2", "v1beta1")) -> KindInfo:
    return KindInfo(KUEUE_GROUP, kind, namespaced, versions)


# LEG-1/LEG-2: alpha versions exist only in old manifests; they are read and converted.
_LEGACY = ("v1beta2", "v1beta1", "v1alpha2", "v1alpha1")

KNOWN_KINDS: dict[tuple[str, str], KindInfo] = {
    (info.group, info.kind): info
    for info in (
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
        KindInfo(KUEUE_CONFIG_GROUP, "Configuration", False, ("v1beta2", "v1beta1")),
        KindInfo("", "Namespace", False, ("v1",)),
        KindInfo("scheduling.k8s.io", "PriorityClass", False, ("v1",)),
        KindInfo("", "LimitRange", True, ("v1",)),
        KindInfo("batch", "Job", True, ("v1",)),
        KindInfo("", "Pod", True, ("v1",)),
        KindInfo("", "Node", False, ("v1",)),  # TAS: node labels and allocatable (kqctl.engine.tas)
    )
}


def split_api_version(api_version: str) -> tuple[str, str]:
    """``kueue.x-k8s.io/v1beta2`` -> (group, version); core ``v1`` -> ("", "v1")."""
    if "/" in api_version:
        group, _, version = api_version.partition("/")
        return group, version
    return "", api_version


def kind_info(api_version: str, kind: str) -> KindInfo | None:
    group, _ = split_api_version(api_version)
    return KNOWN_KINDS.get((group, kind))


def served_kind_like(group: str, kind: str) -> str | None:
    """A kind of ``group`` that differs from ``kind`` only in case or a plural ``s`` (for "did you mean")."""
    wanted = kind.lower().rstrip("s")
    for known_group, known_kind in KNOWN_KINDS:
        if known_group == group and known_kind.lower() == wanted:
            return known_kind
    return None


def group_kinds(group: str) -> list[str]:
    """Every kind kqctl knows in an API group."""
    return sorted(k for g, k in KNOWN_KINDS if g == group)
