"""The proportion plugin (``plugins/proportion/proportion.go``): deserved by weighted water-filling.

P1 queue order, P2 overused, P3 allocatable, P4 job enqueueable, P5 job enqueued, P6 reclaimable,
P7 preemptive. Only queues with a job in the session take part in the water-filling; every queue's guarantee
counts in the total guarantee. The rounds are kept for ``explain``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from kqctl.volcano.api.resource import (
    CPU,
    MEMORY,
    PODS,
    Amount,
    Resource,
    diff,
    equal_in_float64,
    exceeded_part,
    exceeding_requested_dims,
    less_equal,
    maximum,
)
from kqctl.volcano.engine import trace
from kqctl.volcano.engine.framework import PERMIT, REJECT, JobInfo, Plugin, QueueInfo, Session, TaskInfo
from kqctl.volcano.engine.queue_attr import (
    QueueAttr,
    add_job_usage,
    capability_of,
    dominant_share,
    guarantee_of,
    real_capability,
)
from kqctl.volcano.engine.queue_state import not_open

NAME = "proportion"


@dataclass(frozen=True)
class Round:
    """One round of the water-filling: what was left, the weights still hungry, and each queue's result."""

    remaining: Resource
    total_weight: int
    deserved: dict[str, Resource]
    met: tuple[str, ...]  # queues that left the game this round


