"""Which pods can never get in as configured, and the ``--fail-on`` states every pod ends in.

The same words for every scheduler (``kqctl simulate --fail-on``): *inadmissible* is a pod that can never run as
configured, *pending* one that does not run at the end for any reason, *preempted* a victim. In YuniKorn's terms:

* a Rejected pod (its application refused: no placement rule took it, its queue does not exist or refuses it) is
  inadmissible and pending;
* a Pending pod is inadmissible when nothing that only changes with time can let it in: it asks more of a type than
  a max on its queue's path (``Queue.TryAllocate`` headroom, spec G3; at root the cluster, where a type no node has
  counts as 0, G4), more than a user or group limit on the path allows (G2), or more than any node could ever hold
  (``Node.FitInNode`` on the node's total, with the pod's node predicates);
* a Preempted pod (a victim) is preempted and pending;
* Running and Allocated pods end in none of them.
"""

from __future__ import annotations

from kqctl.yunikorn.api import resources as res
from kqctl.yunikorn.api.resources import Resource
from kqctl.yunikorn.engine.nodes import predicates_pass
from kqctl.yunikorn.engine.objects import Ask
from kqctl.yunikorn.engine.partition import Partition
from kqctl.yunikorn.engine.state import shape_of

INADMISSIBLE = "inadmissible"
PENDING = "pending"
PREEMPTED = "preempted"


def never_fits(partition: Partition, ask: Ask) -> str:
    """Why the ask can never be allocated with the configuration and nodes as they are; "" when it could be."""
    return NeverFits(partition)(ask)


class NeverFits:
    """``never_fits`` for the many pending asks of one end state (simulate's result asks it of every pending pod).

    The answer depends on nothing a simulation changes (maxes, limits, node totals and labels), and on the ask only
    through its queue, its application's user and group and its resources (the quota checks), and its resources and
    placement constraints (``state.shape_of``: the node check). Each part is worked out once per distinct key, and
    the cluster's size summed once, instead of per pod over every node."""

    def __init__(self, partition: Partition) -> None:
        self.partition = partition
        self._cluster: Resource | None = None
        self._quota: dict[tuple[object, ...], str] = {}
        self._nodes: dict[tuple[object, ...], str] = {}

    def __call__(self, ask: Ask) -> str:
        app = ask.app
        if app.queue is None:
            return ""
        shape = shape_of(ask)
        key = (app.queue.path, app.user, app.group, shape[0])  # shape[0]: the resources, sorted
        why = self._quota.get(key)
        if why is None:
            if self._cluster is None:
                self._cluster = self.partition.root_max() or {}
            why = self._quota[key] = _over_a_max(self.partition, ask) or _over_a_user_limit(self.partition, ask) \
                or _missing_type(self._cluster, ask)
        if why:
            return why
        why = self._nodes.get(shape)
        if why is None:
            why = self._nodes[shape] = _no_node(self.partition, ask)
        return why


def _no_node(partition: Partition, ask: Ask) -> str:
    """``Node.FitInNode``: no node is big enough even empty, or none of those passes the pod's predicates."""
    nodes = list(partition.nodes.by_name.values())
    big_enough = [node for node in nodes if node.fits_total(ask.resource)]
    if any(not predicates_pass(ask.pod, node) for node in big_enough):
        return ""
    if big_enough:
        return f"the nodes big enough for it ({len(big_enough)} of {len(nodes)}) all fail its node predicates"
    for name, wanted in sorted(ask.resource.items()):
        largest = max((node.total.get(name, 0) for node in nodes), default=0)
        if wanted > largest:
            return (f"it asks {name} {res.human_amount(name, wanted)} and the largest node has "
                    f"{res.human_amount(name, largest)}")
    return "no node is big enough for all it asks at once"


def _over_a_max(partition: Partition, ask: Ask) -> str:
    queue = ask.app.queue
    while queue is not None:
        for name, limit in sorted((queue.max or {}).items()):
            wanted = ask.resource.get(name, 0)
            if wanted > limit:
                where = "the whole cluster has" if queue.parent is None else f"the max of {queue.path} is"
                return (f"it asks {name} {res.human_amount(name, wanted)} and {where} "
                        f"{res.human_amount(name, limit)} (YK-G3)")
        queue = queue.parent
    return ""


def _over_a_user_limit(partition: Partition, ask: Ask) -> str:
    app = ask.app
    assert app.queue is not None
    _, bindings = partition.limits.headroom(app.queue.path, app.user, app.group)
    for binding in bindings:
        for name, limit in sorted(binding.max_resources.items()):
            wanted = ask.resource.get(name, 0)
            if wanted > limit:
                return (f"it asks {name} {res.human_amount(name, wanted)} and {binding.kind} {binding.name}'s limit "
                        f"{binding.limit or '(unnamed)'} on {binding.queue} allows {res.human_amount(name, limit)} "
                        "(YK-G2)")
    return ""


def _missing_type(cluster: Resource, ask: Ask) -> str:
    absent = sorted(name for name, value in ask.resource.items() if value > 0 and cluster.get(name, 0) <= 0)
    if absent:
        return f"no node has any {', '.join(absent)}: YuniKorn counts it as 0 at root (YK-G4)"
    return ""


def fail_on_states(state: str, inadmissible: str) -> tuple[str, ...]:
    """The ``--fail-on`` states a pod in ``state`` ends in (``inadmissible``: why it never fits, "" if it could)."""
    if state == "Rejected":
        return (INADMISSIBLE, PENDING)
    if state == "Preempted":
        return (PENDING, PREEMPTED)
    if state == "Pending":
        return (INADMISSIBLE, PENDING) if inadmissible else (PENDING,)
    if state == "Failed":
        return (PENDING,)  # its gang failed (YK-GANG-1): it does not run, and nothing makes it again
    return ()  # running, allocated, or a placeholder replaced or released (not a pod of the user's)
