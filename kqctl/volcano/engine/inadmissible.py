"""Which PodGroups can never run as configured (``--fail-on inadmissible``, ``neverFits`` in ``simulate -o json``).

The same words for every scheduler: *inadmissible* is a PodGroup that no amount of waiting lets in, with the
queues, the scheduler configuration and the nodes as they are. In Volcano's terms (VC-NEVER-1):

* its pods name it but it does not exist (the scheduler's cache skips their job), or its queue does not exist (the
  scheduler ignores the PodGroup);
* the last session stopped it at a gate that nothing finishing can open: its queue is not Open, it has fewer
  valid tasks than minMember (``job-invalid``), it sits in a non-leaf queue or under a hierarchy hierarchical
  capacity refuses (:data:`NEVER_GATES`);
* its queue is not Open and it needs the queue's yes (VC-QUEUE-STATE-1, :func:`queue_state.refusal`), whether a
  session ran or not;
* its minResources exceed its queue's real capability in a resource the capability names (the queue's
  capability less what the other queues' guarantees take: enqueue's ``JobEnqueueable`` never admits it);
* fewer than minMember of its pods fit some node even with the node empty: a pod asks more than every node that
  passes its predicates (cordon, nodeSelector and node affinity, NoSchedule/NoExecute taints, as the predicates
  plugin is configured) has allocatable. Checked only when the input has nodes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from kqctl.volcano.api.models import Node, Pod, PodGroup
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, Resource, human_amount, less_equal_with_names
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine import queue_state
from kqctl.volcano.engine.framework import request_of
from kqctl.volcano.engine.predicates import configured, refusal

# The gates (engine/trace.py) after which a PodGroup can never run as configured, whatever finishes.
NEVER_GATES = ("podgroup-missing", "queue-missing", "queue-closed", "job-invalid", "hierarchy")
TERMINAL = ("Succeeded", "Failed")


def missing_group_message(key: str) -> str:
    """Why the pods of a PodGroup that does not exist stay Pending (VC-POD-PG): simulate's reason, audit's finding."""
    return (f"PodGroup {key} does not exist: the podgroup controller makes none for a pod that names one, and the "
            f"scheduler's cache skips the job of its pods (The scheduling spec of Job <{key}> is nil, ignore it.), so "
            "they stay Pending")


def never_runs(snapshot: Snapshot, group: PodGroup, ignored: bool, reason: tuple[str, str] | None,
               real_capability: Resource | None, pods: Sequence[Pod], kinds: NodeKinds | None = None,
               phase: str | None = None) -> str:
    """Why the PodGroup can never run as configured (VC-NEVER-1); "" when waiting could let it in. ``pods``
    and ``phase`` are the PodGroup's at the end of the run (``phase`` defaults to the input's); ``kinds``: the
    snapshot's nodes, shared by the PodGroups of one run (made here when not given)."""
    if group.absent:
        return "the PodGroup its pods name does not exist: Volcano skips their job and they stay Pending"
    if ignored:
        return f"its queue {group.queue} does not exist: Volcano ignores the PodGroup"
    if reason is not None and reason[0] in NEVER_GATES:
        return reason[1]
    closed = queue_state.refusal(snapshot, group, group.phase if phase is None else phase, pods)
    if closed:  # the first gate it meets, before its size matters
        return closed
    over = above_capability(group.min_resources, real_capability)
    if over:
        return over
    if snapshot.nodes:  # (without nodes the real capability is unknown too)
        cluster = _no_node(kinds or NodeKinds(snapshot), group, pods) or _gang_above_capability(group, pods,
                                                                                                real_capability)
        if cluster:
            return cluster
    return _best_effort_without_backfill(snapshot, group, pods)


def above_capability(minimum: Mapping[str, int] | None, capability: Resource | None) -> str:
    """minResources above the queue's real capability in a resource it names (cpu and memory always)."""
    if not minimum or capability is None:
        return ""
    for name, value in sorted(minimum.items()):
        if (name in (CPU, MEMORY) or name in capability.scalars) and value > capability.get(name):
            return (f"its minResources ask {name} {human_amount(name, value)} and its queue can ever hold "
                    f"{human_amount(name, capability.get(name), figure=True)} (the queue's capability less the "
                    "other queues' guarantees)")
    return ""


def _best_effort_without_backfill(snapshot: Snapshot, group: PodGroup, pods: Sequence[Pod]) -> str:
    """VC-BACKFILL-1: allocate skips best-effort pods (no requests: ``Resreq.IsEmpty``), only backfill places them; a
    configuration without backfill never places them, and a gang that needs one of them never runs."""
    waiting = unplaced_best_effort(snapshot, pods)
    if not waiting:
        return ""
    placeable = sum(1 for pod in pods if pod.phase not in TERMINAL) - len(waiting)
    if placeable >= max(1, group.min_member):
        return ""
    return f"{_best_effort_skipped(snapshot, waiting)}; minMember {group.min_member} needs them"


def unplaced_best_effort(snapshot: Snapshot, pods: Sequence[Pod]) -> list[Pod]:
    """VC-BACKFILL-1: the pods of ``pods`` no action of the configuration places: pending best-effort pods (no
    requests) when the backfill action does not run (allocate skips them); none when it does."""
    if "backfill" in snapshot.conf.actions:
        return []
    return [pod for pod in pods if pod.phase not in TERMINAL and not pod.node_name and request_of(pod).is_empty()]


def best_effort_left_pending(snapshot: Snapshot, waiting: Sequence[Pod]) -> str:
    """Why the best-effort pods of a PodGroup that runs stay Pending (simulate's reason, explain's gate)."""
    names = ", ".join(pod.name for pod in waiting)
    return f"{_best_effort_skipped(snapshot, waiting)}: {names} stay{'s' if len(waiting) == 1 else ''} Pending"