class Proportion:
    def __init__(self, ssn: Session, plugin: Plugin) -> None:
        self.ssn = ssn
        self.attrs: dict[str, QueueAttr] = {}
        self.rounds: list[Round] = []
        self._within: dict[str, bool] = {}  # reclaimable: queue -> allocated within deserved, at _within_epoch
        self._within_epoch = -1
        self._overused: dict[str, bool] = {}  # overused: queue -> the answer, while its allocated stays as it was
        self.total_guarantee = Resource()
        self._limits = self._queue_limits()
        # Queues whose allocated (inqueue) is this session's own copy: the sums the cache keeps are shared until the
        # session first adds to one
        self._own_allocated: set[str] = set()
        self._own_inqueue: set[str] = set()
        if ssn.job_sums is not None:  # the cache keeps each queue's jobs summed (ledger.JobLedger): the same sums
            shared = ssn.incremental  # (else copies: the session's result hands its queue attributes on)
            kept = ssn.job_sums.queue_attrs
            for name, usage in sorted(ssn.job_sums.queues.items()):
                if shared:
                    self.attrs[name] = self._kept_attr(ssn.queues[name], usage.values(), kept)
                    continue
                allocated, request, inqueue, elastic = usage.values()
                allocated, request = allocated.clone(), request.clone()
                inqueue, elastic = inqueue.clone(), elastic.clone()
                self.attrs[name] = self._attr(ssn.queues[name], allocated, request, inqueue, elastic)
        else:
            for key in sorted(ssn.jobs):
                job = ssn.jobs[key]
                attr = self.attrs.get(job.queue)
                if attr is None:
                    attr = self.attrs[job.queue] = self._attr(ssn.queues[job.queue], Resource(), Resource(),
                                                              Resource(), Resource())
                add_job_usage(attr, job)
        # Each queue's deserved and share, worked out at open; an incremental session (``Session.incremental``) works
        # them out when a hook first reads them, as they would have been at open (the water-filling reads none of
        # what the session changes before: the requests are summed at open, and the share is worked out from the
        # allocation as it is then), or not at all in a session that never asks.
        self.filled = False
        if not ssn.incremental:
            self._fill_once()
        hooks = plugin.hooks
        hooks["queue_order"] = self.queue_order
        hooks["reclaimable"] = self.reclaimable
        hooks["overused"] = self.overused
        hooks["allocatable"] = self.task_allocatable
        self._total_weight: int | None = None  # the queues' weights summed, for the bounds (see allocatable_bound)
        hooks["preemptive"] = self.queue_allocatable
        hooks["job_enqueueable"] = self.job_enqueueable
        hooks["job_enqueued"] = self.job_enqueued
        ssn.event_handlers.append((self.on_allocate, self.on_deallocate))

    def _queue_limits(self) -> dict[str, tuple[Resource | None, Resource, Resource]]:
        """Each queue's capability, guarantee and real capability, and the guarantees' total: a function of the queues
        and the cluster's total alone, kept by the cache (``ledger.JobLedger``) while neither changes."""
        ssn = self.ssn
        models = tuple(queue.model for queue in ssn.queues.values())
        kept = ssn.job_sums.queue_limits if ssn.job_sums is not None else None
        if kept is not None and kept[0] is ssn.total and len(kept[1]) == len(models) \
                and all(a is b for a, b in zip(kept[1], models, strict=True)):
            self.total_guarantee = kept[2].clone()
            return kept[3]  # type: ignore[no-any-return]
        for queue in ssn.queues.values():
            self.total_guarantee.add(guarantee_of(queue.model))
        limits = {}
        for name, queue in ssn.queues.items():
            capability, guarantee = capability_of(queue.model), guarantee_of(queue.model)
            limits[name] = (capability, guarantee,
                            real_capability(ssn.total, self.total_guarantee, guarantee, capability))
        if ssn.job_sums is not None:
            ssn.job_sums.queue_limits = (ssn.total, models, self.total_guarantee.clone(), limits)
        return limits

    def _attr(self, queue: QueueInfo, allocated: Resource, request: Resource, inqueue: Resource,
              elastic: Resource) -> QueueAttr:
        capability, guarantee, real = self._limits[queue.name]
        if not self.ssn.incremental:  # copies: the session's result hands its queue attributes to simulate and explain
            capability = capability.clone() if capability is not None else None
            guarantee, real = guarantee.clone(), real.clone()
        # (an incremental session's are the cache's own: proportion only reads them, and a replay reads no result quota)
        return QueueAttr(queue.name, queue.model.weight, allocated=allocated, request=request, elastic=elastic,
                         inqueue=inqueue, capability=capability, guarantee=guarantee, real_capability=real)

    def _kept_attr(self, queue: QueueInfo, values: tuple[Resource, Resource, Resource, Resource],
                   kept: dict[str, tuple[Any, ...]]) -> QueueAttr:
        """An incremental session's attributes of a queue: those of an earlier session while its sums, limits and
        weight are the same objects (building 200 of them was some 5 % of a replay, most queues' sums outlive many
        sessions). What a session changes is set again: the allocated and inqueue it replaced by its own copies here,
        the deserved and share once the water-filling ran (``_clear_others``); nobody reads a deserved or a share
        before. An earlier session's result that handed them on is not read once the next session opens (a replay
        reads no result's quota, a simulation only the last's)."""
        limits = self._limits[queue.name]
        entry = kept.get(queue.name)
        if entry is not None and entry[0] is values and entry[1] is limits and entry[2] == queue.model.weight:
            attr: QueueAttr = entry[3]
            attr.allocated, attr.inqueue = values[0], values[2]
            return attr
        attr = self._attr(queue, *values)
        kept[queue.name] = (values, limits, queue.model.weight, attr)
        return attr

    def _clear_others(self, filled: set[str] | dict[str, Resource]) -> None:
        """The queues the water-filling left out get an empty deserved and no share (an attribute kept from an earlier
        session, ``_kept_attr``, still holds that session's)."""
        for name, attr in self.attrs.items():
            if name not in filled:
                attr.deserved, attr.share = Resource(), 0

    def _fill_once(self) -> None:
        if not self.filled:
            self.filled = True
            self._water_fill()

    def _water_fill(self) -> None:
        """The water-filling, or its outcome as an earlier session on the same cache left it when its inputs (the
        cluster, and each queue's weight, real capability, request and guarantee) were the same: each queue's
        deserved and the rounds are a function of these alone; the share is worked out again from the allocation.
        An incremental session (a replay's: nobody reads the rounds) fills in integers (:func:`fill_in_integers`)
        and keeps no rounds."""
        sums = self.ssn.job_sums
        if sums is None:
            self._fill()
            return
        fast = self.ssn.incremental
        key = self._fill_key(fast)
        memo = sums.water_fill
        if memo is not None and _same_key(memo[0], key) and (fast or memo[2] is not None):
            _, deserved, rounds = memo
            self.rounds = rounds if rounds is not None else []
            for name, attr in self.attrs.items():
                if name in deserved:
                    attr.deserved = deserved[name].clone()
                    attr.share = dominant_share(attr.allocated, attr.deserved)
            self._clear_others(deserved)
            return
        filled = fill_in_integers(self.ssn.total, self.attrs, sums.fill_rows) if fast else None
        if filled is None:
            self._clear_others(set())  # (_fill adds to each deserved in place: from empty ones)
            self._fill()
            filled = {name for r in self.rounds for name in r.deserved}
            sums.water_fill = (key, {name: self.attrs[name].deserved.clone() for name in filled}, self.rounds)
        else:  # (the fill's own vectors, no copies: it makes new ones every time, a hit copies, nobody changes them)
            sums.water_fill = (key, {name: self.attrs[name].deserved for name in filled}, None)
            self._clear_others(filled)

    def _fill_key(self, fast: bool) -> tuple[object, ...]:
        """The water-filling's inputs as the memo compares them. An incremental session's are the vectors themselves,
        compared by identity (``_same_key``): a replay's requests change in nearly every session that fills, so a key
        of every queue's amounts (600 vectors) cost more than the rare fill it saved; the vectors are the cache's, which
        nobody changes in place (``ledger.QueueUsage.values``, ``_queue_limits``), and a key of equal amounts in other
        objects only misses (the fill then gives the same deserved again)."""
        attrs = sorted(self.attrs.items())
        if fast:
            return ("same", self.ssn.total,
                    tuple((name, attr.weight, attr.real_capability, attr.request, attr.guarantee)
                          for name, attr in attrs))
        return (_vector_key(self.ssn.total), tuple(
            (name, attr.weight, _vector_key(attr.real_capability), _vector_key(attr.request),
             _vector_key(attr.guarantee)) for name, attr in attrs))

    def _fill(self) -> None:
        """Each round splits what is left among the hungry queues by weight; capped by real capability and
        request, floored by guarantee; a queue leaves when its request is met or it could not grow."""
        remaining = self.ssn.total.clone()
        met: set[str] = set()
        while True:
            hungry = [a for name, a in sorted(self.attrs.items()) if name not in met]
            total_weight = sum(a.weight for a in hungry)
            if total_weight == 0:
                break
            before = remaining.clone()
            increased, decreased = Resource(), Resource()
            newly_met = []
            for attr in hungry:
                old = attr.deserved.clone()
                attr.deserved.add(remaining.clone().multi(Fraction(attr.weight, total_weight)))
                attr.deserved.min_dimension(attr.real_capability, "infinity")
                attr.deserved.min_dimension(attr.request, "zero")
                attr.deserved = maximum(attr.deserved, attr.guarantee)
                attr.share = dominant_share(attr.allocated, attr.deserved)
                # Volcano compares float64 vectors (proportion.go, OnSessionOpen: reflect.DeepEqual): in exact
                # amounts a deserved that grows by an ever smaller share of a leftover no queue can take would never
                # be "unchanged", and the loop would never end.
                if less_equal(attr.request, attr.deserved, "zero") or equal_in_float64(attr.deserved, old):
                    met.add(attr.name)
                    newly_met.append(attr.name)
                up, down = diff(attr.deserved, old)
                increased.add(up)
                decreased.add(down)
            remaining = exceeded_part(remaining.clone().add(decreased), increased)
            self.rounds.append(Round(before, total_weight, {a.name: a.deserved.clone() for a in hungry},
                                     tuple(newly_met)))
            if remaining.is_empty() or equal_in_float64(remaining, before):
                break

    # --- hooks --------------------------------------------------------------------------------------------------

    def queue_order(self, left: QueueInfo, right: QueueInfo) -> int:
        """P1: higher queue priority, then smaller share."""
        if left.priority != right.priority:
            return right.priority - left.priority
        if not self.filled:
            self._fill_once()
        l_share, r_share = self.attrs[left.name].share, self.attrs[right.name].share
        if l_share == r_share:
            return 0
        return -1 if l_share < r_share else 1

    def overused(self, queue: QueueInfo) -> bool:
        """P2: deserved <= allocated on every dimension (an all-zero deserved is always overused)."""
        found = self._overused.get(queue.name)
        if found is None:
            if not self.filled:
                self._fill_once()
            attr = self.attrs[queue.name]
            deserved = attr.deserved
            found = deserved.covered_by(attr.allocated) if type(deserved) is _Deserved else None
            if found is None:
                found = less_equal(deserved, attr.allocated, "zero")
            self._overused[queue.name] = found
        return found

    def queue_allocatable(self, queue: QueueInfo, tasks: list[TaskInfo]) -> bool:
        """P3/P7: the queue is Open and allocated + the tasks stay within deserved on the requested dims."""
        if not queue.open:
            for task in tasks:
                self.ssn.note(task.job, trace.QUEUE_CLOSED, not_open(queue.model))
            return False
        if not self.filled:
            self._fill_once()
        attr = self.attrs[queue.name]
        request = Resource()
        for task in tasks:
            request.add(task.request)
        over = exceeding_requested_dims(attr.allocated.clone().add(request), attr.deserved, request)
        if over and tasks and not self.ssn.quiet:
            self.ssn.note(tasks[0].job, trace.ALLOCATABLE,
                          f"queue {queue.name} would exceed its deserved share on {', '.join(over)}",
                          {"plugin": NAME, "queue": queue.name, "dimensions": over, "request": request,
                           "allocated": attr.allocated.clone(), "limit": attr.deserved.clone(),
                           "limitName": "deserved"})
        return not over

    def task_allocatable(self, queue: QueueInfo, task: TaskInfo) -> bool:
        """P3 for one task (the ``allocatable`` hook). A quiet session's answer for an open queue is worked out on the
        amounts (allocate asks it of every waiting queue's task shapes, every session): ``queue_allocatable``'s
        comparison without its vectors (allocated + request, summed into new ones) and without the reason it writes."""
        if not self.ssn.quiet or not queue.open:
            return self.queue_allocatable(queue, [task])
        if not self.filled:
            self._fill_once()
        attr = self.attrs[queue.name]
        allocated, deserved, request = attr.allocated, attr.deserved, task.request
        if type(deserved) is _Deserved:
            within = deserved.admits(allocated, request)
            if within is not None:
                return within
        if request.cpu > 0 and allocated.cpu + request.cpu > deserved.cpu:
            return False
        if request.memory > 0 and allocated.memory + request.memory > deserved.memory:
            return False
        held, limit = allocated.scalars, deserved.scalars
        for name, amount in request.scalars.items():
            if amount > 0 and name != PODS and held.get(name, 0) + amount > limit.get(name, 0):
                return False
        return True

    def allocatable_bound(self, queue: QueueInfo, task: TaskInfo) -> bool | None:
        """P3's answer for one task when the queue's deserved need not be worked out for it, else None: in a quiet
        session (a "no" writes no reason), before the water-filling, for an open queue. The fill's amounts only grow
        from round to round (each round adds a share, caps by the same upper bound, floors by the same guarantee), so a
        queue's deserved is at least what the first round gives it (its weight's part of the total, capped by the
        smaller of real capability and request, floored by guarantee) and at most the larger of that cap and the
        guarantee: allocated + the task within the first on every requested dimension is a "yes", beyond the second on
        one a "no", whatever the later rounds give. Only for whole amounts of at least 0 and weights of at least 0 (the
        integer fill's inputs; the Fraction fill's rounds are the same arithmetic)."""
        if self.filled or not self.ssn.quiet or not queue.open:
            return None
        weights = self._total_weight
        if weights is None:
            weights = self._total_weight = _weights(self.attrs)
        attr = self.attrs.get(queue.name)
        if weights <= 0 or attr is None:  # (no weight: nobody takes part and every deserved stays empty)
            return None
        request = task.request
        maybe = False
        for name in _requested(request):
            bounds = _first_round(self.ssn.total, attr, name, weights)
            if bounds is None:
                return None
            least, most = bounds
            left = attr.allocated.get(name) + request.get(name)
            if left > most:
                return False
            if left * weights > least:
                maybe = True
        return None if maybe else True

    def job_enqueueable(self, job: JobInfo) -> int:
        """P4: minResources + allocated + inqueue - elastic within real capability, on the dims minResources asks."""
        queue = self.ssn.queues[job.queue]
        if not queue.open:
            self.ssn.note(job, trace.QUEUE_CLOSED, not_open(queue.model))
            return REJECT
        if job.min_resources is None:
            return PERMIT
        attr = self.attrs[job.queue]
        minimum = job.min_request()
        total = minimum.clone().add(attr.allocated).add(attr.inqueue).sub(attr.elastic)
        over = exceeding_requested_dims(total, attr.real_capability, minimum)
        if not over:
            return PERMIT
        self.ssn.note(job, trace.QUEUE_QUOTA, quota_message(over),
                      {"plugin": NAME, "queue": job.queue, "dimensions": over, "minResources": minimum,
                       "allocated": attr.allocated.clone(), "inqueue": attr.inqueue.clone(),
                       "elastic": attr.elastic.clone(), "limit": attr.real_capability.clone(),
                       "limitName": "realCapability"})
        return REJECT

    def job_enqueued(self, job: JobInfo) -> None:
        """P5: the job's minResources reserve room in its queue for the rest of the session."""
        if job.min_resources is None:
            return
        attr = self.attrs.get(job.queue)
        if attr is not None:
            from kqctl.volcano.engine.queue_attr import deduct_gated

            self._inqueue_of(attr).add(deduct_gated(job, job.min_request()))

    def reclaimable(self, reclaimer: TaskInfo, reclaimees: list[TaskInfo]) -> tuple[list[TaskInfo], int]:
        """P6: victims while their queue's allocated (less the victims taken) is not within deserved."""
        if not self.filled:
            self._fill_once()
        if self._within_epoch != self.ssn.epoch:  # the queues' allocations changed since last asked
            self._within, self._within_epoch = {}, self.ssn.epoch
        victims = []
        allocations: dict[str, Resource] = {}
        for reclaimee in reclaimees:
            attr = self.attrs.get(reclaimee.job.queue)
            if attr is None:
                continue
            allocated = allocations.get(attr.name)
            if allocated is None:
                inside = self._within.get(attr.name)
                if inside is None:
                    inside = self._within[attr.name] = less_equal(attr.allocated, attr.deserved, "zero")
                if inside:  # within deserved already: taking victims away keeps it within, none is chosen
                    continue
                allocated = allocations[attr.name] = attr.allocated.clone()
            if not less_equal(allocated, attr.deserved, "zero"):
                allocated.sub(reclaimee.request)
                victims.append(reclaimee)
        return victims, PERMIT

    def _allocated_of(self, attr: QueueAttr) -> Resource:
        """The queue's allocated, this session's own to change."""
        if attr.name not in self._own_allocated:
            self._own_allocated.add(attr.name)
            attr.allocated = attr.allocated.clone()
        return attr.allocated

    def _inqueue_of(self, attr: QueueAttr) -> Resource:
        if attr.name not in self._own_inqueue:
            self._own_inqueue.add(attr.name)
            attr.inqueue = attr.inqueue.clone()
        return attr.inqueue

    def on_allocate(self, task: TaskInfo) -> None:
        attr = self.attrs.get(task.job.queue)
        if attr is not None:
            self._allocated_of(attr).add(task.request)
            self._overused.pop(attr.name, None)
            if self.filled:  # (else the water-filling works the share out from the allocation then)
                attr.share = dominant_share(attr.allocated, attr.deserved)

    def on_deallocate(self, task: TaskInfo) -> None:
        attr = self.attrs.get(task.job.queue)
        if attr is not None:
            self._allocated_of(attr).sub(task.request)
            self._overused.pop(attr.name, None)
            if self.filled:
                attr.share = dominant_share(attr.allocated, attr.deserved)


