"""The overcommit plugin (``plugins/overcommit/overcommit.go``): a cluster-wide gate at enqueue.

idle = total x overcommit-factor (default 1.2; below 1 means 1.2) - what the nodes' pods use; a job is
enqueued only while the minResources of Inqueue jobs (and the unallocated part of running ones) plus its
own fit in idle, on the dimensions it asks for.
"""

from __future__ import annotations

from fractions import Fraction

from kqctl.volcano.api.resource import Resource, exceeding_requested_dims
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.framework import PERMIT, REJECT, JobInfo, Plugin, Session
from kqctl.volcano.engine.queue_attr import deduct_gated, inqueue_resource

FACTOR_ARGUMENT = "overcommit-factor"
DEFAULT_FACTOR = Fraction(6, 5)


def factor_of(plugin: Plugin) -> Fraction:
    value = plugin.option.argument(FACTOR_ARGUMENT)
    if isinstance(value, bool) or not isinstance(value, (int, Fraction)):
        return DEFAULT_FACTOR
    factor = Fraction(value)
    return factor if factor >= 1 else DEFAULT_FACTOR


class Overcommit:
    def __init__(self, ssn: Session, plugin: Plugin) -> None:
        self.ssn = ssn
        self.factor = factor_of(plugin)
        self.used = Resource()
        for node in ssn.node_list:
            self.used.add(node.used)
        self.idle = ssn.total.clone().multi(self.factor).sub(self.used)
        self.inqueue = Resource()
        for key in sorted(ssn.jobs):
            job = ssn.jobs[key]
            if job.min_resources is None:
                continue
            if job.phase == "Inqueue":
                self.inqueue.add(deduct_gated(job, job.min_request()))
            elif job.phase == "Running" and job.allocated_task_num() >= job.min_available:
                self.inqueue.add(deduct_gated(job, inqueue_resource(job)))
        plugin.hooks["job_enqueueable"] = self.job_enqueueable
        plugin.hooks["job_enqueued"] = self.job_enqueued

    def job_enqueueable(self, job: JobInfo) -> int:
        if job.min_resources is None:
            return PERMIT
        minimum = job.min_request()
        over = exceeding_requested_dims(self.inqueue.clone().add(minimum), self.idle, minimum)
        if not over:
            return PERMIT
        message = "resource in cluster is overused: " + ", ".join(f"overused {d}" for d in over)
        self.ssn.note(job, trace.OVERCOMMIT, message,
                      {"plugin": "overcommit", "dimensions": over, "minResources": minimum,
                       "inqueue": self.inqueue.clone(), "idle": self.idle.clone(), "factor": self.factor,
                       "total": self.ssn.total.clone(), "used": self.used.clone()})
        return REJECT

    def job_enqueued(self, job: JobInfo) -> None:
        if job.min_resources is not None:
            self.inqueue.add(deduct_gated(job, job.min_request()))
