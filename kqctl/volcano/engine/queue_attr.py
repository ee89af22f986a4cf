"""A queue's quota attributes as the proportion and capacity plugins compute them (their ``queueAttr``).

Shared helpers for both: real capability (capability bounded by what other queues' guarantees leave),
a job's contribution to ``inqueue`` (``util.GetInqueueResource``) and the share Volcano orders queues by.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kqctl.volcano.api.models import Queue
from kqctl.volcano.api.resource import (
    CPU,
    EPHEMERAL_STORAGE,
    INFINITE,
    MEMORY,
    PODS,
    Amount,
    Resource,
    exceeded_part,
)
from kqctl.volcano.engine.framework import ALLOCATED_STATUSES, PENDING, JobInfo


@dataclass
class QueueAttr:
    name: str
    weight: int = 1
    deserved: Resource = field(default_factory=Resource)
    allocated: Resource = field(default_factory=Resource)
    request: Resource = field(default_factory=Resource)
    elastic: Resource = field(default_factory=Resource)
    inqueue: Resource = field(default_factory=Resource)
    capability: Resource | None = None  # None: no capability set (unlimited)
    real_capability: Resource = field(default_factory=Resource)
    guarantee: Resource = field(default_factory=Resource)
    share: Amount = 0
    best_effort_share: bool = False  # capacity: an empty deserved makes the share 1
    ancestors: list[str] = field(default_factory=list)  # hierarchical capacity: root first
    children: list[str] = field(default_factory=list)


def capability_of(queue: Queue) -> Resource | None:
    """``spec.capability`` with cpu and memory of 0 or less read as unlimited (proportion, flat capacity)."""
    if not queue.capability:
        return None
    capability = Resource.of(queue.capability)
    if capability.cpu <= 0:
        capability.cpu = INFINITE
    if capability.memory <= 0:
        capability.memory = INFINITE
    return capability


def guarantee_of(queue: Queue) -> Resource:
    return Resource.of(queue.guarantee) if queue.guarantee else Resource()


def real_capability(total: Resource, total_guarantee: Resource, guarantee: Resource,
                    capability: Resource | None) -> Resource:
    """``ExceededPart(total, totalGuarantee) + guarantee``, bounded by the capability (missing scalars unlimited)."""
    real = exceeded_part(total, total_guarantee).add(guarantee)
    if capability is not None:
        real.min_dimension(capability, "infinity")
    return real


def add_job_usage(attr: QueueAttr, job: JobInfo) -> None:
    """A job's tasks, inqueue reservation and elastic part added to its queue (both plugins' OnSessionOpen)."""
    add_task_requests(job, attr.allocated, attr.request)
    attr.inqueue.add(job_inqueue(job))
    attr.elastic.add(job.elastic())


def add_task_requests(job: JobInfo, allocated: Resource, request: Resource) -> None:
    """The job's allocated tasks to ``allocated`` and ``request``, its pending ones to ``request`` only."""
    for status, tasks in job.by_status.items():
        if status in ALLOCATED_STATUSES:
            for task in tasks.values():
                allocated.add(task.request)
                request.add(task.request)
        elif status == PENDING:
            for task in tasks.values():
                request.add(task.request)


def job_inqueue(job: JobInfo) -> Resource:
    """What an Inqueue job (or a Running one whose allocated tasks reach minMember) still reserves."""
    if job.min_resources is None:
        return Resource()
    if job.phase == "Inqueue" or (job.phase == "Running" and job.allocated_task_num() >= job.min_available):
        return deduct_gated(job, inqueue_resource(job))
    return Resource()


def inqueue_resource(job: JobInfo) -> Resource:
    """``util.GetInqueueResource``: minResources not yet allocated, per dimension it names."""
    assert job.min_resources is not None
    minimum, allocated = job.min_resources, job.allocated
    reserved = Resource()
    reserved.cpu = max(minimum.cpu - allocated.cpu, 0)
    reserved.memory = max(minimum.memory - allocated.memory, 0)
    for name, amount in minimum.scalars.items():
        if name == EPHEMERAL_STORAGE:
            continue  # not a scalar resource name: GetInqueueResource skips it
        if name == PODS:
            if amount - allocated.scalars.get(PODS, 0) > 0:
                reserved.scalars[PODS] = amount - allocated.scalars.get(PODS, 0)
        elif name not in allocated.scalars:
            reserved.scalars[name] = amount
        elif amount - allocated.scalars[name] > 0:
            reserved.scalars[name] = amount - allocated.scalars[name]
    return reserved


def deduct_gated(job: JobInfo, amount: Resource) -> Resource:
    """``DeductSchGatedResources``: scheduling-gated pods do not reserve anything yet."""
    gated = Resource()
    for task in job.tasks.values():
        if task.pod.gated:
            gated.add(task.request)
    if gated.is_empty():
        return amount
    result = amount.clone()
    result.cpu = max(result.cpu - gated.cpu, 0)
    result.memory = max(result.memory - gated.memory, 0)
    for name, value in amount.scalars.items():
        if name in gated.scalars:
            result.scalars[name] = max(value - gated.scalars[name], 0)
    return result


def dominant_share(allocated: Resource, deserved: Resource) -> float:
    """``updateQueueAttrShare``: the largest allocated/deserved over the dimensions deserved holds (>= 0.1).

    A float64, as Volcano keeps it: shares only order queues, and equal shares must compare as in Volcano."""
    best = 0.0
    for name in deserved.names():
        value = float_share(allocated.get(name), deserved.get(name))
        if value > best:
            best = value
    return best


def float_share(allocated: Amount, deserved: Amount) -> float:
    """``helpers.Share`` in float64."""
    if deserved == 0:
        return 0.0 if allocated == 0 else 1.0
    return float(allocated) / float(deserved)


__all__ = ["CPU", "MEMORY", "QueueAttr", "add_job_usage", "capability_of", "deduct_gated", "dominant_share",
           "guarantee_of", "inqueue_resource", "job_inqueue", "real_capability"]
