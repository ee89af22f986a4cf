"""A Volcano explanation as text (gate by gate, with the arithmetic) and as json/yaml (README contract)."""

from __future__ import annotations

from typing import Any, TextIO

from kqctl.render.columns import Column, Table, format_lines
from kqctl.volcano.api.resource import CPU, MEMORY, Amount, Resource
from kqctl.volcano.engine.explain import Explanation
from kqctl.volcano.engine.trace import Note
from kqctl.volcano.render.simulation import resources
from kqctl.volcano.render.units import display, display_figure, ratio

FORMATS = ("table", "json", "yaml")

# Where each gate sits in Volcano's session, for people.
GATE_WHERE = {
    "podgroup-missing": "the scheduler's cache", "queue-missing": "the scheduler's cache",
    "queue-closed": "queue state, VC-QUEUE-STATE-1", "job-invalid": "gang (JobValid)",
    "hierarchy": "capacity (hierarchy)", "overcommit": "enqueue: overcommit", "queue-quota": "enqueue: queue quota",
    "overused": "allocate: overused queue", "allocatable": "allocate: queue quota", "no-node": "allocate: nodes",
    "gang": "allocate: gang", "reclaim": "reclaim", "preempt": "preempt", "evicted": "its controller, after eviction",
    "backfill": "best-effort pods, VC-BACKFILL-1",
}


def render_explanation(explanation: Explanation, fmt: str, out: TextIO) -> None:
    from kqctl.render.output import is_data_format, write_data

    if is_data_format(fmt):
        write_data(out, explanation_data(explanation), fmt)
    elif fmt in ("table", "wide"):
        from kqctl.render.console import write_prose

        write_prose(out, text(explanation, wide=fmt == "wide"))
    else:
        raise ValueError(f"unknown output format {fmt!r}; choose one of: {', '.join(FORMATS)}")


def _note_data(note: Note) -> dict[str, Any]:
    detail: dict[str, Any] = {}
    for key, value in note.detail.items():
        detail[key] = resources(value) if isinstance(value, Resource) else (
            str(value) if not isinstance(value, (str, int, list, type(None))) else value)
    return {"gate": note.gate, "message": note.message, "detail": detail}


def explanation_data(explanation: Explanation) -> dict[str, Any]:
    outcome = explanation.outcome
    queue = explanation.queue
    real = explanation.real_capability
    return {
        "scheduler": "volcano",
        "podGroup": explanation.key,
        "resolvedFrom": explanation.resolved_from or None,
        "queue": explanation.group.queue or None,
        "exists": not explanation.group.absent,
        "phase": outcome.phase,
        "running": explanation.running,
        "minMember": explanation.group.min_member,
        "minResources": resources(Resource.of(explanation.group.min_resources))
        if explanation.group.min_resources is not None else None,
        "pods": {pod: node or None for pod, node in outcome.pods.items()},
        "quotaPlugin": explanation.quota_plugin or None,
        "reason": {"gate": outcome.reason[0], "message": outcome.reason[1]} if outcome.reason else None,
        "neverFits": outcome.never or None,
        "gates": [_note_data(note) for note in explanation.notes],
        "gang": explanation.gang_message,
        "queueAttributes": None if queue is None else {
            "weight": queue.weight, "deserved": resources(queue.deserved), "allocated": resources(queue.allocated),
            "request": resources(queue.request), "inqueue": resources(queue.inqueue),
            "elastic": resources(queue.elastic), "realCapability": resources(queue.real_capability),
            "guarantee": resources(queue.guarantee), "capability": resources(queue.capability),
            "share": ratio(queue.share)},
        "realCapability": None if real is None else {
            "parent": real.parent, "from": resources(real.total), "othersGuarantee": resources(real.others_guarantee),
            "guarantee": resources(real.guarantee), "capability": resources(real.capability),
            "result": resources(real.result)},
        "waterFilling": [{"remaining": resources(r.remaining), "totalWeight": r.total_weight,
                          "deserved": {q: resources(d) for q, d in sorted(r.deserved.items())},
                          "met": list(r.met)} for r in explanation.rounds],
        "suggestions": [{"change": s.change, "helps": s.helps, "result": s.effect, "sideEffects": list(s.side_effects)}
                        for s in explanation.suggestions],
        "configuration": explanation.conf_source,
        "limitations": list(explanation.limitations),
    }