# A queue's row of the integer fill (its weight, per dimension the smaller of real capability and request, its request,
# its guarantee or None when it has none), or None when an amount is not a whole number of at least 0
_Row = tuple[int, list[int], list[int], list[int] | None] | None


def fill_in_integers(total: Resource, attrs: dict[str, QueueAttr],
                     rows: dict[str, tuple[Any, ...]] | None = None) -> set[str] | None:
    """:meth:`Proportion._fill`'s water-filling worked out in integers: every amount of a round is a numerator over
    one denominator (the product of the rounds' total weights so far), so a round multiplies and compares integers
    instead of reducing fractions. Each queue's deserved and share come out with the values ``_fill`` gives (as
    exact fractions, or whole numbers: an amount may come out as an int where ``_fill`` has a fraction equal to it,
    or the other way round: only the values are read); the rounds are not kept. Returns the queues that took part
    (those ``_fill``'s rounds name), or None, changing nothing, when an amount is not a whole number of at least 0
    (``_fill`` then does it). ``rows``: each queue's row as an earlier fill worked it out, kept by the caller and
    reused while the queue's weight and its real capability, request and guarantee are the same objects (which
    nobody changes in place: an incremental session's are the cache's, see ``ledger.QueueUsage.values``) and the
    fill's dimensions the same."""
    ordered = [attrs[name] for name in sorted(attrs)]
    vectors = [total, *(v for a in ordered for v in (a.real_capability, a.request, a.guarantee))]
    names = sorted({name for vector in vectors for name in vector.scalars})
    dims = [CPU, MEMORY, *names]

    def amounts(vector: Resource, missing: int | None) -> list[int | None] | None:
        found = [vector.cpu, vector.memory, *(vector.scalars.get(name, missing) for name in names)]
        if any(value is not None and (type(value) is not int or value < 0) for value in found):
            return None
        return found  # type: ignore[return-value]

    def row_of(attr: QueueAttr) -> _Row:
        # (the fill caps a queue's deserved by its real capability then its request, and min(min(x, a), b) is
        # min(x, min(a, b)))
        capability, request, guarantee = (amounts(attr.real_capability, None), amounts(attr.request, 0),
                                          amounts(attr.guarantee, 0))
        if capability is None or request is None or guarantee is None or attr.weight < 0:
            return None
        upper = [asked if cap is None or asked < cap else cap  # type: ignore[operator]
                 for cap, asked in zip(capability, request, strict=True)]
        return (attr.weight, upper, request,  # type: ignore[return-value]
                guarantee if any(guarantee) else None)  # (most queues have none: no floor to apply)

    remaining = amounts(total, 0)
    layout = tuple(names)
    limits = []
    for attr in ordered:
        kept = rows.get(attr.name) if rows is not None else None
        if kept is not None and kept[0] is attr.real_capability and kept[1] is attr.request \
                and kept[2] is attr.guarantee and kept[3] == attr.weight and kept[4] == layout:
            row = kept[5]
        else:
            row = row_of(attr)
            if rows is not None:
                rows[attr.name] = (attr.real_capability, attr.request, attr.guarantee, attr.weight, layout, row)
        if row is None:
            return None
        limits.append(row)
    if remaining is None:
        return None
    counted = [i for i, name in enumerate(dims) if name != PODS]  # is_empty leaves pods out
    width = range(len(dims))
    rest: list[int] = remaining  # type: ignore[assignment]
    scale = 1  # the denominator of every amount below
    deserved: list[list[int]] = [[0] * len(dims) for _ in ordered]  # over the scale of the last round it took part in
    hungry = list(range(len(ordered)))
    scales = [1] * len(ordered)  # the scale each queue's deserved is over: that of the round it was met in
    taking_part: set[str] = set()
    while True:
        total_weight = sum(limits[q][0] for q in hungry)
        if total_weight == 0:
            break
        taking_part.update(ordered[q].name for q in hungry)
        new_scale = scale * total_weight
        increased = [0] * len(dims)
        decreased = [0] * len(dims)
        still = []
        for q in hungry:
            weight, upper, request, guarantee = limits[q]
            old = deserved[q]
            new = []
            met, unchanged = True, True
            for i in width:
                was = old[i] * total_weight
                value = was + rest[i] * weight
                bound = upper[i] * new_scale  # type: ignore[operator]
                if bound < value:
                    value = bound
                if guarantee is not None:
                    floor = guarantee[i]
                    if floor and floor * new_scale > value:
                        value = floor * new_scale
                new.append(value)
                if value > was:
                    increased[i] += value - was
                elif value < was:
                    decreased[i] += was - value
                if unchanged and value != was:  # unchanged as float64 sees it, as _fill judges it
                    unchanged = value / new_scale == was / new_scale
                if met:  # LessEqual(request, deserved) with its 0.1 tolerance
                    asked = request[i] * new_scale  # type: ignore[operator]
                    met = asked <= value or 10 * (asked - value) < new_scale
            deserved[q] = new  # (a queue takes part in every round until met: its amounts move to the new scale)
            if met or unchanged:
                scales[q] = new_scale
            else:
                still.append(q)
        before = [amount * total_weight for amount in rest]
        rest = [max(before[i] + decreased[i] - increased[i], 0) for i in width]
        scale = new_scale
        hungry = still
        if all(10 * rest[i] < scale for i in counted) or \
                all(now / scale == then / scale for now, then in zip(rest, before, strict=True)):
            break
    for q in hungry:
        scales[q] = scale
    for q, attr in enumerate(ordered):
        if attr.name not in taking_part:
            continue
        over, numerators = scales[q], deserved[q]
        attr.deserved = _Deserved(layout, numerators, over)
        attr.share = _integer_share(attr.allocated, layout, numerators, over)
    return taking_part


