"""The drf plugin (``plugins/drf/drf.go``): dominant resource fairness for jobs, and with ``enableHierarchy``
hierarchical DRF (HDRF) for queues.

VC-DRF-1 job order: the job with the smaller dominant share goes first; a job's share is the largest
allocated/total over the cluster's resources (``pods`` included), allocated as drf keeps it (``drfAttr``): the
job's allocated tasks when the session opens, then every allocate event (a pipelined task counts) and
deallocate event. The preemptable vote and the hierarchy read the same account.
VC-DRF-2 preemptable (the preempt action's victims): a preemptee is a victim when the preemptor's share with its
task added is at most the preemptee's job's share with that task removed (within 0.000001).
VC-HDRF-1 the tree: each queue's ``volcano.sh/hierarchy`` annotation is a path (``root/eng/dev``) and
``volcano.sh/hierarchy-weights`` the weight of each level (``1/2/8``); a level's weight below 1, or not a
number, is 1; every job hangs below its queue's path (a queue without the annotation: below root).
VC-HDRF-2 shares, bottom up: a job is saturated when it got all it asked for on some resource, or asks for a
resource the jobs already hold entirely; a level takes the smallest dominant share M among its
non-saturated children with something allocated, scales each such child's allocation to share M, adds the
saturated children's allocations as they are, and its share is the dominant share of that sum; it is
saturated when every child is.
VC-HDRF-3 queue order: down both queues' paths, level by level: a saturated level goes last, else the smaller
share/weight first; equal levels look one level further down.
VC-HDRF-4 reclaimable: with the reclaimer's task added to its job and one candidate's task removed from its job,
the candidate is a victim when the reclaimer's queue then orders before the candidate's (VC-HDRF-3).
The annotations are read from the Queues (``QueueInfo.Hierarchy``/``Weights``), not from PodGroups.

Shares are float64 as in Volcano: they only order queues and jobs, and equal shares must compare equal as
they do there. The tree is recomputed lazily, when a comparison needs it: it is a function of the jobs'
allocations, so one recomputation after several events equals Volcano's recomputation after each.
"""

from __future__ import annotations

from dataclasses import dataclass

from kqctl.volcano.api.models import parse_go_float
from kqctl.volcano.api.resource import Resource
from kqctl.volcano.engine.framework import PERMIT, JobInfo, Plugin, QueueInfo, Session, TaskInfo
from kqctl.volcano.engine.queue_attr import float_share

SHARE_DELTA = 0.000001
ROOT = "root"


@dataclass(frozen=True)
class HdrfLevel:
    """One level of the HDRF tree as the session left it: what queue order compares there."""

    path: str  # "root/eng/dev"
    weight: float
    share: float
    saturated: bool
    allocated: dict[str, float]  # the (scaled) allocation its share is the dominant share of

    @property
    def weighted_share(self) -> float:
        return self.share / self.weight if self.weight else 0.0


class _Node:
    """``hierarchicalNode``: a level of the tree (children by name) or a job (no children)."""

    __slots__ = ("name", "weight", "children", "job", "allocated", "share", "saturated")

    def __init__(self, name: str, weight: float, job: JobInfo | None = None) -> None:
        self.name = name
        self.weight = weight
        self.children: dict[str, _Node] | None = None if job is not None else {}
        self.job = job
        self.allocated = Resource()
        self.share = 0.0
        self.saturated = False


class _ReadThrough(dict[str, Resource]):
    """A session's job accounts: its own once it wrote one, else the cache's."""

    def __init__(self, kept: dict[str, Resource]) -> None:
        super().__init__()
        self.kept = kept

    def __missing__(self, key: str) -> Resource:
        return self.kept[key]

    def get(self, key: str, default: Resource | None = None) -> Resource | None:  # type: ignore[override]
        found = dict.get(self, key)
        return found if found is not None else self.kept.get(key, default)


def parse_weight(text: str) -> float:
    """``strconv.ParseFloat`` of one level's weight, 1 when it fails or is below 1 (``buildHierarchy``)."""
    value = parse_go_float(text)
    return 1.0 if value is None or value < 1 else value


