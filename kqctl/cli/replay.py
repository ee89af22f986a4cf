"""``kqctl replay``: Kueue over time, in virtual time: when each workload gets in and finishes."""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import typer

from kqctl.cli import options, timeline
from kqctl.cli import volcano as volcano_cli
from kqctl.cli.timeline import (  # noqa: F401 (read here by explain, diff and plan too)
    BAR,
    SchedulePeriodOption,
    _duration,
    _single_document,
    is_csv,
    parse_runtime,
)
from kqctl.errors import EXIT_OK, InputError, UsageError

if TYPE_CHECKING:
    from kqctl.cli.progress import Progress
    from kqctl.kueue.api.models import Workload
    from kqctl.kueue.api.snapshot import Snapshot
    from kqctl.kueue.replay.report import KueueReplayOptions, ReplayReport
    from kqctl.load.objects import LoadResult
    from kqctl.render.columns import TableOptions
    from kqctl.replay.traces import TraceRow

HELP = "\n\n".join((
    "Replay Kueue, Volcano or YuniKorn in virtual time: workloads arrive at their creation time (objects dated in "
    "the future, a --trace, or Kueue's own performance --generator config), are admitted by the scheduler's own "
    "cycles (Kueue's scheduling cycles, Volcano's sessions every --schedule-period, YuniKorn's core cycles fed by "
    "its shim), run for their runtime and release what they hold; preempted or reclaimed workloads come back as "
    "the scheduler's controllers bring them back.",
    "Prints per workload (a Kueue Workload, a Volcano PodGroup, a YuniKorn application) the time until it runs and "
    "until it finishes and its evictions, per queue and priority the P50/P95/P99 wait, and per queue the usage "
    "over time. -o summary prints Kueue's performance summary.yaml; --plot DIR writes charts.",
    "Runtimes come from the annotation kqctl.dev/runtime (on a Workload or its Job, a PodGroup or vcjob, a pod, "
    "e.g. 45m), Kueue's performance label, the trace, or --runtime. Kueue's controller speed is --cycle-latency "
    "(default: calibrated against Kueue's published performance runs; see the README). Deterministic: the same "
    "inputs and --seed give the same replay.",
))

EXAMPLES = options.examples(
    "kqctl replay samples/replay --trace samples/replay/arrivals.csv --now 2026-09-14T09:00:00Z",
    "kqctl replay samples/replay --trace samples/replay/arrivals.csv --now 2026-09-14T09:00:00Z -n team-a",
    "kqctl replay samples/volcano-two-teams --trace samples/volcano-two-teams/arrivals.csv --runtime 30m "
    "--now 2026-01-01T12:00:00Z",
    "kqctl replay samples/yunikorn-priority --trace samples/yunikorn-priority/arrivals.csv --runtime 30m "
    "--now 2026-01-01T12:00:00Z",
    "kqctl replay samples/cohort-borrowing samples/submit-jobs --runtime 45m",
    "kqctl replay samples/replay --trace samples/replay/arrivals.csv -o json",
    "kqctl replay --generator examples/kueue-generator.yaml -o summary  # Kueue's generator format",
    "kqctl replay --from-cluster --runtime 'lognormal(30m,0.8)' --plot charts/",
)

RuntimeOption = typer.Option(None, "--runtime", metavar="DIST",
                             help="Runtime of workloads that declare none: a duration (45m) or uniform(10m,1h), "
                                  "exponential(30m), lognormal(20m,0.8). Default: none (they never finish).")
CycleLatencyOption = typer.Option("calibrated", "--cycle-latency", metavar="MODEL",
                                  help="How long Kueue's controller takes: 'calibrated' (API writes at 50/s, burst "
                                       "100, plus CPU per cycle and head), a fixed duration per cycle (50ms), or "
                                       "qps=N,burst=N,per-cycle=DUR,per-head=DUR.")
FinishLatencyOption = typer.Option("0s", "--finish-latency", metavar="DURATION",
                                   help="Time between a workload's end and the release of its quota.")
SeedOption = typer.Option(0, "--seed", metavar="N",
                          help="Seed for everything drawn at random (runtimes, arrivals, UIDs).")
