"""``kqctl explain`` output for YuniKorn: a pod (why it runs or waits) or a queue (its priority and order).

json/yaml contracts (resources in YuniKorn's internal integers; priorities as int32, MIN = -2147483648 means
nothing pending)::

    queue: {path, settings, chain: [{path, leaf, raw, source, offset, policy, reported, rule}],
            levels: [{parent, considersPriority, order: [{name, path, priority, fairShare, pending, tieWithNext}]}],
            rejected: [{application, pods, requestedQueue, reason}]}
    pod:   {pod, application, queue, state, node, order, reason, request, failOn, neverFits, priority, requestedQueue,
            placement: {queue, rule, error, steps: [{rule, result, outcome}]}, applicationState,
            maxApplications: [{queue, running, max, ok}], chain, levels,
            position: {sortPolicy, order: [{application, priority, submitted, usage, tieWithNext, this}]},
            userLimits: {headroom, limits: [{kind, name, queue, limit, maxResources, used}]},
            headroom: [{queue, resource, max, allocated, headroom, ask, fits}],
            nodes, preemption: {enabled, verdict, preconditions, fence, victims, remainingGuaranteed},
            suggestions: [{change, verified, outcome}], missingQueue: {queue, didYouMean},
            placeholder, taskGroup, replaced,
            gang: {decision, reserving, style, timeoutSeconds, timesOutAt, blocker,
                   groups: [{name, minMember, minResource, allocated, pending, replaced, released}]}}
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from kqctl.render.columns import Column, Table, format_lines
from kqctl.yunikorn.engine.explain import Explanation, GangView
from kqctl.yunikorn.engine.priority import Level, QueuePriority, QueueReport
from kqctl.yunikorn.render.common import amount, amount_figure, exact, full

MIN_PRIORITY = -(1 << 31)


def priority_text(value: int) -> str:
    return "MIN (nothing pending)" if value == MIN_PRIORITY else str(value)


# --- queue ------------------------------------------------------------------------------------------------


def queue_contract(report: QueueReport) -> dict[str, Any]:
    return {
        "scheduler": "yunikorn",
        "queue": report.path,
        "settings": report.settings,
        "chain": [_chain_dict(c) for c in report.chain],
        "levels": [_level_dict(level) for level in report.levels],
        "rejected": [{"application": r.app_id, "pods": list(r.pods), "requestedQueue": r.requested or None,
                      "reason": r.reason} for r in report.rejected],
    }


def _chain_dict(c: QueuePriority) -> dict[str, Any]:
    return {"path": c.path, "leaf": c.leaf, "raw": c.raw, "source": c.source, "offset": c.offset,
            "policy": c.policy, "reported": c.reported, "rule": c.rule}


def _level_dict(level: Level) -> dict[str, Any]:
    return {"parent": level.parent, "considersPriority": level.considers_priority,
            "order": [{"name": e.name, "path": e.path, "priority": e.priority, "fairShare": round(e.share, 6),
                       "pending": exact(e.pending), "tieWithNext": e.tie_with_next} for e in level.order]}


def render_queue(report: QueueReport, fmt: str, out: TextIO) -> None:
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, queue_contract(report), fmt)
        return
    with _prose(out) as out:
        _queue_text(report, out, fmt == "wide")


def _queue_text(report: QueueReport, out: TextIO, wide: bool = False) -> None:
    out.write(f"Queue {report.path} (the snapshot as given, before any allocation)\n")
    out.write("  " + ", ".join(f"{k}: {v}" for k, v in report.settings.items()) + "\n\n")
    _write_chain(out, report.chain, wide)
    _write_levels(out, report.levels, {c.path for c in report.chain})
    _write_rejected(out, report)


def _write_rejected(out: TextIO, report: QueueReport) -> None:
    """Applications refused before they reached any queue: nothing of theirs is pending, so say why."""
    if not report.rejected:
        return
    where = "" if report.path == "root" else f" that ask for {report.path} or a queue below it"
    out.write(f"\nRejected applications{where} (YK-PL; their pods are pending in no queue):\n")
    for r in report.rejected:
        pods = ", ".join(r.pods[:3]) + (f" and {len(r.pods) - 3} more" if len(r.pods) > 3 else "")
        asked = f", asks for {r.requested}" if r.requested else ""
        out.write(f"  {r.app_id} ({pods}{asked}): {r.reason}\n")


def _write_chain(out: TextIO, chain: tuple[QueuePriority, ...], wide: bool) -> None:
    out.write("Priority along the path (YK-P3 raw, YK-P4 reported to its siblings; -o wide: where the raw priority "
              "comes from and the queue's priority.policy):\n")
    table = Table((Column("Queue"), Column("Raw", right=True), Column("From", wide=True),
                   Column("Offset", right=True), Column("Policy", wide=True), Column("Reported", right=True),
                   Column("Why", wrap=True)))
    for c in chain:
        table.add([c.path, priority_text(c.raw) if c.raw != MIN_PRIORITY else "MIN", c.source, str(c.offset),
                   c.policy, "MIN" if c.reported == MIN_PRIORITY else str(c.reported), c.rule])
    _indent(out, table, wide)


def _write_levels(out: TextIO, levels: tuple[Level, ...], on_path: set[str]) -> None:
    out.write("\nOrder at each level (children with something pending, the order YuniKorn tries them, YK-S1):\n")
    any_tie = False
    for level in levels:
        first = "priority, then fair share" if level.considers_priority else "fair share, then priority"
        out.write(f"  {level.parent} ({first}):\n")
        if not level.order:
            out.write("    (no child has anything pending)\n")
        names = max((len(entry.name) for entry in level.order), default=0)
        priorities = [("MIN" if entry.priority == MIN_PRIORITY else str(entry.priority)) for entry in level.order]
        digits = max((len(p) for p in priorities), default=0)
        numbers = len(str(len(level.order)))
        for i, (entry, priority) in enumerate(zip(level.order, priorities, strict=True), start=1):
            mark = "  <- on the path" if entry.path in on_path else ""
            tie = "  (tie with the next: YuniKorn picks either; kqctl goes by name)" if entry.tie_with_next else ""
            any_tie = any_tie or entry.tie_with_next
            out.write(f"    {f'{i}.':<{numbers + 1}} {entry.name:<{names}}   priority {priority:>{digits}}, "
                      f"share {entry.share:.3f}{mark}{tie}\n")
    if any_tie:
        out.write("  Ties: YuniKorn takes the children from a Go map, so their order is random; kqctl orders "
                  "them by name.\n")


def _indent(out: TextIO, table: Table, wide: bool) -> None:
    from kqctl.render.console import terminal_width

    width = terminal_width(out)
    for line in format_lines(table, wide=wide, width=None if width is None else width - 2):
        out.write("  " + line + "\n")


# --- pod ----------------------------------------------------------------------------------------------------


def pod_contract(e: Explanation) -> dict[str, Any]:
    pod = e.pod
    placement = e.placement
    return {
        "scheduler": "yunikorn",
        "pod": pod.key, "application": pod.app_id, "queue": pod.queue or None, "state": pod.state,
        "node": pod.node or None, "order": pod.order or None, "reason": pod.reason, "request": exact(pod.resource),
        "failOn": list(pod.fail_on), "neverFits": pod.inadmissible or None,
        "priority": pod.priority, "requestedQueue": e.requested_queue or None,
        "placement": None if placement is None else {
            "queue": placement.queue or None, "rule": placement.rule or None, "error": placement.error or None,
            "steps": [{"rule": s.rule, "result": s.result or None, "outcome": s.outcome} for s in placement.steps]},
        "applicationState": e.app_state,
        "maxApplications": [{"queue": r.queue, "running": r.running, "max": r.max, "ok": r.ok} for r in e.apps],
        "chain": [_chain_dict(c) for c in e.chain],
        "levels": [_level_dict(level) for level in e.levels],
        "position": {"sortPolicy": e.sort_policy, "order": [
            {"application": p.app_id, "priority": p.priority, "submitted": p.submitted, "usage": exact(p.usage),
             "tieWithNext": p.tie_with_next, "this": p.this} for p in e.position]},
        "userLimits": {"headroom": exact(e.user_headroom), "limits": [
            {"kind": b.kind, "name": b.name, "queue": b.queue, "limit": b.limit or None,
             "maxResources": exact(b.max_resources), "used": exact(b.used)} for b in e.user_limits]},
        "headroom": [{"queue": r.queue, "resource": r.resource, "max": r.max, "allocated": r.allocated,
                      "headroom": r.headroom, "ask": r.ask, "fits": r.fits} for r in e.headroom],
        "nodes": e.nodes or None,
        "preemption": None if e.preemption is None else {
            "enabled": e.preemption.enabled, "verdict": e.preemption.verdict,
            "preconditions": e.preemption.preconditions or None, "fence": e.preemption.fence or None,
            "victims": list(e.preemption.victims),
            "remainingGuaranteed": exact(e.preemption.remaining_guaranteed)},
        "suggestions": [{"change": s.change, "verified": s.verified, "outcome": s.outcome} for s in e.suggestions],
        "missingQueue": None if e.missing_queue is None else {"queue": e.missing_queue.path,
                                                              "didYouMean": list(e.missing_queue.close)},
        "placeholder": pod.placeholder, "taskGroup": pod.task_group or None, "replaced": pod.replaced or None,
        "gang": None if e.gang is None else _gang_dict(e.gang),
    }


def _gang_dict(gang: GangView) -> dict[str, Any]:
    return {"decision": gang.decision, "reserving": gang.reserving, "style": gang.style,
            "timeoutSeconds": gang.timeout_seconds, "timesOutAt": gang.times_out_at, "blocker": gang.blocker or None,
            "groups": [{"name": g.name, "minMember": g.min_member, "minResource": exact(g.min_resource),
                        "allocated": g.allocated, "pending": g.pending, "replaced": g.replaced,
                        "released": g.released} for g in gang.groups]}


def render_pods(explanations: list[Explanation], fmt: str, out: TextIO) -> None:
    """Several pods (-l): one after another in a table, a list in json/yaml (none: nothing in a table, the cli
    says why on stderr)."""
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, [pod_contract(e) for e in explanations], fmt)
        return
    for index, explanation in enumerate(explanations):
        if index:
            out.write("\n")
        render_pod(explanation, fmt, out)


def render_pod(e: Explanation, fmt: str, out: TextIO) -> None:
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, pod_contract(e), fmt)
        return
    with _prose(out) as out:
        _pod_text(e, out, fmt == "wide")


class _TerminalBuffer(io.StringIO):
    """What is written for a terminal, held to wrap its prose: tables in it still see the terminal's width."""

    def isatty(self) -> bool:
        return True