def _best_effort_skipped(snapshot: Snapshot, waiting: Sequence[Pod]) -> str:
    one = len(waiting) == 1
    return (f"{len(waiting)} of its pods ask{'s' if one else ''} for no resources (best-effort): Volcano's allocate "
            f"action skips {'it' if one else 'them'} and only backfill places {'it' if one else 'them'}, which the "
            f"scheduler configuration does not run (actions: {', '.join(snapshot.conf.actions)})")


def _gang_above_capability(group: PodGroup, pods: Sequence[Pod], capability: Resource | None) -> str:
    """The allocate gate (proportion P3 under a deserved share capped by the real capability, capacity C2) needs the
    queue to hold minMember of its pods at once, minResources or not: in a resource the capability names, the
    smallest minMember requests summed above the real capability can never be allocated."""
    live = [pod for pod in pods if pod.phase not in TERMINAL]
    needed = max(1, group.min_member)
    if capability is None or len(live) < needed:
        return ""
    names = sorted({name for pod in live for name in pod.request if name != PODS})
    for name in names:
        if name not in (CPU, MEMORY) and name not in capability.scalars:
            continue
        smallest = sorted(pod.request.get(name, 0) for pod in live)[:needed]
        total = sum(smallest)
        if total > capability.get(name):
            what = f"its pod asks {name}" if needed == 1 else f"its {needed} smallest pods (minMember) ask {name}"
            return (f"{what} {human_amount(name, total)} and its queue can ever hold "
                    f"{human_amount(name, capability.get(name), figure=True)} (the queue's capability less the other "
                    "queues' guarantees)")
    return ""


def _no_node(kinds: NodeKinds, group: PodGroup, pods: Sequence[Pod]) -> str:
    live = [pod for pod in pods if pod.phase not in TERMINAL]
    fitting = 0
    first_misfit = ""
    for pod in live:
        if pod.node_name:
            fitting += 1
            continue
        why = kinds.why_no_node(pod)
        if why:
            first_misfit = first_misfit or why
        else:
            fitting += 1
    if fitting >= group.min_member or not first_misfit:
        return ""
    if len(live) == 1:
        return first_misfit
    return f"only {fitting} of its pods can ever fit a node (minMember {group.min_member}): {first_misfit}"


# What keeps a pod off every node, for one pod spec: ("", 0) fits some node; (_NO_PASSING, 0) no node passes the
# predicates; (_NOT_AT_ONCE, 0) no passing node holds every resource at once; (resource, largest): it asks more
# of that resource than the largest passing node has.
_Verdict = tuple[str, int]


class NodeKinds:
    """The ready nodes, one representative per distinct (allocatable, cordon, taints, labels): the predicates and
    the empty-node fit read nothing else, so nodes alike in those judge every pod alike. Each distinct pod spec
    (request, tolerations, placement) is judged once, and the verdict is shared by the pods that ask the same
    (the pods of a job's task template) — hence cheap for 50,000 pods on 5,000 nodes."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.switches = configured(snapshot.conf)
        kinds: dict[tuple[object, ...], tuple[Node, Resource]] = {}
        self.nodes: list[tuple[Node, Resource]] = []  # every ready node with its allocatable vector
        for node in snapshot.nodes.values():
            if not node.ready:
                continue
            entry = (node, Resource.of(node.allocatable))
            self.nodes.append(entry)
            kinds.setdefault((tuple(sorted(node.allocatable.items())), node.unschedulable, node.taints,
                              tuple(sorted(node.labels.items()))), entry)
        self.kinds = list(kinds.values())
        self.verdicts: dict[tuple[object, ...], _Verdict] = {}

    def why_no_node(self, pod: Pod) -> str:
        """"" when some node, empty, would take the pod; else why none would."""
        spec = (tuple(sorted(pod.request.items())), pod.tolerations, pod.placement)
        verdict = self.verdicts.get(spec)
        if verdict is None:
            verdict = self.verdicts[spec] = self._judge(pod)
        kind, largest = verdict
        if not kind:
            return ""
        if kind == _NO_PASSING:
            return f"no node passes the predicates of pod {pod.key}"
        if kind == _NOT_AT_ONCE:
            return f"pod {pod.key} fits no node that passes its predicates in every resource at once"
        noun = "pod slots" if kind == PODS else kind
        return (f"pod {pod.key} asks {noun} {human_amount(kind, pod.request.get(kind, 0))} and the largest node "
                f"that passes its predicates has {human_amount(kind, largest)}")

    def _judge(self, pod: Pod) -> _Verdict:
        # A placement that reads node names tells apart nodes otherwise alike: judge every node then.
        nodes = self.nodes if pod.placement.reads_name() else self.kinds
        switches = self.switches
        request = Resource.of(pod.request)
        passing = [(node, allocatable) for node, allocatable in nodes
                   if switches is None or refusal(pod, node, *switches) is None]
        if not passing:
            return _NO_PASSING, 0
        always: set[str] | None = None  # the resources the pod asks more of than every passing node has
        for _, allocatable in passing:
            failing = less_equal_with_names(request, allocatable, "zero")
            if not failing:
                return "", 0
            always = set(failing) if always is None else always & set(failing)
        short = sorted(always or (), key=lambda n: (n not in (CPU, MEMORY), n != CPU, n))
        if not short:
            return _NOT_AT_ONCE, 0
        name = short[0]
        return name, max(node.allocatable.get(name, 0) for node, _ in passing)


_NO_PASSING, _NOT_AT_ONCE = " predicates", " every resource"  # not resource names: a name has no space
