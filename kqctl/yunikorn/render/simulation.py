"""``kqctl simulate`` output for YuniKorn: a queue table, a pod table, why pods wait, a summary.

The json/yaml contract (stable keys; resources as YuniKorn's internal integers: vcore in millicores, memory in
bytes, pods as a count)::

    scheduler: yunikorn
    config: where the queue configuration came from
    partition, nodeSortPolicy, preemptionEnabled, cluster (the root's max: every node's allocatable)
    queues: [{path, leaf, managed, guaranteed, max, allocated, pending, fairShare, priority, runningApps,
              maxApplications, applications}]
    pods: [{namespace, name, application, queue, state, node, order, priority, request, reason, reservedNode,
            preempted, failOn, neverFits, placeholder, taskGroup, replaced}]
                                 # state: Running (bound before), Allocated (by the simulation, at ``order``),
                                 # Pending, Rejected (placement or queue refused it), Preempted (a victim),
                                 # Replaced (a placeholder a real pod took the place of), Released (a placeholder
                                 # released unreplaced), Failed (the shim failed its gang application)
                                 # placeholder: a gang's placeholder pod (made by the shim, or in the input);
                                 # taskGroup: its task group; replaced: the placeholder a real pod replaced
                                 # failOn: the --fail-on states it ends in, the same words for every scheduler:
                                 # inadmissible (can never get in as configured: Rejected, or Pending with
                                 # neverFits saying why), pending (not running at the end for any reason),
                                 # preempted (a victim); [] for Running and Allocated
    events: [{order, kind, pod, node, queue, victims}]   # kind: allocated, allocated-reserved, reserved, preempted,
                                 # replaced (victims: the placeholder), placeholder-released (victims: those released)
    summary: {cycles, running, allocated, pending, rejected, preempted, replaced, released, failed}
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from kqctl.render.columns import Column, Table, TableOptions, write_limited
from kqctl.yunikorn.engine.simulation import (
    ALLOCATED_STATE,
    FAILED_STATE,
    PENDING,
    PREEMPTED_FOR,
    PREEMPTED_STATE,
    REJECTED_STATE,
    RELEASED_STATE,
    REPLACED_STATE,
    RUNNING,
    PodOutcome,
    SimulationResult,
)
from kqctl.yunikorn.render.common import exact, full, others, pair

STATES = (RUNNING, ALLOCATED_STATE, PENDING, REJECTED_STATE, PREEMPTED_STATE, REPLACED_STATE, RELEASED_STATE,
          FAILED_STATE)
MIN_PRIORITY = -(1 << 31)


def contract(result: SimulationResult, keep: Callable[[PodOutcome], bool] | None = None) -> dict[str, Any]:
    pods = [p for p in result.pods if keep is None or keep(p)]
    return {
        "scheduler": "yunikorn",
        "config": result.config,
        "partition": result.partition,
        "nodeSortPolicy": result.node_sort_policy,
        "preemptionEnabled": result.preemption_enabled,
        "cluster": exact(result.cluster),
        "queues": [{
            "path": q.path, "leaf": q.leaf, "managed": q.managed, "guaranteed": exact(q.guaranteed),
            "max": exact(q.max), "allocated": exact(q.allocated), "pending": exact(q.pending),
            "fairShare": round(q.share, 6), "priority": q.priority, "runningApps": q.running_apps,
            "maxApplications": q.max_apps, "applications": q.applications,
        } for q in result.queues],
        "pods": [pod_data(p) for p in pods],
        "events": [{"order": e.order, "kind": e.kind, "pod": e.pod, "node": e.node, "queue": e.queue,
                    "victims": list(e.victims)} for e in result.events],
        "summary": summary(result, pods),
    }


def pod_data(p: PodOutcome) -> dict[str, Any]:
    return {
        "namespace": p.namespace, "name": p.name, "application": p.app_id, "queue": p.queue or None,
        "state": p.state, "node": p.node or None, "order": p.order or None, "priority": p.priority,
        "request": exact(p.resource), "reason": p.reason, "reservedNode": p.reserved_node or None,
        "preempted": list(p.preempted), "failOn": list(p.fail_on), "neverFits": p.inadmissible or None,
        "placeholder": p.placeholder, "taskGroup": p.task_group or None, "replaced": p.replaced or None,
    }


def summary(result: SimulationResult, pods: list[PodOutcome]) -> dict[str, int]:
    counts = {"cycles": result.cycles}
    for state in STATES:
        counts[state.lower()] = sum(1 for p in pods if p.state == state)
    return counts


def render_simulation(result: SimulationResult, fmt: str, out: TextIO, namespace: str | None = None,
                      queue: str | None = None, view: TableOptions | None = None, selector: str | None = None) -> None:
    from kqctl.render.jsontext import dumps_indented
    from kqctl.render.output import is_data_format, sorted_by, write_data

    keep = pod_filter(namespace, queue, selector)
    options = view or TableOptions()
    if fmt == "json":
        out.write(dumps_indented(sorted_by(contract(result, keep), "pods", options.sort_by), ensure_ascii=False))
    elif is_data_format(fmt):
        write_data(out, contract(result, keep), fmt, rows="pods", sort_by=options.sort_by, headers=options.headers)
    elif fmt == "name":
        out.writelines(f"pod/{p.name}\n" for p in result.pods if keep(p))
    elif fmt in ("table", "wide"):
        render_tables(result, out, keep, replace(options, wide=options.wide or fmt == "wide"))
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: table, wide, name, json, yaml")


def pod_filter(namespace: str | None, queue: str | None, selector: str | None = None) -> Callable[[PodOutcome], bool]:
    """-n, --queue (the queue or anything below it) and -l (the pod's labels)."""
    from kqctl.k8s.selectors import parse_label_selector, selector_matches

    wanted = queue.lower() if queue else None
    parsed = parse_label_selector(selector) if selector else None

    def keep(pod: PodOutcome) -> bool:
        if namespace is not None and pod.namespace != namespace:
            return False
        if parsed is not None and not selector_matches(parsed, dict(pod.labels)):
            return False
        return wanted is None or pod.queue == wanted or pod.queue.startswith(wanted + ".")

    return keep


def render_tables(result: SimulationResult, out: TextIO, keep: Callable[[PodOutcome], bool],
                  view: TableOptions) -> None:
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color, write_wrapped

    paint = rich_painter(use_color(out, view.color))
    pods = pod_table(result, keep)
    sort_rows(pods, view.sort_by)
    kept = [p for p in result.pods if keep(p)]
    write_limited(out, queue_table(result, None if len(kept) == len(result.pods) else kept), view, paint, "queues")
    out.write("\n")
    shown = write_limited(out, pods, view, paint, "pods")
    by_key = _by_key(result)
    waiting = [p for p in (by_key[row[0]] for row in pods.rows[:shown])
               if p.state in (PENDING, REJECTED_STATE, FAILED_STATE)]
    if waiting:
        out.write("\nWhy not allocated:\n")
        for pod in waiting:
            never = f"; it can never get in as configured: {pod.inadmissible}" if pod.inadmissible else ""
            write_wrapped(out, f"{pod.key}: {pod.reason}{never}", "  ", "    ")
    counts = summary(result, kept)
    words = ", ".join(f"{counts[s.lower()]:,} {s.lower()}" for s in STATES if counts[s.lower()])
    out.write("\n")
    write_wrapped(out, f"{result.cycles:,} cycle(s) until nothing more could be allocated: {words or 'no pods'}")
    write_wrapped(out, f"Resources are vcore/memory (cores/bytes in binary units); config: {result.config}.")


def _by_key(result: SimulationResult) -> dict[str, PodOutcome]:
    return {p.key: p for p in result.pods}


# The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest.
_QUEUE_COLUMNS = (
    Column("Queue"), Column("Priority", right=True, wide=True), Column("Guaranteed", right=True),
    Column("Max", right=True), Column("Allocated", right=True), Column("Pending", right=True),
    Column("Share", right=True, wide=True), Column("Running apps", right=True, wide=True),
    Column("Other types allocated", wide=True),
)


def queue_table(result: SimulationResult, pods: list[PodOutcome] | None = None) -> Table:
    """One row per queue; with ``pods`` (what -n, --queue and -l keep), only the queues on their paths."""
    table = Table(_QUEUE_COLUMNS)
    paths = None if pods is None else {".".join(p.queue.split(".")[:depth])
                                       for p in pods if p.queue for depth in range(1, p.queue.count(".") + 2)}
    for q in result.queues:
        if paths is not None and q.path not in paths:
            continue
        # "/" already joins vcore/memory in this table: the application limit reads in words, as kubectl's "3 (2m ago)"
        apps = f"{q.running_apps} (max {q.max_apps})" if q.max_apps else f"{q.running_apps}"
        priority = "-" if q.priority == MIN_PRIORITY else str(q.priority)
        extra = others(q.allocated)
        table.add([q.path + ("" if q.managed else " (dynamic)"), priority, pair(q.guaranteed), pair(q.max),
                   pair(q.allocated), pair(q.pending) if q.pending else "-", f"{q.share:.2f}", apps, extra])
    return table


_POD_COLUMNS = (
    Column("Pod"), Column("Queue", wide=True), Column("State"), Column("Node"), Column("Order", right=True, wide=True),
    Column("Priority", right=True, wide=True), Column("Request", wide=True), Column("Application", wide=True),
    Column("Reason", wrap=True),
)


def pod_table(result: SimulationResult, keep: Callable[[PodOutcome], bool]) -> Table:
    table = Table(_POD_COLUMNS)
    rank = {state: i for i, state in enumerate(STATES)}
    for pod in sorted((p for p in result.pods if keep(p)),
                      key=lambda p: (rank[p.state], p.order or 0, p.queue, p.key)):
        table.add([pod.key, pod.queue or "-", pod.state, pod.node or "-", str(pod.order) if pod.order else "-",
                   str(pod.priority), full(pod.resource), pod.app_id, short_reason(pod)],
                  [None, None, _state_style(pod.state), None, None, None, None, None, None], item=pod_data(pod))
    return table


def short_reason(pod: PodOutcome) -> str:
    """The table's reason cell: a token a person can scan (the full text is under "Why not allocated")."""
    if pod.state in (RUNNING, ALLOCATED_STATE):
        if pod.replaced:
            return "replaced a placeholder"  # which one: -o json, explain (a placeholder's name is long)
        return f"preempted {len(pod.preempted)}: {_names(pod.preempted)}" if pod.preempted else "-"
    text = pod.reason
    if pod.state == REPLACED_STATE:
        return "by " + text.split(" (")[0].split("/")[-1]  # a placeholder is replaced by a pod of its namespace
    if pod.state == PREEMPTED_STATE and text.startswith(PREEMPTED_FOR):
        return f"preempted by {text[len(PREEMPTED_FOR):]}"
    for token in ("Not enough queue quota", "Not enough user quota", "waiting to run", "no node fits",
                  "every node is reserved", "preempted", "failed to place", "placement rules cannot be built",
                  "failed to create", "waiting for its gang", "it may only take the place"):
        if text.startswith(token):
            return token
    return text.split(";")[0].split(":")[0]


def _names(keys: tuple[str, ...], shown: int = 3) -> str:
    """Who was preempted, whole names (the table never cuts a name); past ``shown``, a count (json has them all)."""
    more = f" and {len(keys) - shown} more" if len(keys) > shown else ""
    return ", ".join(keys[:shown]) + more


def _state_style(state: str) -> str | None:
    return {ALLOCATED_STATE: "green", PENDING: "yellow", REJECTED_STATE: "red", PREEMPTED_STATE: "red",
            FAILED_STATE: "red"}.get(state)