@contextmanager
def _prose(out: TextIO) -> Iterator[TextIO]:
    """A text to write whose prose lines wrap on a terminal (console.write_prose); into a pipe, as written."""
    from kqctl.render.console import terminal_width, write_prose

    if terminal_width(out) is None:
        yield out
        return
    buffer = _TerminalBuffer()
    yield buffer
    write_prose(out, buffer.getvalue())


def _pod_text(e: Explanation, out: TextIO, wide: bool = False) -> None:
    pod = e.pod
    where = f" on {pod.node} (allocation #{pod.order} of the simulation)" if pod.order else \
        (f" on {pod.node}" if pod.node else "")
    out.write(f"Pod {pod.key}: {pod.state}{where} (at the end of the simulation)\n")
    out.write(f"  application {pod.app_id}, priority {pod.priority} (YK-P1), request {full(pod.resource)}\n")
    if pod.state == "Pending":
        # recorded when YuniKorn last tried the pod; the sections below show the end of the simulation
        out.write(f"  when last tried: {pod.reason}\n")
        if pod.inadmissible:
            out.write(f"  it can never get in as configured (inadmissible): {pod.inadmissible}\n")
    elif pod.state not in ("Running", "Allocated"):
        out.write(f"  {pod.reason}\n")
    _write_placement(out, e)
    if pod.state == "Rejected" and "task group request" in pod.reason:
        where = e.placement.queue if e.placement is not None and e.placement.queue else "the queue"
        out.write(f"\nGang application (YK-V28, YK-G7): {where} takes an application with task groups only when it "
                  "sorts its applications fifo and the smallest max on its path below root holds all its "
                  "placeholders\n")
    if e.gang is not None:
        _write_gang(out, e.gang, e)
    if not pod.queue:
        _write_suggestions(out, e)
        return
    waiting = any(not row.ok for row in e.apps)
    state_note = {"Accepted": " (placed; none of its pods runs yet" + (", and maxapplications stops it from starting, "
                                                                       "YK-G1)" if waiting else ")"),
                  "Running": " (at least one of its pods runs: maxapplications no longer applies)"}.get(e.app_state, "")
    if e.app_state == "Accepted" and e.gang is not None and any(g.allocated for g in e.gang.groups):
        state_note = (" (a gang reserving: it runs once every placeholder is allocated, and counts against "
                      "maxapplications already, YK-G1)")
    out.write(f"\nApplication {pod.app_id}: {e.app_state}{state_note}\n")
    for row in e.apps:
        if row.max:
            mark = "ok" if row.ok else "FULL"
            out.write(f"  {row.queue}: {row.running} running of maxapplications {row.max} ({mark})\n")
    out.write("\n")
    _write_chain(out, e.chain, wide)
    _write_levels(out, e.levels, {c.path for c in e.chain})
    _write_position(out, e, wide)
    _write_limits(out, e)
    _write_headroom(out, e, wide)
    if e.nodes:
        out.write(f"\nNodes: {e.nodes}\n")
    _write_preemption(out, e)
    _write_suggestions(out, e)


