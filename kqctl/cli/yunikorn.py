"""The commands' YuniKorn branch: what validate, simulate, explain, audit and convert do for YuniKorn inputs.

The shared command modules dispatch here once they know the input is YuniKorn's (``--scheduler yunikorn``,
its ConfigMaps or queues.yaml, or pods with ``schedulerName: yunikorn``).
"""

from __future__ import annotations

import os
import sys
from datetime import datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kqctl.cli.fail_on import Ending
    from kqctl.cli.progress import Progress
    from kqctl.load.objects import LoadResult
    from kqctl.render.columns import TableOptions
    from kqctl.validate.report import ValidationReport
    from kqctl.yunikorn.api.snapshot import Snapshot
    from kqctl.yunikorn.engine.simulation import SimulationResult


def add_empty_configurations(report: ValidationReport, paths: list[str], recursive: bool) -> None:
    """Files that hold no YAML document at all are empty queues.yaml files under --scheduler yunikorn: YuniKorn
    takes zero bytes as its built-in default (V27) and blank or comment-only text as no partitions (V27b)."""
    from kqctl.errors import InputError
    from kqctl.load.sources import expand_paths, read_source
    from kqctl.origin import Origin
    from kqctl.validate.report import DocumentReport
    from kqctl.yunikorn.kinds import QUEUES_CONFIG
    from kqctl.yunikorn.validate.checks import check_config_text

    seen = {doc.origin.file for doc in report.documents}
    for name in expand_paths(paths, recursive):
        if name == "-" or name in seen:
            continue
        try:
            text = read_source(name).data.decode("utf-8")
        except (InputError, UnicodeDecodeError):
            continue  # reported by the loader
        if text.strip() and not _only_comments(text):
            continue
        check = check_config_text(text)
        report.documents.append(DocumentReport(Origin(name, 0, 1), "", QUEUES_CONFIG.kind, None,
                                               os.path.basename(name), list(check.findings), check.effective))


def queues_yaml_syntax_errors(report: ValidationReport, unreadable: list[str], forced: bool) -> list[str]:
    """A file that is not YAML and reads as a bare queues.yaml (under --scheduler yunikorn, or whose top-level keys
    are YuniKorn's) is YuniKorn's YK-PARSE, as the same text inside a ConfigMap is: one located finding, exit 1,
    not an unreadable input. Returns the inputs that stay unreadable."""
    import re

    from kqctl.errors import InputError
    from kqctl.load.sources import read_source
    from kqctl.validate.report import DocumentReport
    from kqctl.yunikorn.kinds import QUEUES_CONFIG, recognise
    from kqctl.yunikorn.validate.checks import check_config_text

    remaining = list(unreadable)
    for index, document in enumerate(report.documents):
        if not document.findings or document.findings[0].rule_id != "LOAD-UNREADABLE" or document.origin.file == "-":
            continue
        try:
            text = read_source(document.origin.file).data.decode("utf-8")
        except (InputError, UnicodeDecodeError, OSError):
            continue
        keys = re.findall(r"^([A-Za-z_][\w.-]*)\s*:", text, flags=re.MULTILINE)
        if not forced and (not keys or recognise(dict.fromkeys(keys)) is not QUEUES_CONFIG):
            continue
        check = check_config_text(text)
        if not any(f.rule_id == "YK-PARSE" for f in check.findings):
            continue
        report.documents[index] = DocumentReport(document.origin, "", QUEUES_CONFIG.kind, None,
                                                 os.path.basename(document.origin.file), list(check.findings),
                                                 check.effective)
        remaining = [p for p in remaining if not p.startswith(f"{document.origin.file}:")]
    return remaining


def _only_comments(text: str) -> bool:
    return all(not line.strip() or line.lstrip().startswith("#") for line in text.splitlines())


def yunikorn_snapshot(inputs: LoadResult, now: datetime | None) -> Snapshot:
    """The inputs as a YuniKorn snapshot; a configuration YuniKorn refuses is a located input error."""
    from kqctl.yunikorn.load import build_snapshot

    return build_snapshot(inputs, now)


