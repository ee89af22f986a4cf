"""The replay, diff and plan commands' Volcano and YuniKorn branches: their inputs (files, traces, runtimes) as
each scheduler's snapshot, their options, and the rendering.

The shared commands (``kqctl replay``, ``diff``, ``plan``) call in here once they know the input is Volcano's or
YuniKorn's; Kueue's options are refused here with a usage error rather than silently ignored.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, TypeVar

import typer

from kqctl.errors import InputError, UsageError

if TYPE_CHECKING:
    from kqctl.cli.executor import Study
    from kqctl.cli.progress import Progress
    from kqctl.load.documents import Document
    from kqctl.load.objects import LoadedObject, LoadResult
    from kqctl.replay.arrival_draws import ArrivalDraw
    from kqctl.replay.durations import Distribution
    from kqctl.replay.traces import QueueCheck, TraceRow
    from kqctl.volcano.api.snapshot import Snapshot as VolcanoSnapshot
    from kqctl.yunikorn.api.snapshot import Snapshot as YuniKornSnapshot

SchedulePeriodOption = typer.Option(None, "--schedule-period", metavar="DURATION",
                                    help="Volcano: the time between two sessions (vc-scheduler's --schedule-period; "
                                         "default 1s).")


# --- option and trace parsing every replay shares (Kueue's too) ------------------------------------------------

BAR = 16  # characters of the progress bar
Parsed = TypeVar("Parsed")


def _duration(flag: str, text: str) -> int:
    from kqctl.replay.durations import DurationError, parse_duration

    try:
        value = parse_duration(text)
    except DurationError as exc:
        raise UsageError(f"{flag}: {exc}") from None
    if value < 0:
        raise UsageError(f"{flag} must not be negative")
    return value


def parse_runtime(text: str | None) -> Distribution | None:
    from kqctl.replay.durations import parse_distribution

    return _parsed("--runtime", parse_distribution, text)


def parse_arrivals_option(text: str | None) -> ArrivalDraw | None:
    from kqctl.replay.arrival_draws import parse_arrivals

    return _parsed("--arrivals", parse_arrivals, text)


def _parsed(flag: str, parse: Callable[[str], Parsed], text: str | None) -> Parsed | None:
    """An option's value as ``parse`` reads it (None when not given); what it refuses is a usage error naming
    ``flag``."""
    from kqctl.replay.durations import DurationError

    if text is None:
        return None
    try:
        return parse(text)
    except DurationError as exc:
        raise UsageError(f"{flag}: {exc}") from None


def _single_document(path: str, what: str, text: str | None = None, name: str | None = None) -> Document:
    """The one YAML document of ``path`` (or of ``text`` already read from it: stdin can be read once only)."""
    from kqctl.load.documents import decode_text, parse_documents
    from kqctl.load.sources import read_source

    if text is None or name is None:
        source = read_source(path)
        text, name = decode_text(source.data, source.name), source.name
    documents = [d for d in parse_documents(text, name) if d.body is not None]
    if len(documents) != 1:
        raise InputError(name, f"expected {what}: one YAML document, found {len(documents)}")
    return documents[0]


def is_csv(name: str, text: str) -> bool:
    """A .csv file; or, from stdin or a file named neither .yaml, .yml nor .json, a header line such as
    ``time,namespace,queue,cpu`` (YAML's first line is a list item, a mapping key or a flow collection)."""
    lowered = name.lower()
    if lowered.endswith(".csv"):
        return True
    if lowered.endswith((".yaml", ".yml", ".json")):
        return False
    first = next((line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")), "")
    return "," in first and ":" not in first and not first.startswith(("-", "[", "{"))


@dataclass(frozen=True)
class TimeSettings:
    """The replay options Volcano and YuniKorn share (Kueue's own ones are refused before)."""

    runtime: Distribution | None
    finish_latency: int  # ms
    until: int | None  # ms
    seed: int
    start: datetime
    period: int | None  # ms: Volcano's --schedule-period (None: its default)
    arrivals: ArrivalDraw | None = None  # --arrivals (None: as dated)


def settings(runtime: str | None, finish_latency: str, until: str | None, seed: int, now: str | None,
             schedule_period: str | None, arrivals: str | None = None) -> TimeSettings:
    from kqctl.cli.simulate import parse_now

    limit = _duration("--until", until) if until is not None else None
    if limit is not None and limit <= 0:
        raise UsageError("--until must be longer than 0")
    period = _duration("--schedule-period", schedule_period) if schedule_period is not None else None
    if period is not None and period <= 0:
        raise UsageError("--schedule-period must be longer than 0")
    return TimeSettings(parse_runtime(runtime), _duration("--finish-latency", finish_latency), limit, seed,
                        parse_now(now), period, parse_arrivals_option(arrivals))


def refuse_kueue_options(product: str, **given: object) -> None:
    """Kueue's replay options make no sense for Volcano or YuniKorn: a usage error, not a silent no-op."""
    named = [f"--{name.replace('_', '-')}" for name, value in given.items() if value not in (None, False)]
    if named:
        raise UsageError(f"{', '.join(named)} {'applies' if len(named) == 1 else 'apply'} to Kueue only; the input "
                         f"is {product}'s")


def refuse_schedule_period(product: str, period: str | None, scheduler_conf: str | None) -> None:
    if period is not None and product != "Volcano":
        raise UsageError(f"--schedule-period applies to Volcano only; the input is {product}'s (YuniKorn's "
                         "scheduling interval is service.schedulingInterval in its ConfigMaps)")
    if scheduler_conf is not None and product != "Volcano":
        raise UsageError(f"--scheduler-conf applies to Volcano only; the input is {product}'s")


# --- traces as objects ------------------------------------------------------------------------------------------


def trace_rows(paths: Iterable[str], queue_check: QueueCheck) -> list[tuple[str, list[TraceRow]]]:
    """Each trace file's rows (CSV or YAML, as Kueue's traces); an unreadable row is a located input error."""
    from kqctl.load.documents import decode_text
    from kqctl.load.sources import read_source
    from kqctl.replay.traces import TraceError, parse_csv_trace, parse_yaml_trace

    found = []
    for path in paths:
        source = read_source(path)
        text = decode_text(source.data, source.name)
        if not text.strip():
            raise InputError(source.name, "an empty trace: expected CSV with a header row (time,namespace,queue,"
                             "...) or a YAML list of arrivals")
        try:
            if is_csv(source.name, text):
                rows = parse_csv_trace(text, queue_check)
            else:
                document = _single_document(path, "a trace (CSV with a header row, or a YAML list)", text, source.name)
                body = document.body
                lines = [document.line_of((i,)) for i in range(len(body))] if isinstance(body, list) else None
                rows = parse_yaml_trace(body, lines, queue_check)
        except TraceError as exc:
            raise InputError(source.name, str(exc), line=exc.line, column=exc.column) from None
        found.append((source.name, rows))
    return found


def trace_objects(file: str, bodies: Iterable[tuple[TraceRow, dict[str, Any]]]) -> list[LoadedObject]:
    """The objects a trace submits, as if read from the trace file at the row's line (messages point there)."""
    from kqctl.cli.schedulers import ALL_KINDS
    from kqctl.load.documents import Document
    from kqctl.load.objects import objects_of
    from kqctl.origin import Origin

    found = []
    for row, body in bodies:
        found.extend(objects_of(ALL_KINDS, Document(Origin(file, 0, row.line), body)))
    return found


def _with(inputs: LoadResult, extra: list[LoadedObject]) -> LoadResult:
    """The inputs (admitted by the gate already) and the objects a trace submits, these through the gate too, as
    simulate admits its inputs: what the API server would refuse of them is refused at the trace's row, and they
    are read as it would store them (the checks across objects see them with the inputs)."""
    from kqctl.cli.options import admitted
    from kqctl.load.objects import LoadResult, mark_duplicates

    objects = [*inputs.objects, *extra]
    if not extra:
        return LoadResult(objects, inputs.unreadable, inputs.files)
    mark_duplicates(objects)
    with at_trace_rows({o.origin.file for o in extra}):
        return admitted(LoadResult(objects, inputs.unreadable, inputs.files), None)


@contextmanager
def at_trace_rows(files: set[str]) -> Iterator[None]:
    """A refusal of an object a trace submits is located at the trace's row, with no document number (a trace
    has rows, not YAML documents)."""
    try:
        yield
    except InputError as exc:
        if exc.file in files and exc.index is not None:
            raise InputError(exc.file, exc.detail, exc.line, None, exc.column) from None
        raise


def _priority_classes(inputs: LoadResult) -> dict[str, int]:
    found = {}
    for obj in inputs.objects:
        if obj.kind == "PriorityClass" and isinstance(obj.body, dict) and isinstance(obj.body.get("value"), int):
            found[str(obj.name)] = obj.body["value"]
    return found


def _trace_error(file: str, exc: Exception) -> InputError:
    from kqctl.replay.traces import TraceError

    assert isinstance(exc, TraceError)
    return InputError(file, str(exc), line=exc.line, column=exc.column)


# --- Volcano ------------------------------------------------------------------------------------------------


def volcano_snapshot(inputs: LoadResult, scheduler_conf: str | None, traces: list[str],
                     start: datetime) -> VolcanoSnapshot:
    """The Volcano snapshot of the inputs and the traces' vcjobs; runtime annotations checked."""
    from kqctl.cli import volcano as volcano_cli
    from kqctl.k8s.names import is_dns1123_subdomain
    from kqctl.replay.traces import TraceError
    from kqctl.volcano.replay.arrivals import trace_jobs
    from kqctl.volcano.replay.timeline import RuntimeDeclarationError, check_runtimes

    queues = {str(o.name) for o in inputs.objects if o.kind == "Queue" and o.info is not None
              and o.info.scheduler == "volcano"} | {"default"}
    taken = {f"{o.namespace}/{o.name}" for o in inputs.objects if o.kind == "Job"}
    extra: list[LoadedObject] = []
    for file, rows in trace_rows(traces, is_dns1123_subdomain):
        try:
            bodies = trace_jobs(rows, start, queues, _priority_classes(inputs), taken)
        except TraceError as exc:
            raise _trace_error(file, exc) from None
        taken |= {f"{row.namespace}/{row.name}" for row, _ in bodies}
        extra.extend(trace_objects(file, bodies))
    snapshot = volcano_cli.load_snapshot(_with(inputs, extra), scheduler_conf)
    try:
        check_runtimes(snapshot)
    except RuntimeDeclarationError as exc:
        origin = exc.where.origin
        raise InputError(origin.file if origin else "<inputs>", str(exc),
                         line=origin.line if origin and origin.line else None) from None
    return snapshot


def volcano_options(snapshot: VolcanoSnapshot, time: TimeSettings) -> Any:
    from kqctl.volcano.replay.report import VolcanoReplayOptions
    from kqctl.volcano.replay.timeline import DEFAULT_PERIOD_MS, TimelineOptions

    return VolcanoReplayOptions(TimelineOptions(time.start, time.period or DEFAULT_PERIOD_MS, time.runtime, time.seed,
                                                time.arrivals), time.until, time.finish_latency)


def replay_volcano(inputs: LoadResult, scheduler_conf: str | None, traces: list[str], time: TimeSettings,
                   output: str, namespace: str | None, selector: dict[str, Any] | None, view: Any,
                   plot: str | None, progress: Progress) -> int:
    from kqctl.cli import options
    from kqctl.errors import EXIT_OK
    from kqctl.volcano.render.replay import render_replay
    from kqctl.volcano.replay.report import replay_snapshot

    progress.step(f"kqctl: building the Volcano snapshot of {len(inputs.objects):,} objects...", len(inputs.objects))
    snapshot = volcano_snapshot(inputs, scheduler_conf, traces, time.start)
    options.note_namespace(namespace, (g.namespace for g in snapshot.pod_groups.values()), "PodGroup")
    shown = _listed(((g.key, g.namespace, g.labels) for g in snapshot.pod_groups.values()), namespace, selector)
    report = replay_snapshot(snapshot, volcano_options(snapshot, time),
                             on_progress=_progress(progress, len(snapshot.pod_groups), "PodGroups"))
    progress.done()
    render_replay(report, output, sys.stdout, view, shown)
    if plot is not None:
        write_timeline_plots(report, plot)
    return EXIT_OK


# --- YuniKorn -----------------------------------------------------------------------------------------------


def yunikorn_queue_check(path: str) -> list[str]:
    """A queue path as YuniKorn names queues: dot-separated names of letters, digits, ``_`` and ``-``."""
    from kqctl.yunikorn.api.names import is_queue_name_valid

    bad = [part for part in path.split(".") if not is_queue_name_valid(part)]
    return [f"{part!r} is not a YuniKorn queue name (letters, digits, _ and -, at most 64)" for part in bad]


def yunikorn_snapshot(inputs: LoadResult, traces: list[str], start: datetime) -> YuniKornSnapshot:
    """The YuniKorn snapshot of the inputs and the traces' pods; runtime annotations checked."""
    from kqctl.cli.yunikorn import yunikorn_snapshot as build
    from kqctl.replay.traces import TraceError
    from kqctl.yunikorn.replay.arrivals import trace_pods
    from kqctl.yunikorn.replay.timeline import RuntimeDeclarationError, check_runtimes

    snapshot = build(inputs, start)
    if traces:
        partition = _partition(snapshot)
        taken = {pod.key for pod in snapshot.pods}
        extra: list[LoadedObject] = []
        for file, rows in trace_rows(traces, yunikorn_queue_check):
            try:
                bodies = trace_pods(rows, start, _queue_problem(partition), _priority_classes(inputs), taken)
            except TraceError as exc:
                raise _trace_error(file, exc) from None
            taken |= {f"{body['metadata']['namespace']}/{body['metadata']['name']}" for _, body in bodies}
            extra.extend(trace_objects(file, bodies))
        snapshot = build(_with(inputs, extra), start)
    try:
        check_runtimes(snapshot)
    except RuntimeDeclarationError as exc:
        origin = exc.pod.origin
        raise InputError(origin.file if origin else "<inputs>", str(exc),
                         line=origin.line if origin and origin.line else None) from None
    return snapshot


def _partition(snapshot: YuniKornSnapshot) -> Any:
    """The partition simulate builds; one YuniKorn could not build is an input error naming why."""
    from kqctl.yunikorn.engine.partition import PartitionError, build_partition

    try:
        return build_partition(snapshot)
    except PartitionError as exc:
        where = snapshot.config.origin
        raise InputError(where.file if where else snapshot.config.description, str(exc),
                         where.line if where else None) from None


def _queue_problem(partition: Any) -> Callable[[str], str]:
    """Why no application of a trace could run in a queue path ("" when it can: a leaf, or a path placement may
    create because a rule creates queues)."""
    import difflib

    from kqctl.yunikorn.engine.partition import leaf_path

    leaves = sorted(q.path for q in partition.tree.leaves())
    creates = any(getattr(rule, "create", False) for rule in partition.rules or [])

    def problem(path: str) -> str:
        full = leaf_path(path.lower())
        queue = partition.tree.get(full)
        if queue is not None:
            return "" if queue.leaf else f"queue {full} is a parent queue: applications run in leaf queues"
        if creates:
            return ""
        close = difflib.get_close_matches(full, leaves, n=1)
        hint = f"; did you mean {close[0]}?" if close else f"; the leaf queues are: {', '.join(leaves[:10])}"
        return f"queue {full} is not in the configuration and no placement rule creates queues{hint}"

    return problem


def replay_yunikorn(inputs: LoadResult, traces: list[str], time: TimeSettings, output: str, namespace: str | None,
                    selector: dict[str, Any] | None, view: Any, plot: str | None, progress: Progress) -> int:
    from kqctl.cli import options
    from kqctl.errors import EXIT_OK
    from kqctl.yunikorn.render.replay import render_replay

    progress.step(f"kqctl: building the YuniKorn snapshot of {len(inputs.objects):,} objects...", len(inputs.objects))
    snapshot = yunikorn_snapshot(inputs, traces, time.start)
    options.note_namespace(namespace, (pod.namespace for pod in snapshot.pods), "pod")
    items = [(pod.key, pod.namespace, pod.labels) for pod in snapshot.pods]
    pod_shown = _listed(items, namespace, selector)
    shown = None
    if pod_shown is not None:
        keys = {pod.key for pod in snapshot.pods if pod_shown(pod.key)} | \
            {pod.app_id for pod in snapshot.pods if pod_shown(pod.key)}
        shown = keys.__contains__
    report = yunikorn_replay(snapshot, time, _progress(progress, len(snapshot.pods), "pods"))
    progress.done()
    render_replay(report, output, sys.stdout, view, shown)
    if plot is not None:
        write_timeline_plots(report, plot)
    return EXIT_OK


def yunikorn_options(time: TimeSettings) -> Any:
    from kqctl.yunikorn.replay.report import YuniKornReplayOptions
    from kqctl.yunikorn.replay.timeline import TimelineOptions

    return YuniKornReplayOptions(TimelineOptions(time.runtime, time.seed, time.arrivals), time.until,
                                 time.finish_latency)


def yunikorn_replay(snapshot: YuniKornSnapshot, time: TimeSettings,
                    on_progress: Callable[[int, int, int], None] | None = None) -> Any:
    """The replay; a partition YuniKorn could not build is an input error naming why (as simulate says it)."""
    from kqctl.yunikorn.engine.partition import PartitionError
    from kqctl.yunikorn.replay.report import replay_snapshot

    try:
        return replay_snapshot(snapshot, yunikorn_options(time), on_progress)
    except PartitionError as exc:
        where = snapshot.config.origin
        raise InputError(where.file if where else snapshot.config.description, str(exc),
                         where.line if where else None) from None


# --- shared -------------------------------------------------------------------------------------------------


def _listed(items: Iterable[tuple[str, str, Any]], namespace: str | None,
            selector: dict[str, Any] | None) -> Callable[[str], bool] | None:
    """The keys -n and -l list (None: every one)."""
    from kqctl.cli import options

    if namespace is None and selector is None:
        return None
    matches = options.workload_matcher(namespace, selector)
    return {key for key, ns, labels in items if matches(ns, dict(labels))}.__contains__


def _progress(progress: Progress, total: int, what: str) -> Callable[[int, int, int], None]:
    from kqctl.replay.durations import format_duration

    def report(now: int, finished: int, _: int) -> None:
        done = min(BAR, finished * BAR // total) if total else 0
        progress.step(f"kqctl: replaying [{'#' * done}{'.' * (BAR - done)}] {finished:,}/{total:,} {what} done, "
                      f"virtual time {format_duration(now)}", total)

    return report


def write_timeline_plots(report: Any, directory: str) -> list[str]:
    """Every chart of the replay, as SVG and PNG, into ``directory``; says what it wrote on stderr."""
    from kqctl.cli.charts import write_chart_files
    from kqctl.render.replay_charts import charts

    return write_chart_files(charts(report), directory, (".svg", ".png"))


# --- diff -----------------------------------------------------------------------------------------------------


def diff_other(product: str, old_inputs: LoadResult, new_inputs: LoadResult, traces: list[str], replay: bool,
               time: TimeSettings, schedule_period: str | None, scheduler_conf: str | None, output: str,
               fail_on: str | None, namespace: str | None, selector: dict[str, Any] | None, view: Any) -> int:
    """``kqctl diff`` for Volcano or YuniKorn: both sides simulated (and replayed with ``replay``) and compared; with
    ``--fail-on regression`` exit 1 when a workload running before is not after, in the steady state or the replay."""
    from kqctl.cli import options
    from kqctl.errors import EXIT_FINDINGS, EXIT_OK
    from kqctl.render.scheduler_diff import render_diff

    refuse_schedule_period(product, schedule_period, scheduler_conf)
    if not replay and traces:
        # Arrivals only matter to a replay (Volcano's and YuniKorn's steady states read the inputs as they are):
        # without --replay they would silently change nothing. (--runtime and --arrivals: refused before.)
        raise UsageError("--trace shapes the replays: pass --replay with it")
    if product == "Volcano":
        from kqctl.volcano.replay.diff import diff_snapshots as diff_volcano

        old_v = volcano_snapshot(old_inputs, scheduler_conf, traces, time.start)
        new_v = volcano_snapshot(new_inputs, scheduler_conf, traces, time.start)
        items = [(g.key, g.namespace, g.labels) for side in (old_v, new_v) for g in side.pod_groups.values()]
        options.note_namespace(namespace, (item[1] for item in items), "PodGroup")
        report = diff_volcano(old_v, new_v, volcano_options(old_v, time) if replay else None)
    else:
        from kqctl.yunikorn.engine.partition import PartitionError
        from kqctl.yunikorn.replay.diff import diff_snapshots as diff_yunikorn

        old_y = yunikorn_snapshot(old_inputs, traces, time.start)
        new_y = yunikorn_snapshot(new_inputs, traces, time.start)
        pods = [pod for side in (old_y, new_y) for pod in side.pods]
        items = [(pod.key, pod.namespace, pod.labels) for pod in pods]
        options.note_namespace(namespace, (pod.namespace for pod in pods), "pod")
        for side in (old_y, new_y):
            _partition(side)  # a configuration YuniKorn could not build is an input error on its side
        try:
            report = diff_yunikorn(old_y, new_y, yunikorn_options(time) if replay else None)
        except PartitionError as exc:
            raise InputError(new_y.config.description, str(exc)) from None
    shown = _listed(items, namespace, selector)
    if shown is not None and product == "YuniKorn":
        matched = {key for key, _, _ in items if shown(key)}
        matched |= {pod.app_id for pod in pods if pod.key in matched}  # the replay compares applications
        shown = matched.__contains__
    try:
        render_diff(report, output, sys.stdout, view, shown)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    # --fail-on asks about the workloads -n and -l list, as simulate's does.
    regressed = [key for key in report.regressed_keys() if shown is None or shown(key)]
    if fail_on == "regression" and regressed:
        named = ", ".join(regressed[:5]) + (f" and {len(regressed) - 5} more" if len(regressed) > 5 else "")
        sys.stderr.write(f"kqctl: {len(regressed)} workload(s) running before are not running after "
                         f"(--fail-on regression): {named}\n")
        return EXIT_FINDINGS
    return EXIT_OK


# --- plan -----------------------------------------------------------------------------------------------------

def plan_other(product: str, inputs: LoadResult, traces: list[str], time: TimeSettings, schedule_period: str | None,
               scheduler_conf: str | None, scope: str, target: str, field: str | None, resources: list[str],
               steps: list[str], maximum: list[str], study: Study, budget: int, output: str) -> int:
    """``kqctl plan`` for Volcano (capability, deserved, guarantee or weight of a Queue) or YuniKorn (guaranteed or
    max of a queue path). Exit 1 when nothing up to the cap meets the target."""
    from kqctl.cli.executor import Work
    from kqctl.cli.progress import Progress
    from kqctl.errors import EXIT_FINDINGS, EXIT_OK
    from kqctl.render.scheduler_plan import render_plan
    from kqctl.replay.planning import PlanError, search

    refuse_schedule_period(product, schedule_period, scheduler_conf)
    progress = Progress()
    progress.step("kqctl: reading the inputs...")
    if product == "Volcano":
        from kqctl.volcano.render.replay import UNITS as VOLCANO_UNITS
        from kqctl.volcano.replay import plan as volcano_plan

        snapshot: Any = volcano_snapshot(inputs, scheduler_conf, traces, time.start)
        plans: Any = volcano_plan
        replay_options: Any = volcano_options(snapshot, time)
        units = VOLCANO_UNITS
        chosen = field or "capability"
    else:
        from kqctl.yunikorn.render.replay import UNITS as YUNIKORN_UNITS
        from kqctl.yunikorn.replay import plan as yunikorn_plan

        snapshot = yunikorn_snapshot(inputs, traces, time.start)
        _partition(snapshot)  # a configuration YuniKorn could not build is an input error, before any replay
        plans, replay_options, units = yunikorn_plan, yunikorn_options(time), YUNIKORN_UNITS
        chosen = field or "guaranteed"
    try:
        problem = plans.make_problem(snapshot, target, scope, chosen, resources, steps)
    except PlanError as exc:
        raise UsageError(str(exc)) from None
    cap = _cap(maximum, problem, plans.default_cap(snapshot, problem), product)
    work = Work(plans.evaluate, plans.with_seed, snapshot, problem, replay_options)
    with study.open(work, progress) as evaluator:
        result = search(problem, evaluator, cap, budget=budget)  # the same candidates whatever --jobs or --executor
    progress.done()
    render_plan(result, output, sys.stdout, evaluator.workers, units)
    return EXIT_OK if result.answer is not None else EXIT_FINDINGS


def _cap(texts: list[str], problem: Any, default: tuple[int, ...], product: str) -> tuple[int, ...]:
    """--max for the resources it names (in the scheduler's units); the others keep the default cap."""
    given: dict[str, int] = {}
    for text in texts:
        resource, _, amount = text.partition("=")
        value = _amount(product, resource, amount)
        if value is None:
            raise UsageError(f"--max {text!r}: expected RESOURCE=QUANTITY, e.g. cpu=64 or memory=256Gi")
        if resource not in problem.resources:
            raise UsageError(f"--max {text!r}: {resource} is not planned; planned: {', '.join(problem.resources)}")
        given[resource] = value
    planned = zip(problem.resources, default, problem.steps, strict=True)
    return tuple(max(given.get(resource, fallback), step) for resource, fallback, step in planned)


def _amount(product: str, resource: str, text: str) -> int | None:
    if resource == "weight":
        return int(text) if text.isdigit() else None
    try:
        if product == "Volcano":
            from kqctl.volcano.api.resource import resource_list

            return resource_list({resource: text}).get(resource)
        from kqctl.yunikorn.api.resources import parse_config_value

        return parse_config_value(resource, text)
    except ValueError:
        return None
