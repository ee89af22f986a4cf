"""The gang plugin (``plugins/gang/gang.go``): minMember all-or-nothing.

A job needs at least minMember valid tasks (else "Not enough valid tasks for gang-scheduling"), is ready when
minMember tasks are allocated or running, is never reclaimed below minMember, and goes before ready jobs.
"""

from __future__ import annotations

from kqctl.volcano.engine.framework import (
    ALLOCATED_STATUSES,
    PENDING,
    PERMIT,
    PIPELINED,
    REJECT,
    RELEASING,
    JobInfo,
    Plugin,
    Session,
    TaskInfo,
    ValidateResult,
)


def open_session(ssn: Session, plugin: Plugin) -> None:
    plugin.hooks["job_valid"] = job_valid
    plugin.hooks["reclaimable"] = lambda reclaimer, reclaimees: evictable(reclaimees)
    plugin.hooks["preemptable"] = lambda preemptor, preemptees: evictable(preemptees)
    plugin.hooks["job_order"] = job_order
    plugin.hooks["job_ready"] = lambda job: job.check_task_ready() and job.is_ready()
    plugin.hooks["job_pipelined"] = lambda job: PERMIT if job.check_task_pipelined() and job.is_pipelined() else REJECT
    plugin.hooks["job_starving"] = lambda job: job.is_starving()


def job_valid(job: JobInfo) -> ValidateResult | None:
    if not job.check_task_valid():
        return ValidateResult(False, "NotEnoughPodsOfTask", "Not enough valid pods of each task for gang-scheduling")
    valid = job.valid_task_num()
    if valid < job.min_available:
        return ValidateResult(False, "NotEnoughTasks", f"Not enough valid tasks for gang-scheduling, valid: {valid}, "
                              f"min: {job.min_available}")
    return None


def evictable(candidates: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
    """Victims only while their job keeps more ready tasks than minMember."""
    occupied: dict[str, int] = {}
    victims = []
    for task in candidates:
        job = task.job
        occupied.setdefault(job.key, job.ready_task_num())
        if occupied[job.key] > job.min_available:
            occupied[job.key] -= 1
            victims.append(task)
    return victims, PERMIT


def job_order(left: JobInfo, right: JobInfo) -> int:
    """Jobs that are not ready yet go first."""
    l_ready, r_ready = left.is_ready(), right.is_ready()
    if l_ready == r_ready:
        return 0
    return 1 if l_ready else -1


def releasing_fills_gang(job: JobInfo) -> bool:
    """VC-GANG-1 ``shouldSkipUnschedulableForReleasing``: a job that is not ready only because some of its
    scheduled pods are being deleted (still on their nodes), with nothing pending or pipelined, gets no
    Unschedulable condition, so its PodGroup keeps its phase instead of turning Unknown."""
    releasing = sum(1 for task in job.with_status(RELEASING) if task.node)
    if releasing == 0 or job.count(PENDING, PIPELINED):
        return False
    return job.scheduled_task_num() + releasing >= job.min_available


def unready_message(job: JobInfo) -> str:
    """The PodGroup condition gang writes when the job is not ready (``OnSessionClose``, ``FitError``)."""
    # a pending task counts as schedulable when its last transaction, undone by a discarded statement, was an
    # allocation (``schedulableTaskNum``)
    undone = sum(1 for task in job.with_status(PENDING)
                 if task.last_transaction is not None and task.last_transaction[0] in ALLOCATED_STATUSES)
    unready = job.min_available - job.ready_task_num() - undone
    histogram: dict[str, int] = {}
    for status, tasks in job.by_status.items():
        if tasks:
            histogram[status] = histogram.get(status, 0) + len(tasks)
    histogram["minAvailable"] = job.min_available
    parts = sorted(f"{count} {name}" for name, count in histogram.items())
    state = "pod group is ready" if job.is_ready() else "pod group is not ready"
    message = f"{unready}/{len(job.tasks)} tasks in gang unschedulable: {state}, {', '.join(parts)}"
    pending = job.count(PENDING)
    if pending:
        message += f"; Pending: {pending} Unschedulable"
    for key in sorted(job.tasks):
        if key in job.fit_errors:
            message += f". Origin reason is {job.tasks[key].pod.name}: {job.fit_errors[key]}"
            break
    return message
