"""Pods whose queue label cannot work (YK-PL-QUEUE): the queue they name does not exist and no placement rule
creates it, so YuniKorn rejects their application or places it elsewhere. Most often a typo: the warning names
the existing queues the name is close to.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kqctl.errors import InputError
from kqctl.findings import Finding, warning
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.origin import FieldPath
from kqctl.yunikorn import kinds
from kqctl.yunikorn.engine import placement as placing
from kqctl.yunikorn.engine.objects import REJECTED
from kqctl.yunikorn.engine.partition import PartitionError, build_partition
from kqctl.yunikorn.load import QUEUE_LABEL, build_snapshot


def unknown_queues(objects: Sequence[LoadedObject]) -> Iterator[tuple[LoadedObject, Finding]]:
    """(pod object, finding) for every YuniKorn pod naming a queue placement neither finds nor creates."""
    pods = {(obj.namespace or "default", obj.name or ""): obj for obj in objects
            if obj.kind == "Pod" and isinstance(obj.body, dict) and kinds.is_yunikorn_pod(obj.body)}
    if not any(_queue_field(obj) for obj in pods.values()):
        return
    try:
        # The configuration's own problems are reported on it; with a configuration YuniKorn refuses, or
        # inputs the simulation cannot read, there is no placement to check against.
        snapshot = build_snapshot(LoadResult(list(objects), []))
        partition = build_partition(snapshot)
    except (InputError, PartitionError):
        return
    tree = partition.tree
    paths = [q.path for q in tree.leaves()] + [q.path for q in tree.queues() if not q.leaf]
    for app in partition.apps.values():
        missing = placing.missing_queue(app.requested_queue, tree.get, paths)
        if missing is None or (app.queue is not None and app.queue.path == missing.path):
            continue
        outcome = "YuniKorn rejects its application" if app.state == REJECTED or app.queue is None else \
            f"its application goes to {app.queue.path} instead"
        hint = f"did you mean {' or '.join(missing.close)}?" if missing.close else \
            "name an existing leaf queue, or add a placement rule with create: true"
        for ask in app.asks:
            obj = pods.get((ask.pod.namespace, ask.pod.name))
            if obj is None:
                continue
            yield obj, warning("YK-PL-QUEUE", _queue_field(obj), f"the pod asks for queue {missing.path}, which "
                               f"does not exist and no placement rule creates: {outcome}", hint)


def _queue_field(obj: LoadedObject) -> FieldPath:
    """Where the pod names its queue (GetQueueNameFromPod's order); () when it names none."""
    metadata = obj.body.get("metadata")
    if not isinstance(metadata, dict):
        return ()
    for part, key in (("labels", QUEUE_LABEL), ("annotations", QUEUE_LABEL), ("labels", "queue")):
        values = metadata.get(part)
        if isinstance(values, dict) and values.get(key):
            return ("metadata", part, key)
    return ()
