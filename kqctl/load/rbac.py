"""The least privilege a :class:`~kqctl.load.cluster.ReadPlan` needs, as RBAC objects (``kqctl rbac``).

Derived from the plans themselves, so the role and what kqctl reads can never drift apart: ``list`` on every
resource kqctl lists (it never gets one of them by name), ``get`` on the objects it reads by name only
(Kueue's manager ConfigMap, YuniKorn's two ConfigMaps: a Role in each namespace), and a ``resourceNames``
restriction where a list is narrowed to one name by a field selector (Volcano's scheduler ConfigMap). No watch,
no write, no Secret. API discovery (``/api``, ``/apis``) is open to every authenticated user through the default
``system:discovery`` role.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from kqctl.load.cluster import ReadPlan, Resource, role_names

RBAC_API_VERSION = "rbac.authorization.k8s.io/v1"
LABELS = {"app.kubernetes.io/name": "kqctl"}
_NAME_SELECTOR = "metadata.name="


def _named(resource: Resource) -> tuple[str, ...]:
    """The one object a list is narrowed to by ``metadata.name=`` (RBAC can restrict that list by name)."""
    selector = resource.field_selector or ""
    if selector.startswith(_NAME_SELECTOR) and "," not in selector:
        return (selector[len(_NAME_SELECTOR):],)
    return ()


def cluster_rules(plans: Iterable[ReadPlan]) -> list[dict[str, Any]]:
    """``list`` rules for everything the plans list cluster-wide, one rule per API group (and one per group for
    name-restricted lists), groups in the order the plans first read them."""
    groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
    for plan in plans:
        for resource in plan.resources:
            if resource.names:
                continue  # read by name in a namespace: the Role
            plurals = groups.setdefault((resource.group, _named(resource)), [])
            if resource.plural not in plurals:
                plurals.append(resource.plural)
    rules = []
    for (group, names), plurals in groups.items():
        rule: dict[str, Any] = {"apiGroups": [group], "resources": plurals}
        if names:
            rule["resourceNames"] = list(names)
        rule["verbs"] = ["list"]
        rules.append(rule)
    return rules


def namespaced_rules(plans: Iterable[ReadPlan]) -> dict[str, list[dict[str, Any]]]:
    """``get`` rules for the objects read by name, per namespace."""
    by_namespace: dict[str, list[dict[str, Any]]] = {}
    for plan in plans:
        for resource in plan.resources:
            if resource.names and resource.namespace is not None:
                by_namespace.setdefault(resource.namespace, []).append(
                    {"apiGroups": [resource.group], "resources": [resource.plural],
                     "resourceNames": list(resource.names), "verbs": ["get"]})
    return by_namespace


def rbac_objects(plans: Sequence[ReadPlan]) -> list[dict[str, Any]]:
    """A ClusterRole, and a Role per namespace where objects are read by name."""
    names = role_names([plan.scheduler for plan in plans])
    objects: list[dict[str, Any]] = [{
        "apiVersion": RBAC_API_VERSION, "kind": "ClusterRole",
        "metadata": {"name": names.cluster_role, "labels": dict(LABELS)},
        "rules": cluster_rules(plans),
    }]
    for namespace, rules in namespaced_rules(plans).items():
        objects.append({
            "apiVersion": RBAC_API_VERSION, "kind": "Role",
            "metadata": {"name": names.config_role, "namespace": namespace, "labels": dict(LABELS)},
            "rules": rules,
        })
    return objects


def binding_commands(objects: Sequence[dict[str, Any]], subject: str = "--user=alice@example.com") -> list[str]:
    """The kubectl commands that bind the objects to a user (or ``--serviceaccount=NS:NAME``)."""
    commands = []
    for obj in objects:
        name = obj["metadata"]["name"]
        if obj["kind"] == "ClusterRole":
            commands.append(f"kubectl create clusterrolebinding {name} --clusterrole={name} {subject}")
        else:
            namespace = obj["metadata"]["namespace"]
            commands.append(f"kubectl -n {namespace} create rolebinding {name} --role={name} {subject}")
    return commands
