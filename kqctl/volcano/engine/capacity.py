"""The capacity plugin (``plugins/capacity/capacity.go``): ``deserved`` as written, flat or hierarchical.

C1 queue order, C2 allocatable (up to the real capability: deserved is not a cap), C3 job enqueueable,
C4 preemptive, C5 reclaimable. With ``enableHierarchy`` every queue takes part, the tree is built from
``spec.parent``, usage rolls up to the ancestors, and a missing parent, a cycle or a job in a queue with
children makes the plugin refuse everything for the session (Volcano only logs why). With hierarchy, the
argument ``ancestorReclaimLevel`` (VC-CAPACITY-ANCESTOR-1) also lets C4 and C5 look at ancestors.
"""

from __future__ import annotations

from fractions import Fraction

from kqctl.volcano.api.models import ROOT_QUEUE
from kqctl.volcano.api.resource import (
    INFINITE,
    Amount,
    Resource,
    exceeded_part,
    exceeding_requested_dims,
    greater_on_relevant_dims,
    intersection,
    less_equal,
    less_equal_partly_zero_filtered,
    maximum,
)
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.framework import PERMIT, REJECT, JobInfo, Plugin, QueueInfo, Session, TaskInfo
from kqctl.volcano.engine.proportion import quota_message
from kqctl.volcano.engine.queue_attr import (
    QueueAttr,
    add_job_usage,
    capability_of,
    deduct_gated,
    dominant_share,
    guarantee_of,
    real_capability,
)
from kqctl.volcano.engine.queue_state import not_open

NAME = "capacity"
ANCESTOR_RECLAIM_LEVEL = "ancestorReclaimLevel"