def _integer_share(allocated: Resource, names: tuple[str, ...], amounts: list[int], over: int) -> float:
    """``dominant_share`` of a deserved given as numerators over ``over`` (cpu, memory, then ``names``): the float of
    amount / over is that of the fraction."""
    share = 0.0
    scalars = allocated.scalars
    held = (allocated.cpu, allocated.memory, *(scalars.get(name, 0) for name in names))
    for used, amount in zip(held, amounts, strict=True):
        if 10 * amount >= over:  # a dimension of at least 0.1 (ResourceNames)
            ratio = float(used) / (amount / over)
            if ratio > share:
                share = ratio
    return share


class _Deserved(Resource):
    """A deserved the integer fill worked out, as numerators over one denominator, made a vector of ints and
    ``Fraction``s only when first read: a session reads the deserved of the few queues it serves, and building 200
    of them (800 fractions reduced) was a third of each fill. Once read it is a plain vector (the slots set)."""

    __slots__ = ("_layout", "_amounts", "_over")

    def __init__(self, layout: tuple[str, ...], amounts: list[int], over: int) -> None:
        self._layout, self._amounts, self._over = layout, amounts, over

    def admits(self, allocated: Resource, request: Resource) -> bool | None:
        """P3's comparison (allocated + request within this deserved on every dimension the request asks more than 0
        of, pods never) on the numerators, without making the vector (allocate asks it of every waiting queue's task
        shapes: most deserved were read for nothing else); None when an amount is not an int (then on the vector).
        Exact: for a denominator over > 0, x > n / over is x * over > n."""
        amounts, over, layout, scalars = self._amounts, self._over, self._layout, allocated.scalars
        asked = [(request.cpu, allocated.cpu, 0), (request.memory, allocated.memory, 1),
                 *((amount, scalars.get(name, 0), 2 + layout.index(name) if name in layout else -1)
                   for name, amount in request.scalars.items() if name != PODS)]
        for amount, held, index in asked:
            if amount > 0:
                total = held + amount
                if type(total) is not int:
                    return None
                if total * over > (amounts[index] if index >= 0 else 0):
                    return False
        return True

    def covered_by(self, allocated: Resource) -> bool | None:
        """P2's ``less_equal(deserved, allocated, "zero")`` on the numerators, without making the vector (allocate asks
        it of every queue it takes out of its heap); None when an allocated amount is not an int (then on the vector).
        Exact: for an int a, ``_le(n / over, a)`` (n / over <= a, or above it by less than 1/10) is
        n / over < a + 1/10, that is 10 n < (10 a + 1) over; a dimension the allocation lacks is 0 ("zero")."""
        amounts, over, scalars = self._amounts, self._over, allocated.scalars
        held = [allocated.cpu, allocated.memory, *(scalars.get(name, 0) for name in self._layout)]
        for amount, used in zip(amounts, held, strict=True):
            if type(used) is not int:
                return None
            if 10 * amount >= (10 * used + 1) * over:
                return False
        return True

    def __getattr__(self, name: str) -> Any:
        # (called only for a slot not set yet: cpu, memory and scalars are set together, from the numerators)
        if name not in ("cpu", "memory", "scalars"):
            raise AttributeError(name)
        over = self._over
        values: list[int | Fraction] = []
        for amount in self._amounts:
            whole, part = divmod(amount, over)
            values.append(Fraction(amount, over) if part else whole)
        self.cpu, self.memory = values[0], values[1]
        self.scalars = dict(zip(self._layout, values[2:], strict=True))
        return getattr(self, name)


