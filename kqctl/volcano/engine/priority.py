"""The priority plugin (``plugins/priority/priority.go``): job and task order by priority; job starving; the
preempt action's victims (VC-PREEMPT-3)."""

from __future__ import annotations

from kqctl.volcano.engine.framework import PERMIT, JobInfo, Plugin, Session, TaskInfo


def open_session(ssn: Session, plugin: Plugin) -> None:
    plugin.hooks["task_order"] = task_order
    plugin.hooks["job_order"] = job_order
    plugin.hooks["job_starving"] = job_starving
    plugin.hooks["preemptable"] = preemptable


def task_order(left: TaskInfo, right: TaskInfo) -> int:
    """Higher pod priority first."""
    if left.priority == right.priority:
        return 0
    return -1 if left.priority > right.priority else 1


def job_order(left: JobInfo, right: JobInfo) -> int:
    """Higher job priority (its PriorityClass) first."""
    if left.priority == right.priority:
        return 0
    return -1 if left.priority > right.priority else 1


def job_starving(job: JobInfo) -> bool:
    """Fewer ready and pipelined tasks than tasks."""
    return job.ready_task_num() + job.waiting_task_num() < len(job.tasks)


def preemptable(preemptor: TaskInfo, preemptees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
    """VC-PREEMPT-3 ``preemptableFn``: a task of another job is a victim when its job's priority is lower than
    the preemptor's job's; a task of the same job when its own priority is lower than the preemptor's."""
    victims = []
    for preemptee in preemptees:
        if preemptee.job is not preemptor.job:
            if preemptee.job.priority < preemptor.job.priority:
                victims.append(preemptee)
        elif preemptee.priority < preemptor.priority:
            victims.append(preemptee)
    return victims, PERMIT