ArrivalsOption = typer.Option(None, "--arrivals", metavar="DRAW",
                              help="Draw the arrivals' times (with --seed) instead of taking them as dated: "
                                   "jitter(10m) moves each by up to 10m either way, poisson keeps the arrivals, their "
                                   "order and span at the times of a Poisson process. Default: as dated.")
TraceOption = typer.Option(None, "--trace", metavar="FILE",
                           help="Arrivals: CSV or YAML rows of time, namespace, queue (a Kueue LocalQueue, a Volcano "
                                "Queue, a YuniKorn queue path), priority, pods, requests, runtime (repeatable; '-' "
                                "reads stdin, CSV or YAML told by its first line).")
GeneratorOption = typer.Option(None, "--generator", metavar="FILE",
                               help="Kueue's scheduler performance config (a generator.yaml of its "
                                    "test/performance/scheduler/configs) instead of PATHs.")
UntilOption = typer.Option(None, "--until", metavar="DURATION", help="Stop the replay after this much virtual time.")


@dataclass(frozen=True)
class ReplaySettings:
    """The replay options every command that replays shares."""

    runtime: str | None
    cycle_latency: str
    finish_latency: str
    seed: int
    until: str | None
    fair_sharing: bool | None
    feature_gates: str | None
    arrivals: str | None = None

    def options(self) -> KueueReplayOptions:
        from kqctl.cli.simulate import simulation_options
        from kqctl.kueue.replay.report import KueueReplayOptions
        from kqctl.kueue.replay.throughput import parse_throughput
        from kqctl.kueue.replay.timeline import TimelineOptions
        from kqctl.replay.durations import DurationError

        gates = simulation_options(None, self.fair_sharing, self.feature_gates, None).gates
        try:
            throughput = parse_throughput(self.cycle_latency)
        except DurationError as exc:
            raise UsageError(f"--cycle-latency: {exc}") from None
        finish = _duration("--finish-latency", self.finish_latency)
        until = _duration("--until", self.until) if self.until is not None else None
        if until is not None and until <= 0:
            raise UsageError("--until must be longer than 0")
        drawn = timeline.parse_arrivals_option(self.arrivals)
        return KueueReplayOptions(TimelineOptions(gates, self.fair_sharing, throughput, parse_runtime(self.runtime),
                                                  self.seed, arrivals=drawn), until, finish)


REPLAY_FORMATS = ("table", "wide", "json", "yaml", "summary")
# As on simulate, -n and -l choose what is listed, never what is replayed.
LISTED = "as on simulate, the replay and its percentiles and usage still cover every workload"