def _weights(attrs: dict[str, QueueAttr]) -> int:
    """The queues' weights summed (the first round's total weight), or -1 when one is not a whole number of at least
    0 (no bounds then)."""
    total = 0
    for attr in attrs.values():
        weight = attr.weight
        if type(weight) is not int or weight < 0:
            return -1
        total += weight
    return total


def _requested(request: Resource) -> list[str]:
    """The dimensions P3 compares (``exceeding_requested_dims``): those the request asks more than 0 of, pods never."""
    found = [name for name, amount in ((CPU, request.cpu), (MEMORY, request.memory)) if amount > 0]
    found.extend(name for name, amount in request.scalars.items() if name != PODS and amount > 0)
    return found


def _first_round(total: Resource, attr: QueueAttr, name: str, weights: int) -> tuple[int, int] | None:
    """A queue's deserved on one dimension, bounded: (the first round's amount times ``weights``, the largest it can
    reach), or None when an amount is not a whole number of at least 0. As ``_fill`` caps: a real capability the
    dimension is missing from is unlimited, a request or guarantee it is missing from is 0."""
    capability = attr.real_capability.get(name) if name in (CPU, MEMORY) or name in attr.real_capability.scalars \
        else None
    asked, floor, whole = attr.request.get(name), attr.guarantee.get(name), total.get(name)
    if not (_whole(asked) and _whole(floor) and _whole(whole) and (capability is None or _whole(capability))):
        return None
    upper = int(asked if capability is None or asked < capability else capability)
    first = min(int(whole) * attr.weight, upper * weights)
    return max(first, int(floor) * weights), max(upper, int(floor))