def _write_gang(out: TextIO, gang: GangView, e: Explanation) -> None:
    """YK-GANG-1..5: the application's task groups, its placeholders, and what its timeout will do."""
    from kqctl.render.console import write_wrapped

    write_wrapped(out, f"\nGang scheduling (YK-GANG-1): {gang.decision}")
    for g in gang.groups:
        counts = ", ".join(f"{n} {word}" for n, word in ((g.allocated, "allocated"), (g.pending, "pending"),
                                                         (g.replaced, "replaced"), (g.released, "released")) if n)
        write_wrapped(out, f"task group {g.name}: minMember {g.min_member} of {full(g.min_resource)}; placeholders: "
                           f"{counts or 'none'}", "  ", "    ")
    if gang.reserving:
        waits = f"; the gang waits for {gang.blocker}, explained below" if gang.blocker else ""
        write_wrapped(out, f"the shim sends the real pods once every task group has its placeholders allocated "
                           f"(YK-GANG-2){waits}", "  ", "    ")
    elif any(g.allocated or g.replaced or g.released or g.pending for g in gang.groups):
        write_wrapped(out, "the reservation is over (every task group had its placeholders, or one was released): "
                           "the shim sent the real pods (YK-GANG-2)", "  ", "    ")
    elif e.pod.task_group and not e.pod.placeholder and e.pod.state == "Pending":
        write_wrapped(out, "a real pod of a task group with placeholders left only takes a placeholder's place "
                           "(YK-GANG-3, YK-GANG-4)", "  ", "    ")
    then = {"Hard": "the application fails (its pods not yet allocated are Failed)",
            "Soft": "every placeholder is released and the application runs as an ordinary one"}[gang.style]
    if gang.times_out_at is not None:
        # the moment is in -o json (timesOutAt); the text stays the same whatever --now is
        write_wrapped(out, f"placeholder timeout {_duration(gang.timeout_seconds)} from the first placeholder "
                           f"allocation (here: {_duration(gang.timeout_seconds)} after --now): the placeholders no "
                           f"real pod replaced are then released; if they were not all allocated by then, "
                           f"{gang.style}: {then} (YK-GANG-5; kqctl replay follows it in time)", "  ", "    ")


