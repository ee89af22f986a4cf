"""A Kueue object as the API server stores it, as the snapshot's model: the part of loading that needs nothing but
the object, so that the processes reading a large input's files can do it (kqctl.validate.parallel.read_checked)."""

from __future__ import annotations

from typing import Any

from kqctl.kueue.api.models import Workload
from kqctl.kueue.api.versions import to_v1beta2
from kqctl.origin import Origin


def with_namespace(body: dict[str, Any], namespace: str | None) -> dict[str, Any]:
    """The body with ``namespace`` (where the object lands: its own, or kubectl's default) when it names none."""
    meta = body.get("metadata")
    if isinstance(meta, dict) and meta.get("namespace"):
        return body
    return {**body, "metadata": {**(meta if isinstance(meta, dict) else {}), "namespace": namespace}}


def stored_workload(stored: dict[str, Any], namespace: str | None, origin: Origin) -> Workload | None:
    """The Workload model the snapshot makes of a Workload the API server stores as ``stored``; None wherever the
    snapshot must decide and word a problem itself (it then decodes the object as it always does)."""
    try:
        conversion = to_v1beta2(stored, copy_hub=False)
        if any(issue.severity == "error" for issue in conversion.issues):
            return None
        return Workload.from_v1beta2(with_namespace(conversion.body, namespace), origin)
    except Exception:  # noqa: BLE001  # the snapshot decodes it again and refuses it, located, as it always did
        return None
