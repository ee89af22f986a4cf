"""The kinds Kueue's API groups serve, and the versions of each that kqctl reads."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

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

# --- Kueue's manager Configuration as deployed: inside a ConfigMap ------------------------------------------------
# Kueue's kustomize config (config/components/manager: configMapGenerator manager-config, prefixed kueue-) and its
# Helm chart (templates/manager/manager-config.yaml: <release fullname>-manager-config) both create a ConfigMap in
# kueue-system whose key controller_manager_config.yaml the manager reads as its --config file.
MANAGER_CONFIG_KEY = "controller_manager_config.yaml"
MANAGER_CONFIG_NAME_SUFFIX = "-manager-config"
# Where kustomize's install (and a Helm release named kueue) puts it: what --from-cluster reads by name.
MANAGER_CONFIG_NAMESPACE = "kueue-system"
MANAGER_CONFIG_NAME = "kueue-manager-config"
MANAGER_CONFIG_MAP = KindInfo("", "ConfigMap", True, ("v1",), "kueue")


def recognise(body: Mapping[str, Any]) -> KindInfo | None:
    """A ConfigMap holding Kueue's manager Configuration, known by its content: the key
    controller_manager_config.yaml whose value names the group config.kueue.x-k8s.io (a Configuration, or a wrong
    kind of it), or, in a ConfigMap named ``*-manager-config``, a value that names no group at all (not YAML, not a
    mapping, no apiVersion: still Kueue's, its problem is reported). Other ConfigMaps with that key (kubebuilder
    scaffolds it for every operator, with its own group) are not Kueue's."""
    if body.get("apiVersion") != "v1" or body.get("kind") != "ConfigMap":
        return None
    data = body.get("data")
    if not isinstance(data, Mapping) or MANAGER_CONFIG_KEY not in data:
        return None
    value = data[MANAGER_CONFIG_KEY]
    group = _config_group(value) if isinstance(value, str) else None
    if group == CONFIG_GROUP:
        return MANAGER_CONFIG_MAP
    metadata = body.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if group is None and isinstance(name, str) and name.endswith(MANAGER_CONFIG_NAME_SUFFIX):
        return MANAGER_CONFIG_MAP
    return None


def _config_group(text: str) -> str | None:
    """The API group the embedded document's apiVersion names, or None when it names none (not YAML, not a mapping,
    no apiVersion with a group)."""
    import yaml

    try:
        document = next(iter(yaml.load_all(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))), None)
    except Exception:  # noqa: BLE001  # any text at all: what is not YAML is reported by the check
        return None
    api_version = document.get("apiVersion") if isinstance(document, Mapping) else None
    if not isinstance(api_version, str) or "/" not in api_version:
        return None
    return api_version.partition("/")[0]