class Drf:
    def __init__(self, ssn: Session, plugin: Plugin) -> None:
        self.ssn = ssn
        self.total = ssn.total
        self.names = [(name, self.total.get(name)) for name in ssn.total.names()]
        # Each job's allocated resources at open; the cache keeps them (ledger.JobLedger), shared with it until an
        # event changes a job's (``_owned`` copies it first). Shares are worked out when a comparison needs them.
        if ssn.job_sums is not None:
            # (an incremental session reads the cache's through, not copied: the cache's change only as a session opens)
            self.allocated: dict[str, Resource] = _ReadThrough(ssn.job_sums.drf_allocated) if ssn.incremental \
                else dict(ssn.job_sums.drf_allocated)
            self._owned: set[str] = set()
        else:
            self.allocated = {key: job.allocated.clone() for key, job in ssn.jobs.items()}
            self._owned = set(self.allocated)
        self.shares: dict[str, float] = {}
        plugin.hooks["job_order"] = self.job_order
        plugin.hooks["preemptable"] = self.preemptable
        self.hierarchy = plugin.option.hierarchy
        self.root = _Node(ROOT, 1.0)
        self.leaves: dict[str, _Node] = {}
        self.requests: dict[str, Resource] = {}
        self.dirty = True
        if self.hierarchy:
            for key in sorted(ssn.jobs):
                self._build(ssn.jobs[key])
            plugin.hooks["queue_order"] = self.queue_order
            plugin.hooks["reclaimable"] = self.reclaimable
        ssn.event_handlers.append((self.on_allocate, self.on_deallocate))

    def _share(self, allocated: Resource) -> float:
        """``calculateShare``: the largest allocated/total over the cluster's resources (a float64)."""
        best = 0.0
        for name, total in self.names:
            value = float_share(allocated.get(name), total)
            if value > best:
                best = value
        return best

    # --- VC-DRF-1, VC-DRF-2 ---------------------------------------------------------------------------------------

    def job_order(self, left: JobInfo, right: JobInfo) -> int:
        l_share, r_share = self._job_share(left.key), self._job_share(right.key)
        if l_share == r_share:
            return 0
        return -1 if l_share < r_share else 1

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """VC-DRF-2 (``preemptableFn``)."""
        mine = self._share(self.allocated[preemptor.job.key].clone().add(preemptor.request))
        left: dict[str, Resource] = {}
        victims = []
        for preemptee in preemptees:
            allocated = left.setdefault(preemptee.job.key, self.allocated[preemptee.job.key].clone())
            theirs = self._share(allocated.sub(preemptee.request))
            if mine < theirs or abs(mine - theirs) <= SHARE_DELTA:
                victims.append(preemptee)
        return victims, PERMIT

    def _job_share(self, key: str) -> float:
        share = self.shares.get(key)
        if share is None:
            allocated = self.allocated.get(key)
            share = self.shares[key] = self._share(allocated) if allocated is not None else 0.0
        return share

    def _owned_allocated(self, key: str) -> Resource:
        """The job's account, this session's own copy (the cache's stays as the session found it)."""
        if key not in self._owned:
            self._owned.add(key)
            self.allocated[key] = self.allocated[key].clone()
        return self.allocated[key]

    def on_allocate(self, task: TaskInfo) -> None:
        allocated = self._owned_allocated(task.job.key)
        allocated.add(task.request)
        self.shares[task.job.key] = self._share(allocated)
        self.dirty = True

    def on_deallocate(self, task: TaskInfo) -> None:
        allocated = self._owned_allocated(task.job.key)
        allocated.sub(task.request)
        self.shares[task.job.key] = self._share(allocated)
        self.dirty = True

    # --- VC-HDRF-1: the tree ------------------------------------------------------------------------------------

    def _build(self, job: JobInfo) -> None:
        """``buildHierarchy``: the levels of the job's queue's path, created on first use, then the job."""
        queue = self.ssn.queues[job.queue].model
        paths, weights = queue.hierarchy.split("/"), queue.hierarchy_weights.split("/")
        node = self.root
        for i in range(1, len(paths)):
            assert node.children is not None
            child = node.children.get(paths[i])
            if child is None:
                child = node.children[paths[i]] = _Node(paths[i], parse_weight(weights[i] if i < len(weights)
                                                                                else ""))
            node = child
        assert node.children is not None
        leaf = _Node(job.key, 1.0, job)
        node.children[job.key] = leaf
        self.leaves[job.key] = leaf
        request = Resource()
        for task in job.tasks.values():
            request.add(task.request)  # TotalRequest: every task of the job, whatever its status
        self.requests[job.key] = request

    # --- VC-HDRF-2: shares ---------------------------------------------------------------------------------------

    def _refresh(self, overrides: dict[str, Resource] | None = None) -> None:
        """``UpdateHierarchicalShare`` from the jobs' allocations (or ``overrides`` of some of them)."""
        allocated_total = Resource()
        for key, leaf in self.leaves.items():
            assert leaf.job is not None
            leaf.allocated = overrides[key] if overrides and key in overrides else self.allocated[key]
            leaf.share = self._share(leaf.allocated)
            allocated_total.add(leaf.allocated)
        demanding = {name for name, total in self.names if allocated_total.get(name) < total}
        self._update(self.root, demanding)

    def _update(self, node: _Node, demanding: set[str]) -> None:
        if node.children is None:
            node.saturated = self._job_saturated(node, demanding)
            return
        smallest = 1.0
        children = [node.children[name] for name in sorted(node.children)]
        for child in children:
            self._update(child, demanding)
            if child.share != 0 and not child.saturated and child.share < smallest:
                smallest = child.share
        total = Resource()
        for child in children:
            if child.share == 0:
                continue
            if child.saturated:
                total.add(child.allocated)
            else:
                total.add(child.allocated.clone().multi(smallest / child.share))  # type: ignore[arg-type]
        node.allocated = total
        node.share = self._share(total)
        node.saturated = all(child.saturated for child in children)

    def _job_saturated(self, leaf: _Node, demanding: set[str]) -> bool:
        """``resourceSaturated``: all asked for is allocated on some resource, or it asks for one nobody can
        get more of."""
        request = self.requests[leaf.name]
        for name in leaf.allocated.names():
            allocated, asked = leaf.allocated.get(name), request.get(name)
            if allocated != 0 and asked != 0 and allocated >= asked:
                return True
            if name not in demanding and asked != 0:
                return True
        return False

    # --- VC-HDRF-3, VC-HDRF-4 -------------------------------------------------------------------------------------

    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        if self.dirty:
            self._refresh()
            self.dirty = False
        result = self._compare(left, right)
        return -1 if result < 0 else 1 if result > 0 else 0

    def _compare(self, left: QueueInfo, right: QueueInfo) -> float:
        """``compareQueues``: level by level down both paths (a level missing from the tree ends the walk)."""
        l_paths, r_paths = left.model.hierarchy.split("/"), right.model.hierarchy.split("/")
        l_node: _Node | None = self.root
        r_node: _Node | None = self.root
        depth = min(len(l_paths), len(r_paths))
        for i in range(depth):
            if l_node is None or r_node is None:
                return 0.0  # Volcano would dereference a level no job created; kqctl stops comparing there
            if not l_node.saturated and r_node.saturated:
                return -1.0
            if l_node.saturated and not r_node.saturated:
                return 1.0
            l_value, r_value = l_node.share / l_node.weight, r_node.share / r_node.weight
            if l_value != r_value:
                return l_value - r_value
            if i < depth - 1:
                l_node = (l_node.children or {}).get(l_paths[i + 1])
                r_node = (r_node.children or {}).get(r_paths[i + 1])
        return 0.0

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """VC-HDRF-4 (``reclaimFn``): each candidate judged alone, against the reclaimer with its task placed."""
        mine = self.allocated[reclaimer.job.key].clone().add(reclaimer.request)
        lqueue = self.ssn.queues[reclaimer.job.queue]
        victims = []
        for reclaimee in reclaimees:
            if reclaimee.job.key not in self.leaves:
                continue
            theirs = self.allocated[reclaimee.job.key].clone().sub(reclaimee.request)
            self._refresh({reclaimer.job.key: mine, reclaimee.job.key: theirs})
            if self._compare(lqueue, self.ssn.queues[reclaimee.job.queue]) < 0:
                victims.append(reclaimee)
        self.dirty = True
        return victims, PERMIT

    # --- what the session shows -----------------------------------------------------------------------------

    def levels(self) -> dict[str, HdrfLevel]:
        """Every level of the tree by its path (jobs left out), as the session left it."""
        if not self.hierarchy:
            return {}
        if self.dirty:
            self._refresh()
            self.dirty = False
        found: dict[str, HdrfLevel] = {}

        def visit(node: _Node, path: str) -> None:
            found[path] = HdrfLevel(path, node.weight, node.share, node.saturated,
                                    {name: float(value) for name, value in node.allocated.as_dict().items()})
            for name, child in sorted((node.children or {}).items()):
                if child.children is not None:
                    visit(child, f"{path}/{name}")

        visit(self.root, ROOT)
        return found


def queue_level(levels: dict[str, HdrfLevel], hierarchy: str) -> HdrfLevel | None:
    """The level a queue's ``volcano.sh/hierarchy`` names (its first element is always the root); None for a
    queue without the annotation (its jobs hang below root, and queue order never tells it apart)."""
    if not hierarchy:
        return None
    paths = hierarchy.split("/")
    return levels.get("/".join([ROOT, *paths[1:]]))