def simulate_yunikorn(inputs: LoadResult, now: datetime | None, cycles: int | None, output: str, namespace: str | None,
                      selector: str | None, kueue_only: list[str], failing_states: set[str], view: TableOptions,
                      progress: Progress) -> None:
    """``kqctl simulate`` for YuniKorn: cycles until nothing more can be allocated (or --cycles N)."""
    import typer

    from kqctl.errors import EXIT_FINDINGS, EXIT_OK, UsageError
    from kqctl.yunikorn.render.simulation import render_simulation

    if kueue_only:
        raise UsageError(f"{' and '.join(kueue_only)} apply to Kueue only (the input is YuniKorn's)")
    snapshot = yunikorn_snapshot(inputs, now)
    progress.step(f"kqctl: simulating {len(snapshot.pods):,} YuniKorn pods...", len(inputs.objects))
    result = run_simulation(snapshot, cycles)
    progress.done()
    from kqctl.cli import options
    from kqctl.yunikorn.render.simulation import pod_filter

    shown_pods = pod_filter(namespace, None, selector)  # --fail-on asks about the pods -n and -l show
    if not options.note_namespace(namespace, (pod.namespace for pod in snapshot.pods), "pod"):
        options.note_selector(selector, namespace, map(shown_pods, result.pods), "pod")
    try:
        render_simulation(result, output, sys.stdout, namespace=namespace, view=view, selector=selector)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    from kqctl.cli import fail_on

    by_key = {pod.key: pod for pod in result.pods}
    failing = fail_on.failing(endings(result), failing_states, lambda key: shown_pods(by_key[key]))
    raise typer.Exit(EXIT_FINDINGS if fail_on.report(failing, failing_states, "pod(s)") else EXIT_OK)


def endings(result: SimulationResult) -> list[Ending]:
    """YuniKorn's pod states in --fail-on's terms (README, "--fail-on"), as the engine works them out for each pod
    (kqctl.yunikorn.engine.inadmissible: Rejected, or a Pending pod that can never fit as configured, is
    inadmissible; a victim is preempted; Running and Allocated pods run)."""
    from kqctl.cli.fail_on import Ending

    return [Ending(pod.key, "pending" not in pod.fail_on, "inadmissible" in pod.fail_on, "preempted" in pod.fail_on)
            for pod in result.pods]


def run_simulation(snapshot: Snapshot, cycles: int | None = None) -> SimulationResult:
    """The engine on a snapshot; a partition YuniKorn could not build is an input error naming why."""
    from kqctl.errors import InputError
    from kqctl.yunikorn.engine.partition import PartitionError
    from kqctl.yunikorn.engine.simulation import MAX_CYCLES, simulate

    try:
        return simulate(snapshot, cycles or MAX_CYCLES)
    except PartitionError as exc:
        where = snapshot.config.origin
        raise InputError(where.file if where else snapshot.config.description, str(exc),
                         where.line if where else None) from None


def explain_yunikorn(inputs: LoadResult, now: datetime | None, pod: str | None, queue: str | None,
                     namespace: str | None, output: str, selector: str | None = None) -> None:
    """``kqctl explain`` for YuniKorn: a queue (--queue), a pod (NAMESPACE/NAME, or NAME with -n), or with -l every
    pod whose labels match (and in -n) that is pending or rejected at the end of the simulation."""
    import typer

    from kqctl.errors import EXIT_OK, InputError, UsageError
    from kqctl.yunikorn.engine.partition import PartitionError, build_partition
    from kqctl.yunikorn.engine.priority import queue_report
    from kqctl.yunikorn.render.explain import render_pod, render_queue

    snapshot = yunikorn_snapshot(inputs, now)
    try:
        if queue is not None:
            partition = build_partition(snapshot)
            try:
                report = queue_report(partition, queue)
            except KeyError:
                raise UsageError(_unknown_queue(queue, [q.path for q in partition.tree.queues()])) from None
            render_queue(report, output, sys.stdout)
            raise typer.Exit(EXIT_OK)
        if selector is not None:
            _explain_selected(snapshot, selector, namespace, output)
            raise typer.Exit(EXIT_OK)
        if pod is None:
            raise UsageError("name a pod (namespace/name) or a queue (--queue root.a.b)")
        key = pod if "/" in pod else f"{namespace or 'default'}/{pod}"
        explanation = _explain_pod(snapshot, key, pod)
    except PartitionError as exc:
        where = snapshot.config.origin
        raise InputError(where.file if where else snapshot.config.description, str(exc),
                         where.line if where else None) from None
    render_pod(explanation, output, sys.stdout)
    raise typer.Exit(EXIT_OK)