def replay_command(
    paths: list[str] | None = options.PathsArgument,
    filenames: list[str] | None = options.FilenameOption,
    recursive: bool = options.RecursiveOption,
    generator: str | None = GeneratorOption,
    traces: list[str] | None = TraceOption,
    runtime: str | None = RuntimeOption,
    cycle_latency: str = CycleLatencyOption,
    finish_latency: str = FinishLatencyOption,
    until: str | None = UntilOption,
    seed: int = SeedOption,
    arrivals: str | None = ArrivalsOption,
    fair_sharing: bool | None = typer.Option(None, "--fair-sharing/--no-fair-sharing",
                                             help="Force fair sharing on or off (default: as the Kueue "
                                                  "Configuration in the inputs says; off without one)."),
    feature_gates: str | None = typer.Option(None, "--feature-gates", metavar="NAME=BOOL,...",
                                             help="Kueue feature gates, e.g. SchedulingEquivalenceHashing=false."),
    now: str | None = typer.Option(None, "--now", metavar="TIME",
                                   help="When the replay starts (RFC 3339); default: now (the generator: "
                                        "2026-01-01T00:00:00Z)."),
    output: str = typer.Option("table", "-o", "--output", metavar="FORMAT",
                               help="table, wide, json, yaml or summary (Kueue's performance summary.yaml)."),
    plot: str | None = typer.Option(None, "--plot", metavar="DIR",
                                    help="Also write charts to DIR: usage over time per ClusterQueue and cohort, "
                                         "time to admission per priority (each as SVG and PNG)."),
    namespace: str | None = options.namespace_option(LISTED),
    all_namespaces: bool = options.AllNamespacesOption,
    selector: str | None = options.selector_option(LISTED),
    no_headers: bool = options.NoHeadersOption,
    sort_by: str | None = options.SortByOption,
    limit: int = options.LimitOption,
    show_all: bool = options.ShowAllOption,
    strict: bool = options.StrictOption,
    color: str = options.ColorOption,
    sets: list[str] | None = options.SetOption,
    override: bool = options.OverrideOption,
    from_cluster: bool = options.FromClusterOption,
    context: str | None = options.ContextOption,
    kubeconfig: str | None = options.KubeconfigOption,
    scheduler: str | None = options.SchedulerOption,
    as_given: bool = options.AsGivenOption,
    cache: str | None = options.ReadCacheOption,
    scheduler_conf: str | None = volcano_cli.SchedulerConfOption,
    schedule_period: str | None = SchedulePeriodOption,
    yunikorn_namespace: str | None = options.YunikornNamespaceOption,
) -> None:
    from kqctl.cli.progress import Progress
    from kqctl.kueue.replay.report import replay_snapshot
    from kqctl.render.columns import TableOptions
    from kqctl.render.output import check_output

    check_output(output, REPLAY_FORMATS)
    parsed_selector = options.check_workload_filter(namespace, all_namespaces, selector)
    # Every usage error before anything is read (a cluster's listing can take minutes).
    if output == "summary" and (namespace is not None or parsed_selector is not None):
        raise UsageError("-n and -l choose the workloads listed; -o summary lists none (Kueue's summary covers "
                         "every workload)")
    settings = ReplaySettings(runtime, cycle_latency, finish_latency, seed, until, fair_sharing, feature_gates,
                              arrivals)
    replay_options = settings.options()
    time = timeline.settings(runtime, finish_latency, until, seed, now, schedule_period, arrivals)
    if plot is not None:
        check_plot_directory(plot)
    loaded = None
    if generator is not None and cache is not None:
        raise UsageError("--generator builds its own cluster: --cache keeps files read, not with --generator")
    if generator is None:
        loaded, product = scheduler_inputs(paths, filenames, recursive, strict, sets, override, from_cluster, context,
                                           kubeconfig, scheduler, yunikorn_namespace, as_given, cache)
        if product != "Kueue":
            refuse_kueue_replay_options(product, cycle_latency, fair_sharing, feature_gates, output, as_given)
            raise typer.Exit(replay_other(product, loaded, traces or [], time, schedule_period, scheduler_conf,
                                          output, namespace, parsed_selector, plot,
                                          TableOptions(headers=not no_headers, sort_by=sort_by,
                                                       limit=options.row_limit(limit, show_all), color=color)))
    timeline.refuse_schedule_period("Kueue", schedule_period, None)
    volcano_cli.refuse_volcano_options(scheduler_conf)
    progress = Progress()
    progress.step("kqctl: reading the inputs...")
    snapshot = replay_input(paths, filenames, recursive, generator, traces, now, seed, strict, sets, override,
                            from_cluster, context, kubeconfig, scheduler, as_given=as_given, loaded=loaded)
    options.note_namespace(namespace, (w.namespace for w in snapshot.workloads))
    shown = listed(snapshot, namespace, parsed_selector)
    report = replay_snapshot(snapshot, replay_options, on_progress=progress_reporter(progress, snapshot))
    progress.done()
    view = TableOptions(headers=not no_headers, sort_by=sort_by, limit=options.row_limit(limit, show_all), color=color)
    from kqctl.kueue.render.replay import render_replay

    render_replay(report, output, sys.stdout, view, shown)
    if plot is not None:
        write_plots(report, plot)
    raise typer.Exit(EXIT_OK)


def scheduler_inputs(paths: list[str] | None, filenames: list[str] | None, recursive: bool, strict: bool,
                     sets: list[str] | None, override: bool, from_cluster: bool, context: str | None,
                     kubeconfig: str | None, scheduler: str | None,
                     yunikorn_namespace: str | None, as_given: bool = False,
                     cache: str | None = None) -> tuple[LoadResult, str]:
    """The inputs (files, cluster, --set) through the gate, as simulate admits them, and the product of the
    scheduler they are for (Kueue, Volcano, YuniKorn); ``cache``: --cache DIR."""
    from kqctl.cli.schedulers import choose

    inputs = options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig, sets,
                                 override, scheduler, yunikorn_namespace=yunikorn_namespace, as_given=as_given,
                                 cache=cache)
    return inputs, choose(scheduler, inputs.objects).product


