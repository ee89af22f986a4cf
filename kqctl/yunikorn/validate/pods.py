"""Pods whose application placement does not put where they ask, or YuniKorn rejects, found by the engine's own
placement (``build_partition`` runs it; each application keeps its decision): the queue a pod names does not exist
and no rule creates it (most often a typo: the warning names the existing queues the name is close to), is a parent
queue, or the user may not submit to it (YK-PL-QUEUE); or the application is rejected for another reason
(YK-PL-REJECTED): no rule places it, its queue cannot be created, or refuses it (a gang application, YK-V28).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from kqctl.errors import InputError
from kqctl.findings import Finding, warning
from kqctl.load.objects import LoadedObject, LoadResult
from kqctl.origin import FieldPath
from kqctl.yunikorn import kinds
from kqctl.yunikorn.engine import placement as placing
from kqctl.yunikorn.engine.objects import REJECTED, Application
from kqctl.yunikorn.engine.partition import Partition, PartitionError, build_partition
from kqctl.yunikorn.load import QUEUE_LABEL, build_snapshot


def unknown_queues(objects: Sequence[LoadedObject]) -> Iterator[tuple[LoadedObject, Finding]]:
    """(pod object, finding) for every YuniKorn pod whose application placement does not put in the queue the pod
    names (YK-PL-QUEUE), or that YuniKorn rejects otherwise (YK-PL-REJECTED)."""
    pods = {(obj.namespace or "default", obj.name or ""): obj for obj in objects
            if obj.kind == "Pod" and isinstance(obj.body, dict) and kinds.is_yunikorn_pod(obj.body)}
    if not pods:
        return
    try:
        # The configuration's own problems are reported on it; with a configuration YuniKorn refuses, or
        # inputs the simulation cannot read, there is no placement to check against.
        snapshot = build_snapshot(LoadResult(list(objects), []))
        partition = build_partition(snapshot)
    except (InputError, PartitionError):
        return
    for app in partition.apps.values():
        if app.decision is None:
            continue  # the placement rules cannot be built: YK-V21 says so on the configuration
        found = _problem(partition, app)
        if found is None:
            continue
        rule, message, hint = found
        for ask in app.asks:
            obj = pods.get((ask.pod.namespace, ask.pod.name))
            if obj is not None:
                yield obj, warning(rule, _queue_field(obj), message, hint)


def _problem(partition: Partition, app: Application) -> tuple[str, str, str] | None:
    """(rule, message, hint) when placement does not do what the pod asks, or the application is rejected."""
    assert app.decision is not None
    tree = partition.tree
    paths = [q.path for q in tree.leaves()] + [q.path for q in tree.queues() if not q.leaf]
    refused = placing.queue_refused(app.requested_queue, app.decision, tree.get, paths)
    rejected = app.state == REJECTED or app.queue is None
    outcome = "YuniKorn rejects its application" if rejected else \
        f"its application goes to {app.queue.path if app.queue else ''} instead (rule {app.placement})"
    if refused is None:
        if not rejected:
            return None
        return "YK-PL-REJECTED", f"YuniKorn rejects the pod's application {app.app_id}: {app.rejected}", \
            _rejected_hint(app)
    path = refused.path
    if refused.refused == placing.PARENT_QUEUE:
        queue = tree.get(path)
        leaves = [q.path for q in queue.walk() if q.leaf] if queue is not None else []
        below = f": {' or '.join(leaves[:3])}{' or another' if len(leaves) > 3 else ''}" if leaves else ""
        return "YK-PL-QUEUE", f"the pod asks for queue {path}, a parent queue (only a leaf takes applications): " \
            f"{outcome}", f"name a leaf queue below it{below}"
    if refused.refused == placing.NO_ACCESS:
        who = f"user {app.user}" + (f" (groups {', '.join(app.groups)})" if app.groups else "")
        checked = path  # a queue to create: its nearest existing parent decides
        while tree.get(checked) is None and "." in checked:
            checked = checked.rsplit(".", 1)[0]
        return "YK-PL-QUEUE", f"the pod asks for queue {path}, but {refused.outcome}: {outcome}", \
            (f"no submitacl or adminacl on {checked} or a queue above it lets {who} submit (an ACL left out is "
             "nobody): add the user or a group to submitacl there, or submitacl: '*' for everyone")
    if refused.missing is not None:
        hint = f"did you mean {' or '.join(refused.missing.close)}?" if refused.missing.close else \
            "name an existing leaf queue, or add a placement rule with create: true"
        return "YK-PL-QUEUE", f"the pod asks for queue {path}, which does not exist and no placement rule " \
            f"creates: {outcome}", hint
    rules = " > ".join(step.rule for step in app.decision.steps)
    return "YK-PL-QUEUE", f"the pod asks for queue {path}, but no placement rule takes the queue a pod names: " \
        f"{outcome}", f"the rules tried in order: {rules}; a provided rule first takes the pod's queue"


def _rejected_hint(app: Application) -> str:
    if app.decision is not None and not app.decision.queue:
        if not app.requested_queue:
            return "name a queue (label or annotation yunikorn.apache.org/queue, or label queue), or add a " \
                "placement rule that places it (or a root.default leaf)"
        return "kqctl explain shows each rule's part in the decision"
    return "kqctl explain shows why"


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
