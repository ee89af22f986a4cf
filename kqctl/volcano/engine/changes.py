"""What happens to a cluster between two sessions, applied to the scheduler's cache (:class:`session.Cache`).

A session reads the cache the previous one left (``settle``); in a real cluster, things change in between: a
PodGroup is created with its pods, a job finishes and its pods go, a controller deletes pods or makes them again.
These functions make those changes to the cache as Volcano's cache would see them (its informers' add and delete
events: ``AddPod``/``DeletePod``, ``AddPodGroup``/``DeletePodGroup``), so that the next session opens on the cluster
as it is then. kqctl's replay (:mod:`kqctl.volcano.replay`) calls them in virtual time; simulate never does.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from kqctl.volcano.api.models import RESTART_ACTIONS, VOLCANO_SCHEDULER, Pod, PodGroup
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine.framework import PENDING, JobInfo, TaskInfo, request_of
from kqctl.volcano.engine.session import Cache

FINISHED = frozenset({"Succeeded", "Failed"})
# The end states of a job whose pods are gone for good after an eviction (kqctl's words for the PodGroup's end).
FAILED, ABORTED, TERMINATED, COMPLETED, DELETED = "Failed", "Aborted", "Terminated", "Completed", "Deleted"
_ENDED_BY_ACTION = {"AbortJob": ABORTED, "TerminateJob": TERMINATED, "CompleteJob": COMPLETED}


@dataclass(frozen=True)
class AfterEviction:
    """What the evicted pods' controller does (VC-R4), decided once for simulate and replay: which pods are deleted
    for good, which are killed and made again pending, whether a restart is counted and whether the job ends (its
    pods gone for good: its end state). The evicted pods not deleted are made again pending."""

    outcome: str  # in words, for the replay's eviction list
    deleted: tuple[str, ...] = ()
    restarted: tuple[str, ...] = ()  # the job's or the task's pods killed and made again (RestartTask, RestartJob)
    retry: bool = False
    ended: str = ""


def after_eviction(snapshot: Snapshot, job: JobInfo, pods: list[str], retries: int) -> AfterEviction:
    """The controller's answer to these evicted pods of ``job`` (``retries``: restarts counted so far). A vcjob's
    controller acts as its policies say for PodEvicted (``applyPolicies``); a pod with another controller (an
    ownerReference with ``controller: true``) is made again by it; a bare pod is not (nothing re-creates a deleted
    bare pod), and a job left without pods has ended."""
    policy = snapshot.eviction_policies.get(job.key)
    if policy is None:
        bare = tuple(p for p in pods if not job.tasks[p].pod.controller)
        left = [key for key in job.tasks if key not in bare]
        return AfterEviction("deleted: a bare pod is not made again" if bare else "made again by its controller",
                             deleted=bare, ended=DELETED if not left else "")
    action = policy.action(job.tasks[pods[0]].role)
    if action in RESTART_ACTIONS:
        if retries + 1 >= policy.max_retry:
            return AfterEviction(f"{action}: the job failed after {policy.max_retry} restarts (maxRetry)", retry=True,
                                 ended=FAILED)
        if action == "RestartPod":
            return AfterEviction(f"{action}: the pod made again", retry=True)
        role = job.tasks[pods[0]].role
        targets = tuple(t.key for t in job.tasks.values() if action != "RestartTask" or t.role == role)
        return AfterEviction(f"{action}: {'the task' if action == 'RestartTask' else 'the job'} restarted "
                             f"(retry {retries + 1} of {policy.max_retry})", restarted=targets, retry=True)
    if action in _ENDED_BY_ACTION:
        return AfterEviction(f"{action}: the job's pods are deleted", ended=_ENDED_BY_ACTION[action])
    return AfterEviction(f"{action}: the pod made again, pending")


def apply_after_eviction(cache: Cache, job: JobInfo, decided: AfterEviction) -> None:
    """The controller's answer applied to the cache (after ``settle``: the evicted pods wait pending): pods deleted
    or made again; a job that ended leaves the cache."""
    delete_tasks(cache, job, decided.deleted)
    recreate_tasks(cache, job, decided.restarted)
    if decided.ended:
        finish_group(cache, job.key)


def add_group(cache: Cache, snapshot: Snapshot, group: PodGroup, pods: Iterable[Pod]) -> JobInfo | None:
    """A PodGroup created with its pods (``AddPodGroup``, then ``AddPod`` for each). None when its queue does not
    exist: the scheduler ignores such a job (its pods still use their nodes, as in ``build_cache``)."""
    job = JobInfo(group, snapshot.job_priority(group)) if group.queue in cache.queues else None
    if job is not None:
        cache.join(job)
        cache.job_ledger().watch(job)
    for pod in pods:
        if job is not None and pod.scheduler_name == VOLCANO_SCHEDULER:
            task = TaskInfo(pod, job)
            job.add_task(task)
            _take_node(cache, task)
        else:
            node = cache.nodes.get(pod.node_name)
            if node is not None and pod.status not in FINISHED:
                node.add(pod.key, pod.status, request_of(pod), None, pod)
    return job


def _take_node(cache: Cache, task: TaskInfo) -> None:
    node = cache.nodes.get(task.node)
    if task.node and node is not None and task.status not in FINISHED:
        node.add(task.key, task.status, task.request, task)


def release_task(cache: Cache, task: TaskInfo) -> None:
    """The task's pod leaves its node (finished or deleted): the node's resources are free again."""
    node = cache.nodes.get(task.node)
    if task.node and node is not None and task.status not in FINISHED:
        node.remove(task.key, task.status, task.request)
    task.node = ""


def finish_group(cache: Cache, key: str) -> JobInfo | None:
    """The job ran to its end: every pod finished and left its node; the PodGroup is Completed and no session
    considers it again (a completed job holds nothing and asks for nothing), so it leaves the cache."""
    job = cache.jobs.pop(key, None)
    if job is not None:
        job.changed()  # its ledger lets it go
        for task in list(job.tasks.values()):
            release_task(cache, task)
    return job


def recreate_tasks(cache: Cache, job: JobInfo, keys: Iterable[str]) -> None:
    """Their controller deletes these pods and makes them again, pending, with the same names (the job
    controller's ``KillTarget``/``KillJob`` then ``syncJob``): each leaves its node and waits to be scheduled."""
    for key in keys:
        task = job.tasks.get(key)
        if task is None:
            continue
        release_task(cache, task)
        task.evicted_by, task.nominated = None, ""
        if task.status != PENDING:
            job.update_task_status(task, PENDING)


def delete_tasks(cache: Cache, job: JobInfo, keys: Iterable[str]) -> None:
    """These pods are deleted and nothing makes them again (a bare pod, or a job its controller aborts)."""
    for key in keys:
        task = job.tasks.get(key)
        if task is None:
            continue
        release_task(cache, task)
        if task.status != PENDING:
            job.update_task_status(task, PENDING)  # the job's counters then forget it as any pending task
        del job.tasks[key]
        job.changed()
        job.by_status.get(PENDING, {}).pop(key, None)
        if task.best_effort:
            job.pending_best_effort -= 1
