"""Namespace annotations the shim cannot read (YK-G6): ``namespace.quota`` and ``namespace.guaranteed`` must be
JSON objects of quoted Kubernetes quantities, ``namespace.maxApps`` a whole number of at least 0. The shim logs a
warning and ignores such an annotation (``GetNamespaceQuotaFromAnnotation`` and friends), so the namespace's
dynamic queue silently gets no limit from it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kqctl.findings import Finding, warning
from kqctl.load.objects import LoadedObject
from kqctl.yunikorn.load import NAMESPACE_MAX_APPS, NAMESPACE_QUOTA, namespace_problems

_EFFECT = {NAMESPACE_QUOTA: "no max", NAMESPACE_MAX_APPS: "no maxapplications"}
_HINT = {NAMESPACE_MAX_APPS: 'a whole number such as "10"'}


def annotation_problems(objects: Sequence[LoadedObject]) -> Iterator[tuple[LoadedObject, Finding]]:
    for obj in objects:
        if obj.kind != "Namespace" or obj.api_version != "v1":
            continue
        for key, why in namespace_problems(obj):
            effect = _EFFECT.get(key, "no guaranteed resources")
            yield obj, warning("YK-G6", ("metadata", "annotations", key), f"annotation {key} {why}: the YuniKorn "
                               f"shim logs a warning and ignores it, so the namespace's dynamic queue gets {effect} "
                               "from it", _HINT.get(key, 'a JSON object of quoted quantities, e.g. {"cpu": "4", '
                                                         '"memory": "8Gi"}'))
