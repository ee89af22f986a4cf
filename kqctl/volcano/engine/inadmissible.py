"""Which PodGroups can never run as configured (``--fail-on inadmissible``, ``neverFits`` in ``simulate -o json``).

The same words for every scheduler: *inadmissible* is a PodGroup that no amount of waiting lets in, with the
queues, the scheduler configuration and the nodes as they are. In Volcano's terms (VC-NEVER-1):

* its queue does not exist (the scheduler ignores the PodGroup);
* the last session stopped it at a gate that nothing finishing can open: its queue is not Open, it has fewer
  valid tasks than minMember (``job-invalid``), it sits in a non-leaf queue or under a hierarchy hierarchical
  capacity refuses (:data:`NEVER_GATES`);
* its minResources exceed its queue's real capability in a resource the capability names (the queue's
  capability less what the other queues' guarantees take: enqueue's ``JobEnqueueable`` never admits it);
* fewer than minMember of its pods fit some node even with the node empty: a pod asks more than every node that
  passes its predicates (cordon, nodeSelector and node affinity, NoSchedule/NoExecute taints, as the predicates
  plugin is configured) has allocatable. Checked only when the input has nodes.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from kqctl.volcano.api.models import Node, Pod, PodGroup
from kqctl.volcano.api.resource import CPU, MEMORY, PODS, Resource, human_amount, less_equal_with_names
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.predicates import configured, refusal

# The gates (engine/trace.py) after which a PodGroup can never run as configured, whatever finishes.
NEVER_GATES = ("queue-missing", "queue-closed", "job-invalid", "hierarchy")
TERMINAL = ("Succeeded", "Failed")


def never_runs(snapshot: Snapshot, group: PodGroup, ignored: bool, reason: tuple[str, str] | None,
               real_capability: Resource | None, pods: Sequence[Pod]) -> str:
    """Why the PodGroup can never run as configured (VC-NEVER-1); "" when waiting could let it in. ``pods``
    are the PodGroup's pods at the end of the run."""
    if ignored:
        return f"its queue {group.queue} does not exist: Volcano ignores the PodGroup"
    if reason is not None and reason[0] in NEVER_GATES:
        return reason[1]
    over = above_capability(group.min_resources, real_capability)
    if over:
        return over
    if snapshot.nodes:
        return _no_node(snapshot, group, pods)
    return ""


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


def _no_node(snapshot: Snapshot, group: PodGroup, pods: Sequence[Pod]) -> str:
    switches = configured(snapshot.conf)
    nodes = [node for node in snapshot.nodes.values() if node.ready]
    live = [pod for pod in pods if pod.phase not in TERMINAL]
    fitting = 0
    first_misfit = ""
    for pod in live:
        if pod.node_name:
            fitting += 1
            continue
        why = _why_no_node(pod, nodes, switches)
        if why:
            first_misfit = first_misfit or why
        else:
            fitting += 1
    if fitting >= group.min_member or not first_misfit:
        return ""
    if len(live) == 1:
        return first_misfit
    return f"only {fitting} of its pods can ever fit a node (minMember {group.min_member}): {first_misfit}"


def _why_no_node(pod: Pod, nodes: Iterable[Node], switches: tuple[bool, bool] | None) -> str:
    """"" when some node, empty, would take the pod; else why none would."""
    request = Resource.of(pod.request)
    passing = [node for node in nodes if switches is None or refusal(pod, node, *switches) is None]
    if not passing:
        return f"no node passes the predicates of pod {pod.key}"
    always: set[str] | None = None  # the resources the pod asks more of than every passing node has
    for node in passing:
        failing = less_equal_with_names(request, Resource.of(node.allocatable), "zero")
        if not failing:
            return ""
        always = set(failing) if always is None else always & set(failing)
    short = sorted(always or (), key=lambda n: (n not in (CPU, MEMORY), n != CPU, n))
    if not short:
        return f"pod {pod.key} fits no node that passes its predicates in every resource at once"
    name = short[0]
    largest = max(node.allocatable.get(name, 0) for node in passing)
    noun = "pod slots" if name == PODS else name
    return (f"pod {pod.key} asks {noun} {human_amount(name, pod.request.get(name, 0))} and the largest node that "
            f"passes its predicates has {human_amount(name, largest)}")
