"""Volcano's mutating webhook for Queues (``mutatequeue.volcano.sh``, CREATE only), reimplemented.

Source: ``pkg/webhooks/admission/queues/mutate/mutate_queue.go`` (``createQueuePatch``). The API server calls
it after the CRD's defaults and before the schema is checked, so a queue created with ``weight: 0`` is stored
with weight 1 instead of being refused by the schema's minimum. It also writes ``reclaimable: true`` when
absent and prefixes the legacy hierarchy annotations with ``root``. Updates are not mutated.
"""

from __future__ import annotations

import copy
from typing import Any

from kqctl.volcano.api.models import HIERARCHY_ANNOTATION, HIERARCHY_WEIGHTS_ANNOTATION

DEFAULT_WEIGHT = 1


def mutated_on_create(body: dict[str, Any]) -> dict[str, Any]:
    """The queue as ``createQueuePatch`` leaves it (a copy; ``body`` is not changed)."""
    result = copy.deepcopy(body)
    spec = result.get("spec")
    if spec is None:
        spec = result["spec"] = {}
    if not isinstance(spec, dict):
        return result  # the webhook cannot decode it: the schema says why
    if spec.get("reclaimable") is None:
        spec["reclaimable"] = True
    weight = spec.get("weight")
    if weight is None or (isinstance(weight, int) and not isinstance(weight, bool) and weight == 0):
        spec["weight"] = DEFAULT_WEIGHT  # Go's zero value: absent or 0 alike
    meta = result.get("metadata")
    notes = meta.get("annotations") if isinstance(meta, dict) else None
    if isinstance(notes, dict):
        path, weights = notes.get(HIERARCHY_ANNOTATION) or "", notes.get(HIERARCHY_WEIGHTS_ANNOTATION) or ""
        if path and weights and isinstance(path, str) and isinstance(weights, str) and not path.startswith("root"):
            notes[HIERARCHY_ANNOTATION], notes[HIERARCHY_WEIGHTS_ANNOTATION] = f"root/{path}", f"1/{weights}"
    return result