def _duration(seconds: int) -> str:
    minutes, rest = divmod(seconds, 60)
    return f"{minutes}m{rest}s" if minutes and rest else f"{minutes}m" if minutes else f"{rest}s"


def _write_placement(out: TextIO, e: Explanation) -> None:
    placement = e.placement
    asked = e.requested_queue or "no queue"
    out.write(f"\nPlacement (YK-PL): the pod asks for {asked}\n")
    if placement is None:
        return
    for i, step in enumerate(placement.steps, start=1):
        result = f" -> {step.result}" if step.result else ""
        out.write(f"  {i}. {step.rule}{result}: {step.outcome}\n")
    if placement.queue:
        out.write(f"  placed in {placement.queue}\n")
    else:
        out.write(f"  rejected: {placement.error}\n")
    if e.missing_queue is not None:
        out.write(f"  the pod's {e.missing_queue.describe()}\n")


def _write_position(out: TextIO, e: Explanation, wide: bool) -> None:
    if not e.position:
        return
    out.write(f"\nApplications of {e.pod.queue} in order (YK-S2, {e.sort_policy}; an application's priority is its "
              "highest pending pod's, YK-P2, MIN when nothing is pending):\n")
    table = Table((Column("#", right=True), Column("Application"), Column("Priority", right=True),
                   Column("Using", wrap=True), Column("", wrap=True)))
    for i, p in enumerate(e.position, start=1):
        marks = [text for text, on in (("<- this pod's", p.this), ("tie with the next", p.tie_with_next)) if on]
        priority = "MIN" if p.priority == MIN_PRIORITY else str(p.priority)
        table.add([f"{i}.", p.app_id, priority, full(p.usage), "; ".join(marks)])
    _indent(out, table, wide)