def text(explanation: Explanation, wide: bool = False) -> str:
    """The explanation as text; ``wide`` (-o wide): every column of its tables (by default the ones a person
    decides on, so that a line fits 80 columns)."""
    lines: list[str] = []
    outcome, group = explanation.outcome, explanation.group
    via = f" (from {explanation.resolved_from})" if explanation.resolved_from else ""
    if group.absent:
        lines.append(f"PodGroup {explanation.key}{via}: does not exist; its pods name it (annotation "
                     "scheduling.k8s.io/group-name) and wait Pending")
    else:
        lines.append(f"PodGroup {explanation.key}{via}: {outcome.phase} in queue {group.queue}, minMember "
                     f"{group.min_member}")
    placed = sum(1 for n in outcome.pods.values() if n)
    pods = ", ".join(f"{p.split('/', 1)[1]}={n or 'pending'}" for p, n in outcome.pods.items()) or "none"
    lines.append(f"  pods ({placed}/{len(outcome.pods)} bound): {pods}")
    lines.append(f"  queue plugin: {explanation.quota_plugin or 'none'}; configuration: {explanation.conf_source}")
    if explanation.running:
        lines.append("")
        lines.append("It runs: every pod is bound.")
    else:
        lines.extend(_gates(explanation))
        if outcome.never and (outcome.reason is None or outcome.reason[1] != outcome.never):
            lines.append(f"  never fits (VC-NEVER-1): it can never run as configured: {outcome.never}")
    if explanation.real_capability is not None:
        lines.extend(_real_capability(explanation, wide))
    if explanation.rounds:
        lines.extend(_rounds(explanation, wide))
    if explanation.suggestions:
        lines.append("")
        lines.append("What would let it run (each change simulated again, the smallest that works; changes that "
                     "would not help are left out):")
        for s in explanation.suggestions:
            side = f"; but {'; '.join(s.side_effects)}" if s.side_effects else ""
            lines.append(f"  - {s.change}: {s.effect}{side}")
    elif not explanation.running:
        lines.append("")
        lines.append("No change kqctl tries helps here.")
    for limitation in explanation.limitations:
        lines.append(f"not simulated: {limitation}")
    return "\n".join(lines) + "\n"


def _gates(explanation: Explanation) -> list[str]:
    lines = ["", "What stopped it (the steady-state session, gate by gate):"]
    if explanation.outcome.reason is not None and (explanation.outcome.ignored
                                                    or explanation.outcome.reason[0] in ("evicted", "backfill")):
        gate, message = explanation.outcome.reason
        lines.append(f"  {gate} ({GATE_WHERE.get(gate, gate)}): {message}")
        return lines
    if not explanation.notes and explanation.gang_message is None:
        waiting = "" if explanation.outcome.never else " (it may be waiting for resources being released)"
        lines.append(f"  no gate said no in the last session{waiting}")
    for note in explanation.notes:  # each said once (the engine's explain keeps one of a repeated answer)
        lines.append(f"  {note.gate} ({GATE_WHERE.get(note.gate, note.gate)}): {note.message}")
        table = _arithmetic(note)
        where = note.detail.get("queue")
        if table is not None and where and where != explanation.group.queue:
            lines.append(f"      at queue {where}, an ancestor of {explanation.group.queue} "
                         "(hierarchical capacity checks every queue up to root):")
        if table is not None and note.gate == "overcommit":
            lines.append(f"      idle = cluster x {_factor(note)} - used; enqueue needs min resources + inqueue "
                         "within idle:")
        if table is not None:
            lines.extend("      " + line for line in format_lines(table))
    if explanation.gang_message:
        lines.append(f"  gang condition: {explanation.gang_message}")
    return lines


def _arithmetic(note: Note) -> Table | None:
    """The numbers of a quota gate, per dimension it compared."""
    detail = note.detail
    dims = detail.get("dimensions")
    limit = detail.get("limit")
    if not dims or not isinstance(limit, Resource):
        if note.gate == "overcommit" and dims:
            table = Table((Column("Resource"), Column("Min resources", right=True), Column("Inqueue", right=True),
                           Column("Cluster", right=True), Column("Used", right=True), Column("Idle", right=True)))
            for dim in dims:
                table.add([dim, _show(detail["minResources"], dim), _show(detail["inqueue"], dim),
                           _show(detail.get("total") or Resource(), dim), _show(detail.get("used") or Resource(), dim),
                           _show(detail["idle"], dim)])
            return table
        return None
    asked: Resource = detail.get("minResources") or detail.get("request") or Resource()
    columns = [Column("Resource"), Column("Asks", right=True), Column("Allocated", right=True)]
    if "inqueue" in detail:
        columns += [Column("Inqueue", right=True), Column("Elastic", right=True)]
    names = {"realCapability": "Real capability", "deserved": "Deserved"}
    limit_name = names.get(str(detail.get("limitName")), "Limit")
    columns += [Column("Total", right=True), Column(limit_name, right=True)]
    table = Table(columns)
    for dim in dims:
        total = asked.get(dim) + detail["allocated"].get(dim)
        row = [dim, _show(asked, dim), _show(detail["allocated"], dim)]
        if "inqueue" in detail:
            total += detail["inqueue"].get(dim) - detail["elastic"].get(dim)
            row += [_show(detail["inqueue"], dim), _show(detail["elastic"], dim)]
        row += [display(dim, total), _show(limit, dim)]
        table.add(row)
    return table