def _explain_selected(snapshot: Snapshot, selector: str, namespace: str | None, output: str) -> None:
    import copy

    from kqctl.cli import options
    from kqctl.yunikorn.engine.explain import explain_pod
    from kqctl.yunikorn.engine.simulation import PENDING, REJECTED_STATE
    from kqctl.yunikorn.render.explain import render_pods
    from kqctl.yunikorn.render.simulation import pod_filter

    keep = pod_filter(namespace, None, selector)
    result = run_simulation(copy.deepcopy(snapshot))
    keys = [p.key for p in result.pods if p.state in (PENDING, REJECTED_STATE) and keep(p)]
    render_pods([explain_pod(copy.deepcopy(snapshot), key) for key in keys], output, sys.stdout)
    if not keys:  # on stderr, as kubectl's "No resources found": stdout stays the (empty) result
        options.note_namespace(namespace, (pod.namespace for pod in snapshot.pods), "pod")
        sys.stderr.write("kqctl: no pod matches that is pending or rejected at the end of the simulation\n")


def _explain_pod(snapshot: Snapshot, key: str, written: str):  # type: ignore[no-untyped-def]
    from kqctl.errors import UsageError
    from kqctl.yunikorn.engine.explain import UnknownPod, explain_pod

    try:
        return explain_pod(snapshot, key)
    except UnknownPod as exc:
        import difflib

        if _names_a_queue(snapshot, written):  # `kqctl explain root.a PATH`: a queue is explained with --queue
            raise UsageError(f"no YuniKorn pod {key} in the inputs; {written} is a queue: "
                             f"kqctl explain --queue {written} PATH...") from None
        known = sorted(exc.known or {p.key for p in snapshot.pods})  # the gangs' placeholders too (YK-GANG-1)
        close = difflib.get_close_matches(key, known, n=3)
        hint = f"; did you mean {', '.join(close)}?" if close else (
            f"; the YuniKorn pods are: {', '.join(known[:10])}{' ...' if len(known) > 10 else ''}" if known else
            "; the inputs hold no pod with schedulerName: yunikorn")
        raise UsageError(f"no YuniKorn pod {key} in the inputs{hint}") from None


def _names_a_queue(snapshot: Snapshot, written: str) -> bool:
    from kqctl.yunikorn.engine.partition import PartitionError, build_partition

    if "/" in written or not written.lower().startswith("root"):
        return False
    try:
        return any(q.path == written.lower() for q in build_partition(snapshot).tree.queues())
    except PartitionError:
        return False


def _unknown_queue(queue: str, known: list[str]) -> str:
    import difflib

    close = difflib.get_close_matches(queue.lower(), known, n=3)
    return f"no queue {queue}" + (f"; did you mean {', '.join(close)}?" if close else
                                 f"; the queues are: {', '.join(known[:15])}")


def audit_yunikorn(inputs: LoadResult, output: str, plot: str | None, headers: bool,
                   sort_by: str | None = None, namespace: str | None = None, limit: int | None = None) -> None:
    """``kqctl audit`` for YuniKorn: the queue tree per resource type and its findings; --plot FILE.svg|.png."""
    import typer

    from kqctl.cli.charts import write_chart_file
    from kqctl.errors import EXIT_OK, UsageError
    from kqctl.yunikorn.engine.audit import audit, for_namespace
    from kqctl.yunikorn.render.audit import quota_chart, render_audit

    snapshot = yunikorn_snapshot(inputs, None)
    report = _partition_errors(lambda: audit(snapshot), snapshot)
    if namespace is not None:
        from kqctl.cli import options

        options.note_namespace(namespace, report.namespaces, "pod")
        report = for_namespace(report, namespace)
    try:
        render_audit(report, output, sys.stdout, headers=headers, sort_by=sort_by, limit=limit)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if plot is not None:
        write_chart_file(quota_chart(report), plot)
    raise typer.Exit(EXIT_OK)