def _write_limits(out: TextIO, e: Explanation) -> None:
    if not e.user_limits:
        return
    out.write("\nUser and group limits (YK-G2):\n")
    for b in e.user_limits:
        name = f" ({b.limit})" if b.limit else ""
        out.write(f"  {b.kind} {b.name} at {b.queue}{name}: max {full(b.max_resources)}, used {full(b.used)}, "
                  f"left {full(b.left)}\n")
    out.write(f"  headroom: {full(e.user_headroom)}\n")


def _write_headroom(out: TextIO, e: Explanation, wide: bool) -> None:
    if not e.headroom:
        return
    out.write("\nQueue headroom up the path at the end of the simulation (YK-G3: max - allocated, the smaller of the "
              "queue's and its parent's; guaranteed never gates, YK-G5; -o wide: max and allocated):\n")
    table = Table((Column("Queue"), Column("Resource"), Column("Max", right=True, wide=True),
                   Column("Allocated", right=True, wide=True), Column("Headroom", right=True),
                   Column("Ask", right=True), Column("Fits")))
    for r in e.headroom:
        table.add([r.queue, r.resource, "-" if r.max is None else amount(r.resource, r.max),
                   amount_figure(r.resource, r.allocated), "unlimited" if r.headroom is None else
                   amount_figure(r.resource, max(0, r.headroom)), amount(r.resource, r.ask), "yes" if r.fits else "NO"])
    _indent(out, table, wide)


def _write_preemption(out: TextIO, e: Explanation) -> None:
    view = e.preemption
    if view is None:
        return
    out.write("\nPreemption (YK-PREEMPT):\n")
    out.write(f"  {view.verdict}\n")
    if view.enabled and view.fence:
        out.write(f"  victims are searched below {view.fence}; eligible: "
                  f"{', '.join(view.victims) if view.victims else 'none'}\n")
        out.write(f"  remaining guaranteed of the queue: {full(view.remaining_guaranteed)}\n")


def _write_suggestions(out: TextIO, e: Explanation) -> None:
    if e.pod.state in ("Running", "Allocated"):
        return
    out.write("\nWhat would let it run (each the smallest change that does, checked by simulating again with it):\n")
    if not e.suggestions:
        out.write("  nothing kqctl tried (a max, a user or group limit, maxapplications, an offset, a fence, one more "
                  "node) is enough alone\n")
    for s in e.suggestions:
        out.write(f"  - {s.change}: it would then be {s.outcome}\n")
