"""VC-QUEUE-STATE-1: what a queue that is not Open refuses (``proportion.go``, ``capacity.go``: the
``status.state != Open`` checks in ``JobEnqueueableFn``, ``AllocatableFn`` and ``PreemptiveFn``).

Volcano only logs the refusal ("Queue <q> current state: Closed, is not open state, reject job"); the PodGroup
gets gang's Unschedulable condition. kqctl states it once, here, in its own words: the session's gates note it
(:func:`not_open`), and :func:`refusal` decides, from the configuration and the PodGroup alone, whether the queue
keeps the PodGroup from ever running, for the commands that run no session (audit) or read no reasons (replay).

What refuses and what does not, as the source has it:

* enqueue: the vote of proportion/capacity rejects every job of the queue, but a PodGroup without minResources
  is enqueued without a vote (``MinResources == nil || JobEnqueueable``);
* allocate (and reclaim): no task of the queue is allocated; best-effort tasks (no requests) are not allocate's;
* backfill places best-effort tasks of jobs no longer Pending without asking the queue;
* without proportion or capacity (or with their hook turned off) nothing reads the state;
* allocate skips a job with fewer valid tasks than minMember (gang's JobValid) before it asks the queue; enqueue
  does not.
"""

from __future__ import annotations

from collections.abc import Iterable

from kqctl.volcano.api.models import OPEN, Pod, PodGroup, Queue
from kqctl.volcano.api.resource import Resource
from kqctl.volcano.api.snapshot import Snapshot
from kqctl.volcano.engine import gang
from kqctl.volcano.engine.framework import JobInfo, TaskInfo

STATE_CHECKERS = ("proportion", "capacity")
VOTERS = ("overcommit", *STATE_CHECKERS)  # the JobEnqueueable voters kqctl models
PENDING_PHASE = "Pending"
TERMINAL = ("Succeeded", "Failed")


def not_open(queue: Queue) -> str:
    """The one wording of the refusal, wherever it shows (simulate's reason, explain's gate, neverFits, audit)."""
    return f"queue {queue.name} is {queue.state}, not Open"


def refusal(snapshot: Snapshot, group: PodGroup, phase: str, pods: Iterable[Pod]) -> str:
    """Why the PodGroup's queue keeps it from ever running (:func:`not_open`), "" when it does not: the queue is
    not Open, a plugin that reads the state is configured, and the PodGroup waits for that plugin's yes: at enqueue
    with minResources, or at allocate for a pod. ``phase`` and ``pods`` are the PodGroup's as they stand, and
    ``pods`` is read only when the queue is not Open. Meant for a PodGroup that is not running (a running one's
    extra pods wait for allocate too, but the PodGroup runs)."""
    queue = snapshot.queues.get(group.queue)
    if queue is None or queue.state == OPEN:
        return ""
    if _enqueue_refuses(snapshot, group, phase):
        return not_open(queue)
    members = list(pods)
    # allocate skips a job gang's JobValid fails before it asks the queue (its reason is then job-invalid)
    if _checks(snapshot, "enabledAllocatable") and _needs_allocate(members) \
            and not _gang_invalid(snapshot, group, members):
        return not_open(queue)
    return ""


def _gang_invalid(snapshot: Snapshot, group: PodGroup, pods: list[Pod]) -> bool:
    """Fewer valid tasks than minMember (gang's ``JobValid``, the session's own function on the same tasks)."""
    if not snapshot.conf.has_plugin("gang"):
        return False
    job = JobInfo(group, 0)
    for pod in pods:
        job.add_task(TaskInfo(pod, job))
    return gang.job_valid(job) is not None


def _checks(snapshot: Snapshot, flag: str) -> bool:
    """A plugin that reads the queue state registers the hook ``flag`` turns on (``enable*``, default true)."""
    return any(plugin.name in STATE_CHECKERS and plugin.enabled(flag) for plugin in snapshot.conf.plugins())


def _enqueue_refuses(snapshot: Snapshot, group: PodGroup, phase: str) -> bool:
    """A Pending PodGroup with minResources waits for enqueue's vote (allocate and backfill skip Pending jobs while
    enqueue is configured), and the state check turns it down when it gets to vote: the first tier with a voter
    decides (``JobEnqueueable``), so an overcommit in an earlier tier decides alone."""
    if phase != PENDING_PHASE or group.min_resources is None or "enqueue" not in snapshot.conf.actions:
        return False
    for tier in snapshot.conf.tiers:
        voters = [plugin.name for plugin in tier if plugin.name in VOTERS and plugin.enabled("enableJobEnqueued")]
        if voters:
            return any(name in STATE_CHECKERS for name in voters)
    return False


def _needs_allocate(pods: Iterable[Pod]) -> bool:
    """A pod waits for allocate, which asks the queue for it: one with requests that is on no node and held by no
    scheduling gate (best-effort pods are backfill's, which asks no queue)."""
    return any(not pod.node_name and not pod.gated and pod.phase not in TERMINAL
               and not Resource.of(pod.request).is_empty() for pod in pods)
