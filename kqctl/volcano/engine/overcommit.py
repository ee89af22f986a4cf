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
        if ssn.used is not None:
            self.used = ssn.used  # kept by the cache (session.NodeLedger): the same sum
        else:
            self.used = Resource()
            for node in ssn.node_list:
                self.used.add(node.used)
        self.idle = ssn.total.clone().multi(self.factor).sub(self.used)
        if ssn.job_sums is not None:  # kept by the cache (ledger.JobLedger): the same sum
            self.inqueue = ssn.job_sums.inqueue.value()
        else:
            self.inqueue = self._inqueue(ssn)
        plugin.hooks["job_enqueueable"] = self.job_enqueueable
        plugin.hooks["job_enqueued"] = self.job_enqueued

    @staticmethod
    def _inqueue(ssn: Session) -> Resource:
        inqueue = Resource()
        for key in sorted(ssn.jobs):
            inqueue.add(reserved(ssn.jobs[key]))
        return inqueue

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


def reserved(job: JobInfo) -> Resource:
    """What the job holds in overcommit's ``inqueue`` at session open: an Inqueue job its minResources, a running
    one whose allocated tasks reach minMember what of its minResources is not allocated yet (gated pods deducted);
    nothing without minResources."""
    if job.min_resources is None:
        return Resource()
    if job.phase == "Inqueue":
        return deduct_gated(job, job.min_request())
    if job.phase == "Running" and job.allocated_task_num() >= job.min_available:
        return deduct_gated(job, inqueue_resource(job))
    return Resource()