def _whole(amount: Amount) -> bool:
    return type(amount) is int and amount >= 0


def quota_message(dimensions: list[str]) -> str:
    """The PodGroup event of a queue quota rejection (``FormatResourceNames``)."""
    if not dimensions:
        return "queue resource quota insufficient"
    return "queue resource quota insufficient: " + ", ".join(f"insufficient {d}" for d in dimensions)


def _same_key(kept: tuple[object, ...], key: tuple[object, ...]) -> bool:
    """Whether two memo keys (``Proportion._fill_key``) name the same inputs: amounts compared by value, an incremental
    session's vectors by identity (each key holds its vectors, so an id is never reused while compared)."""
    if kept[0] != "same" or key[0] != "same":
        return kept == key
    if kept[1] is not key[1] or len(kept[2]) != len(key[2]):  # type: ignore[arg-type]
        return False
    return all(a[0] == b[0] and a[1] == b[1] and a[2] is b[2] and a[3] is b[3] and a[4] is b[4]
               for a, b in zip(kept[2], key[2], strict=True))  # type: ignore[call-overload]


def _vector_key(vector: Resource) -> tuple[object, ...]:
    """A vector's amounts with their types and its dimensions in order: equal keys, interchangeable vectors."""
    return (vector.cpu, type(vector.cpu), vector.memory, type(vector.memory),
            tuple((name, amount, type(amount)) for name, amount in vector.scalars.items()))