def _partition_errors(build, snapshot: Snapshot):  # type: ignore[no-untyped-def]
    """Run ``build``; a partition YuniKorn could not build is an input error naming the configuration."""
    from kqctl.errors import InputError
    from kqctl.yunikorn.engine.partition import PartitionError

    try:
        return build()
    except PartitionError as exc:
        where = snapshot.config.origin
        raise InputError(where.file if where else snapshot.config.description, str(exc),
                         where.line if where else None) from None


def _cluster_capacity(result: LoadResult) -> dict[str, int] | None:
    """Every node's allocatable in all, as YuniKorn's root queue holds it (None: no Node in the inputs)."""
    from kqctl.k8s.core import total_allocatable
    from kqctl.yunikorn.load import node_info

    return total_allocatable(node_info(obj).capacity for obj in result.objects
                             if obj.kind == "Node" and isinstance(obj.body, dict))


def _pod_queues(result: LoadResult) -> list[tuple[str, str]]:
    """(namespace, queue named) of every YuniKorn pod of the inputs that names a queue."""
    from kqctl.yunikorn.kinds import is_yunikorn_pod
    from kqctl.yunikorn.load import queue_name

    found = []
    for obj in result.objects:
        if obj.kind != "Pod" or not isinstance(obj.body, dict) or not is_yunikorn_pod(obj.body):
            continue
        labels, notes = obj.metadata.get("labels"), obj.metadata.get("annotations")
        queue = queue_name({str(k): str(v) for k, v in (labels.items() if isinstance(labels, dict) else ())},
                           {str(k): str(v) for k, v in (notes.items() if isinstance(notes, dict) else ())})
        if queue:
            found.append((obj.namespace or "default", queue))
    return found


def convert_to_kueue(paths: list[str], recursive: bool, output: str) -> None:
    """``kqctl convert --to kueue``: the YuniKorn configuration of the inputs as Kueue objects on stdout, what
    cannot carry over on stderr. Exit 3 when the inputs hold no YuniKorn configuration or it does not decode."""
    import typer

    from kqctl.cli.schedulers import kinds_for
    from kqctl.errors import EXIT_OK, InputError
    from kqctl.load.objects import load_paths
    from kqctl.yunikorn.convert import to_kueue
    from kqctl.yunikorn.load import config_source

    result = load_paths(kinds_for("yunikorn"), paths, recursive=recursive)
    if result.unreadable:
        raise result.unreadable[0]
    source = config_source([obj for obj in result.objects if obj.info is not None])
    parsed = source.parsed
    if source.builtin:
        raise InputError(", ".join(paths), "no YuniKorn queues.yaml or ConfigMap yunikorn-configs in the inputs, and "
                         "no Volcano Queue: --to kueue converts those")
    if parsed.config is None or parsed.errors or parsed.syntax is not None:
        raise InputError(source.description, "the queue configuration does not decode (kqctl validate shows where)")
    from kqctl.yunikorn.api.configvalidator import ConfigValidator

    ConfigValidator().validate(parsed.config)  # YuniKorn's normal form: root inserted, partition names
    documents, losses = to_kueue(parsed.config, _pod_queues(result), _cluster_capacity(result))
    for loss in losses:
        where = f"{loss.queue}: " if loss.queue else ""
        sys.stderr.write(f"kqctl: not carried over: {where}{loss.what}\n")
    from kqctl.render.output import write_manifests

    write_manifests(sys.stdout, documents, output, single=False)
    raise typer.Exit(EXIT_OK)