class Capacity:
    def __init__(self, ssn: Session, plugin: Plugin) -> None:
        self.ssn = ssn
        self.hierarchy = plugin.option.hierarchy
        self.attrs: dict[str, QueueAttr] = {}
        self.total_guarantee = Resource()
        self.broken = ""  # why hierarchical capacity refuses the whole session ("" when ready)
        # VC-CAPACITY-ANCESTOR-1: how many ancestor levels reclaim looks at (hierarchy only; read as Go's GetInt
        # reads it: only a whole number counts, and a negative one is 0)
        level = plugin.option.argument(ANCESTOR_RECLAIM_LEVEL)
        whole = isinstance(level, int) and not isinstance(level, bool)
        self.ancestor_level = max(level, 0) if whole and self.hierarchy else 0
        if self.hierarchy:
            self._build_hierarchy()
        else:
            self._build_flat()
        hooks = plugin.hooks
        hooks["queue_order"] = self.queue_order
        hooks["reclaimable"] = self.reclaimable
        hooks["preemptive"] = self.preemptive
        hooks["allocatable"] = self.allocatable
        hooks["job_enqueueable"] = self.job_enqueueable
        hooks["job_enqueued"] = self.job_enqueued
        if self.hierarchy:
            hooks["victim_queue_order"] = self.victim_queue_order
        ssn.event_handlers.append((self.on_allocate, self.on_deallocate))

    # --- building the attributes ----------------------------------------------------------------------------

    def _build_flat(self) -> None:
        """``buildQueueAttrs``: queues with jobs; deserved = max(min(spec.deserved, realCapability), guarantee)."""
        for queue in self.ssn.queues.values():
            self.total_guarantee.add(guarantee_of(queue.model))
        for key in sorted(self.ssn.jobs):
            job = self.ssn.jobs[key]
            attr = self.attrs.get(job.queue)
            if attr is None:
                queue = self.ssn.queues[job.queue]
                capability, guarantee = capability_of(queue.model), guarantee_of(queue.model)
                attr = self.attrs[job.queue] = QueueAttr(
                    queue.name, queue.model.weight, deserved=Resource.of(queue.model.deserved or {}),
                    capability=capability, guarantee=guarantee,
                    real_capability=real_capability(self.ssn.total, self.total_guarantee, guarantee, capability))
            add_job_usage(attr, job)
        for attr in self.attrs.values():
            attr.deserved.min_dimension(attr.real_capability, "infinity")
            attr.deserved = maximum(attr.deserved, attr.guarantee)
            update_share(attr)

    def _build_hierarchy(self) -> None:
        """``buildHierarchicalQueueAttrs`` and ``checkHierarchicalQueue``."""
        for name in sorted(self.ssn.queues):
            queue = self.ssn.queues[name].model
            self.attrs[name] = QueueAttr(name, queue.weight, deserved=Resource.of(queue.deserved or {}),
                                         capability=Resource.of(queue.capability or {}),
                                         guarantee=guarantee_of(queue))
        problem = self._link_all()
        if problem:
            self.broken = problem
            return
        for key in sorted(self.ssn.jobs):
            job = self.ssn.jobs[key]
            attr = self.attrs[job.queue]
            if attr.children:
                self.broken = f"The Queue <{job.queue}> of Job <{job.key}> is not leaf queue"
                return
            before = QueueAttr(attr.name, allocated=attr.allocated.clone(), request=attr.request.clone(),
                               inqueue=attr.inqueue.clone(), elastic=attr.elastic.clone())
            add_job_usage(attr, job)
            for ancestor in attr.ancestors:
                up = self.attrs[ancestor]
                up.allocated.add(attr.allocated.clone().sub(before.allocated))
                up.request.add(attr.request.clone().sub(before.request))
                up.inqueue.add(attr.inqueue.clone().sub(before.inqueue))
                up.elastic.add(attr.elastic.clone().sub(before.elastic))
        root = self.attrs[ROOT_QUEUE]
        assert root.capability is not None
        if root.capability.is_empty():
            root.capability = Resource.infinite(self.ssn.total.scalars)
        root.real_capability = root.capability.clone()
        self._check_all(root)
        for attr in self.attrs.values():
            update_share(attr)

    def _link_all(self) -> str:
        """``updateAncestors`` for every queue, by name: the parent chain up to root; a missing parent or a cycle
        breaks the build. Each chain is walked only up to a queue already linked, so a deep tree (a chain of
        thousands of queues) is linked in linear time, as Volcano's memoised recursion does."""
        linked = {ROOT_QUEUE}
        queues = self.ssn.queues
        for name in sorted(self.attrs):
            chain: list[str] = []
            on_chain: set[str] = set()
            current = name
            while current not in linked:
                chain.append(current)
                on_chain.add(current)
                parent = queues[current].model.parent or ROOT_QUEUE
                if parent not in queues:
                    return f"the queue {current} has invalid parent queue {parent}"
                if parent in on_chain:
                    return f"cycle detected in queue hierarchy for queue {parent}"
                current = parent
            for child in reversed(chain):  # top down: each parent's ancestors are known before its child's
                parent = queues[child].model.parent or ROOT_QUEUE
                parent_attr = self.attrs[parent]
                self.attrs[child].ancestors = [*parent_attr.ancestors, parent]
                parent_attr.children.append(child)
                linked.add(child)
        return ""

    def _check_all(self, root: QueueAttr) -> None:
        """``checkHierarchicalQueue`` from root down, each parent before its children (iteratively: a tree
        thousands of levels deep is fine)."""
        stack = [root]
        while stack:
            attr = stack.pop()
            self._check(attr)
            stack.extend(self.attrs[name] for name in sorted(attr.children, reverse=True))

    def _check(self, attr: QueueAttr) -> None:
        """One parent: children's deserved floored by guarantee, capabilities inherited, real capability = what
        the parent's real capability leaves after the siblings' guarantees."""
        assert attr.capability is not None
        total_guarantee, total_deserved = Resource(), Resource()
        for name in sorted(attr.children):
            child = self.attrs[name]
            assert child.capability is not None
            child.deserved = maximum(child.deserved, child.guarantee)
            total_deserved.add(child.deserved)
            total_guarantee.add(child.guarantee)
            if child.capability.cpu <= 0:
                child.capability.cpu = attr.capability.cpu
            if child.capability.memory <= 0:
                child.capability.memory = attr.capability.memory
            for scalar, value in attr.capability.scalars.items():
                child.capability.scalars.setdefault(scalar, value)
        if attr.name == ROOT_QUEUE:
            attr.guarantee, attr.deserved = total_guarantee, total_deserved
        for name in sorted(attr.children):
            child = self.attrs[name]
            assert child.capability is not None
            real = exceeded_part(attr.real_capability, total_guarantee).add(child.guarantee)
            child.real_capability = real.min_dimension(child.capability, "infinity")

    # --- hooks ----------------------------------------------------------------------------------------------

    def _chain(self, queue: str) -> list[str]:
        """The queue and (hierarchical) its ancestors, leaf first."""
        attr = self.attrs[queue]
        return [queue, *reversed(attr.ancestors)] if self.hierarchy else [queue]

    def _leaf(self, queue: str) -> bool:
        return not self.attrs[queue].children

    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        """C1: priority, then share (flat: a queue with deserved before a best-effort one on equal share);
        hierarchical: leaves before non-leaves, leaves by their branches' share below the common ancestor."""
        if left.priority != right.priority:
            return right.priority - left.priority
        if not self.hierarchy:
            return self._compare_share(self.attrs[left.name], self.attrs[right.name])
        l_leaf, r_leaf = self._leaf(left.name), self._leaf(right.name)
        if l_leaf != r_leaf:
            return -1 if l_leaf else 1
        l_attr, r_attr = self.attrs[left.name], self.attrs[right.name]
        if not l_leaf:
            return self._compare_share(l_attr, r_attr)
        level = queue_level(l_attr, r_attr)
        l_branch = l_attr.ancestors[level + 1] if level + 1 < len(l_attr.ancestors) else l_attr.name
        r_branch = r_attr.ancestors[level + 1] if level + 1 < len(r_attr.ancestors) else r_attr.name
        return self._compare_share(self.attrs[l_branch], self.attrs[r_branch])

    @staticmethod
    def _compare_share(left: QueueAttr, right: QueueAttr) -> int:
        """``compareShareWithDeserved``."""
        if left.share == right.share:
            l_has, r_has = not left.deserved.is_empty(), not right.deserved.is_empty()
            if l_has == r_has:
                return 0
            return -1 if l_has else 1
        return -1 if left.share < right.share else 1

    def victim_queue_order(self, left: QueueInfo, right: QueueInfo, preemptor: QueueInfo) -> int:
        """Closer relatives of the reclaimer (a deeper common ancestor) are victims first."""
        l_level = queue_level(self.attrs[left.name], self.attrs[preemptor.name])
        r_level = queue_level(self.attrs[right.name], self.attrs[preemptor.name])
        if l_level == r_level:
            return 0
        return -1 if l_level > r_level else 1

    def allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """C2: Open, ready, a leaf; allocated + request within the real capability of the queue and each
        ancestor, on the dims the task requests."""
        if not queue.open:
            self.ssn.note(task.job, trace.QUEUE_CLOSED, not_open(queue.model))
            return False
        if self.broken:
            self.ssn.note(task.job, trace.HIERARCHY, self.broken)
            return False
        if self.hierarchy and not self._leaf(queue.name):
            return False
        for name in self._chain(queue.name):
            attr = self.attrs[name]
            over = exceeding_requested_dims(attr.allocated.clone().add(task.request), attr.real_capability,
                                            task.request)
            if over:
                where = "its" if name == queue.name else f"ancestor {name}'s"
                self.ssn.note(task.job, trace.ALLOCATABLE,
                              f"queue {queue.name} would exceed {where} real capability on {', '.join(over)}",
                              {"plugin": NAME, "queue": name, "dimensions": over, "request": task.request.clone(),
                               "allocated": attr.allocated.clone(), "limit": attr.real_capability.clone(),
                               "limitName": "realCapability"})
                return False
        return True

    def job_enqueueable(self, job: JobInfo) -> int:
        """C3: Open, ready, a leaf; minResources + allocated + inqueue - elastic within the real capability of
        the queue and (hierarchical) each ancestor."""
        if self.broken:
            self.ssn.note(job, trace.HIERARCHY, self.broken)
            return REJECT
        if self.hierarchy and not self._leaf(job.queue):
            self.ssn.note(job, trace.HIERARCHY, f"queue {job.queue} has child queues: jobs run only in leaf queues")
            return REJECT
        queue = self.ssn.queues[job.queue]
        if not queue.open:
            self.ssn.note(job, trace.QUEUE_CLOSED, not_open(queue.model))
            return REJECT
        if job.min_resources is None:
            return PERMIT
        minimum = job.min_request()
        for name in self._chain(job.queue):
            attr = self.attrs[name]
            total = minimum.clone().add(attr.allocated).add(attr.inqueue).sub(attr.elastic)
            over = exceeding_requested_dims(total, attr.real_capability, minimum)
            if over:
                self.ssn.note(job, trace.QUEUE_QUOTA, quota_message(over),
                              {"plugin": NAME, "queue": name, "dimensions": over, "minResources": minimum,
                               "allocated": attr.allocated.clone(), "inqueue": attr.inqueue.clone(),
                               "elastic": attr.elastic.clone(), "limit": attr.real_capability.clone(),
                               "limitName": "realCapability"})
                return REJECT
        return PERMIT

    def job_enqueued(self, job: JobInfo) -> None:
        if job.min_resources is None or job.queue not in self.attrs:
            return
        reserved = deduct_gated(job, job.min_request())
        for name in self._chain(job.queue):
            self.attrs[name].inqueue.add(reserved)

    def preemptive(self, queue: QueueInfo, tasks: list[TaskInfo]) -> bool:
        """C4: within the real capability, and some requested dimension still within deserved."""
        if self.broken or not queue.open:
            return False
        attr = self.attrs[queue.name]
        request = Resource()
        for task in tasks:
            request.add(task.request)
        future = attr.allocated.clone().add(request)
        if exceeding_requested_dims(future, attr.real_capability, request):
            return False
        if less_equal_partly_zero_filtered(future, attr.deserved, request):
            return True
        # VC-CAPACITY-ANCESTOR-1: else an ancestor within the level (not root) with room under its deserved will do
        for depth in range(1, self.ancestor_level + 1):
            ancestor = ancestor_at(attr, depth)
            if ancestor is None or ancestor == ROOT_QUEUE or ancestor not in self.attrs:
                continue
            up = self.attrs[ancestor]
            if less_equal_partly_zero_filtered(up.allocated.clone().add(request), up.deserved, request):
                return True
        return False

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """C5: shared dimensions, the guarantee floor, and the victim's queue above its deserved on a dimension
        the victim uses (or the victim using none of deserved's dimensions); with an ancestorReclaimLevel, also
        the victim's ancestors (VC-CAPACITY-ANCESTOR-1)."""
        if self.broken:
            return [], REJECT
        reclaimer_attr = self.attrs.get(reclaimer.job.queue)
        if reclaimer_attr is None:
            return [], REJECT
        ordered = sorted_victims(self.ssn, reclaimees, reclaimer)
        victims: list[TaskInfo] = []
        allocations: dict[str, Resource] = {}
        for reclaimee in ordered:
            attr = self.attrs.get(reclaimee.job.queue)
            if attr is None:
                continue
            if not [n for n in intersection(reclaimee.request, reclaimer.request) if n != "pods"]:
                continue
            allocated = allocations.setdefault(attr.name, attr.allocated.clone())
            if not less_equal(attr.guarantee, allocated.clone().sub(reclaimee.request), "zero"):
                continue
            immediate = not intersection(reclaimee.request, attr.deserved)
            if immediate and self._no_contention(reclaimer, reclaimer_attr, attr):
                continue
            if not immediate and not greater_on_relevant_dims(allocated, attr.deserved, reclaimee.request):
                continue
            checked = self._ancestors_over_deserved(reclaimee, reclaimer_attr, attr, allocations)
            if checked is None:
                continue
            allocated.sub(reclaimee.request)
            for name in checked:
                allocations[name].sub(reclaimee.request)
            victims.append(reclaimee)
        return victims, PERMIT

    def _no_contention(self, reclaimer: TaskInfo, reclaimer_attr: QueueAttr, attr: QueueAttr) -> bool:
        """VC-CAPACITY-ANCESTOR-1: a victim taken at once (its queue deserves none of what it uses) is spared
        when both queues share a non-root ancestor within the level and the reclaimer's queue deserves none of
        what the reclaimer asks for."""
        if not self.ancestor_level:
            return False
        mine = {ancestor_at(reclaimer_attr, d) for d in range(1, self.ancestor_level + 1)} - {None, ROOT_QUEUE}
        theirs = {ancestor_at(attr, d) for d in range(1, self.ancestor_level + 1)}
        return bool(mine & theirs) and not intersection(reclaimer.request, reclaimer_attr.deserved)

    def _ancestors_over_deserved(self, reclaimee: TaskInfo, reclaimer_attr: QueueAttr, attr: QueueAttr,
                                 allocations: dict[str, Resource]) -> list[str] | None:
        """VC-CAPACITY-ANCESTOR-1: at each depth within the level, the victim's ancestor there (not root, not
        the reclaimer's own ancestor at that depth) must deserve none of what the victim uses or be above its
        deserved on a dimension the victim uses. The ancestors checked, or None when one fails."""
        checked: list[str] = []
        for depth in range(1, self.ancestor_level + 1):
            ancestor = ancestor_at(attr, depth)
            if ancestor is None or ancestor == ROOT_QUEUE or ancestor == ancestor_at(reclaimer_attr, depth):
                continue
            up = self.attrs.get(ancestor)
            if up is None:
                return None
            allocated = allocations.setdefault(ancestor, up.allocated.clone())
            checked.append(ancestor)
            if not intersection(reclaimee.request, up.deserved):
                continue
            if not greater_on_relevant_dims(allocated, up.deserved, reclaimee.request):
                return None
        return checked

    def on_allocate(self, task: TaskInfo) -> None:
        attr = self.attrs.get(task.job.queue)
        if attr is None:
            return
        attr.allocated.add(task.request)
        update_share(attr)
        if self.hierarchy:
            for ancestor in attr.ancestors:
                self.attrs[ancestor].allocated.add(task.request)

    def on_deallocate(self, task: TaskInfo) -> None:
        attr = self.attrs.get(task.job.queue)
        if attr is None:
            return
        attr.allocated.sub(task.request)
        update_share(attr)
        if self.hierarchy:
            for ancestor in attr.ancestors:
                self.attrs[ancestor].allocated.sub(task.request)


