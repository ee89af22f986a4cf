"""Volcano simulation results as tables and as the json/yaml contract (README "Volcano: simulate -o json")."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, TextIO

from kqctl.render.columns import Column, Table, TableOptions, write_limited
from kqctl.volcano.api.resource import Resource
from kqctl.volcano.engine.drf import HdrfLevel
from kqctl.volcano.engine.report import QueueReport
from kqctl.volcano.engine.simulation import GroupOutcome, SimulationResult
from kqctl.volcano.render.units import display, display_figure, quantity, ratio

FORMATS = ("table", "wide", "name", "json", "yaml")
CONTRACT_VERSION = 1


def render_simulation(result: SimulationResult, fmt: str, out: TextIO, namespace: str | None = None,
                      selector: str | None = None, table: TableOptions | None = None) -> None:
    from kqctl.render.output import is_data_format, write_data

    keep = group_filter(result, namespace, selector)
    view = table or TableOptions()
    if is_data_format(fmt):
        write_data(out, contract(result, keep), fmt, rows="podGroups", sort_by=view.sort_by, headers=view.headers)
    elif fmt == "name":
        for key, outcome in result.groups.items():
            if keep(outcome):
                out.write(f"podgroup.scheduling.volcano.sh/{key.split('/', 1)[1]}\n")
    elif fmt in ("table", "wide"):
        render_tables(result, out, keep, replace(view, wide=view.wide or fmt == "wide"))
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def group_filter(result: SimulationResult, namespace: str | None,
                 selector: str | None) -> Callable[[GroupOutcome], bool]:
    from kqctl.k8s.selectors import parse_label_selector, selector_matches

    parsed = parse_label_selector(selector) if selector else None

    def keep(outcome: GroupOutcome) -> bool:
        if namespace is not None and outcome.namespace != namespace:
            return False
        return parsed is None or selector_matches(parsed, dict(outcome.labels))

    return keep


# --- json / yaml ---------------------------------------------------------------------------------------------


def resources(values: Resource | None) -> dict[str, str] | None:
    if values is None:
        return None
    return {name: quantity(name, amount) for name, amount in sorted(values.as_dict().items())}


def queue_data(report: QueueReport) -> dict[str, Any]:
    return {
        "parent": report.parent or None,
        "state": report.state,
        "stateAssumed": report.state_assumed,
        "weight": report.weight,
        "priority": report.priority,
        "reclaimable": report.reclaimable,
        "capability": resources(report.capability),
        "guarantee": resources(report.guarantee),
        "deserved": resources(report.deserved),
        "realCapability": resources(report.real_capability),
        "allocated": resources(report.allocated),
        "request": resources(report.request),
        "inqueue": resources(report.inqueue),
        "share": ratio(report.share) if report.share is not None else None,
        "podGroups": dict(sorted(report.phases.items())),
        "children": list(report.children),
        "hierarchy": report.hierarchy or None,
        "hdrf": hdrf_data(report.hdrf) if report.hdrf is not None else None,
    }


def hdrf_data(level: HdrfLevel) -> dict[str, Any]:
    """One level of the HDRF tree: share and share/weight are float64 ratios as drf.go keeps them (rounded to
    six places here); the allocation is the rescaled one its share is the dominant share of."""
    return {"path": level.path, "weight": _number(level.weight), "share": round(level.share, 6),
            "shareOverWeight": round(level.weighted_share, 6), "saturated": level.saturated,
            "allocated": {name: quantity(name, value) for name, value in sorted(level.allocated.items())}}


def _number(value: float) -> int | float:
    return int(value) if value.is_integer() else value


def group_data(outcome: GroupOutcome) -> dict[str, Any]:
    return {
        "queue": outcome.queue or None,
        "phase": outcome.phase,
        "startPhase": outcome.start_phase,
        "minMember": outcome.min_member,
        "pods": {pod: node or None for pod, node in outcome.pods.items()},
        "bound": dict(outcome.bound),
        "pipelined": dict(outcome.pipelined),
        "evictions": [{"pod": e.pod, "session": e.session, "reclaimer": e.by} for e in outcome.evicted],
        "reason": {"gate": outcome.reason[0], "message": outcome.reason[1]} if outcome.reason else None,
        "ignored": outcome.ignored,
        "neverFits": outcome.never or None,
    }


def contract(result: SimulationResult, keep: Callable[[GroupOutcome], bool] | None = None) -> dict[str, Any]:
    outcomes = {k: o for k, o in result.groups.items() if keep is None or keep(o)}
    conf = result.configuration
    binds = {pod: node for o in outcomes.values() for pod, node in o.bound.items()}
    return {
        "scheduler": "volcano",
        "contractVersion": CONTRACT_VERSION,
        "sessions": result.sessions,
        "stopReason": result.stop_reason,
        "quotaPlugin": result.quota_plugin or None,
        "configuration": {"source": conf.source, "actions": list(conf.actions),
                          "tiers": [list(tier) for tier in conf.tiers]},
        "queues": {r.name: queue_data(r) for r in result.queues},
        "podGroups": {key: group_data(o) for key, o in outcomes.items()},
        "binds": dict(sorted(binds.items())),
        "bindCount": len(binds),
        "pipelined": {pod: node for o in outcomes.values() for pod, node in o.pipelined.items()},
        "evictions": [{"pod": e.pod, "session": e.session, "reclaimer": e.by} for e in result.evictions
                      if e.group in outcomes],
        "livelock": None if result.livelock is None else {
            "sessions": list(result.livelock.sessions), "pods": list(result.livelock.pods)},
        "hierarchyBroken": result.hierarchy_broken or None,
        "hdrf": [hdrf_data(level) for level in result.hdrf],
        "notes": list(result.notes),
        "limitations": list(result.limitations),
        "warnings": list(result.warnings),
    }


# --- tables ----------------------------------------------------------------------------------------------------

# The default view: what people decide on, so that a row fits 80 columns; -o wide adds the rest.
_QUEUE_COLUMNS = (
    Column("Queue"), Column("State", wide=True), Column("Weight", right=True), Column("Resource"),
    Column("Capability", right=True, wide=True), Column("Guarantee", right=True, wide=True),
    Column("Deserved", right=True), Column("Real cap", right=True, wide=True), Column("Allocated", right=True),
    Column("Inqueue", right=True), Column("Share", right=True), Column("Parent", wide=True),
    Column("Priority", right=True, wide=True), Column("PodGroups", wide=True),
)
_GROUP_COLUMNS = (
    Column("PodGroup"), Column("Queue"), Column("Phase"), Column("Min", right=True, wide=True),
    Column("Bound", right=True), Column("Nodes", wide=True), Column("Evicted", right=True),
    Column("Reason", wrap=True), Column("Pods", wide=True),
)


def queue_table(rows: list[QueueReport], shown: set[str]) -> Table:
    """One row per queue and resource (every row names its queue, so it can be grepped)."""
    table = Table(_QUEUE_COLUMNS)
    for report in rows:
        if report.name not in shown:
            continue
        state = report.state + ("*" if report.state_assumed and not report.implicit else "")
        groups = ", ".join(f"{n} {p}" for p, n in sorted(report.phases.items())) or "-"
        for name in report.dimensions():
            table.add([report.name, state, str(report.weight), name,
                       _cell(report.capability, name, "unlimited"), _cell(report.guarantee, name, "-"),
                       _cell(report.deserved, name, "-", True), _cell(report.real_capability, name, "-", True),
                       _cell(report.allocated, name, "0", True), _cell(report.inqueue, name, "0", True),
                       share_cell(report),
                       report.parent or "-", str(report.priority), groups])
    return table


def share_cell(report: QueueReport) -> str:
    """The queue plugin's share; with hierarchical DRF alone, the HDRF share of the queue's level (the one SHARE
    cell simulate's and audit's tables show)."""
    if report.share is not None:
        return ratio(report.share)
    if report.hdrf is not None:
        return _float_ratio(report.hdrf.share)
    return "-"


def _float_ratio(value: float) -> str:
    return f"{value:.3f}".rstrip("0").rstrip(".") if value else "0"


def hdrf_table(levels: tuple[HdrfLevel, ...], queues: tuple[QueueReport, ...]) -> Table:
    """The HDRF tree level by level: what queue order compares (saturated last, then share/weight)."""
    by_path: dict[str, list[str]] = {}
    for report in queues:
        if report.hdrf is not None:
            by_path.setdefault(report.hdrf.path, []).append(report.name)
    table = Table((Column("Hierarchy"), Column("Queues"), Column("Weight", right=True), Column("Share", right=True),
                   Column("Share/weight", right=True), Column("Saturated")))
    for level in levels:
        depth = level.path.count("/")
        name = "  " * depth + level.path.rsplit("/", 1)[-1]
        table.add([name, ", ".join(sorted(by_path.get(level.path, ()))) or "-", f"{_number(level.weight):g}",
                   _float_ratio(level.share), _float_ratio(level.weighted_share),
                   "yes" if level.saturated else "no"])
    return table


def _cell(values: Resource | None, name: str, missing: str, figure: bool = False) -> str:
    """A set amount exact, a computed one (``figure``) rounded for reading (kqctl.k8s.units)."""
    if values is None:
        return missing
    amount = values.as_dict().get(name)
    if amount is None:
        return "unlimited" if missing == "unlimited" else ("0" if missing == "0" else "-")
    return display_figure(name, amount) if figure else display(name, amount)


def group_table(outcomes: list[GroupOutcome]) -> Table:
    table = Table(_GROUP_COLUMNS)
    for o in outcomes:
        placed = [node for node in o.pods.values() if node]
        nodes = sorted(set(placed))
        node_text = ", ".join(nodes) if len(nodes) <= 3 else f"{', '.join(nodes[:3])} +{len(nodes) - 3}"
        reason = o.reason[0] if o.reason is not None else "never-fits" if o.never else "-"
        pods = ", ".join(_pod_cell(p, n, o.pipelined.get(p)) for p, n in o.pods.items()) or "-"
        style = None if o.phase in ("Running", "Completed") else "yellow"
        table.add([o.key, o.queue or "-", o.phase, str(o.min_member), f"{len(placed)}/{len(o.pods)}", node_text or "-",
                   str(len(o.evicted)) if o.evicted else "-", reason, pods],
                  [None, None, style, None, None, None, None, None, None], item={"name": o.key, **group_data(o)})
    return table


def _pod_cell(pod: str, node: str, pipelined: str | None) -> str:
    """``name=node``; a pod pipelined to a node (reserved, not bound) shows ``name=-(pipelined to node)``."""
    name = pod.split("/", 1)[1]
    if pipelined:
        return f"{name}=-(pipelined to {pipelined})"
    return f"{name}={node or '-'}"


def render_tables(result: SimulationResult, out: TextIO, keep: Callable[[GroupOutcome], bool],
                  view: TableOptions) -> None:
    from kqctl.render.columns import rich_painter, sort_rows
    from kqctl.render.console import use_color, write_wrapped

    paint = rich_painter(use_color(out, view.color))
    outcomes = [o for o in result.groups.values() if keep(o)]
    groups = group_table(outcomes)
    sort_rows(groups, view.sort_by)
    rows = list(result.queues)
    shown = {r.name for r in rows if not r.implicit or r.phases or r.name == "default" and r.allocated.names()}
    if len(outcomes) < len(result.groups):  # -n, -l: the queues of the PodGroups shown
        shown &= {o.queue for o in outcomes}
    write_limited(out, queue_table(rows, shown), view, paint, "queue rows")
    out.write("\n")
    if result.hdrf:
        out.write("Hierarchical DRF (drf enableHierarchy): queues go in the order of their levels, a saturated level "
                  "last, then the smaller share/weight; it computes no deserved amount\n")
        write_limited(out, hdrf_table(result.hdrf, result.queues), view, paint, "levels")
        out.write("\n")
    if outcomes:
        write_limited(out, groups, view, paint, "PodGroups")
    else:
        out.write("No PodGroups.\n")
    _pipelined(outcomes, out, view)
    waiting = [o for o in outcomes if o.reason is not None or o.never]
    # VC-BACKFILL-1: a PodGroup that runs can still have a reason (its best-effort pods nothing places); it is
    # not "not running", so it gets its own heading
    _reasons("Why not running:", [o for o in waiting if o.phase != "Running"], out, view)
    _reasons("Running, with pods left Pending:", [o for o in waiting if o.phase == "Running"], out, view)
    out.write("\n")
    write_wrapped(out, summary(result, outcomes))
    _footnotes(result, out)


def _reasons(heading: str, waiting: list[GroupOutcome], out: TextIO, view: TableOptions) -> None:
    """One line per PodGroup of ``waiting``: its reason and, when different, why it can never run."""
    from kqctl.render.console import write_wrapped

    if not waiting:
        return
    out.write(f"\n{heading}\n")
    listed = waiting[: view.limit or len(waiting)]
    for o in listed:
        why = o.reason[1] if o.reason is not None else ""
        never = f"can never run: {o.never}" if o.never and o.never != why else ""
        write_wrapped(out, f"{o.key}: {'; '.join(t for t in (why, never) if t)}", "  ", "    ")
    if len(listed) < len(waiting):
        out.write(f"  ... {len(waiting) - len(listed):,} more (--limit N or --show-all for more, -o json for "
                  "everything)\n")


def _pipelined(outcomes: list[GroupOutcome], out: TextIO, view: TableOptions) -> None:
    """The pods the last session pipelined: a node holds them room for the next session; none is bound."""
    pipelined = [(pod, node) for o in outcomes for pod, node in o.pipelined.items()]
    if not pipelined:
        return
    out.write("\nPipelined (a node is reserved for them in the next session; not bound yet):\n")
    listed = pipelined[: view.limit or len(pipelined)]
    for pod, node in listed:
        out.write(f"  {pod} -> {node}\n")
    if len(listed) < len(pipelined):
        out.write(f"  ... {len(pipelined) - len(listed):,} more (--limit N or --show-all for more, -o json for "
                  "everything)\n")


def summary(result: SimulationResult, outcomes: list[GroupOutcome]) -> str:
    phases: dict[str, int] = {}
    for o in outcomes:
        phases[o.phase] = phases.get(o.phase, 0) + 1
    counts = ", ".join(f"{n:,} {p}" for p, n in sorted(phases.items())) or "no PodGroups"
    binds = sum(len(o.bound) for o in outcomes)
    evicted = sum(len(o.evicted) for o in outcomes)
    pipelined = sum(len(o.pipelined) for o in outcomes)
    plugin = result.quota_plugin or "no queue plugin"
    waiting = f"{pipelined:,} pipelined, " if pipelined else ""
    return (f"{result.sessions} session(s), {result.stop_reason}, {plugin}: {binds:,} pod(s) bound, "
            f"{waiting}{evicted:,} evicted; PodGroups: {counts}")


def _footnotes(result: SimulationResult, out: TextIO) -> None:
    from kqctl.render.console import write_wrapped

    if any(r.state_assumed and not r.implicit for r in result.queues):
        write_wrapped(out, "*: no status.state in the input; taken as Open, as the queue controller sets a new queue.")
    if result.hierarchy_broken:
        write_wrapped(out, f"Hierarchical capacity refuses the whole session: {result.hierarchy_broken}")
    if result.livelock is not None:
        a, b = result.livelock.sessions
        write_wrapped(out, f"Livelock: the state after session {b} repeats the one after session {a}; "
                      f"{', '.join(result.livelock.pods)} are evicted and bound again and again.")
    for note in result.notes:
        write_wrapped(out, f"note: {note}")
    for limitation in result.limitations:
        write_wrapped(out, f"not simulated: {limitation}")
    for warning in result.warnings:
        write_wrapped(out, f"warning: {warning}")