def refuse_kueue_replay_options(product: str, cycle_latency: str, fair_sharing: bool | None,
                                feature_gates: str | None, output: str | None = None, as_given: bool = False) -> None:
    """Kueue's replay options for another scheduler's inputs: a usage error, never a silent no-op (--as-given
    too, as simulate refuses it: Volcano's and YuniKorn's objects are always read as the API server stores them)."""
    if output == "summary":
        raise UsageError(f"-o summary is Kueue's performance summary.yaml; the input is {product}'s (-o json has "
                         "every figure)")
    timeline.refuse_kueue_options(product, cycle_latency=None if cycle_latency == "calibrated" else cycle_latency,
                                  fair_sharing=fair_sharing, feature_gates=feature_gates, as_given=as_given)


def replay_other(product: str, inputs: LoadResult, traces: list[str], time: timeline.TimeSettings,
                 schedule_period: str | None, scheduler_conf: str | None, output: str, namespace: str | None,
                 selector: dict[str, Any] | None, plot: str | None, view: TableOptions) -> int:
    """``kqctl replay`` for Volcano or YuniKorn."""
    from kqctl.cli.progress import Progress

    timeline.refuse_schedule_period(product, schedule_period, scheduler_conf)
    progress = Progress()
    if product == "Volcano":
        return timeline.replay_volcano(inputs, scheduler_conf, traces, time, output, namespace, selector, view, plot,
                                       progress)
    return timeline.replay_yunikorn(inputs, traces, time, output, namespace, selector, view, plot, progress)


def listed(snapshot: Snapshot, namespace: str | None, selector: dict[str, Any] | None) -> Callable[[str], bool] | None:
    """The workloads -n and -l list, by key, judged on the snapshot's workloads (arrivals of a trace included);
    None lists every one."""
    if namespace is None and selector is None:
        return None
    matches = options.workload_matcher(namespace, selector)
    return {w.key for w in snapshot.workloads if matches(w.namespace, w.labels)}.__contains__


