"""The drf plugin's job order (``plugins/drf/drf.go``): the job with the smaller dominant share goes first.

A job's share is the largest allocated/total over the cluster's resources (``pods`` included), allocated as drf
keeps it: the job's allocated tasks when the session opens, then every allocate event (a pipelined task counts)
and deallocate event (VC-DRF-1). kqctl models
the job order and the preempt action's victims (DRF-2); drf's hierarchy (``enableHierarchy``) and namespace
order are reported as not simulated.
"""

from __future__ import annotations

from kqctl.volcano.api.resource import Resource
from kqctl.volcano.engine.framework import PERMIT, JobInfo, Plugin, Session, TaskInfo
from kqctl.volcano.engine.queue_attr import float_share

SHARE_DELTA = 0.000001


class Drf:
    def __init__(self, ssn: Session, plugin: Plugin) -> None:
        self.total = ssn.total
        self.names = [(name, self.total.get(name)) for name in ssn.total.names()]
        # drf's own account of each job (``drfAttr.allocated``): its allocated tasks as the session opens, then
        # every allocate event (pipelined tasks included) and deallocate event.
        self.allocated: dict[str, Resource] = {key: job.allocated.clone() for key, job in ssn.jobs.items()}
        self.shares: dict[str, float] = {key: self._share(self.allocated[key]) for key in ssn.jobs}
        plugin.hooks["job_order"] = self.job_order
        plugin.hooks["preemptable"] = self.preemptable
        ssn.event_handlers.append((self.on_allocate, self.on_deallocate))

    def _share(self, allocated: Resource) -> float:
        """A float64 like Volcano's: it only orders jobs."""
        best = 0.0
        for name, total in self.names:
            value = float_share(allocated.get(name), total)
            if value > best:
                best = value
        return best

    def job_order(self, left: JobInfo, right: JobInfo) -> int:
        l_share, r_share = self.shares.get(left.key, 0), self.shares.get(right.key, 0)
        if l_share == r_share:
            return 0
        return -1 if l_share < r_share else 1

    def preemptable(self, preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """DRF-2 (``preemptableFn``): a victim when the preemptor's share with its task added is at most the
        preemptee's job's share with that task removed (within 0.000001)."""
        mine = self._share(self.allocated[preemptor.job.key].clone().add(preemptor.request))
        left: dict[str, Resource] = {}
        victims = []
        for preemptee in preemptees:
            allocated = left.setdefault(preemptee.job.key, self.allocated[preemptee.job.key].clone())
            theirs = self._share(allocated.sub(preemptee.request))
            if mine < theirs or abs(mine - theirs) <= SHARE_DELTA:
                victims.append(preemptee)
        return victims, PERMIT

    def on_allocate(self, task: TaskInfo) -> None:
        allocated = self.allocated[task.job.key]
        allocated.add(task.request)
        self.shares[task.job.key] = self._share(allocated)

    def on_deallocate(self, task: TaskInfo) -> None:
        allocated = self.allocated[task.job.key]
        allocated.sub(task.request)
        self.shares[task.job.key] = self._share(allocated)