def _factor(note: Note) -> str:
    """overcommit's overcommit-factor as written in the formula above its table."""
    factor = note.detail.get("factor")
    return f"{float(factor):g}" if factor is not None else "overcommit-factor"


def _show(values: Resource, dim: str) -> str:
    return display(dim, values.get(dim))


def _real_capability(explanation: Explanation, wide: bool) -> list[str]:
    """The real capability's arithmetic: by default the capability and the result; -o wide adds each term."""
    real = explanation.real_capability
    assert real is not None
    table = Table((Column("Resource"), Column("Cluster" if real.parent is None else f"{real.parent}'s real capability",
                                             right=True, wide=True),
                   Column("Others' guarantee" if real.parent is None else "Siblings' guarantee", right=True,
                          wide=True),
                   Column("Own guarantee", right=True, wide=True), Column("Capability", right=True),
                   Column("Real capability", right=True)))
    dims = [d for d in _dims(real.total, real.result) if d != "pods"]
    for dim in dims:
        capability = "unlimited" if real.capability is None or dim not in real.capability.as_dict() else \
            display(dim, real.capability.get(dim))
        table.add([dim, _show(real.total, dim), _show(real.others_guarantee, dim), _show(real.guarantee, dim),
                   capability, _show(real.result, dim)])
    title = (f"Queue {explanation.group.queue}: real capability = cluster - other queues' guarantees + its own "
             "guarantee, capped by its capability") if real.parent is None else (
        f"Queue {explanation.group.queue}: real capability = its parent {real.parent}'s real capability - its "
        "siblings' guarantees + its own guarantee, capped by its capability (inherited where unset)")
    if not wide:
        title += " (-o wide shows each term)"
    return ["", title + ":", *("  " + line for line in format_lines(table, wide=wide))]


ROUND_COLUMNS = 6  # more queues than this: only the PodGroup's own queue gets a column (-o json has all)


def _rounds(explanation: Explanation, wide: bool) -> list[str]:
    """The water-filling rounds: by default the PodGroup's own queue and how many queues take part; -o wide gives
    every queue a column (up to ROUND_COLUMNS of them)."""
    every = sorted({q for r in explanation.rounds for q in r.deserved})
    own = explanation.group.queue
    queues = every if len(every) <= ROUND_COLUMNS else [q for q in every if q == own]
    columns = [Column("Round", right=True), Column("Remaining"), Column("Weights", right=True),
               *(Column(q, wide=q != own, literal_header=True) for q in queues)]
    count_everywhere = len(queues) < len(every)
    columns.append(Column("Queues", right=True, narrow=not count_everywhere))  # in the game (met)
    table = Table(columns)
    dims = [d for d in _dims(*[d for r in explanation.rounds for d in r.deserved.values()]) if d in (CPU, MEMORY)]
    for i, r in enumerate(explanation.rounds, 1):
        cells = [str(i), _vector(r.remaining, [CPU, MEMORY]), str(r.total_weight)]
        for q in queues:
            value = r.deserved.get(q)
            cells.append("-" if value is None else _vector(value, dims) + (" (met)" if q in r.met else ""))
        cells.append(f"{len(r.deserved):,} ({len(r.met):,} met)")
        table.add(cells)
    title = "Deserved shares by the proportion plugin's water-filling (queues with jobs take part)"
    if count_everywhere:
        title += f"; {len(every):,} queues, only {own} shown (-o json has every queue)"
    elif len(every) > 1 and not wide:
        title += f"; {own} shown (-o wide: every queue)"
    return ["", title + ":", *("  " + line for line in format_lines(table, wide=wide))]


def _dims(*vectors: Resource) -> list[str]:
    names: set[str] = set()
    for vector in vectors:
        names.update(n for n, v in vector.as_dict().items() if v)
    return [CPU, MEMORY, *sorted(names - {CPU, MEMORY})]


def _vector(values: Resource, dims: list[str]) -> str:
    return ", ".join(f"{d} {display_figure(d, _value(values, d))}" for d in dims)  # deserved: computed


def _value(values: Resource, dim: str) -> Amount:
    return values.get(dim)