def update_share(attr: QueueAttr) -> None:
    """``updateQueueAttrShare``: a queue with nothing deserved is best-effort, share 1."""
    if attr.deserved.is_empty():
        attr.share = Fraction(1)
        attr.best_effort_share = True
        return
    attr.best_effort_share = False
    attr.share = dominant_share(attr.allocated, attr.deserved)


def share_of(deserved: Resource, allocated: Resource) -> Amount:
    """The capacity plugin's share for given deserved and allocated (conformance: Test_updateQueueAttrShare)."""
    attr = QueueAttr("", deserved=deserved, allocated=allocated)
    update_share(attr)
    return attr.share


def ancestor_at(attr: QueueAttr, depth: int) -> str | None:
    """``queueAncestorAtDepth``: the ancestor ``depth`` levels up (1: the parent), None above the root."""
    return attr.ancestors[-depth] if 0 < depth <= len(attr.ancestors) else None


def queue_level(left: QueueAttr, right: QueueAttr) -> int:
    """``getQueueLevel``: the index of the deepest common ancestor in both ancestor lists."""
    level = 0
    for i in range(min(len(left.ancestors), len(right.ancestors))):
        if left.ancestors[i] != right.ancestors[i]:
            return level
        level = i
    return level


def sorted_victims(ssn: Session, victims: list[TaskInfo], reclaimer: TaskInfo) -> list[TaskInfo]:
    """``BuildVictimsPriorityQueue`` popped to the end (the capacity plugin orders its candidates with it)."""
    heap = ssn.victims_queue(victims, reclaimer)
    ordered = []
    while not heap.empty():
        ordered.append(heap.pop())
    return ordered


__all__ = ["INFINITE", "Capacity", "queue_level", "share_of", "sorted_victims"]