def progress_reporter(progress: Progress, snapshot: Snapshot) -> Callable[[int, int, int], None]:
    from kqctl.replay.durations import format_duration

    total = len(snapshot.workloads)

    def report(now: int, finished: int, _: int) -> None:
        done = min(BAR, finished * BAR // total) if total else 0
        # Short enough for 80 columns up to millions of workloads (the progress line cuts what does not fit).
        progress.step(f"kqctl: replaying [{'#' * done}{'.' * (BAR - done)}] {finished:,}/{total:,} done, "
                      f"virtual time {format_duration(now)}", total)

    return report


def check_plot_directory(path: str) -> None:
    import os

    if not path.strip():
        raise UsageError("--plot needs a directory to write the charts into, e.g. --plot charts/")
    if os.path.exists(path) and not os.path.isdir(path):
        raise UsageError(f"--plot {path!r}: not a directory (charts are written into a directory)")


def write_plots(report: ReplayReport, directory: str) -> list[str]:
    """Every chart of the replay, as SVG and PNG, into ``directory``; says what it wrote on stderr."""
    from kqctl.cli.charts import write_chart_files
    from kqctl.kueue.render.replay import charts

    return write_chart_files(charts(report), directory, (".svg", ".png"))


def replay_input(paths: list[str] | None, filenames: list[str] | None, recursive: bool, generator: str | None,
                 traces: list[str] | None, now: str | None, seed: int, strict: bool, sets: list[str] | None,
                 override: bool, from_cluster: bool, context: str | None, kubeconfig: str | None,
                 scheduler: str | None, command: str = "replay", as_given: bool = False,
                 loaded: LoadResult | None = None) -> Snapshot:
    """The snapshot to replay: Kueue's generator config, or the inputs (files, cluster; ``loaded`` when already
    read), plus traces. ``as_given``: the objects as written (--as-given), not as the API server stores them."""
    from kqctl.cli.simulate import load_snapshot, parse_now

    if generator is not None:
        if paths or filenames or from_cluster or sets or as_given:
            raise UsageError("--generator builds its own cluster: pass no PATHs, -f, --from-cluster, --set or "
                             "--as-given with it")
        start = parse_now(now) if now is not None else None
        snapshot = generator_snapshot(generator, start, seed)
    else:
        start = parse_now(now)
        inputs = loaded or options.load_inputs(paths, filenames, recursive, strict, from_cluster, context, kubeconfig,
                                               sets, override, scheduler, as_given=as_given)
        snapshot = load_snapshot(inputs, scheduler, start, command, as_given=as_given)
    add_traces(snapshot, traces or [], seed)
    check_runtimes(snapshot)
    return snapshot


def check_runtimes(snapshot: Snapshot) -> None:
    """A runtime annotation or label that does not parse (or is past the bound) is an input error at its Workload."""
    from kqctl.kueue.replay.runtimes import RuntimeDeclarationError, declared_runtime

    for workload in snapshot.workloads:
        try:
            declared_runtime(workload)
        except RuntimeDeclarationError as exc:
            origin = workload.origin
            raise InputError(origin.file if origin else "<inputs>", str(exc),
                             line=origin.line if origin and origin.line else None) from None


def generator_snapshot(path: str, start: datetime | None, seed: int) -> Snapshot:
    from kqctl.kueue.engine.simulation import DEFAULT_NOW
    from kqctl.kueue.replay.generator import GeneratorError, build_snapshot, parse_generator

    document = _single_document(path, "a generator config")
    if isinstance(document.body, dict) and ("kind" in document.body or "apiVersion" in document.body):
        raise InputError(document.origin.file, "a Kubernetes manifest, not Kueue's generator.yaml (cohorts: ...); "
                         "pass manifests as PATHs", line=document.line_of(()))
    try:
        config = parse_generator(document.body)
    except GeneratorError as exc:
        raise InputError(document.origin.file, str(exc), line=document.line_of(exc.path)) from None
    return build_snapshot(config, start or DEFAULT_NOW, seed)


def add_traces(snapshot: Snapshot, traces: list[str], seed: int) -> None:
    from kqctl.kueue.engine.simulation import DEFAULT_NOW
    from kqctl.kueue.replay.arrivals import add_trace
    from kqctl.load.documents import decode_text
    from kqctl.load.sources import read_source
    from kqctl.replay.traces import TraceError, parse_csv_trace, parse_yaml_trace

    start = snapshot.now or DEFAULT_NOW
    for path in traces:
        source = read_source(path)
        text = decode_text(source.data, source.name)
        if not text.strip():
            raise InputError(source.name, "an empty trace: expected CSV with a header row (time,namespace,queue,"
                             "...) or a YAML list of arrivals")
        try:
            if is_csv(source.name, text):
                rows = parse_csv_trace(text)
            else:
                document = _single_document(path, "a trace (CSV with a header row, or a YAML list)", text,
                                            source.name)
                body = document.body
                lines = [document.line_of((i,)) for i in range(len(body))] if isinstance(body, list) else None
                rows = parse_yaml_trace(body, lines)
            added = add_trace(snapshot, rows, source.name, start, seed)
        except TraceError as exc:
            raise InputError(source.name, str(exc), line=exc.line, column=exc.column) from None
        _admit_trace_workloads(source.name, added)


def _admit_trace_workloads(file: str, added: list[tuple[TraceRow, Workload]]) -> None:
    """The Workloads a trace submits through the one gate, as the API server would take them: what it would refuse
    is refused at the trace's row, worded as validate words it (the trace reader has checked names, quantities
    and references already; the LocalQueue and priority class are the inputs', checked against them)."""
    from kqctl.cli.options import admitted
    from kqctl.cli.timeline import at_trace_rows, trace_objects
    from kqctl.kueue.replay.arrivals import workload_manifest
    from kqctl.load.objects import LoadResult

    if added:
        bodies = [(row, workload_manifest(workload)) for row, workload in added]
        with at_trace_rows({file}):
            admitted(LoadResult(trace_objects(file, bodies), [], [file]), "kueue")
